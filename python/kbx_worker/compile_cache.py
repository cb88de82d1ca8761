"""A cache of compiled Triton kernels that candidates share without trusting one another.

Every candidate compiles in a private Triton cache (sandbox.py), because a candidate can write any
file there: a shared Triton cache would let one submission plant a binary under the key of another
submission's kernel. This module reuses compiles across candidates without that hole:

  content key  Only the expensive part of a compile is shared: TTIR -> TTGIR -> LLVM IR -> PTX ->
               cubin, a pure function of the TTIR text, the compile options, the target, the
               invalidating environment and Triton itself. The key is the hash of exactly those
               (content_key()), so an entry can only ever be the compile of the TTIR its key names
               (up to the file names in its debug locations, which only reach debug info).
  trusted fill Entries are written only by a harvester process that runs no candidate code: the
               zygote forks it after a candidate worker exits (zygote.py). It reads what the
               candidate claims to have compiled (TTIR text and options, in the candidate's inbox),
               compiles it again itself and stores the result under the key it computed. A
               candidate that lies in its claims only gets an entry for the TTIR it wrote.
  no browsing  An entry's file name is a hash of its key and its contents are encrypted with a key
               derived from the content key (convergent encryption): a candidate can read the
               compile of a TTIR it can produce itself, and nothing else, even if it lists the
               folder.
  launchers    Triton's C launcher (__triton_launcher, built with the C compiler per argument
               signature) and its driver module (cuda_utils) come from Triton's own generator; the
               harvester regenerates the C source from the claimed signature (checked against a
               strict pattern) and builds it, under Triton's own key (the hash of that source).

Layout under the root: ttir/<hash>.bin (encrypted kernel entries), mod/<triton key>/<name>.so
(launchers and driver module), inbox/<zygote pid>-<worker pid>/ (claims of one candidate worker,
writable by that worker only, removed once harvested).

The candidate side (Client.install) runs inside the sandbox before the submission is imported; the
harvester side (harvest) runs in a trusted process. Cache trouble never changes what Triton does:
every failure falls back to Triton's own compile.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from typing import Any

MAX_CLAIMS = 64                 # claims read from one inbox
MAX_CLAIM_BYTES = 8 << 20       # one claim file
_KEY_SALT = b"kbx-compile-cache-v1"
# Options a kernel may set through its launch (num_warps=..., ...); everything else in a claim must
# equal what Triton derives from these, so a claim cannot point the compiler at files
# (extern_libs, ir_override) or pass flags to ptxas (ptx_options).
_USER_OPTIONS = ("num_warps", "num_ctas", "num_stages", "maxnreg", "enable_fp_fusion",
                 "launch_cooperative_grid", "launch_pdl", "debug", "sanitize_overflow",
                 "default_dot_input_precision", "max_num_imprecise_acc_default", "enable_reflect_ftz")
# A file location in MLIR's text: loc("<file>":<line>:<column>. The key leaves the file name out
# (where the candidate's module lay differs between workers; the name only reaches debug info).
_FILE_LOC = re.compile(r'loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_ARG = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_TYPE = re.compile(r"^(constexpr|\*?k?[a-z][a-z0-9]{0,15})$")


# ---- keys and entries ---------------------------------------------------------------------------

def content_key(ttir: str, options: dict, target: dict, env_vars: dict) -> str:
    """The hash of everything the stages after TTIR depend on (see the module's docstring)."""
    from triton.runtime.cache import triton_key

    blob = json.dumps({"ttir": _FILE_LOC.sub(r'loc("":\2:\3', ttir), "options": _jsonable(options), "target": _jsonable(target),
                       "env": _jsonable(env_vars), "triton": triton_key()},
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(_KEY_SALT + blob.encode()).hexdigest()


def entry_path(root: str, key: str) -> str:
    name = hashlib.sha256(b"name:" + key.encode()).hexdigest()
    return os.path.join(root, "ttir", name + ".bin")


def seal(key: str, payload: dict) -> bytes:
    """The entry file: the payload's JSON, its hash, encrypted with a keystream drawn from the key."""
    plain = json.dumps(payload, sort_keys=True).encode()
    plain = hashlib.sha256(plain).digest() + plain
    return _xor(plain, _keystream(key, len(plain)))


def unseal(key: str, data: bytes) -> dict | None:
    """The payload of an entry file, or None when it does not decrypt to one (a wrong key, a
    truncated or damaged file)."""
    plain = _xor(data, _keystream(key, len(data)))
    digest, body = plain[:32], plain[32:]
    if len(plain) < 32 or hashlib.sha256(body).digest() != digest:
        return None
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None


def _keystream(key: str, n: int) -> bytes:
    return hashlib.shake_256(b"stream:" + key.encode()).digest(n)


def _xor(a: bytes, b: bytes) -> bytes:
    n = len(a)
    return (int.from_bytes(a, "little") ^ int.from_bytes(b[:n], "little")).to_bytes(n, "little")


def _jsonable(value: Any) -> Any:
    """Options and metadata as JSON would carry them (tuples as lists, targets as dicts)."""
    return json.loads(json.dumps(value, default=lambda o: vars(o) if hasattr(o, "__dict__")
                                 else list(o) if isinstance(o, (tuple, set)) else str(o)))


def _tupled(value: Any) -> Any:
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


def _split_metadata(metadata: dict) -> tuple[dict, dict, dict]:
    """Triton's metadata dict at the TTIR stage -> (options, target, env vars)."""
    from triton.backends.nvidia.compiler import CUDAOptions

    names = {f.name for f in dataclasses.fields(CUDAOptions)}
    options = {k: v for k, v in metadata.items() if k in names}
    env = {k: v for k, v in metadata.items() if k not in names and k.isupper()}
    return options, _jsonable(metadata["target"]), env


# ---- the candidate side -------------------------------------------------------------------------

class Client:
    """Installed in a candidate worker: looks compiles up in the shared cache and writes claims of
    the compiles it had to make into its inbox. Counts hits and misses for the worker's log."""

    def __init__(self, root: str, inbox: str | None):
        self.root = root
        self.inbox = inbox
        self.hits = 0
        self.misses = 0
        self._claims = 0

    def install(self) -> None:
        from triton import knobs
        from triton.backends.nvidia import compiler as nv_compiler
        from triton.backends.nvidia import driver as nv_driver

        client = self
        original_add_stages = nv_compiler.CUDABackend.add_stages

        def add_stages(self, stages, options, language=None, *args, **kwargs):
            original_add_stages(self, stages, options, language, *args, **kwargs)
            client._wrap_stages(stages)

        nv_compiler.CUDABackend.add_stages = add_stages

        original_make_launcher = nv_driver.make_launcher

        def make_launcher(constants, signature, tensordesc_meta):
            src = original_make_launcher(constants, signature, tensordesc_meta)
            if not _module_path(client.root, src, "__triton_launcher").exists():
                client._claim_launcher(signature, tensordesc_meta)
            return src

        nv_driver.make_launcher = make_launcher
        knobs.cache.manager_class = _shared_module_manager(self.root)

    def _wrap_stages(self, stages: dict) -> None:
        if "ttir" not in stages or "cubin" not in stages:
            return
        order = list(stages)
        later = order[order.index("ttir") + 1:]
        state: dict = {}
        make_ttir = stages["ttir"]

        def ttir(module, metadata):
            out = make_ttir(module, metadata)
            try:
                state["claim"] = self._lookup(str(out), metadata, state, later)
            except Exception:  # noqa: BLE001 - a cache problem means compiling as usual
                state.pop("hit", None)
            return out

        def wrap(ext, make):
            def stage(module, metadata):
                hit = state.get("hit")
                if hit is None:
                    out = make(module, metadata)
                    if ext == later[-1] and state.get("claim") is not None:
                        self._write_claim(state["claim"])
                    return out
                if ext == later[-1]:
                    metadata.update({k: v for k, v in hit["metadata"].items()
                                     if k not in ("hash", "target")})
                value = hit["files"][ext]
                return base64.b64decode(value) if ext == "cubin" else value
            return stage

        stages["ttir"] = ttir
        for ext in later:
            stages[ext] = wrap(ext, stages[ext])

    def _lookup(self, ttir: str, metadata: dict, state: dict, stages: list) -> dict | None:
        options, target, env = _split_metadata(metadata)
        key = content_key(ttir, options, target, env)
        try:
            with open(entry_path(self.root, key), "rb") as f:
                payload = unseal(key, f.read())
        except OSError:
            payload = None
        if _complete(payload, key, stages):
            state["hit"] = payload
            self.hits += 1
            return None
        self.misses += 1
        return {"ttir": ttir, "options": _jsonable(options), "target": target, "env": env}

    def _write_claim(self, claim: dict) -> None:
        self._put(f"kernel-{self._claims}.json", claim)

    def _claim_launcher(self, signature: dict, tensordesc_meta: Any) -> None:
        try:
            self._put(f"launcher-{self._claims}.json",
                      {"signature": [[k, v] for k, v in signature.items()],
                       "tensordesc_meta": _jsonable(tensordesc_meta)})
        except Exception:  # noqa: BLE001 - a signature JSON cannot carry is not shared
            pass

    def _put(self, name: str, claim: dict) -> None:
        if self.inbox is None or self._claims >= MAX_CLAIMS:
            return
        self._claims += 1
        try:
            with open(os.path.join(self.inbox, name), "w") as f:
                json.dump(claim, f)
        except (OSError, TypeError, ValueError):
            pass


def _complete(payload: dict | None, key: str, stages: list) -> bool:
    """An entry that answers every stage after TTIR (anything less compiles as usual)."""
    if payload is None or payload.get("key") != key or not isinstance(payload.get("metadata"), dict):
        return False
    files = payload.get("files")
    return isinstance(files, dict) and all(isinstance(files.get(ext), str) for ext in stages)


def _shared_module_manager(root: str):
    """Triton's file cache manager, falling back to the shared mod/ folder for built C modules."""
    from triton.runtime.cache import FileCacheManager

    class SharedModules(FileCacheManager):
        def get_file(self, filename):
            found = super().get_file(filename)
            if found is None and filename.endswith(".so"):
                shared = os.path.join(root, "mod", self.key, filename)
                if os.path.isfile(shared):
                    return shared
            return found

    return SharedModules


def open_inbox(root: str, zygote_pid: int, worker_pid: int, owner: int | None) -> str | None:
    """Makes the inbox of one candidate worker (before its confinement); None when it cannot."""
    path = inbox_path(root, zygote_pid, worker_pid)
    try:
        ensure_layout(root)
        os.makedirs(path, mode=0o700, exist_ok=True)
        if owner:
            os.chown(path, owner, owner)
    except OSError:
        return None
    return path


def inbox_path(root: str, zygote_pid: int, worker_pid: int) -> str:
    return os.path.join(root, "inbox", f"{zygote_pid}-{worker_pid}")


def ensure_layout(root: str) -> None:
    """ttir/ and mod/ without a read bit for anyone (entries are opened by name, never listed);
    inbox/ where each worker gets a folder of its own."""
    for sub, mode in (("ttir", 0o311), ("mod", 0o311), ("inbox", 0o711)):
        path = os.path.join(root, sub)
        os.makedirs(path, exist_ok=True)
        try:
            os.chmod(path, mode)
        except OSError:
            pass


# ---- the trusted side ---------------------------------------------------------------------------

def harvest(root: str, inbox: str, work: str | None = None) -> dict:
    """Compiles what one candidate claimed and stores it under the keys computed here; removes the
    inbox. Runs in a trusted process (no candidate code). Returns counts for the log."""
    counts = _counts()
    claims = _read_claims(inbox, counts)
    shutil.rmtree(inbox, ignore_errors=True)
    own_work = work is None  # a folder made here is removed here
    work = work or tempfile.mkdtemp(prefix="kbx-harvest-")
    try:
        os.environ["TRITON_CACHE_DIR"] = os.path.join(work, "triton")
        ensure_layout(root)
        for name, claim in claims:
            try:
                if name.startswith("kernel-"):
                    _harvest_kernel(root, claim, work, counts)
                elif name.startswith("launcher-"):
                    _harvest_launcher(root, claim, work, counts)
            except _Refused:
                counts["refused"] += 1
            except Exception:  # noqa: BLE001 - a claim that does not compile is not cached
                counts["failed"] += 1
    finally:
        if own_work:
            shutil.rmtree(work, ignore_errors=True)
    return counts


def _counts() -> dict:
    """What a harvest or prime did: entries made (kernels, launchers), already there, refused,
    failed to compile."""
    return {"kernels": 0, "launchers": 0, "known": 0, "refused": 0, "failed": 0}


class _Refused(Exception):
    pass


def _read_claims(inbox: str, counts: dict) -> list[tuple[str, dict]]:
    claims = []
    try:
        names = sorted(os.listdir(inbox))[:MAX_CLAIMS]
    except OSError:
        return claims
    for name in names:
        try:
            fd = os.open(os.path.join(inbox, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            counts["refused"] += 1
            continue
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CLAIM_BYTES:
                counts["refused"] += 1
                continue
            data = f.read(MAX_CLAIM_BYTES + 1)
        try:
            claim = json.loads(data)
        except ValueError:
            counts["refused"] += 1
            continue
        if isinstance(claim, dict):
            claims.append((name, claim))
    return claims


def _harvest_kernel(root: str, claim: dict, work: str, counts: dict) -> None:
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import compile as triton_compile
    from triton.compiler.compiler import get_cache_invalidating_env_vars, make_backend

    ttir, claimed, target = claim.get("ttir"), claim.get("options"), claim.get("target")
    if not (isinstance(ttir, str) and isinstance(claimed, dict) and isinstance(target, dict)):
        raise _Refused()
    if target.get("backend") != "cuda" or not all(
            isinstance(target.get(k), int) and not isinstance(target.get(k), bool)
            for k in ("arch", "warp_size")):
        raise _Refused()
    gpu_target = GPUTarget("cuda", target["arch"], target["warp_size"])
    backend = make_backend(gpu_target)
    user = {k: _tupled(claimed[k]) for k in _USER_OPTIONS if k in claimed}
    options = backend.parse_options(user)
    if _jsonable(options.__dict__) != claimed:
        raise _Refused()  # an option kbx does not let a claim set, or a value Triton would not pick
    env = get_cache_invalidating_env_vars()
    if _jsonable(env) != claim.get("env"):
        raise _Refused()  # compiled under other settings than this process has
    key = content_key(ttir, options.__dict__, _jsonable(gpu_target), env)
    path = entry_path(root, key)
    if os.path.exists(path):
        counts["known"] += 1
        return
    name = _kernel_name(ttir)
    source = os.path.join(work, f"{name}.ttir")
    with open(source, "w") as f:
        f.write(ttir)
    kernel = triton_compile(source, target=gpu_target, options=user)
    used = kernel.metadata._asdict()
    if _jsonable({k: used.get(k) for k in options.__dict__}) != claimed:
        raise _Refused()  # the TTIR's own attributes changed an option: not the claimed compile
    files = {ext: (base64.b64encode(v).decode() if isinstance(v, bytes) else v)
             for ext, v in kernel.asm.items() if ext != "ttir"}
    metadata = _jsonable(kernel.metadata._asdict())
    _publish(path, seal(key, {"key": key, "files": files, "metadata": metadata}))
    counts["kernels"] += 1


def _kernel_name(ttir: str) -> str:
    match = re.search(r"tt\.func public @([A-Za-z_][A-Za-z0-9_]{0,149})\(", ttir)
    if match is None:
        raise _Refused()
    return match.group(1)


def _harvest_launcher(root: str, claim: dict, work: str, counts: dict) -> None:
    from triton.backends.nvidia import driver as nv_driver

    signature, meta = claim.get("signature"), claim.get("tensordesc_meta")
    if meta not in (None, []) or not isinstance(signature, list) or len(signature) > 1024:
        raise _Refused()
    parsed = {}
    for item in signature:  # [name or index, type]; make_launcher reads only the types, in order
        if not (isinstance(item, list) and len(item) == 2 and _valid_arg(item[0])
                and _valid_type(item[1])):
            raise _Refused()
        parsed[item[0]] = _tupled(item[1])
    src = nv_driver.make_launcher({}, parsed, meta)
    _build_module(root, src, "__triton_launcher", work, counts)


def _valid_arg(value: Any) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return 0 <= value < 1024
    return isinstance(value, str) and _ARG.match(value) is not None


def _valid_type(value: Any) -> bool:
    if isinstance(value, list):
        return 0 < len(value) <= 64 and all(_valid_type(v) for v in value)
    return isinstance(value, str) and _TYPE.match(value) is not None


def prime(root: str, work: str | None = None) -> dict:
    """Builds Triton's driver module (cuda_utils) into mod/, from Triton's own source."""
    from pathlib import Path

    from triton.backends.nvidia import driver as nv_driver

    counts = _counts()
    own_work = work is None  # a folder made here is removed here
    work = work or tempfile.mkdtemp(prefix="kbx-harvest-")
    try:
        ensure_layout(root)
        src = Path(os.path.join(nv_driver.dirname, "driver.c")).read_text()
        try:
            _build_module(root, src, "cuda_utils", work, counts)
        except Exception:  # noqa: BLE001 - no C compiler or no libcuda: candidates build it themselves
            counts["failed"] += 1
    finally:
        if own_work:
            shutil.rmtree(work, ignore_errors=True)
    return counts


def _module_path(root: str, src: str, name: str):
    """Where mod/ keeps the module Triton builds from C source `src`: under Triton's own key."""
    import pathlib
    import sysconfig

    from triton.runtime.build import platform_key
    from triton.runtime.cache import _base32

    key = _base32(hashlib.sha256((src + platform_key()).encode("utf-8")).hexdigest())
    return pathlib.Path(root, "mod", key, f"{name}{sysconfig.get_config_var('EXT_SUFFIX')}")


def _build_module(root: str, src: str, name: str, work: str, counts: dict) -> None:
    from triton.backends.nvidia import driver as nv_driver
    from triton.runtime.build import _build

    path = str(_module_path(root, src, name))
    if os.path.exists(path):
        counts["known"] += 1
        return
    build = tempfile.mkdtemp(dir=work)
    src_path = os.path.join(build, f"{name}.c")
    with open(src_path, "w") as f:
        f.write(src)
    so = _build(name, src_path, build, nv_driver.library_dirs(), nv_driver.include_dirs,
                nv_driver.libraries, [])
    with open(so, "rb") as f:
        data = f.read()
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    _publish(path, data)
    counts["launchers"] += 1


def _publish(path: str, data: bytes) -> None:
    """Writes a file whole or not at all (a reader never sees half of one)."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o444)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
