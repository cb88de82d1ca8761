#!/usr/bin/env bash
# Session 44's device call (tune/h200_bg.sh start 'tune/h200_call_ae.sh' 540, then wait/finish
# with /tmp/k-texts.tar.xz '/tmp/k/*.txt'):
# 1. a smoke run with perf of one reference per category as submissions (about 40 s): since the
#    L2-flush check (find_flush_violation), an honest candidate's inventory must show a full
#    flush before every call, so all 15 must be ok (none `tampered:l2_flush`);
# 2. on an H200, tune/h200_call_y.sh (the GPU-only exploits, 50 and 51 among them, then issue 5's
#    pending PyTorch eager draws for DRAWS_S seconds); on any other card, tune/h200_call_ad.sh
#    (cuDNN TF32 on the float32 convolution tasks; the whole zoo, expert and model kernels on
#    cuda).
source "$(dirname "$0")/device_prologue.sh"
tune/smoke_run.sh "Activation/gelu.py,Convolution/conv2d.py,Fusion/fused_exp_mean.py,\
Index/index_select.py,LinearAlgebra/cholesky_solve.py,Loss/cross_entropy.py,Math/softmax.py,\
MatrixMultiply/matmul.py,Normalization/batch_norm.py,Optimizer/Adam.py,Pooling/avg_pool1d.py,\
Quantization/bmm_w8a8.py,Random/rand.py,Reduce/sum.py,SpatialOps/interpolate.py"
if grep -q H200 <<<"$gpu"; then
  tune/h200_call_y.sh
else
  tune/h200_call_ad.sh
fi
