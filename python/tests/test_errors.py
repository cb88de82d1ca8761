"""Error objects: classification by exception and message, and trimming of long texts."""

from __future__ import annotations

import pytest
import torch

from kbx_worker.errors import (TEXT_LIMIT_BYTES, WorkerError, classify, error_object, is_gpu_fault,
                               make_error)
from kbx_worker.values import InputError


def raised(exc: BaseException) -> BaseException:
    try:
        raise exc
    except BaseException as e:  # noqa: BLE001
        return e


@pytest.mark.parametrize("message", [
    "CUDA error: an illegal memory access was encountered",
    "Triton Error [CUDA]: misaligned address",
    "CUDA error: device-side assert triggered",
    "CUDA error: unspecified launch failure",
    "CUDA error: an illegal instruction was encountered",
])
def test_dead_context_messages_are_gpu_faults(message):
    assert classify(raised(RuntimeError(message))) == "gpu_fault"


def test_a_gpu_fault_found_while_building_inputs_is_still_a_gpu_fault():
    try:
        try:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        except RuntimeError as e:
            raise InputError("cannot build the inputs") from e
    except InputError as e:
        assert is_gpu_fault(e) and classify(e) == "gpu_fault"


def test_out_of_memory():
    assert classify(raised(torch.cuda.OutOfMemoryError("CUDA out of memory"))) == "out_of_memory"


# What torch appends to every CUDA error it raises (torch 2.x, c10/cuda/CUDAException).
TORCH_CUDA_FOOTER = ("\nCUDA kernel errors might be asynchronously reported at some other API call, "
                     "so the stacktrace below might be incorrect.\nFor debugging consider passing "
                     "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable "
                     "device-side assertions.\n")


@pytest.mark.parametrize("message,kind", [
    # The driver refused an allocation (other processes held the memory): the context lives on.
    ("CUDA error: out of memory", "out_of_memory"),
    ("Triton Error [CUDA]: out of memory", "out_of_memory"),
    # Errors that leave the context usable are the candidate's runtime errors.
    ("CUDA error: invalid configuration argument", "runtime_error"),
    ("CUDA error: invalid argument", "runtime_error"),
    # A fault is one with or without the footer.
    ("CUDA error: device-side assert triggered", "gpu_fault"),
    ("CUDA error: an illegal memory access was encountered", "gpu_fault"),
])
def test_cuda_errors_are_judged_by_their_error_not_torchs_footer(message, kind):
    exc_type = getattr(torch, "AcceleratorError", RuntimeError)
    assert classify(raised(exc_type(message + TORCH_CUDA_FOOTER))) == kind
    assert classify(raised(RuntimeError(message))) == kind


def test_triton_compilation_errors():
    from triton.compiler.errors import CompilationError
    from triton.runtime.errors import OutOfResources

    assert classify(raised(CompilationError("src", None, "bad"))) == "triton_compile_error"
    assert classify(raised(OutOfResources(1 << 20, 1 << 16, "shared memory"))) == \
        "triton_compile_error"


def test_input_errors_and_everything_else():
    assert classify(raised(InputError("bad spec"))) == "input_error"
    assert classify(raised(ZeroDivisionError("x"))) == "runtime_error"
    assert classify(raised(WorkerError("no_entry", "none"))) == "no_entry"


def test_error_object_of_a_wrapped_exception_reports_the_original():
    try:
        try:
            {}["k"]
        except KeyError as inner:
            raise WorkerError("import_error", "while importing") from inner
    except WorkerError as e:
        error = error_object(e)
    assert error["kind"] == "import_error"
    assert error["type"] == "KeyError"
    assert error["message"] == "while importing: 'k'"
    assert "KeyError" in error["traceback"]


def test_long_messages_and_tracebacks_are_trimmed():
    error = error_object(raised(RuntimeError("x" * 50_000)))
    assert len(error["message"].encode()) <= TEXT_LIMIT_BYTES
    assert len(error["traceback"].encode()) <= TEXT_LIMIT_BYTES
    assert error["traceback"].rstrip().endswith("x")  # the tail, where the error is, is kept


def test_an_unprintable_exception_still_yields_an_error_object():
    class Hostile(Exception):
        def __str__(self):
            raise RuntimeError("no")

    error = error_object(raised(Hostile()))
    assert error["kind"] == "runtime_error" and "unprintable" in error["message"]


def test_make_error_has_every_field():
    assert make_error("gpu_fault", "dead") == {"kind": "gpu_fault", "type": "WorkerError",
                                               "message": "dead", "traceback": ""}
