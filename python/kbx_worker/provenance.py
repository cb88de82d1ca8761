"""Did a Triton kernel contribute to what the candidate returned? (docs/security.md)

During a candidate's call, a TorchDispatchMode follows data through PyTorch operators: a tensor a
Triton kernel was given is marked, and an operator's outputs are marked when one of its inputs is.
A copy or fill takes the mark of its source only, so copying PyTorch's result over a buffer a
kernel touched clears the mark; so does a Triton kernel that only copies a result PyTorch computed
in this call into another buffer (what it wrote equals such a tensor it was given, give or take a
cast or a nudge that no task's tolerance would notice: _near_copy; or that tensor transposed, sliced
or cut from its flat start or end: _view_copy). Views change no marks, and copies of the call's
inputs are still inputs, not PyTorch results. Given the call's inputs, anything a kernel copies
that is neither Triton's work nor a storage the call's own thread made with the bytes it made
(the inputs, copies of them, constant buffers) counts as PyTorch's too: work done out of the
mode's sight, in another thread, is no kernel's. After the call, the returned
tensors tell whether Triton's work reached them. A candidate that computes its result with
PyTorch beside a token Triton launch returns unmarked tensors.

This runs in the candidate's process, so a determined candidate can defeat it; it stops the plain
"PyTorch does the work, one Triton launch for show" submission. On a GPU the kernel inventory's
share of GPU time is the stronger rule.
"""

from __future__ import annotations

import sys
from typing import Any, Iterator

# Operators that make, view or reshape storage without computing from their inputs' values.
_NEUTRAL = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like",
            "full", "full_like", "arange", "new_empty", "new_empty_strided", "new_zeros",
            "new_ones", "new_full", "detach", "alias", "lift_fresh", "set_", "resize_",
            "_local_scalar_dense", "is_nonzero", "equal", "sym_size", "sym_stride",
            "sym_numel", "sym_storage_offset"}
# In-place operators that overwrite their first argument from the others (or from nothing).
_OVERWRITE = {"copy_", "fill_", "zero_", "normal_", "uniform_", "random_", "bernoulli_",
              "exponential_", "geometric_", "log_normal_", "cauchy_"}
# Operators that copy values (maybe cast) without computing from them. A copy of the call's own
# inputs (`x.contiguous()`, `x.float()`, `x.clone()`) is still the inputs, not a PyTorch result: a
# kernel that rewrites it unchanged or permuted (an identity on the drawn inputs, a permute task)
# did the task's work.
_VALUE_COPY = {"clone", "_to_copy", "copy_", "contiguous", "_copy_from", "lift_fresh_copy"}
# Operators that make a fresh buffer (uninitialised, a constant or a ramp: no task's answer), and
# the in-place ones that set a constant. Outside the dispatch mode's sight (another thread, a
# forked child), PyTorch can still write such a buffer: its bytes are kept at its making and
# compared before a kernel reads it.
_FACTORY = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like",
            "full", "full_like", "arange", "new_empty", "new_empty_strided", "new_zeros",
            "new_ones", "new_full"}
_CONSTANT_FILL = {"fill_", "zero_"}
# Uninitialised buffers hold whatever their memory held last, which may be a result another thread
# computed and freed: their bytes are no one's the call's thread knows.
_UNINITIALISED = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}
# The storages the marks and the kept bytes name are held alive for the call (up to this many
# bytes), so a freed one's address cannot come back as another tensor that inherits its standing.
_HOLD_LIMIT_BYTES = 2 << 30
# A kernel that permutes a PyTorch result it was given: the dims tried, at most.
_PERMUTE_MAX_DIMS = 4
# A kernel that copies a slice of a PyTorch result: the offsets tried along the sliced dim, at most,
# and the fewest elements such a copy must write (a reduction's few outputs can equal a few of its
# source's elements by chance, e.g. a minimum that sits first; and where they are a copy, the GPU's
# share rule fails so small a Triton part).
_SLICE_MAX_OFFSETS = 4096
_SLICE_MIN_NUMEL = 16


_SNAPSHOT_LIMIT_BYTES = 256 << 20


def _torch_functions():
    """torch.equal and torch.isclose as they were when this module was imported (in the zygote,
    before any candidate could replace them)."""
    import torch

    return torch.equal, torch.isclose


_EQUAL, _ISCLOSE = _torch_functions()


def _same_bytes(t: Any, before: Any) -> bool:
    import torch

    try:
        return bool(_EQUAL(t.detach().reshape(-1).view(torch.uint8),
                           before.reshape(-1).view(torch.uint8)))
    except Exception:  # noqa: BLE001 - a dtype or layout without a byte view: compare values
        try:
            return bool(_EQUAL(t, before))
        except Exception:  # noqa: BLE001
            return False


# A kernel's output this close to a PyTorch result it was given is that result moved, not computed:
# within COPY_REL of each element (at least COPY_ULPS of the coarser dtype's epsilon), or of the
# tensor's magnitude (its largest, capped at COPY_SCALE_CAP) for the elements near zero. The
# tasks' tolerances are tighter (float32 rtol and atol 1e-5 to 2e-4, float16 and bfloat16 5e-3 to
# 7.8e-3), so a copy nudged to escape this fails the comparison instead; an error-bound task (a
# long sum or product) allows more, and there the kernel inventory's share rule fails a copy.
COPY_ULPS = 8.0
COPY_REL = 1e-3
COPY_SCALE_CAP = 10.0


def _near_copy(t: Any, s: Any, scale: float | None = None) -> bool:
    """Whether `t` holds `s`'s elements in row-major order (any shapes of the same size) within
    the copy window; `scale`: the magnitude the near-zero window is taken from (default: the
    largest finite element of `s`)."""
    import torch

    if t.dtype == s.dtype and _same_bytes(t.reshape(-1), s.reshape(-1)):
        return True
    if not (t.is_floating_point() and s.is_floating_point()):
        return False
    try:
        a = t.detach().reshape(-1).double()
        b = s.detach().reshape(-1).double()
        if scale is None:
            scale = _magnitude(b)
        eps = max(torch.finfo(t.dtype).eps, torch.finfo(s.dtype).eps)
        rel = max(COPY_ULPS * eps, COPY_REL)
        near_zero = rel * min(scale, COPY_SCALE_CAP) + COPY_ULPS * eps * scale
        # NaN where the source has NaN, the same infinities, the rest within the window.
        return bool(_ISCLOSE(a, b, rtol=rel, atol=near_zero, equal_nan=True).all())
    except Exception:  # noqa: BLE001 - a dtype or layout the comparison cannot take: not a copy
        return False


def _magnitude(s: Any) -> float:
    """The largest finite |element| of `s` (0 when there is none)."""
    import torch

    if s.numel() == 0:
        return 0.0
    b = s.detach().reshape(-1).abs()
    return float(torch.nan_to_num(b, nan=0.0, posinf=0.0, neginf=0.0).max())


_OUTS: dict = {}


def _outs(func: Any) -> frozenset:
    """The keyword-only arguments an operator writes (`out=`, or `max=` and `max_values=`)."""
    found = _OUTS.get(func)
    if found is None:
        try:
            found = frozenset(a.name for a in func._schema.arguments
                              if a.kwarg_only and a.alias_info is not None and a.alias_info.is_write)
        except Exception:  # noqa: BLE001 - no schema: no keyword outputs known
            found = frozenset()
        _OUTS[func] = found
    return found


def _view_copy(t: Any, s: Any) -> bool:
    """Whether `t` holds `s` read through a permutation of its dims (a transpose; `t` may have
    any shape of the same size, as a transpose then a reshape gives), through a slice along one
    dim (`t` of `s`'s rank, smaller in that dim only), or as the start or the end of its flat
    elements (these two for `t` of _SLICE_MIN_NUMEL elements or more), within _near_copy's window. Each reading is compared on its first row before the
    whole, with the window of all of `s`, wider than any part's: a copy passes the first look."""
    import itertools

    if t.numel() == 0 or s.numel() < t.numel() or s.ndim > _PERMUTE_MAX_DIMS:
        return False
    try:
        scale = _magnitude(s) if s.is_floating_point() else 0.0
        flat_t = t.reshape(-1)

        def reads(v: Any) -> bool:  # t holds v's elements in row-major order
            row = v[(0,) * (v.ndim - 1)] if v.ndim > 1 else v
            n = min(row.numel(), 256)
            return _near_copy(flat_t[:n], row[:n], scale) and _near_copy(t, v)

        if s.numel() == t.numel():
            identity = tuple(range(s.ndim))
            return s.ndim >= 2 and any(reads(s.permute(p))
                                       for p in itertools.permutations(identity) if p != identity)
        if t.numel() < _SLICE_MIN_NUMEL:
            return False
        flat = s.reshape(-1)
        n = t.numel()
        if reads(flat[:n]) or reads(flat[-n:]):
            return True
        if t.ndim != s.ndim:
            return False
        dims = [d for d in range(s.ndim) if s.shape[d] != t.shape[d]]
        if len(dims) != 1:
            return False
        d, length = dims[0], t.shape[dims[0]]
        offsets = range(min(s.shape[d] - length + 1, _SLICE_MAX_OFFSETS))
        return any(reads(s.narrow(d, off, length)) for off in offsets)
    except Exception:  # noqa: BLE001 - a dtype or layout the comparison cannot take: not a copy
        return False


def _capturing() -> bool:
    import torch

    try:
        return torch.cuda.is_available() and torch.cuda.is_current_stream_capturing()
    except Exception:  # noqa: BLE001 - no CUDA here
        return False


def _tensors(value: Any, depth: int = 0) -> Iterator[Any]:
    import torch

    if isinstance(value, torch.Tensor):
        yield value
    elif depth < 4 and isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v, depth + 1)


def _storage_bytes(t: Any) -> Any:
    """All of `t`'s storage as a flat uint8 tensor (a view; None where there is none)."""
    import torch

    try:
        return torch.empty(0, dtype=torch.uint8, device=t.device).set_(t.untyped_storage())
    except Exception:  # noqa: BLE001 - sparse, meta or otherwise storage-less tensors
        return None


def _storage(t: Any) -> int | None:
    try:
        return t.untyped_storage().data_ptr()
    except Exception:  # noqa: BLE001 - sparse, meta or otherwise storage-less tensors
        return None


class Provenance:
    """Use as a context manager around one call; then contributed(value) and torch_ops."""

    def __init__(self, launches: Any, inputs: Any = None):
        """`inputs`: the call's arguments (tensors in them, nested up to 4 levels). Given, any
        storage a kernel reads that is neither Triton's work nor the inputs (or a copy of them, or
        a fresh buffer) as the call's own thread made them counts as PyTorch's: a result computed
        out of the dispatch mode's sight (another thread) and copied by a kernel is still a copy.
        Without them only storages a PyTorch operator wrote in sight count."""
        self._launches = launches
        self._marked: set[int] = set()
        self._torch_made: set[int] = set()  # storages a PyTorch operator wrote in this call
        # Storages whose bytes this call's own thread knows (the inputs, copies of them, fresh
        # buffers), with those bytes (None: too big to keep, trusted as they are); _fresh: those
        # made by a factory (no answer in them).
        self._known: dict[int, Any] = {}
        self._fresh: set[int] = set()
        self._strict = inputs is not None
        self._held: dict[int, Any] = {}
        self._held_bytes = 0
        if self._strict:
            for t in _tensors(inputs):
                self._know(t)
        self._in_launch = 0
        self._snapshots: list = []
        self._mode = None
        self.torch_ops = 0
        self._ops: dict[str, int] = {}       # PyTorch operators the candidate ran, by name
        self._kernels: dict[str, int] = {}   # Triton launches, by kernel name

    def _hold(self, t: Any) -> None:
        """Keeps `t`'s storage alive for the call (see _HOLD_LIMIT_BYTES)."""
        try:
            storage = t.untyped_storage()
            ptr, size = storage.data_ptr(), storage.nbytes()
        except Exception:  # noqa: BLE001 - storage-less tensors
            return
        if ptr and ptr not in self._held and self._held_bytes + size <= _HOLD_LIMIT_BYTES:
            self._held[ptr] = storage
            self._held_bytes += size

    def _mark(self, t: Any, ptr: int) -> None:
        self._marked.add(ptr)
        self._hold(t)

    def _know(self, t: Any, fresh: bool = False) -> None:
        """Keeps the bytes of `t`'s storage as this call's thread made them."""
        ptr = _storage(t)
        if not ptr:
            return
        self._hold(t)
        view = _storage_bytes(t)
        keep = (view is not None and view.numel() <= _SNAPSHOT_LIMIT_BYTES and not _capturing())
        self._known[ptr] = view.clone() if keep else None
        if fresh:
            self._fresh.add(ptr)
        else:
            self._fresh.discard(ptr)

    def _forget(self, ptr: int) -> None:
        self._known.pop(ptr, None)
        self._fresh.discard(ptr)

    def _as_known(self, ptr: int | None, t: Any) -> bool:
        """Whether `t`'s storage holds what this call's thread knows it holds."""
        if ptr not in self._known:
            return False
        kept = self._known[ptr]
        if kept is None or _capturing():  # comparing bytes would break a CUDA graph capture
            return True
        now = _storage_bytes(t)
        return now is not None and now.numel() == kept.numel() and _same_bytes(now, kept)

    def _someone_elses(self, ptr: int | None, t: Any) -> bool:
        """Whether the storage holds work that is neither Triton's nor the call's inputs: what a
        PyTorch operator computed in sight, or (given the inputs) anything written out of sight."""
        if not ptr or ptr in self._marked:
            return False
        if ptr in self._torch_made:
            return True
        return self._strict and not self._as_known(ptr, t)

    def launched(self, name: str) -> None:
        """The launch hook names each Triton launch (the CPU inventory)."""
        self._kernels[name] = self._kernels.get(name, 0) + 1

    def inventory(self) -> list[dict]:
        """What the call ran without a GPU inventory: Triton launches and PyTorch operators by
        name, with counts (no GPU time), most frequent first, at most 64 names."""
        rows = [{"name": n, "origin": "triton", "launches": c} for n, c in self._kernels.items()]
        rows += [{"name": n, "origin": "torch", "launches": c} for n, c in self._ops.items()]
        rows.sort(key=lambda r: -r["launches"])
        return rows[:64]

    # Launch observer (hooks.Launches.watch). A kernel marks the tensors it wrote: those whose
    # bytes changed across the launch (all of its tensors when they are too big to snapshot).
    def begin(self, args: tuple, kwargs: dict) -> None:
        self._in_launch += 1
        tensors = list(_tensors(list(args) + list(kwargs.values())))
        # Comparing bytes synchronises, which a CUDA graph capture forbids: mark them all then.
        if _capturing() or sum(t.numel() * t.element_size() for t in tensors) > _SNAPSHOT_LIMIT_BYTES:
            self._snapshots.append(None)
            return
        self._snapshots.append([(t, t.detach().clone(), self._someone_elses(_storage(t), t))
                                for t in tensors])

    def end(self, args: tuple, kwargs: dict) -> None:
        try:
            snapshot = self._snapshots.pop() if self._snapshots else None
            if snapshot is None:
                written = [(t, None, False) for t in _tensors(list(args) + list(kwargs.values()))]
                kept = []
            else:
                changed = [not _same_bytes(t, before) for t, before, _ in snapshot]
                written = [entry for entry, c in zip(snapshot, changed) if c]
                kept = [t for (t, _, _), c in zip(snapshot, changed) if not c]
            for t, before, elses in written:
                ptr = _storage(t)
                if not ptr:
                    continue
                # A PyTorch result nudged in place is still PyTorch's: its own earlier bytes are
                # one of the sources a copy is looked for among.
                own = [before] if before is not None and elses else []
                self._forget(ptr)
                if self._copies_torch_result(t, kept, own):
                    self._marked.discard(ptr)  # PyTorch's work, moved: not Triton's
                    self._torch_made.add(ptr)
                else:
                    self._mark(t, ptr)
        finally:
            self._in_launch -= 1

    def _on_op(self, name: str, args: tuple, kwargs: dict, out: Any,
               outs: frozenset = frozenset()) -> None:
        """One PyTorch operator ran: `outs` names its keyword outputs (`out=`), written, not read."""
        if self._in_launch:
            return
        if name in _NEUTRAL:
            if name in _FACTORY and self._strict:
                for t in _tensors(out):
                    if name in _UNINITIALISED:
                        self._forget(_storage(t))
                    else:
                        self._know(t, fresh=True)
            return
        self.torch_ops += 1
        self._ops[name] = self._ops.get(name, 0) + 1
        sources = list(args[1:] if name in _OVERWRITE else args)
        sources += [v for k, v in kwargs.items() if k not in outs]
        source_tensors = [(_storage(t), t) for t in _tensors(sources)]
        source_ptrs = {p for p, _ in source_tensors}
        marked = any(p in self._marked for p in source_ptrs)
        # A copy whose sources are all the call's inputs (or copies of them) copies the inputs.
        input_copy = (name in _VALUE_COPY and not marked
                      and not any(self._someone_elses(p, t) for p, t in source_tensors))
        # A constant written over a fresh buffer leaves it fresh.
        constant = (name in _CONSTANT_FILL and self._strict and args
                    and all(_storage(t) in self._fresh for t in _tensors(args[0])))
        in_place = bool(name.endswith("_") and args)
        writes = in_place or any(k in outs for k in kwargs)
        targets = list(_tensors(out))
        if in_place:
            targets += list(_tensors(args[0]))
        for t in targets:
            ptr = _storage(t)
            if not ptr or (not writes and ptr in source_ptrs):
                continue  # a view or alias of a source (view, permute, slice, ...): nothing new
            if marked:
                self._mark(t, ptr)
                self._forget(ptr)
            elif input_copy or constant:
                self._marked.discard(ptr)
                self._torch_made.discard(ptr)
                if self._strict:
                    self._know(t, fresh=bool(constant))
            else:
                self._marked.discard(ptr)
                self._torch_made.add(ptr)
                self._forget(ptr)

    def _copies_torch_result(self, t: Any, kept: list, own: list) -> bool:
        """Whether a kernel's written tensor `t` now holds a tensor it was given and left
        unchanged that holds someone else's work (_someone_elses: what a PyTorch operator computed
        in this call, or, given the inputs, anything written out of the dispatch mode's sight),
        element for element within a window wider than any task's tolerance (_near_copy), or read
        through a permutation of its dims or a slice (_view_copy): a copy of PyTorch's result, a
        cast of it, a transpose of it, a part of a larger one, or one nudged (`x * (1 + 1e-7)`,
        `x + 1e-30`), not Triton's work. A copy of the call's own inputs is not this (an
        activation that is the identity on the inputs a case drew, a permute task). `own`: t's
        bytes before the launch, where they were someone else's work (a nudge in place)."""
        for s in kept:
            ptr = _storage(s)
            if ptr == _storage(t) or not self._someone_elses(ptr, s):
                continue
            if s.numel() == t.numel() and _near_copy(t, s):
                return True
            if _view_copy(t, s):
                return True
        return any(s.numel() == t.numel() and _near_copy(t, s) for s in own)

    def contributed(self, value: Any) -> bool | None:
        """True when a returned tensor carries Triton's work; None when nothing non-empty came back."""
        tensors = [t for t in _tensors(value) if t.numel() > 0]
        if not tensors:
            return None
        return any(_storage(t) in self._marked for t in tensors)

    def __enter__(self) -> "Provenance":
        from torch.utils._python_dispatch import TorchDispatchMode

        owner = self

        class _Follow(TorchDispatchMode):
            _should_skip_dynamo = classmethod(_dynamo_loaded)

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                out = func(*args, **kwargs)
                try:
                    owner._on_op(func.overloadpacket.__name__, args, kwargs, out, _outs(func))
                except Exception:  # noqa: BLE001 - bookkeeping never breaks the call
                    pass
                return out

        self._mode = _Follow()
        self._launches.watch(self)
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self._mode.__exit__(*exc)
        finally:
            self._launches.watch(None)


def _dynamo_loaded(cls: type) -> bool:
    """A dispatch mode class's `_should_skip_dynamo`: torch wraps the mode's handler in
    torch._disable_dynamo when it says yes, and the wrapper's first call imports torch._dynamo
    (about 2 s on a GPU host, 8 s on a 2-core VM: most of a worker zygote's start). The wrapper
    only matters where something may compile the handler, which needs torch._dynamo loaded: a
    candidate that used torch.compile (or imported dynamo) gets it, every other call skips it."""
    return "torch._dynamo" in sys.modules


def warm_up() -> None:
    """Enters and leaves a dispatch mode once, so the modules that imports are loaded in the
    zygote and every forked worker inherits them (torch._dynamo no longer among them:
    _dynamo_loaded)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class _Nothing(TorchDispatchMode):
        _should_skip_dynamo = classmethod(_dynamo_loaded)

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with _Nothing():
        torch.ones(2).add(1).untyped_storage()
