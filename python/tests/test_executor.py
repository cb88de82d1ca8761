"""Executor: loading source, finding the entry, running cases, counting Triton launches."""

from __future__ import annotations

import inspect
import textwrap

import pytest
import torch

from kbx_worker import executor
from kbx_worker.errors import WorkerError, error_object

TRITON_ADD = textwrap.dedent('''
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + y, mask=mask)


    def add(x, y):
        out = torch.empty_like(x)
        n = x.numel()
        _add_kernel[(triton.cdiv(n, 32),)](x, y, out, n, BLOCK=32)
        return out
''')

TORCH_ONLY = textwrap.dedent('''
    import torch

    def scale_(x, factor):
        x.mul_(factor)
        return {"sum": x.sum(), "factor": factor}

    def fail_if_negative(x, factor):
        if factor < 0:
            raise ValueError("negative factor")
        return x * factor
''')


def tensor(shape, init="randn", dtype="float32"):
    return {"tensor": {"shape": shape, "dtype": dtype, "init": init}}


def case(index, args, kwargs=None, mutated=(), seed=None):
    return {"index": index, "seed": 1000 + index if seed is None else seed, "args": args,
            "kwargs": kwargs or {}, "mutated_args": list(mutated)}


def load(source, entry_names, filename="Cat/task.py", builders=None):
    module = executor.load_source(source, filename, "kbx_test")
    name, entry = executor.find_entry(module, entry_names)
    return executor.Loaded(module, name, entry, builders)


def kind_of(call) -> str:
    with pytest.raises(WorkerError) as e:
        call()
    return error_object(e.value)["kind"]


def test_triton_kernel_runs_under_the_interpreter_and_counts_launches(launches):
    loaded = load(TRITON_ADD, ["missing", "add"])
    assert loaded.entry_name == "add"
    x = tensor([100])
    run = executor.run_cases(loaded, "cpu", [case(0, [x, x]), case(1, [x, x])], launches)
    assert [r["status"] for r in run.results] == ["ok", "ok"]
    assert [r["triton_launches"] for r in run.results] == [1, 1]
    assert run.triton_launches == 2
    leaf = run.results[0]["outputs"][0]["tensor"]
    out = torch.frombuffer(bytearray(b"".join(bytes(v) for v in run.payload.views)),
                           dtype=torch.float32)[:100]
    assert leaf["shape"] == [100]
    from kbx_worker.values import ValueBuilder

    a, _ = ValueBuilder(1000, "cpu").build_call([x, x], {})
    torch.testing.assert_close(out, a[0] + a[1])


def test_loaded_source_is_visible_to_inspect_as_triton_needs_on_the_gpu_path():
    from triton.runtime.jit import JITFunction

    loaded = load(TRITON_ADD, ["add"], filename="Math/add.py")
    raw = loaded.module._add_kernel.fn
    assert loaded.module.__file__ == "Math/add.py"
    assert inspect.getsource(loaded.entry).startswith("def add(x, y):")
    jit = JITFunction(raw)  # what @triton.jit builds without TRITON_INTERPRET
    assert jit.src.startswith("def _add_kernel(")
    assert jit.cache_key


def test_source_survives_linecache_being_cleared():
    import linecache

    loaded = load("def add(x, y):\n    return x + y\n", ["add"], filename="Cleared/add.py")
    linecache.checkcache()
    linecache.clearcache()
    assert inspect.getsource(loaded.entry) == "def add(x, y):\n    return x + y\n"


def test_torch_only_entry_counts_no_launches_and_reports_mutated_args(launches):
    loaded = load(TORCH_ONLY, ["scale_"])
    run = executor.run_cases(loaded, "cpu",
                             [case(0, [tensor([4], "ones")], {"factor": 3.0}, mutated=[0])],
                             launches)
    result = run.results[0]
    assert result["status"] == "ok" and result["triton_launches"] == 0
    assert [leaf["path"] for leaf in result["outputs"]] == ["out['factor']", "out['sum']", "arg0"]
    assert result["outputs"][0]["value"] == 3.0
    assert bytes(run.payload.views[-1]) == torch.full((4,), 3.0).numpy().tobytes()


def test_execution_stops_at_the_first_failing_case(launches):
    loaded = load(TORCH_ONLY, ["fail_if_negative"])
    cases = [case(0, [tensor([2]), 1.0]), case(1, [tensor([2]), -1.0]), case(2, [tensor([2]), 2.0])]
    run = executor.run_cases(loaded, "cpu", cases, launches)
    assert [r["status"] for r in run.results] == ["ok", "error", "not_run"]
    error = run.results[1]["error"]
    assert error["kind"] == "runtime_error" and error["type"] == "ValueError"
    assert error["message"] == "negative factor"
    assert "fail_if_negative" in error["traceback"]
    assert run.results[2] == {"index": 2, "status": "not_run"}
    assert not run.gpu_fault


def test_inputs_that_cannot_be_built_are_input_errors(launches):
    loaded = load(TORCH_ONLY, ["fail_if_negative"])
    bad = case(0, [{"tensor": {"shape": [2], "init": "no_such_init"}}, 1.0])
    out_of_range = case(1, [tensor([2]), 1.0], mutated=[5])
    for c in (bad, out_of_range):
        result = executor.run_cases(loaded, "cpu", [c], launches).results[0]
        assert result["error"]["kind"] == "input_error", result


def test_builders_come_from_the_reference_module(tmp_path, launches):
    ref = tmp_path / "reference.py"
    ref.write_text("import torch\n\ndef ramp(gen, device, n):\n"
                   "    return torch.arange(n, dtype=torch.float32, device=device)\n")
    builders = executor.load_builders(str(ref))
    loaded = load(TORCH_ONLY, ["fail_if_negative"], builders=builders)
    run = executor.run_cases(loaded, "cpu",
                             [case(0, [{"builder": "ramp", "params": {"n": 3}}, 2.0])], launches)
    assert bytes(run.payload.views[0]) == torch.tensor([0.0, 2.0, 4.0]).numpy().tobytes()


def test_a_builders_module_that_fails_to_import_is_an_input_error(tmp_path):
    ref = tmp_path / "reference.py"
    ref.write_text("raise RuntimeError('broken task')\n")
    assert kind_of(lambda: executor.load_builders(str(ref))) == "input_error"


@pytest.mark.parametrize("source, kind, error_type", [
    ("def add(x, y)\n    return x\n", "syntax_error", "SyntaxError"),
    ("import no_such_module_kbx\n", "import_error", "ModuleNotFoundError"),
    ("raise SystemExit(3)\n", "import_error", "SystemExit"),
    ("add = 3\n", "no_entry", "WorkerError"),
    ("def other(x):\n    return x\n", "no_entry", "WorkerError"),
])
def test_load_failures_are_classified(source, kind, error_type):
    with pytest.raises(WorkerError) as e:
        load(source, ["add", "kernel_function"])
    error = error_object(e.value)
    assert (error["kind"], error["type"]) == (kind, error_type)


def test_an_entry_defined_by_assignment_is_found():
    loaded = load("def _impl(x):\n    return x\n\nkernel_function = _impl\n",
                  ["add", "kernel_function"])
    assert loaded.entry_name == "kernel_function"


def test_each_load_is_a_fresh_module():
    first = executor.load_source("counter = [0]\n", "same.py", "kbx_test")
    second = executor.load_source("counter = [0]\n", "same.py", "kbx_test")
    assert first.__name__ != second.__name__
    assert first.counter is not second.counter


def test_candidate_output_that_cannot_be_flattened_is_a_runtime_error(launches):
    loaded = load("import torch\n\ndef meta(x):\n    return torch.empty(3, device='meta')\n",
                  ["meta"])
    run = executor.run_cases(loaded, "cpu", [case(0, [1])], launches)
    assert run.results[0]["status"] == "error"
    assert run.results[0]["error"]["kind"] == "runtime_error"
    assert run.payload.size == 0


NAIVE_SUM = textwrap.dedent('''
    import torch

    def naive_sum(x, dtype=None):
        # Adds one element at a time in the input's dtype: deliberately inexact in float32.
        acc = torch.zeros((), dtype=dtype or x.dtype)
        for v in x.reshape(-1):
            acc = acc + v.to(acc.dtype)
        return (acc, x.numel())
''')


def test_exact_reference_is_the_float64_result_rounded_to_the_normal_dtype(launches):
    loaded = load(NAIVE_SUM, ["naive_sum"])
    spec = [{"tensor": {"shape": [4096], "dtype": "float32", "init": "randn", "mean": 0.25}}]
    plain, exact = (executor.run_cases(loaded, "cpu", [dict(case(0, spec, seed=7), exact=e)],
                                       launches) for e in (False, True))
    x = torch.randn(4096, generator=torch.Generator().manual_seed(7)) + 0.25
    want = x.double().sum().float()
    got_plain = torch.frombuffer(bytearray(plain.payload.views[0]), dtype=torch.float32)[0]
    got_exact = torch.frombuffer(bytearray(exact.payload.views[0]), dtype=torch.float32)[0]
    assert exact.results[0]["outputs"][0]["tensor"]["dtype"] == "float32"
    assert got_exact == want
    assert got_plain != want  # the float32 running sum really is off by some ulps
    assert exact.results[0]["outputs"][1] == plain.results[0]["outputs"][1]  # non-float leaf kept


def test_exact_reference_sends_back_the_arguments_of_its_first_call(launches):
    loaded = load(TORCH_ONLY, ["scale_"])
    run = executor.run_cases(
        loaded, "cpu", [dict(case(0, [tensor([4])], {"factor": 2.0}, mutated=[0]), exact=True)],
        launches)
    assert run.results[0]["status"] == "ok"
    assert [leaf["path"] for leaf in run.results[0]["outputs"]][-1] == "arg0"


OPTIMISER = textwrap.dedent('''
    import torch

    class Sgd:
        def __init__(self, params, lr):
            self.params, self.lr, self.steps = list(params), lr, 0

        def step(self):
            self.steps += 1
            with torch.no_grad():
                for p in self.params:
                    p.sub_(self.lr * p.grad)

    def make(params, lr=0.5):
        return Sgd(params, lr)

    def not_an_optimiser(params, lr=0.5):
        return torch.zeros(1)
''')


def param(shape):
    return {"tensor": {"shape": shape, "dtype": "float32", "init": "ones", "requires_grad": True}}


def test_then_calls_the_results_method_after_the_call_and_sends_the_arguments_back(launches):
    loaded = load(OPTIMISER, ["make"])
    one = dict(case(0, [[param([3])]], mutated=[0]), then="step", then_calls=1)
    # No .grad on a plain tensor spec: give it one through a builder-free path (the test's own).
    args, kwargs = executor._build_inputs(loaded, "cpu", one)
    args[0][0].grad = torch.full((3,), 2.0)
    value = executor._call(loaded.entry, args, kwargs, "cpu", one)
    assert value.steps == 1 and torch.equal(args[0][0].detach(), torch.zeros(3))


def test_then_calls_redraw_every_grad_between_calls_the_same_way_each_time(launches):
    loaded = load(OPTIMISER, ["make"])
    three = dict(case(0, [[param([4]), param([2, 2])]]), then="step", then_calls=3)
    finals = []
    for _ in range(2):
        args, kwargs = executor._build_inputs(loaded, "cpu", three)
        for p in args[0]:
            p.grad = torch.ones_like(p)
        value = executor._call(loaded.entry, args, kwargs, "cpu", three)
        assert value.steps == 3
        grads = [p.grad.clone() for p in args[0]]
        assert not any(torch.equal(g, torch.ones_like(g)) for g in grads)  # redrawn in place
        finals.append([p.detach().clone() for p in args[0]])
    assert all(torch.equal(a, b) for a, b in zip(*finals))  # the same draws in every worker


def test_a_result_without_the_then_method_fails_the_case(launches):
    loaded = load(OPTIMISER, ["not_an_optimiser"])
    run = executor.run_cases(loaded, "cpu", [dict(case(0, [[param([2])]]), then="step")],
                             launches)
    error = run.results[0]["error"]
    assert run.results[0]["status"] == "error" and error["type"] == "TypeError"
    assert "no step() method" in error["message"]


def test_a_case_drawn_on_the_device_gets_the_inputs_timing_draws():
    """The perf recheck's case (draw_on_device) builds what timing built for the workload: random
    tensors from a generator on the run's device (the CPU here: the same draws as a case's)."""
    from kbx_worker.values import ValueBuilder

    loaded = load(TORCH_ONLY, ["fail_if_negative"])
    spec = case(0, [tensor([4, 5]), 2.0], seed=77)
    plain = executor._build_inputs(loaded, "cpu", spec)[0][0]
    drawn = executor._build_inputs(loaded, "cpu", dict(spec, draw_on_device=True))[0][0]
    timed = ValueBuilder(77, "cpu", None, draw_on_device=True).build_call(spec["args"], {})[0][0]
    assert torch.equal(plain, drawn) and torch.equal(drawn, timed)
    if torch.cuda.is_available():
        on_gpu = executor._build_inputs(loaded, "cuda", dict(spec, draw_on_device=True))[0][0]
        timed = ValueBuilder(77, "cuda", None, draw_on_device=True).build_call(spec["args"], {})
        assert on_gpu.is_cuda and torch.equal(on_gpu, timed[0][0])
