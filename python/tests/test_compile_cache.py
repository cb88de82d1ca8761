"""The shared compile cache (compile_cache.py): candidates reuse compiles, never each other's lies.

Everything compiles for a sm_90 target that is not there (no GPU, no launch): Triton's compiler
runs on any machine, so the candidate side, the harvest and the lookup are the real code paths.
Each candidate is its own Python process (the client patches Triton's compiler for good)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

from kbx_worker import compile_cache

PYTHON_DIR = pathlib.Path(__file__).resolve().parent.parent

KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * alpha + tl.exp(y), mask=m)
'''

CANDIDATE = '''
import importlib.util, json, os, sys
sys.path.insert(0, {python_dir!r})
os.environ["TRITON_CACHE_DIR"] = sys.argv[2]
os.environ.pop("TRITON_INTERPRET", None)
from kbx_worker import compile_cache
client = None
if sys.argv[3] != "-":
    client = compile_cache.Client(sys.argv[3], sys.argv[4] if sys.argv[4] != "-" else None)
    client.install()
spec = importlib.util.spec_from_file_location("candidate", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
from triton.backends.compiler import GPUTarget
from triton.compiler.compiler import ASTSource, compile
sig = {{"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32",
        "BLOCK": "constexpr"}}
kernel = compile(ASTSource(module.scale_add, sig, {{"BLOCK": 256}}),
                 target=GPUTarget("cuda", 90, 32), options={{"num_warps": int(sys.argv[5])}})
print(json.dumps({{"cubin": kernel.asm["cubin"].hex(), "shared": kernel.metadata.shared,
                   "num_warps": kernel.metadata.num_warps, "name": kernel.metadata.name,
                   "hits": client.hits if client else 0,
                   "misses": client.misses if client else 0}}))
'''

HARVEST = '''
import json, sys
sys.path.insert(0, {python_dir!r})
from kbx_worker import compile_cache
print(json.dumps(compile_cache.harvest(sys.argv[1], sys.argv[2], sys.argv[3])))
'''


@pytest.fixture(autouse=True, scope="module")
def _remove_the_shared_kernel_folder():
    yield
    shutil.rmtree(pathlib.Path(tempfile.gettempdir()) / f"kbx-compile-cache-test-{os.getpid()}",
                  ignore_errors=True)


def _env() -> dict:
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    return env


def _candidate(tmp_path, source: str, root, inbox, num_warps: int = 4, tag: str = "c") -> dict:
    # One path for every candidate's module, as in the sandbox (its debug info names the file).
    kernel = pathlib.Path(tempfile.gettempdir()) / f"kbx-compile-cache-test-{os.getpid()}" / "kernel.py"
    kernel.parent.mkdir(exist_ok=True)
    kernel.write_text(source)
    script = tmp_path / "candidate.py"
    script.write_text(CANDIDATE.format(python_dir=str(PYTHON_DIR)))
    cache = tmp_path / f"triton-{tag}"
    out = subprocess.run([sys.executable, str(script), str(kernel), str(cache),
                          str(root) if root else "-", str(inbox) if inbox else "-",
                          str(num_warps)], capture_output=True, text=True, env=_env(), timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _harvest(tmp_path, root, inbox) -> dict:
    script = tmp_path / "harvest.py"
    script.write_text(HARVEST.format(python_dir=str(PYTHON_DIR)))
    work = tmp_path / "harvest-work"
    work.mkdir(exist_ok=True)
    out = subprocess.run([sys.executable, str(script), str(root), str(inbox), str(work)],
                         capture_output=True, text=True, env=_env(), timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _inbox(root, n: int) -> pathlib.Path:
    path = compile_cache.open_inbox(str(root), 1, n, None)
    assert path is not None
    return pathlib.Path(path)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A cache filled by one candidate's claims, and that candidate's own compile."""
    tmp_path = tmp_path_factory.mktemp("shared")
    root = tmp_path / "cache"
    inbox = _inbox(root, 1)
    first = _candidate(tmp_path, KERNEL, root, inbox, tag="first")
    claims = sorted(p.name for p in inbox.iterdir())
    claim = json.loads((inbox / "kernel-0.json").read_text())
    counts = _harvest(tmp_path, root, inbox)
    return {"root": root, "first": first, "claims": claims, "claim": claim, "counts": counts,
            "tmp": tmp_path}


def test_a_miss_writes_a_claim_and_the_harvest_compiles_it_and_empties_the_inbox(shared):
    assert shared["first"]["misses"] == 1 and shared["first"]["hits"] == 0
    assert shared["claims"] == ["kernel-0.json"]
    assert shared["counts"]["kernels"] == 1 and shared["counts"]["refused"] == 0
    assert not (shared["root"] / "inbox" / "1-1").exists()


def test_the_next_candidate_gets_the_same_binary_from_the_cache(shared, tmp_path):
    second = _candidate(tmp_path, KERNEL, shared["root"], None, tag="second")
    assert second["hits"] == 1 and second["misses"] == 0
    assert second["cubin"] == shared["first"]["cubin"]
    assert (second["shared"], second["num_warps"], second["name"]) == \
        (shared["first"]["shared"], shared["first"]["num_warps"], shared["first"]["name"])


def test_a_different_submission_with_the_same_kernel_hits_too(shared, tmp_path):
    edited = KERNEL + "\n\n# a comment and a helper the kernel does not use\n" \
                      "def unused():\n    return 1\n"
    other = _candidate(tmp_path, edited, shared["root"], None, tag="edited")
    assert other["hits"] == 1
    assert other["cubin"] == shared["first"]["cubin"]


def test_other_options_or_another_kernel_miss(shared, tmp_path):
    more_warps = _candidate(tmp_path, KERNEL, shared["root"], None, num_warps=8, tag="warps")
    assert more_warps["hits"] == 0 and more_warps["misses"] == 1
    changed = KERNEL.replace("tl.exp(y)", "tl.exp(y) + 1.0")
    other = _candidate(tmp_path, changed, shared["root"], None, tag="changed")
    assert other["hits"] == 0


def _code(cubin_hex: str) -> dict:
    """The cubin's sections but its debug ones (which carry the module file's name and mtime)."""
    import struct

    elf = bytes.fromhex(cubin_hex)
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx]
    out = {}
    for h in headers:
        start = names[4] + h[0]
        name = elf[start:elf.index(b"\0", start)].decode()
        if not name.startswith(".debug") and not name.startswith(".nv_debug") and h[1] != 8:
            out[name] = elf[h[4]:h[4] + h[5]]
    return out


def test_the_result_matches_a_compile_without_the_cache(shared, tmp_path):
    plain = _candidate(tmp_path, KERNEL, None, None, tag="plain")
    code = _code(plain["cubin"])
    assert ".text.scale_add" in code
    assert code == _code(shared["first"]["cubin"])


def test_a_kernel_at_another_path_hits_with_the_same_code():
    """Only debug info names the module's file: the key leaves it out, and nothing else."""
    opts, target = {"num_warps": 4}, {"backend": "cuda", "arch": 90, "warp_size": 32}
    a = 'tt.func public @k() { tt.return loc(#loc1) } loc(#loc)\n#loc = loc("/w/1/a.py":8:0)'
    b = a.replace("/w/1/a.py", "/other place/b.py")
    c = a.replace(":8:0", ":9:0")
    key = compile_cache.content_key
    assert key(a, opts, target, {}) == key(b, opts, target, {})
    assert key(a, opts, target, {}) != key(c, opts, target, {})
    assert key(a, opts, target, {}) != key(a, {"num_warps": 8}, target, {})


def test_entries_are_sealed_and_named_by_a_hash_of_their_key(shared):
    folder = shared["root"] / "ttir"
    entries = list(folder.iterdir())
    assert len(entries) == 1
    data = entries[0].read_bytes()
    cubin = bytes.fromhex(shared["first"]["cubin"])
    assert cubin[64:128] not in data and b"scale_add" not in data
    assert compile_cache.unseal("0" * 64, data) is None
    assert oct(folder.stat().st_mode & 0o777) == oct(0o311)


def test_a_forged_claim_is_stored_only_under_its_own_content(shared, tmp_path):
    """A candidate that claims another kernel's TTIR with a planted option, or a TTIR under options
    kbx does not let a claim set, gets nothing stored; one that claims a TTIR of its choosing gets
    exactly that TTIR's compile, which no other kernel's key reaches."""
    root = shared["root"]
    inbox = _inbox(root, 7)
    with open(inbox / "kernel-0.json", "w") as f:
        json.dump({"ttir": "module {}", "options": {"num_warps": 4, "extern_libs": [["x", "/etc/passwd"]]},
                   "target": {"backend": "cuda", "arch": 90, "warp_size": 32}, "env": {}}, f)
    with open(inbox / "kernel-1.json", "w") as f:
        json.dump({"ttir": 5, "options": {}, "target": {}}, f)
    (inbox / "kernel-2.json").symlink_to("/etc/passwd")
    with open(inbox / "launcher-3.json", "w") as f:
        json.dump({"signature": [[0, "*fp32); system(\"id\"); (void"]], "tensordesc_meta": None}, f)
    # A real kernel's claim with an option a launch cannot set, each on its own: a file to link
    # in, a file to read as the IR, flags for ptxas. Each is refused, not compiled.
    real = shared["claim"]
    planted = [("extern_libs", [["libdevice", "/etc/passwd"]]), ("ir_override", "/etc/passwd"),
               ("ptx_options", "--output-file=/tmp/x")]
    for i, (name, value) in enumerate(planted):
        forged = json.loads(json.dumps(real))
        forged["options"][name] = value
        with open(inbox / f"kernel-{4 + i}.json", "w") as f:
            json.dump(forged, f)
    before = set((root / "ttir").iterdir())
    counts = _harvest(tmp_path, root, inbox)
    assert counts["refused"] == 4 + len(planted) and counts["kernels"] == 0 and counts["failed"] == 0
    assert set((root / "ttir").iterdir()) == before
    assert not inbox.exists()


def test_seal_and_unseal_round_trip_and_detect_damage():
    payload = {"key": "k" * 64, "files": {"ptx": "x" * 1000}}
    sealed = compile_cache.seal("k" * 64, payload)
    assert compile_cache.unseal("k" * 64, sealed) == payload
    damaged = sealed[:-1] + bytes([sealed[-1] ^ 1])
    assert compile_cache.unseal("k" * 64, damaged) is None
    assert compile_cache.unseal("k" * 64, sealed[:10]) is None


def test_launcher_signatures_are_checked_before_any_source_is_made():
    assert compile_cache._valid_type("*fp32") and compile_cache._valid_type("i64")
    assert compile_cache._valid_type(["*bf16", "constexpr"])
    assert not compile_cache._valid_type("*fp32 x; int y")
    assert not compile_cache._valid_type("tensordesc<fp16[64,64]>")
    assert not compile_cache._valid_type([])


def test_the_source_of_a_claimed_launcher_is_triton_own_output():
    pytest.importorskip("triton.backends.nvidia.driver")
    from triton.backends.nvidia import driver

    src = driver.make_launcher({}, {0: "*fp32", 1: "i32", 2: "constexpr"}, None)
    assert "PyInit___triton_launcher" in src or "PyMODINIT_FUNC" in src


def test_the_zygote_harvests_a_finished_worker_in_a_confined_process(tmp_path):
    """zygote.Harvests: a worker that shared compiles ends; a forked harvester (Landlock: writes
    only to the cache and its work folder) compiles its claims; the next candidate hits."""
    import time

    from kbx_worker import zygote

    root = tmp_path / "cache"
    worker_pid = 4242
    inbox = compile_cache.open_inbox(str(root), os.getpid(), worker_pid, None)
    first = _candidate(tmp_path, KERNEL.replace("x * alpha", "x * alpha * 2.0"), root, inbox, tag="z1")
    assert first["misses"] == 1
    harvests = zygote.Harvests(lambda: [])
    harvests.expect(worker_pid, str(root))
    harvests.worker_ended(worker_pid)
    assert len(harvests.running) == 1
    (work,) = harvests.running.values()
    deadline = time.time() + 300
    while harvests.running and time.time() < deadline:
        pid, status = os.waitpid(-1, 0)
        assert harvests.ended(pid) and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert not os.path.exists(inbox)
    assert not os.path.exists(work)  # the confined harvester's folder, removed by the zygote
    second = _candidate(tmp_path, KERNEL.replace("x * alpha", "x * alpha * 2.0"), root, None, tag="z2")
    assert second["hits"] == 1 and second["cubin"] == first["cubin"]


def test_the_first_worker_of_a_cache_root_gets_a_priming_harvester(tmp_path, monkeypatch):
    """A run whose candidates compile nothing (the references as submissions) has no harvest; the
    driver module is primed anyway, once per cache root, as the root's first worker starts."""
    import time

    from kbx_worker import zygote

    def prime(root, work):  # stands in for the C build (which needs libcuda): a marker per call
        with open(os.path.join(root, f"primed-{os.getpid()}"), "w") as f:
            f.write(work)
        return {"launchers": 1}

    monkeypatch.setattr(compile_cache, "prime", prime)
    root = tmp_path / "cache"
    root.mkdir()
    harvests = zygote.Harvests(lambda: [])
    harvests.expect(4243, str(root))
    assert len(harvests.running) == 1
    deadline = time.time() + 60
    while harvests.running and time.time() < deadline:
        pid, status = os.waitpid(-1, 0)
        assert harvests.ended(pid) and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert len(list(root.glob("primed-*"))) == 1
    harvests.expect(4244, str(root))  # the same root again: no second priming
    assert not harvests.running
    other = tmp_path / "other"
    other.mkdir()
    harvests.expect(4245, str(other))  # another root: primed too
    assert len(harvests.running) == 1
    while harvests.running and time.time() < deadline:
        pid, _ = os.waitpid(-1, 0)
        harvests.ended(pid)
    assert len(list(other.glob("primed-*"))) == 1
    harvests.worker_ended(4243)  # a worker without claims: no harvest, its (absent) inbox removed
    assert not harvests.running


def test_a_launcher_claim_as_a_worker_writes_it_is_accepted_up_to_the_build(tmp_path, monkeypatch):
    """Triton's CudaLauncher passes the signature keyed by argument name, tensordesc_meta [];
    the harvest regenerates that launcher's source (the build itself needs libcuda)."""
    pytest.importorskip("triton.backends.nvidia.driver")
    built = []
    monkeypatch.setattr(compile_cache, "_build_module",
                        lambda root, src, name, work, counts: built.append((src, name)))
    claim = {"signature": [["x_ptr", "*fp32"], ["n", "i32"], ["BLOCK", "constexpr"]],
             "tensordesc_meta": []}
    counts = {"launchers": 0}
    compile_cache._harvest_launcher(str(tmp_path), claim, str(tmp_path), counts)
    from triton.backends.nvidia import driver

    expected = driver.make_launcher({}, {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, [])
    assert built == [(expected, "__triton_launcher")]
    with pytest.raises(compile_cache._Refused):
        compile_cache._harvest_launcher(str(tmp_path), {"signature": [["a b", "i32"]]}, str(tmp_path),
                                        counts)


def test_an_entry_missing_a_stage_is_a_miss_not_a_broken_compile():
    key = "k" * 64
    whole = {"key": key, "metadata": {}, "files": {"ttgir": "", "llir": "", "ptx": "", "cubin": ""}}
    stages = ["ttgir", "llir", "ptx", "cubin"]
    assert compile_cache._complete(whole, key, stages)
    assert not compile_cache._complete({**whole, "files": {"ttgir": ""}}, key, stages)
    assert not compile_cache._complete({**whole, "key": "x"}, key, stages)
    assert not compile_cache._complete(None, key, stages)


@pytest.mark.skipif(os.getuid() != 0, reason="the zygote mounts the inbox's tmpfs only as root")
def test_the_zygote_bounds_the_inbox_with_a_private_tmpfs(tmp_path):
    """Claims live outside a candidate's scratch tmpfs: as root, the zygote (and so every child)
    sees a size-limited tmpfs there, which the rest of the machine does not see."""
    inbox = tmp_path / "inbox"
    script = textwrap.dedent(f"""
        import errno, os, sys
        sys.path.insert(0, {str(PYTHON_DIR)!r})
        from kbx_worker import sandbox
        print(sandbox.bound_inbox({str(inbox)!r}))
        assert sandbox.INBOX_BOUNDED
        written = 0
        try:
            with open({str(inbox / "big")!r}, "wb") as f:
                for _ in range(300):
                    f.write(bytes(1 << 20))
                    written += 1
                f.flush()
        except OSError as e:
            assert e.errno == errno.ENOSPC, e
        print("written MiB", written)
        """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "tmpfs of 256 MiB" in out.stdout
    assert int(out.stdout.split("written MiB")[1]) < 300
    assert not (inbox / "big").exists()  # the tmpfs was the process's own
