"""Launch hooks: real launches count, warm-ups do not, and the hooks go in once per process."""

from __future__ import annotations

import pytest
import torch
import triton
import triton.language as tl

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


@triton.jit
def _bf16_dot(a, b, c, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(a + rm[:, None] * K + rk[None, :])
    y = tl.load(b + rk[:, None] * N + rn[None, :])
    tl.store(c + rm[:, None] * N + rn[None, :], tl.dot(x, y))


def test_the_interpreters_bfloat16_dot_multiplies_values_not_bit_patterns(launches):
    a = torch.randn(16, 32, dtype=torch.bfloat16)
    b = torch.randn(32, 16, dtype=torch.bfloat16)
    c = torch.empty(16, 16, dtype=torch.float32)
    _bf16_dot[(1,)](a, b, c, 16, 16, 32)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-6, atol=1e-6)
    assert not hooks.fix_interpreter_dot()  # patched once, by install()
