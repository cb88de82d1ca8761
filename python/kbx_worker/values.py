"""Builds the Python values a call receives from resolved value specs (docs/suite-format.md)."""

from __future__ import annotations

from typing import Any, Callable

_FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
_COMPLEX_DTYPES = ("complex64", "complex128")
_CONSTANT_INITS = ("zeros", "ones", "full", "arange")  # inits that draw nothing from the generator


class InputError(Exception):
    """A value spec the worker cannot build: a task-data bug, never the candidate's fault."""


def torch_dtype(name: str):
    import torch

    name = name[len("torch."):] if name.startswith("torch.") else name
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise InputError(f"unknown dtype {name!r}")
    return dtype


class ValueBuilder:
    """Turns value specs into values, drawing every random tensor from one seeded generator.

    Test cases draw on the CPU, so the same seed gives the same inputs on every device; perf
    workloads (draw_on_device=True) draw on the run's device.
    """

    def __init__(self, seed: int, device: str, builders: Any = None, draw_on_device: bool = False):
        import torch

        self.device = device
        self.builders = builders
        self.gen = torch.Generator(device="cpu")
        self.gen.manual_seed(int(seed))
        # Perf workloads reach gigabytes: drawing them on the GPU takes milliseconds instead of
        # seconds. Builders always get the CPU generator (they may draw on the CPU and move).
        self.tensor_gen = self.gen
        if draw_on_device and device != "cpu":
            self.tensor_gen = torch.Generator(device=device)
            self.tensor_gen.manual_seed(int(seed))

    def build_call(self, args: list, kwargs: dict) -> tuple[list, dict]:
        """The call's arguments, in the order the determinism rule draws them.

        Any failure (a bad spec, a builder that raises, torch refusing a range) is an InputError.
        """
        try:
            built_args = [self.build(a) for a in args]
            built_kwargs = {k: self.build(v) for k, v in kwargs.items()}
        except InputError:
            raise
        except Exception as e:  # noqa: BLE001 - every failure to build an input is the task's
            raise InputError(f"cannot build the inputs: {type(e).__name__}: {e}") from e
        return built_args, built_kwargs

    def build(self, spec: Any) -> Any:
        if spec is None or isinstance(spec, (bool, int, float, str)):
            return spec
        if isinstance(spec, list):
            return [self.build(v) for v in spec]
        if isinstance(spec, dict) and "builder" in spec:
            return self._call_builder(spec)
        if not isinstance(spec, dict) or len(spec) != 1:
            raise InputError(f"bad value spec {spec!r}: expected a literal, a list or a one-key "
                             "object")
        (kind, body), = spec.items()
        handler: Callable[[Any], Any] | None = getattr(self, f"_build_{kind}", None)
        if handler is None:
            raise InputError(f"unknown value spec kind {kind!r}")
        return handler(body)

    def _build_tuple(self, body: Any) -> tuple:
        if not isinstance(body, list):
            raise InputError("'tuple' takes a list")
        return tuple(self.build(v) for v in body)

    def _build_dtype(self, body: Any):
        return torch_dtype(str(body))

    def _build_device(self, body: Any) -> str:
        return self.device

    def _build_expr(self, body: Any) -> Any:
        raise InputError(f"unresolved expression {body!r}: kbx evaluates expressions before "
                         "sending")

    def _build_float(self, body: Any) -> float:
        """{"float": "inf"}: a float JSON cannot hold ("inf", "-inf", "nan")."""
        if body not in ("inf", "-inf", "nan"):
            raise InputError(f"'float' takes \"inf\", \"-inf\" or \"nan\", got {body!r}")
        return float(body)

    def _build_generator(self, body: Any):
        import torch

        if not isinstance(body, dict):
            raise InputError("'generator' takes an object like {\"seed\": 42}")
        g = torch.Generator(device=self.device)
        g.manual_seed(int(body.get("seed", 0)))
        return g

    def _call_builder(self, spec: dict) -> Any:
        name = spec["builder"]
        params = spec.get("params", {})
        fn = getattr(self.builders, str(name), None) if self.builders is not None else None
        if fn is None or not callable(fn):
            raise InputError(f"builder {name!r} is not defined in the task's reference module")
        if not isinstance(params, dict):
            raise InputError(f"builder {name!r}: 'params' must be an object")
        built = {k: self.build(v) for k, v in params.items()}
        try:
            return fn(self.gen, self.device, **built)
        except Exception as e:  # noqa: BLE001 - a failing builder is a task-data bug
            raise InputError(f"builder {name!r} raised {type(e).__name__}: {e}") from e

    def _build_tensor(self, body: Any):
        return make_tensor(body, self.tensor_gen, self.device)


def _draw(init: str, body: dict, shape: list, draw_dtype, gen):
    import torch

    numel = 1
    for d in shape:
        numel *= int(d)
    # Scaled in place: a perf workload of gigabytes must not need a second copy while it is drawn.
    if init == "randn":
        mean, std = float(body.get("mean", 0.0)), float(body.get("std", 1.0))
        t = torch.randn(shape, generator=gen, dtype=draw_dtype, device=gen.device)
        return t.mul_(std).add_(mean)
    if init == "rand":
        low, high = float(body.get("low", 0.0)), float(body.get("high", 1.0))
        t = torch.rand(shape, generator=gen, dtype=draw_dtype, device=gen.device)
        return t.mul_(high - low).add_(low)
    if init == "randint":
        if "high" not in body:
            raise InputError("'randint' needs 'high'")
        return torch.randint(int(body.get("low", 0)), int(body["high"]), shape, generator=gen,
                             dtype=torch.int64, device=gen.device)
    if init == "bernoulli":
        p = float(body.get("p", 0.5))
        return torch.rand(shape, generator=gen, dtype=torch.float64, device=gen.device) < p
    if init == "randperm":
        return torch.randperm(numel, generator=gen, dtype=torch.int64, device=gen.device).reshape(shape)
    if init == "arange":
        start, step = body.get("start", 0), body.get("step", 1)
        return (torch.arange(numel, dtype=torch.float64, device=gen.device) * step + start).reshape(shape)
    if init == "zeros":
        return torch.zeros(shape, dtype=draw_dtype, device=gen.device)
    if init == "ones":
        return torch.ones(shape, dtype=draw_dtype, device=gen.device)
    if init == "full":
        if "value" not in body:
            raise InputError("'full' needs 'value'")
        return torch.full(shape, float(body["value"]), dtype=torch.float64, device=gen.device)
    raise InputError(f"unknown tensor init {init!r}")


def make_tensor(body: dict, gen, device: str):
    """One tensor from a `{"tensor": body}` spec, drawn from `gen` on its device, then moved."""
    import torch

    if not isinstance(body, dict):
        raise InputError("'tensor' takes an object")
    shape = body.get("shape", [])
    if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise InputError(f"tensor shape must be a list of non-negative integers, got {shape!r}")
    dtype = torch_dtype(str(body.get("dtype", "float32")))
    dtype_name = str(dtype).removeprefix("torch.")  # canonical: "double" -> "float64"
    init = body.get("init", "randn")
    wide = dtype_name in ("float64", "complex128")
    draw_dtype = torch.float64 if wide else torch.float32
    if dtype_name in _COMPLEX_DTYPES:
        real = _draw(init, body, shape, draw_dtype, gen).to(draw_dtype)
        if init in _CONSTANT_INITS:  # a constant or a ramp: the imaginary part is zero
            imag = torch.zeros_like(real)
        else:
            imag = _draw(init, body, shape, draw_dtype, gen).to(draw_dtype)
        value = torch.complex(real, imag)
    else:
        value = _draw(init, body, shape, draw_dtype, gen)
    outliers = body.get("outliers")
    if outliers and not isinstance(outliers, dict):
        raise InputError("'outliers' takes an object like {\"p\": 0.001, \"scale\": 10.0}")
    if outliers:
        p, scale = float(outliers.get("p", 0.0)), float(outliers.get("scale", 1.0))
        mask = torch.rand(shape, generator=gen, dtype=torch.float64, device=gen.device) < p
        value = torch.where(mask, value * scale, value)
    value = value.to(dtype).to("cpu" if body.get("device") == "cpu" else device)
    if body.get("noncontig"):
        value = _noncontiguous(value)
    if body.get("requires_grad"):
        value.requires_grad_(True)
    return value


def _noncontiguous(value):
    """The same values as a strided view: every other element of a buffer twice as wide."""
    import torch

    if value.dim() == 0:
        raise InputError("'noncontig' needs a tensor of at least one dimension")
    wide = list(value.shape)
    wide[-1] *= 2
    buffer = torch.zeros(wide, dtype=value.dtype, device=value.device)
    view = buffer[..., ::2]
    view.copy_(value)
    return view


def then_call(value: Any, then: str | None, calls: int = 1, args: Any = None, seed: int = 0) -> None:
    """The task's `then` method of the returned object, called without arguments `calls` times as
    part of the call (Optimizer/Adam: the optimiser's step()). Before each call after the first,
    every tensor of `args` that has a .grad gets fresh randn values in it, in place, drawn from a
    CPU generator seeded by `seed` and the call's number (the same in every worker), so that the
    optimiser's state is exercised. A result without the method fails the case."""
    if not then:
        return
    method = getattr(value, then, None)
    if not callable(method):
        raise TypeError(f"the call returned {type(value).__name__}, which has no {then}() "
                        "method (the task calls it after the call)")
    for k in range(int(calls)):
        if k:
            _redraw_grads(args, seed, k)
        method()


def _redraw_grads(args: Any, seed: int, k: int) -> None:
    import torch

    gen = torch.Generator(device="cpu")
    gen.manual_seed((int(seed) * 1000003 + k) % (1 << 63))
    stack = [args]
    while stack:
        item = stack.pop(0)
        if isinstance(item, torch.Tensor):
            grad = item.grad
            if grad is not None:
                fresh = torch.randn(grad.shape, generator=gen, dtype=torch.float32)
                with torch.no_grad():
                    grad.copy_(fresh.to(grad.dtype))
        elif isinstance(item, (list, tuple)):
            stack[:0] = list(item)
        elif isinstance(item, dict):
            stack[:0] = list(item.values())
