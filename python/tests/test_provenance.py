"""Provenance: whether a Triton kernel's work reached the tensors a candidate returned."""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kbx_worker.provenance import Provenance, _near_copy


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


@triton.jit
def _nothing(x_ptr):
    pass


@triton.jit
def _axpb_kernel(src_ptr, dst_ptr, n, a, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(src_ptr + offs, mask=mask).to(tl.float32) * a + b
    tl.store(dst_ptr + offs, v.to(dst_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _copy2d_kernel(src_ptr, dst_ptr, M, N, s0, s1, off, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < M * N
    i = offs // N
    j = offs % N
    tl.store(dst_ptr + offs, tl.load(src_ptr + off + i * s0 + j * s1, mask=mask), mask=mask)


@triton.jit
def _column_min_kernel(src_ptr, dst_ptr, M, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    acc = tl.load(src_ptr + cols, mask=mask, other=float("inf"))
    for i in range(1, M):
        acc = tl.minimum(acc, tl.load(src_ptr + i * N + cols, mask=mask, other=float("inf")))
    tl.store(dst_ptr + cols, acc, mask=mask)


def _triton_gather2d(src, m, n, s0, s1, off=0):
    """out[i, j] = src's flat element off + i * s0 + j * s1 (src given contiguous, as a pointer)."""
    out = torch.empty((m, n), dtype=src.dtype)
    _copy2d_kernel[(triton.cdiv(m * n, 64),)](src, out, m, n, s0, s1, off, BLOCK=64)
    return out


def _triton_axpb(x, a, b, dtype=None):
    out = torch.empty(x.shape, dtype=dtype or x.dtype)
    _axpb_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), a, b, BLOCK=64)
    return out


def _triton_copy(x):
    return _triton_axpb(x, 1.0, 0.0)


def _triton_relu(x):
    out = torch.empty_like(x)
    _relu_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    return out


def _follow(launches, fn, *args):
    follow = Provenance(launches, args)
    with follow:
        value = fn(*args)
    return follow, value


def test_a_kernels_output_and_what_is_computed_from_it_carry_its_work(launches):
    x = torch.randn(100)
    follow, value = _follow(launches, lambda t: _triton_relu(t) * 2 + 1, x)
    assert follow.contributed(value) is True
    assert torch.equal(value, torch.relu(x) * 2 + 1)
    assert follow.torch_ops >= 2


def test_pytorch_work_beside_a_token_launch_does_not(launches):
    def token(t):
        _nothing[(1,)](torch.empty(1))
        return torch.relu(t)

    follow, value = _follow(launches, token, torch.randn(100))
    assert follow.contributed(value) is False


def test_copying_pytorchs_result_over_a_kernels_buffer_clears_the_mark(launches):
    def overwrite(t):
        out = _triton_relu(t)
        out.copy_(torch.relu(t))
        return out

    follow, value = _follow(launches, overwrite, torch.randn(100))
    assert follow.contributed(value) is False


def test_a_kernel_that_only_copies_pytorchs_result_does_not_carry_the_mark(launches):
    x = torch.randn(100)
    follow, value = _follow(launches, lambda t: _triton_copy(torch.softmax(t, 0)), x)
    assert torch.equal(value, torch.softmax(x, 0))  # the copy ran
    assert follow.contributed(value) is False


def test_a_nudged_or_cast_copy_of_pytorchs_result_does_not_carry_it_either(launches):
    x = torch.randn(100)
    for a, b, dtype in ((1.0 + 1e-7, 0.0, None), (1.0, 1e-30, None), (1.0, 0.0, torch.float16),
                        (1.0, 5e-6, None), (1.0 + 1e-4, 0.0, None)):
        follow, value = _follow(launches, lambda t: _triton_axpb(torch.softmax(t, 0), a, b, dtype),
                                x)
        assert torch.allclose(value.float(), torch.softmax(x, 0), rtol=1e-3, atol=1e-5)
        assert follow.contributed(value) is False, (a, b, dtype)
    # An epilogue that changes the values (a bias, a scale) is Triton's work.
    for a, b in ((1.0, 0.5), (2.0, 0.0), (1.01, 0.0)):
        follow, value = _follow(launches, lambda t: _triton_axpb(torch.softmax(t, 0), a, b), x)
        assert follow.contributed(value) is True, (a, b)


def test_a_kernel_that_nudges_pytorchs_result_in_place_does_not_carry_it(launches):
    def nudge(t, a, b):
        out = torch.softmax(t, 0)
        _axpb_kernel[(triton.cdiv(out.numel(), 64),)](out, out, out.numel(), a, b, BLOCK=64)
        return out

    x = torch.randn(100)
    follow, value = _follow(launches, lambda t: nudge(t, 1.0 + 1e-6, 0.0), x)
    assert not torch.equal(value, torch.softmax(x, 0))  # bytes changed: the kernel ran
    assert follow.contributed(value) is False
    follow, value = _follow(launches, lambda t: nudge(t, 2.0, 0.0), x)  # real work, in place
    assert follow.contributed(value) is True
    # An input the call was given, rewritten in place by a kernel, is the kernel's work.
    follow, value = _follow(launches, lambda t: (_axpb_kernel[(2,)](t, t, t.numel(), 1.0 + 1e-6,
                                                                     0.0, BLOCK=64), t)[1],
                            torch.randn(100))
    assert follow.contributed(value) is True


def test_a_near_copy_keeps_nans_and_infinities_where_the_source_has_them():
    src = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), 0.0, -2.5])
    assert _near_copy(src.clone(), src)
    assert _near_copy(src * (1 + 1e-6), src)
    assert _near_copy(src.half(), src)
    for i, v in ((0, float("nan")), (1, 1.0), (2, -float("inf")), (3, 5.0), (5, -2.6)):
        other = src.clone()
        other[i] = v
        assert not _near_copy(other, src), (i, v)
    assert _near_copy(torch.full((3,), float("nan")), torch.full((3,), float("nan")))


def test_a_kernel_that_is_the_identity_on_the_calls_inputs_carries_it(launches):
    # relu of positive inputs returns them unchanged: the kernel still did the work.
    x = torch.rand(100) + 0.5
    follow, value = _follow(launches, _triton_relu, x)
    assert torch.equal(value, x)
    assert follow.contributed(value) is True
    # So does a copy of what a kernel computed, and a kernel that computes from PyTorch's result.
    follow, value = _follow(launches, lambda t: _triton_copy(_triton_relu(t)), torch.randn(100))
    assert follow.contributed(value) is True
    follow, value = _follow(launches, lambda t: _triton_relu(torch.softmax(t, 0) - 0.01),
                            torch.randn(100))
    assert follow.contributed(value) is True


def test_a_kernel_that_transposes_or_slices_pytorchs_result_does_not_carry_it(launches):
    x = torch.randn(8, 12)

    def transposed(t):  # PyTorch computes softmax(x)^T; the kernel only transposes it back
        r = torch.softmax(t.t(), 1).contiguous()  # (12, 8)
        return _triton_gather2d(r, 8, 12, 1, 8)

    follow, value = _follow(launches, transposed, x)
    assert torch.allclose(value, torch.softmax(x, 0))
    assert follow.contributed(value) is False

    def sliced(t):  # a larger PyTorch result, of which the kernel copies columns 5..16
        r = torch.softmax(torch.cat([t, t * 0.5], 1), 1)  # (8, 24)
        return _triton_gather2d(r, 8, 12, 24, 1, off=5)

    follow, value = _follow(launches, sliced, x)
    assert follow.contributed(value) is False

    def prefix(t):  # the first 8 x 12 elements of a flat PyTorch result
        r = torch.relu(torch.cat([t.reshape(-1), t.reshape(-1)[:7]]))
        return _triton_gather2d(r, 8, 12, 12, 1)

    follow, value = _follow(launches, prefix, x)
    assert follow.contributed(value) is False
    # Transposing the call's own input, or a copy of it, is the kernel's work (a permute task).
    follow, value = _follow(launches, lambda t: _triton_gather2d(t, 12, 8, 1, 12), x)
    assert torch.equal(value, x.t()) and follow.contributed(value) is True
    follow, value = _follow(launches,
                            lambda t: _triton_gather2d(t.t().contiguous().float(), 8, 12, 1, 8), x)
    assert torch.equal(value, x) and follow.contributed(value) is True
    # So is computing from a slice of PyTorch's result.
    follow, value = _follow(launches, lambda t: _triton_relu(torch.softmax(t, 1)[:, 2:10] - 0.05),
                            x)
    assert follow.contributed(value) is True


def test_the_view_rules_on_integers_and_on_a_few_outputs(launches):
    # An integer PyTorch result transposed back by a kernel is still PyTorch's.
    x = torch.randn(6, 10)
    follow, value = _follow(launches,
                            lambda t: _triton_gather2d(torch.argsort(t.t(), 1).contiguous(),
                                                       6, 10, 1, 6), x)
    assert torch.equal(value, torch.argsort(x.t(), 1).t())
    assert follow.contributed(value) is False
    # A few outputs that happen to equal the start of a PyTorch result the kernel reduced (a
    # minimum that sits first) are the kernel's work: the slice rules need 16 elements or more.
    def row_min(t):
        r = torch.abs(t)  # PyTorch's part; the kernel takes each column's minimum
        out = torch.empty(r.shape[1])
        _column_min_kernel[(1,)](r, out, r.shape[0], r.shape[1], BLOCK=16)
        return out

    x = torch.rand(4, 8) + 1.0
    x[0] = 0.5  # the first row holds every column's minimum
    follow, value = _follow(launches, row_min, x)
    assert torch.equal(value, x[0]) and follow.contributed(value) is True


def test_a_view_of_an_input_is_still_the_input_and_out_writes_are_pytorchs(launches):
    # relu of positive inputs through a view: the kernel still did the work.
    x = torch.rand(10, 10) + 0.5
    follow, value = _follow(launches, lambda t: _triton_relu(t.view(-1)), x)
    assert torch.equal(value, x.view(-1)) and follow.contributed(value) is True
    # PyTorch writing its result over a kernel's buffer through out= clears the mark.
    def overwrite(t):
        buf = _triton_relu(t)
        torch.mul(t, 2.0, out=buf)
        return buf

    follow, value = _follow(launches, overwrite, torch.randn(100))
    assert follow.contributed(value) is False


def test_work_done_out_of_the_dispatch_modes_sight_is_not_the_kernels(launches):
    import threading

    def in_a_thread(fn):
        box = []
        worker = threading.Thread(target=lambda: box.append(fn()))
        worker.start()
        worker.join()
        return box[0]

    x = torch.randn(100)
    # PyTorch's result made in another thread, then copied by a kernel.
    follow, value = _follow(launches, lambda t: _triton_copy(in_a_thread(lambda: torch.softmax(t, 0))),
                            x)
    assert torch.equal(value, torch.softmax(x, 0)) and follow.contributed(value) is False

    # A buffer made in sight, filled out of sight, then copied or nudged in place by a kernel.
    def filled(t, nudge):
        buf = torch.empty_like(t)
        in_a_thread(lambda: buf.copy_(torch.softmax(t, 0)))
        if nudge:
            _axpb_kernel[(triton.cdiv(buf.numel(), 64),)](buf, buf, buf.numel(), 1.0 + 1e-6, 0.0,
                                                          BLOCK=64)
            return buf
        return _triton_copy(buf)

    for nudge in (False, True):
        follow, value = _follow(launches, filled, x, nudge)
        assert follow.contributed(value) is False, nudge
    # An uninitialised buffer may hold a result another thread computed and freed; and a freed
    # buffer a kernel wrote may not lend its standing to whatever takes its address next.
    def reused(t):
        in_a_thread(lambda: torch.softmax(t, 0))
        buf = torch.empty_like(t)
        _axpb_kernel[(triton.cdiv(buf.numel(), 64),)](buf, buf, buf.numel(), 1.0 + 1e-6, 0.0,
                                                      BLOCK=64)
        return buf

    def stale_mark(t):
        _triton_relu(t)  # marked, then freed
        return _triton_copy(in_a_thread(lambda: torch.softmax(t, 0)))

    for fn in (reused, stale_mark):
        follow, value = _follow(launches, fn, x)
        assert follow.contributed(value) is False, fn.__name__
    # Fresh buffers as the call's own thread made them are no one's work: a kernel writing over
    # one, or copying from a constant one, does its own.
    follow, value = _follow(launches, lambda t: _triton_axpb(torch.zeros_like(t), 1.0, 0.0), x)
    assert follow.contributed(value) is True

    def accumulate(t):
        buf = torch.zeros_like(t)
        _axpb_kernel[(triton.cdiv(t.numel(), 64),)](t, buf, t.numel(), 2.0, 0.0, BLOCK=64)
        return buf

    follow, value = _follow(launches, accumulate, x)
    assert follow.contributed(value) is True


def test_views_of_a_kernels_output_and_empty_results(launches):
    follow, value = _follow(launches, lambda t: _triton_relu(t).view(10, 10).t(), torch.randn(100))
    assert follow.contributed(value) is True
    follow, value = _follow(launches, lambda t: (torch.empty(0), None), torch.randn(3))
    assert follow.contributed(value) is None


def test_launches_stop_being_watched_after_the_call(launches):
    follow, _ = _follow(launches, _triton_relu, torch.randn(8))
    before = launches()
    _triton_relu(torch.randn(8))
    assert launches() == before + 1
    assert launches._observer[0] is None


def test_the_dispatch_mode_leaves_dynamo_unloaded_until_a_candidate_loads_it():
    # torch wraps a dispatch mode's handler in torch._disable_dynamo, whose first call imported
    # torch._dynamo (seconds of every zygote start); the mode now asks for the wrapper only where
    # dynamo is already loaded, and there it still gets it. A fresh interpreter: this one may
    # have imported dynamo already.
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import sys, torch
        from kbx_worker import hooks, provenance
        provenance.warm_up()
        with provenance.Provenance(hooks.Launches([0], [None], [None])) as p:
            torch.ones(3).mul(2)
        print("torch._dynamo" in sys.modules, p.torch_ops > 0)
        import torch._dynamo
        from torch.utils._python_dispatch import TorchDispatchMode
        class Mode(TorchDispatchMode):
            _should_skip_dynamo = classmethod(provenance._dynamo_loaded)
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))
        print(hasattr(Mode.__dict__["__torch_dispatch__"], "__wrapped__"))  # torch's wrapper
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "False True"
    assert out[1] == "True"
