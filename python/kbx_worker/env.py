"""Describes the software environment (the zygote's hello) and a worker's device (its ready)."""

from __future__ import annotations

import os
import platform
import socket
import sys


def describe_env() -> dict:
    """The hello message's `env`. Never touches CUDA: the zygote must not initialise it."""
    import torch
    import triton

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "numpy": _module_version("numpy"),
        "platform": platform.platform(),
        "hostname": socket.gethostname(),
        "cuda_build": torch.version.cuda,
        "interpret": triton_interpret(),
    }


def triton_interpret() -> bool:
    """True when TRITON_INTERPRET is on (Triton runs kernels on the CPU, in Python)."""
    try:
        from triton import knobs

        return bool(knobs.runtime.interpret)
    except (ImportError, AttributeError):
        return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on", "yes")


def describe_cuda(gpu: int) -> dict:
    """The ready message's `device` for the (already initialised) current CUDA device."""
    import torch

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {
        "kind": "cuda",
        "index": gpu,
        "name": props.name,
        "capability": f"{props.major}.{props.minor}",
        "sm_count": props.multi_processor_count,
        "total_memory_bytes": props.total_memory,
        "l2_cache_bytes": l2_cache_bytes(props),
        "driver": nvidia_driver_version(),
        "torch_cuda": torch.version.cuda,
        "uuid": str(getattr(props, "uuid", "") or ""),
        # The hardware queues the context got (kbx eval --cuda-connections; None: the driver's
        # default of 8). Reported so the reference timings' cache keys and the store hold it.
        "max_connections": _max_connections(),
    }


def _max_connections() -> int | None:
    value = os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS", "")
    return int(value) if value.strip().isdigit() else None


def describe_cpu(threads: int) -> dict:
    return {"kind": "cpu", "name": cpu_model(), "threads": threads}


def l2_cache_bytes(props) -> int:
    return int(getattr(props, "L2_cache_size", 0) or 0)


def nvidia_driver_version() -> str | None:
    """The kernel driver's version ("580.159.04"), or None where it cannot be read."""
    return _driver_from_proc() or _driver_from_nvml()


def _driver_from_proc() -> str | None:
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8") as f:
            first = f.readline()
    except OSError:
        return None
    for word in first.split():
        parts = word.split(".")
        if len(parts) >= 2 and all(p.isdigit() for p in parts):
            return word
    return None


def _driver_from_nvml() -> str | None:
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            version = pynvml.nvmlSystemGetDriverVersion()
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - NVML missing or failing: the driver stays unknown
        return None
    return version.decode() if isinstance(version, bytes) else str(version)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _module_version(name: str) -> str | None:
    module = sys.modules.get(name)
    if module is None:
        try:
            module = __import__(name)
        except ImportError:
            return None
    return getattr(module, "__version__", None)
