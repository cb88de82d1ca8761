#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/ (checked in; rerun after
changing a format). Seeds are small valid and nearly valid inputs: libFuzzer mutates from them.

  python3 fuzz/make_seeds.py
"""

from __future__ import annotations

import json
import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = HERE / "corpus"
SEPARATOR = "#" * 146


def write(target: str, name: str, data: bytes | str) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data.encode() if isinstance(data, str) else data)


def line(obj) -> str:
    return json.dumps(obj) + "\n"


def submission_seeds() -> None:
    relu = "import triton\n\ndef relu(x):\n    return x.clamp_min(0)\n"
    write("submission", "file_key", line({"predict": relu, "file": "Activation/relu.py"}))
    write("submission", "file_path", line({"predict": relu, "file": "preds/Activation/relu.py"}))
    write("submission", "instruction",
          line({"instruction": "Write softmax (KernelBench-X task Math/softmax.py)", "predict": "x"}) +
          line({"instruction": "Implement `def sgd_step(p, g, lr):`", "predict": "x"}) +
          line({"instruction": "the mse_loss of two tensors", "predict": "x"}))
    write("submission", "fenced",
          line({"predict": f"Here:\n```python\n{relu}{SEPARATOR}\nraise SystemExit\n```\nbye",
                "file": "Activation/relu.py"}) +
          line({"predict": "```\nunlabelled\n```\n```bash\nls\n```", "file": "Reduce/sum.py"}) +
          line({"predict": "```py\nunterminated", "file": "Math/softmax.py"}))
    write("submission", "mixed",
          "\n   \n" + line({"predict": relu, "file": "Activation/relu.py", "label": "extra"}) +
          '{"predict": "x", "file": "Activation/relu.py"\n' + line({"file": "Reduce/sum.py"}) +
          line({"predict": 3, "file": "Reduce/sum.py"}) + line({"predict": "x", "file": 5}) +
          line({"predict": "x", "file": "Math/sofmax.py"}) + line(["predict", "x"]) +
          line({"predict": "x"}) + "\r\n" + line({"predict": "é ✓ \u0000", "file": "sum"}))
    write("submission", "nested", '{"predict": "x", "file": "Reduce/sum.py", "n": ' + "[" * 64 +
          "]" * 64 + "}\n")


def task_seeds() -> None:
    """Real task.json files, keyed Math/softmax.py (the key the fuzz target expects)."""
    picks = ["Math/softmax", "Activation/gelu_int8", "Quantization/bmm_w8a8",
             "Convolution/conv_transpose2d", "Fusion/fused_cholesky_solve",
             "Fusion/fused_bmm_dropout_gelu", "Fusion/attention", "Reduce/sum"]
    for pick in picks:
        path = ROOT / "suites/kernelbenchx" / pick / "task.json"
        if not path.exists():
            continue
        task = json.loads(path.read_text())
        task["key"] = "Math/softmax.py"
        write("task", pick.replace("/", "_"), json.dumps(task, separators=(",", ":")))


def frame(header: dict, payload: bytes = b"") -> bytes:
    head = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<IQ", len(head), len(payload)) + head + payload


def tensor(values: list[float], offset: int, shape: list[int], dtype: str = "float32") -> dict:
    return {"dtype": dtype, "shape": shape, "device": "cpu", "offset": offset, "nbytes": 4 * len(values)}


def ok_case(index: int, payload: bytearray, values: list[float]) -> dict:
    leaves = []
    for path in ("out", "arg0", "arg1"):
        offset = len(payload)
        payload += struct.pack(f"<{len(values)}f", *values)
        leaves.append({"path": path, "kind": "tensor", "tensor": tensor(values, offset, [2, 3])})
    return {"index": index, "status": "ok", "time_ms": 0.5, "triton_launches": 1, "torch_ops": 0,
            "triton_output": True, "outputs": leaves}


def worker_reply_seeds() -> None:
    loaded = frame({"op": "loaded", "ok": True, "handle": 1, "entry": "abs"})
    ref = [0.5 * i - 1 for i in range(6)]
    payload = bytearray()
    raised = {"index": 1, "status": "error", "time_ms": 0.1, "triton_launches": 0,
              "error": {"kind": "runtime_error", "type": "ValueError", "types": ["ValueError", "Exception"],
                        "message": "empty"}}
    results = [ok_case(0, payload, ref), raised, ok_case(2, payload, ref)]
    cases = frame({"op": "cases", "results": results}, bytes(payload))
    timings = frame({"op": "timings", "results": [
        {"index": i, "status": "ok", "samples_ms": [0.01, 0.011], "warmup_calls": 3,
         "bracket_ms": [0.02, 0.021]} for i in range(2)]})
    recheck_payload = struct.pack("<1024f", *[0.5 * i - 1 for i in range(1024)])
    recheck = frame({"op": "cases", "results": [
        {"index": 0, "status": "ok", "time_ms": 1, "triton_launches": 1,
         "outputs": [{"path": "out", "kind": "tensor",
                      "tensor": {"dtype": "float32", "shape": [1024], "device": "cpu", "offset": 0,
                                 "nbytes": 4096}}]}]}, recheck_payload)
    write("worker_reply", "honest_cpu", b"\x00" + loaded + cases)
    write("worker_reply", "honest_cuda_chunked", b"\x15" + loaded + cases + timings + recheck)
    write("worker_reply", "load_failed", b"\x00" + frame(
        {"op": "loaded", "ok": False, "error": {"kind": "import_error", "type": "SyntaxError",
                                                  "message": "invalid syntax", "traceback": "..."}}))
    write("worker_reply", "tampered", b"\x02" + loaded + frame(
        {"op": "error", "error": {"kind": "tampered", "message": "allow_tf32 changed"}}))
    leaves = [{"path": "out", "kind": "scalar", "dtype": "float64", "value": 0.25},
              {"path": "out[1]", "kind": "none"}, {"path": "out[2]", "kind": "str", "value": "x"},
              {"path": "out[3]", "kind": "repr", "value": "torch.float32"},
              {"path": "out[4]", "kind": "scalar", "dtype": "complex128", "value": [1, "nan"]},
              {"path": "out[5]", "kind": "tensor", "tensor": {"dtype": "bfloat16", "shape": [2], "device": "cpu",
                                                          "offset": 0, "nbytes": 4}}]
    odd = frame({"op": "cases", "results": [
        {"index": 0, "status": "ok", "outputs": leaves, "magnitude": [], "canonical": []},
        raised, {"index": 2, "status": "ok", "outputs": []}]}, b"\x80\x3f\x00\x7f")
    write("worker_reply", "odd_leaves", b"\x00" + loaded + odd)
    write("worker_reply", "bad_prefix", b"\x00" + struct.pack("<IQ", 5, 1 << 40) + b"{}")


def main() -> None:
    submission_seeds()
    task_seeds()
    worker_reply_seeds()
    for folder in sorted(CORPUS.iterdir()):
        print(f"{folder.relative_to(ROOT)}: {len(list(folder.iterdir()))} seeds")


if __name__ == "__main__":
    main()
