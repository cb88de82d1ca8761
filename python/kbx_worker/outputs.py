"""Flattens what a call returned (and the arguments it mutated) into output leaves and bytes."""

from __future__ import annotations

import ctypes
import math
import numbers
from typing import Any

from .errors import WorkerError

_MAX_DEPTH = 64
# The tensor element types kbx decodes (src/kbx/common/dtype.h).
WIRE_DTYPES = frozenset({"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                         "float32", "float64", "complex64", "complex128"})
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


class Payload:
    """The payload of one frame: views of tensor memory (not copies).

    Each view holds its tensor alive, so the views stay valid after the Payload is dropped.
    """

    def __init__(self) -> None:
        self.views: list[memoryview] = []
        self.size = 0

    def add_tensor(self, t) -> tuple[int, int]:
        """Appends a CPU, C-contiguous tensor's bytes; returns (offset, nbytes)."""
        offset, nbytes = self.size, t.numel() * t.element_size()
        if nbytes:
            raw = (ctypes.c_ubyte * nbytes).from_address(t.data_ptr())
            raw.owner = t  # the memoryview keeps `raw` alive, and `raw` keeps the tensor
            self.views.append(memoryview(raw))
            self.size += nbytes
        return offset, nbytes

    def mark(self) -> tuple[int, int]:
        return len(self.views), self.size

    def rewind(self, mark: tuple[int, int]) -> None:
        """Drops every chunk added since `mark`."""
        del self.views[mark[0]:]
        self.size = mark[1]


def flatten_call(result: Any, args: list, mutated_args: list[int], payload: Payload,
                 kwargs: dict | None = None, mutated_kwargs: list[str] | None = None) -> list[dict]:
    """Leaves of the return value (path "out"), then of each mutated argument (path "argN"),
    then of each mutated keyword argument (path "kw['name']"; None when the call had none)."""
    leaves: list[dict] = []
    _flatten(result, "out", leaves, payload, 0, set())
    for i in mutated_args:
        _flatten(args[i], f"arg{i}", leaves, payload, 0, set())
    for name in mutated_kwargs or []:
        _flatten((kwargs or {}).get(name), f"kw[{name!r}]", leaves, payload, 0, set())
    return leaves


def unflatten(leaves: list, payload: bytes, device: str) -> Any:
    """The value under path "out" rebuilt from leaves: tensors on `device`, sequences as tuples.

    Used only by a trusted reference worker on a candidate's output (canonical forms); anything
    malformed raises ValueError.
    """
    import ast

    torch = _torch()
    root: dict = {}
    for leaf in leaves:
        if not isinstance(leaf, dict) or not isinstance(leaf.get("path"), str):
            raise ValueError("malformed output leaf")
        path = leaf["path"]
        if path != "out" and not path.startswith("out["):
            continue  # mutated arguments are compared as they are
        keys = [ast.literal_eval(k) for k in _path_keys(path[3:])]
        node, value = root, _leaf_value(leaf, payload, device, torch)
        for k in keys[:-1]:
            node = node.setdefault(k, {})
            if not isinstance(node, dict):
                raise ValueError(f"leaf {path} conflicts with another leaf")
        node[keys[-1] if keys else "__root__"] = value
    if "__root__" in root:
        return root["__root__"]
    return _seal(root)


def _path_keys(rest: str) -> list[str]:
    """"[0]['a'][2]" -> ["0", "'a'", "2"]."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(rest):
        if ch == "[" and depth == 0:
            start = i + 1
        depth += ch == "["
        depth -= ch == "]"
        if ch == "]" and depth == 0:
            out.append(rest[start:i])
    if depth != 0:
        raise ValueError(f"malformed leaf path out{rest}")
    return out


def _seal(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if node and all(isinstance(k, int) for k in node):
        if sorted(node) != list(range(len(node))):
            raise ValueError("sequence leaves are not numbered 0..n-1")
        return tuple(_seal(node[i]) for i in range(len(node)))
    return {k: _seal(v) for k, v in node.items()}


def _leaf_value(leaf: dict, payload: bytes, device: str, torch) -> Any:
    kind = leaf.get("kind")
    if kind == "none":
        return None
    if kind in ("str", "repr"):
        return str(leaf.get("value"))
    if kind == "scalar":
        value = leaf.get("value")
        if leaf.get("dtype") == "complex128":
            return complex(float(value[0]), float(value[1]))
        return {"bool": bool, "int64": int}.get(leaf.get("dtype"), float)(value)
    if kind != "tensor":
        raise ValueError(f"unknown leaf kind {kind!r}")
    t = leaf["tensor"]
    dtype = getattr(torch, str(t["dtype"]), None)
    if str(t["dtype"]) not in WIRE_DTYPES or not isinstance(dtype, torch.dtype):
        raise ValueError(f"unknown dtype {t['dtype']!r}")
    shape = [int(d) for d in t["shape"]]
    offset, nbytes = int(t["offset"]), int(t["nbytes"])
    numel = math.prod(shape)
    if nbytes != numel * dtype.itemsize or offset < 0 or offset + nbytes > len(payload):
        raise ValueError(f"tensor leaf {leaf['path']} does not fit its bytes")
    if numel == 0:
        value = torch.empty(shape, dtype=dtype)
    else:
        value = torch.frombuffer(bytearray(payload[offset:offset + nbytes]), dtype=dtype)
    value = value.reshape(shape)
    return value.to(device) if str(t.get("device", "cpu")) != "cpu" else value


def _flatten(value: Any, path: str, leaves: list, payload: Payload, depth: int,
             active: set[int]) -> None:
    torch = _torch()
    if isinstance(value, torch.Tensor):
        leaves.append(tensor_leaf(value, path, payload))
    elif isinstance(value, (tuple, list, dict)):
        if depth >= _MAX_DEPTH or id(value) in active:
            leaves.append(_repr_leaf(value, path))
            return
        active.add(id(value))
        for sub_path, item in _children(value, path):
            _flatten(item, sub_path, leaves, payload, depth + 1, active)
        active.discard(id(value))
    else:
        leaves.append(scalar_leaf(value, path))


def _children(value: tuple | list | dict, path: str) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [(f"{path}[{key!r}]", value[key]) for key in _sorted_keys(value)]
    return [(f"{path}[{i}]", item) for i, item in enumerate(value)]


def _sorted_keys(d: dict) -> list:
    try:
        return sorted(d)
    except TypeError:  # keys of mixed types: a stable order all the same
        return sorted(d, key=lambda k: (type(k).__name__, repr(k)))


def tensor_leaf(value, path: str, payload: Payload) -> dict:
    """A tensor leaf. A dtype kbx cannot decode is an error, never a text leaf: equal text would
    otherwise pass for tensors whose values were never compared."""
    torch = _torch()
    if type(value) not in (torch.Tensor, torch.nn.Parameter):
        # A subclass can run arbitrary code when it is read (lazy or PyTorch-computed values).
        raise WorkerError("unsupported_output", f"{path} is a {type(value).__qualname__}, a tensor "
                          "subclass; return plain torch.Tensor values")
    dtype = str(value.dtype).removeprefix("torch.")
    if dtype not in WIRE_DTYPES:
        raise WorkerError("unsupported_output", f"{path} is a tensor of dtype {value.dtype}, which "
                          f"kbx cannot compare; return one of {sorted(WIRE_DTYPES)}")
    t = _host_copy(value)
    offset, nbytes = payload.add_tensor(t)
    desc = {
        "dtype": str(t.dtype).removeprefix("torch."),
        "shape": list(t.shape),
        "device": value.device.type,
        "offset": offset,
        "nbytes": nbytes,
    }
    if value.requires_grad:  # judged where the task asks (task.json "compare_requires_grad")
        desc["requires_grad"] = True
    return {"path": path, "kind": "tensor", "tensor": desc}


def _host_copy(value):
    """A detached, dense, C-contiguous CPU tensor with conj/neg views resolved."""
    t = value.detach()
    if t.layout != _torch().strided:
        t = t.to_dense()
    t = t.resolve_conj().resolve_neg().contiguous()
    return t.cpu().contiguous()


def scalar_leaf(value: Any, path: str) -> dict:
    """A none, scalar, str or repr leaf for a value that is not a tensor or container."""
    if value is None:
        return {"path": path, "kind": "none"}
    if isinstance(value, bool):
        return _scalar(path, "bool", value)
    if isinstance(value, numbers.Integral) and _INT64_MIN <= int(value) <= _INT64_MAX:
        return _scalar(path, "int64", int(value))
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        return _scalar(path, "float64", json_float(value))
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        z = complex(value)
        return _scalar(path, "complex128", [json_float(z.real), json_float(z.imag)])
    if isinstance(value, str):
        return {"path": path, "kind": "str", "value": str(value)}
    return _repr_leaf(value, path)


def json_float(x: float) -> float | str:
    """`x`, or "nan" / "inf" / "-inf" for values JSON cannot carry."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _scalar(path: str, dtype: str, value: Any) -> dict:
    return {"path": path, "kind": "scalar", "dtype": dtype, "value": value}


def _repr_leaf(value: Any, path: str) -> dict:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__ still yields a leaf
        text = f"<unrepresentable {type(value).__name__}>"
    return {"path": path, "kind": "repr", "value": str(text)}


def _torch():
    import torch

    return torch
