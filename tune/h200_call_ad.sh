#!/usr/bin/env bash
# Session 44's first device call (tune/h200_bg.sh start 'tune/h200_call_ad.sh' 540, then finish
# with '/tmp/k/*.txt'), about 5 minutes on any card: (1) tune/conv_tf32.py: whether cuDNN's TF32
# default, which the public harness keeps and kbx turns off, moves the float32 convolution tasks'
# public cases beyond 1e-5 (docs/errata.md); (2) tune/h200_call_ab.sh: the exploit zoo, the
# expert kernels and the model kernels on cuda, to put 6a10f12's near-copy rule and a9bae29's
# padded attention_w8a8 on a GPU (session 43 ran them on the CPU only).
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/k
python3 tune/conv_tf32.py 3 2>&1 | tee /tmp/k/conv-tf32.txt
tune/h200_call_ab.sh
