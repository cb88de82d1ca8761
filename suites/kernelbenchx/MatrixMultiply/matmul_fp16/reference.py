"""Reference for MatrixMultiply/matmul_fp16.py: torch.matmul on float16 operands."""

import torch


def matmul_fp16(input, other):
    # torch.matmul (cuBLAS, float32 accumulation) is the eager op KernelBench-X measures against.
    return torch.matmul(input, other)
