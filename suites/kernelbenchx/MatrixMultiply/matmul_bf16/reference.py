"""Reference for MatrixMultiply/matmul_bf16.py: torch.matmul on bfloat16 operands."""

import torch


def matmul_bf16(input, other):
    # torch.matmul (cuBLAS, float32 accumulation) is the eager op KernelBench-X measures against.
    return torch.matmul(input, other)
