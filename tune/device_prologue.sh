# Sourced by the device-call scripts (tune/h200_call_*.sh): run from the tree's root, /tmp/k for
# the files a call brings back, the carried build in build-device/, and the GPU's name in $gpu.
set -u
cd "$(dirname "${BASH_SOURCE[1]}")/.." || exit 1
mkdir -p /tmp/k build-device
[ -x build-device/kbx ] || { cp .device/bin/* build-device/ && touch build-device/kbx build-device/libkbx_cupti.so; }
gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
echo "GPU: $gpu"
