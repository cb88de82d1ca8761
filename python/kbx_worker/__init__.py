"""kbx_worker: runs reference and candidate code for kbx, and times it on the GPU.

Only kbx (C++) judges. This package builds inputs, calls functions, flattens outputs to bytes and
takes raw timing samples. See docs/worker-protocol.md.
"""

PROTOCOL_VERSION = 1
