"""Fusion/fused_hardshrink_dropout.py variant whose dropout mask cycles through three rows: the
random draw is keyed on (row % 3, column), tl.rand(seed, (row % 3) * C + col) for an input seen as
rows of its last dimension C, as a kernel might that sizes its random-key space by a small tile of
rows and forgets the row block's offset. Density and scaling are right, so every kept value and
every drop count is plausible, and neighbouring rows differ; but row r and row r + 3 drop exactly
the same columns, which independent draws do with probability (p^2 + (1-p)^2)^C, i.e. never. A
judge that compares rows three apart, not only neighbours, sees it on every call. (Before the judges
compared slices 2 and 3 apart, only the drop count caught it, by chance: 85 copies of three rows
widen the count's spread about ninefold, so the two 256x256 cases failed it about three calls in
four, and the smaller cases never.)

Otherwise as the correct kernel: dropout with Triton's Philox (seed from torch's global generator)
scaled by 1/(1-p), then hardshrink; eval mode / p == 0 is a plain hardshrink.
"""
# expect: incorrect
import torch
import triton
import triton.language as tl


@triton.jit
def _dropout_hardshrink_kernel(x_ptr, y_ptr, n, C, p, lambd, seed, TRAIN: tl.constexpr,
                               BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if TRAIN:
        row = offs // C
        col = offs % C
        r = tl.rand(seed, (row % 3) * C + col)
        keep = r >= p
        x = tl.where(keep, x / (1.0 - p), 0.0)
    y = tl.where(tl.abs(x) > lambd, x, 0.0)
    tl.store(y_ptr + offs, y, mask=m)


def fused_hardshrink_dropout(input, p=0.5, training=True, inplace=False, lambd=0.5):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    C = x.shape[-1] if x.dim() else 1
    train = training and p > 0
    if train and p >= 1.0:
        y.zero_()
        return y
    seed = int(torch.randint(0, 2**31 - 1, (1,)).item())
    _dropout_hardshrink_kernel[(triton.cdiv(n, 1024),)](x, y, n, C, float(p), float(lambd), seed,
                                                       TRAIN=train, BLOCK_SIZE=1024)
    if inplace and train:
        input.copy_(torch.where(y != 0, x / (1.0 - p), torch.zeros_like(x)))
    return y.view(input.shape)
