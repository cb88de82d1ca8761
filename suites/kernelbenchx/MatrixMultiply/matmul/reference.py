"""Reference for MatrixMultiply/matmul.py: torch.matmul over vectors, matrices and batches."""

import torch


def matmul(tensor1, tensor2):
    # torch.matmul is the eager op KernelBench-X measures against.
    return torch.matmul(tensor1, tensor2)
