"""Launch hooks: real launches count, warm-ups do not, and the hooks go in once per process."""

from __future__ import annotations

import pytest
import torch

from kbx_worker import executor, hooks

KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def fill(out_ptr, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), 1.0)
'''


def test_launches_count_and_warmups_do_not(launches):
    fill = executor.load_source(KERNEL, "Hooks/fill.py", "kbx_test").fill
    out = torch.zeros(8)
    before = launches()
    fill[(1,)](out, BLOCK=8)
    fill[(2,)](out, BLOCK=8)
    fill.run(out, grid=(1,), warmup=True, BLOCK=8)
    assert launches() - before == 2
    assert out.tolist() == [1.0] * 8


def test_installing_twice_is_refused(launches):
    with pytest.raises(RuntimeError, match="already wrapped"):
        hooks.install()
