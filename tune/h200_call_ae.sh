#!/usr/bin/env bash
# Session 44's first device call (tune/h200_bg.sh start 'tune/h200_call_ae.sh' 540, then
# wait/finish with /tmp/k-texts.tar.xz '/tmp/k/*.txt'): on an H200, issue 5's pending PyTorch eager
# draws (tune/h200_call_y.sh, DRAWS_S seconds); on any other card, tune/h200_call_ad.sh (cuDNN TF32
# on the float32 convolution tasks; the zoo, expert and model kernels on cuda).
set -u
cd "$(dirname "$0")/.."
gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
echo "GPU: $gpu"
if grep -q H200 <<<"$gpu"; then
  tune/h200_call_y.sh
else
  tune/h200_call_ad.sh
fi
