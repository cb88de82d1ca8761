"""The sandbox's seeding of a candidate's torch kernel cache (the jiterator's NVRTC kernels)."""

from __future__ import annotations

import os
import subprocess
import sys

import support
from kbx_worker import sandbox


def test_the_kernel_cache_is_found_where_torch_looks():
    find = sandbox.torch_kernel_cache_dir
    assert find({"HOME": "/h"}) == "/h/.cache/torch/kernels"
    assert find({"HOME": "/h", "XDG_CACHE_HOME": "/x"}) == "/x/torch/kernels"
    assert find({"HOME": "/h", "XDG_CACHE_HOME": "/x", "PYTORCH_KERNEL_CACHE_PATH": "/p"}) == "/p"
    assert find({"HOME": "/h", "USE_PYTORCH_KERNEL_CACHE": "0"}) is None
    assert find({}) is None


def test_a_candidate_starts_with_a_copy_of_the_trusted_kernels(tmp_path, monkeypatch):
    source = tmp_path / "trusted"
    source.mkdir()
    (source / "zeta_kernel_arch9.0_nvrtc13.0_sass_120_abc").write_bytes(b"cubin")
    (source / "i0_kernel_arch9.0_nvrtc13.0_sass_99_def").write_bytes(b"other")
    (source / "folder").mkdir()
    (source / "link").symlink_to(source / "zeta_kernel_arch9.0_nvrtc13.0_sass_120_abc")
    monkeypatch.setattr(sandbox, "KERNEL_FILE_MAX_BYTES", 5)
    (source / "too_big").write_bytes(b"123456")
    files = sandbox.read_kernel_cache(str(source))
    assert [name for name, _ in files] == ["i0_kernel_arch9.0_nvrtc13.0_sass_99_def",
                                           "zeta_kernel_arch9.0_nvrtc13.0_sass_120_abc"]
    home = tmp_path / "scratch" / "home"
    home.mkdir(parents=True)
    report = sandbox.seed_kernel_cache(files, str(source), str(home), None)
    assert report == f"on: 2 kernels copied from {source}"
    dest = home / ".cache" / "torch" / "kernels"
    assert (dest / "zeta_kernel_arch9.0_nvrtc13.0_sass_120_abc").read_bytes() == b"cubin"
    # Where the candidate's torch will look once HOME is the scratch home, and its own to write.
    assert sandbox.torch_kernel_cache_dir({"HOME": str(home)}) == str(dest)
    assert os.access(dest, os.W_OK)
    # The trusted folder is untouched, and a missing one gives an empty copy.
    assert sorted(os.listdir(source)) == sorted(["zeta_kernel_arch9.0_nvrtc13.0_sass_120_abc",
                                                 "i0_kernel_arch9.0_nvrtc13.0_sass_99_def",
                                                 "folder", "link", "too_big"])
    assert sandbox.read_kernel_cache(str(tmp_path / "missing")) == []
    assert sandbox.seed_kernel_cache([], None, str(home), None).startswith("off:")


def test_the_copy_stops_at_the_total_cap(tmp_path, monkeypatch):
    for i in range(5):
        (tmp_path / f"k{i}").write_bytes(bytes(4))
    monkeypatch.setattr(sandbox, "KERNEL_CACHE_MAX_BYTES", 10)
    assert [name for name, _ in sandbox.read_kernel_cache(str(tmp_path))] == ["k0", "k1"]


def test_the_cuda_connections_survive_the_scrub_and_are_reported(tmp_path):
    # kbx sets CUDA_DEVICE_MAX_CONNECTIONS for every worker (kbx eval --cuda-connections); the
    # sandbox scrubs the environment before the CUDA context exists, so the setting must survive
    # that scrub to take effect, and the device description reports it (the timing cache's key).
    script = ("import os\n"
              "from kbx_worker import env, sandbox\n"
              "os.environ['KBX_TOKEN'] = 'secret'\n"
              "sandbox._scrub_environment(os.environ['H'], os.environ['S'])\n"
              "print(os.environ.get('CUDA_DEVICE_MAX_CONNECTIONS'), env._max_connections(),\n"
              "      'KBX_TOKEN' in os.environ)\n")
    run_env = support.worker_env()
    run_env.update({"CUDA_DEVICE_MAX_CONNECTIONS": "1", "H": str(tmp_path), "S": str(tmp_path)})
    out = subprocess.run([sys.executable, "-c", script], env=run_env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["1", "1", "False"]
    del run_env["CUDA_DEVICE_MAX_CONNECTIONS"]
    out = subprocess.run([sys.executable, "-c", script], env=run_env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["None", "None", "False"]
