"""Shared setup: the package on sys.path, Triton's interpreter on, launch hooks installed once."""

from __future__ import annotations

import os
import pathlib
import sys

PYTHON_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PYTHON_DIR))
# Kernels in these tests run on CPU tensors, which only Triton's interpreter can do.
os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def launches():
    """The launch counter; install() may run once per process, so every test shares it."""
    from kbx_worker import hooks

    return hooks.install()
