"""Confines a candidate worker before any candidate code runs (docs/security.md).

confine() runs in the freshly forked child while it is still single-threaded (namespaces and
Landlock apply to the calling thread and what it starts later), after the log is open and before
the device is initialised. Each defence is applied when the kernel and kbx's privileges allow it;
the returned report says which are on, and why any is off, for the run's environment record.

  network     a new network namespace (no interfaces but a down loopback), and Landlock's TCP rules
  files       a mount namespace: a private tmpfs scratch (HOME, TMPDIR, working directory, Triton's
              cache) and empty read-only tmpfs over hidden folders (the run's store and logs, the
              reference-output cache); Landlock allows writes only under the scratch and to devices
  signals     Landlock scoping: no signals to, and no abstract-socket connections with, processes
              outside the sandbox (kbx, the zygote, other candidates)
  identity    an unprivileged uid and gid of its own (when kbx runs as root), no capabilities,
              no_new_privs
  limits      CPU time, file size, open files, processes, core size, address space (CPU only: CUDA
              reserves more virtual memory than any useful limit)
  environment a scrubbed environment: only what Python, torch, Triton and CUDA need
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import resource
import signal
import stat
from dataclasses import dataclass, field
from typing import Any

from .errors import WorkerError

# x86_64 and aarch64 share these syscall numbers (asm-generic for landlock).
_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_PR_SET_NO_NEW_PRIVS = 38

# Landlock filesystem rights (ABI 1..7).
_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_REMOVE_DIR = 1 << 4
_FS_REMOVE_FILE = 1 << 5
_FS_MAKE_CHAR = 1 << 6
_FS_MAKE_DIR = 1 << 7
_FS_MAKE_REG = 1 << 8
_FS_MAKE_SOCK = 1 << 9
_FS_MAKE_FIFO = 1 << 10
_FS_MAKE_BLOCK = 1 << 11
_FS_MAKE_SYM = 1 << 12
_FS_REFER = 1 << 13      # ABI 2
_FS_TRUNCATE = 1 << 14   # ABI 3
_NET_BIND_TCP = 1 << 0   # ABI 4
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1

_WRITE_RIGHTS_V1 = (_FS_WRITE_FILE | _FS_REMOVE_DIR | _FS_REMOVE_FILE | _FS_MAKE_CHAR | _FS_MAKE_DIR
                    | _FS_MAKE_REG | _FS_MAKE_SOCK | _FS_MAKE_FIFO | _FS_MAKE_BLOCK | _FS_MAKE_SYM)
_DEVICE_FILES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")

# Environment variables a candidate keeps (exact names, then prefixes); everything else goes.
_KEEP_ENV = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "PYTHONPATH",
             "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
             "TRITON_INTERPRET", "TRITON_PTXAS_PATH", "TRITON_LIBCUDA_PATH", "CUDA_HOME",
             "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING",
             "CUDA_DEVICE_MAX_CONNECTIONS"}


class _LandlockRulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _LandlockPathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@dataclass
class SandboxConfig:
    """The `sandbox` object of a fork request (docs/worker-protocol.md)."""

    scratch_root: str
    hide: list[str] = field(default_factory=list)
    uid: int | None = None
    limits: dict[str, int] = field(default_factory=dict)
    compile_cache: str | None = None  # the shared compile cache's root (compile_cache.py)
    inbox: str | None = None          # set by confine(): where this worker writes its claims

    @classmethod
    def from_request(cls, value: Any) -> "SandboxConfig | None":
        if value is None:
            return None
        if not isinstance(value, dict) or not isinstance(value.get("scratch_root"), str):
            raise WorkerError("protocol_error", "sandbox needs a string 'scratch_root'")
        hide = value.get("hide", [])
        if not isinstance(hide, list) or not all(isinstance(h, str) for h in hide):
            raise WorkerError("protocol_error", "sandbox 'hide' must be a list of paths")
        uid = value.get("uid")
        if uid is not None and (not isinstance(uid, int) or isinstance(uid, bool) or uid <= 0):
            raise WorkerError("protocol_error", "sandbox 'uid' must be a positive integer")
        limits = value.get("limits", {})
        if not isinstance(limits, dict) or not all(
                isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in limits.values()):
            raise WorkerError("protocol_error", "sandbox 'limits' must map names to positive integers")
        unknown = set(limits) - set(_LIMITS)
        if unknown:
            raise WorkerError("protocol_error", f"unknown sandbox limits {sorted(unknown)}")
        cache = value.get("compile_cache")
        if cache is not None and (not isinstance(cache, str) or not os.path.isabs(cache)):
            raise WorkerError("protocol_error", "sandbox 'compile_cache' must be an absolute path")
        return cls(value["scratch_root"], hide, uid, limits, cache)


_LIMITS = {
    "cpu_seconds": resource.RLIMIT_CPU,
    "file_bytes": resource.RLIMIT_FSIZE,
    "open_files": resource.RLIMIT_NOFILE,
    "processes": resource.RLIMIT_NPROC,
    "address_space_bytes": resource.RLIMIT_AS,
}


def confine(config: SandboxConfig, device: str) -> dict:
    """Applies every defence it can; returns {defence: "on" | "off: why"}. Raises only when a
    defence that the kernel offers fails half-way (the worker then refuses to start)."""
    libc = _libc()
    report: dict[str, str] = {}
    scratch = config.scratch_root
    # Read before any path is hidden; written into the candidate's own home below.
    kernels_from = torch_kernel_cache_dir(os.environ) if device == "cuda" else None
    kernels = read_kernel_cache(kernels_from) if kernels_from else []
    # The uid to switch to: only as root, and only when that uid can still import Python.
    uid = config.uid if os.getuid() == 0 and config.uid and _python_readable_by_others() else None
    namespaces = _unshare(libc, report)
    if namespaces:
        _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE, None)
        for path in config.hide:
            if os.path.isdir(path):
                _mount(libc, "tmpfs", path, "tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                       "size=4k,mode=0555")
        owner = f",uid={uid},gid={uid}" if uid else ""
        _mount(libc, "tmpfs", scratch, "tmpfs", _MS_NOSUID | _MS_NODEV, f"size=2g,mode=0700{owner}")
        report["hidden_paths"] = "on: " + ", ".join(config.hide) if config.hide else "on: none asked"
    else:
        scratch = os.path.join(scratch, f"w{os.getpid()}")
        os.makedirs(scratch, mode=0o700, exist_ok=True)
        if uid:
            os.chown(scratch, uid, uid)
        report["hidden_paths"] = "off: no mount namespace"
    home = _prepare_scratch(scratch, uid)
    if device == "cuda":
        report["torch_kernel_cache"] = seed_kernel_cache(kernels, kernels_from, home, uid)
    if os.getuid() == 0 and uid is None and "processes" in config.limits:
        _join_pids_cgroup(config.limits["processes"], report)
    writable = [f"/proc/{os.getpid()}"]  # thread names, OOM score: CUDA fails to start without it
    if config.compile_cache and device == "cuda":
        from . import compile_cache, env

        if env.triton_interpret():
            report["compile_cache"] = "off: Triton's interpreter compiles nothing"
        else:
            if INBOX_BOUNDED or os.getuid() != 0:
                config.inbox = compile_cache.open_inbox(config.compile_cache, os.getppid(),
                                                        os.getpid(), uid)
            report["compile_cache"] = (
                f"on: compiles shared through {config.compile_cache} (sealed entries, trusted "
                "harvest)" if config.inbox else "on: read only (no inbox could be made)")
            if config.inbox:
                writable.append(config.inbox)
    _landlock(libc, scratch, report, tuple(writable))
    _drop_identity(libc, uid, report)
    _set_limits(config.limits, device, report)
    _scrub_environment(home, scratch)
    os.chdir(os.path.join(scratch, "work"))
    report["environment"] = "on: scrubbed"
    report["scratch"] = scratch
    return report


# Whether the compile cache's inbox folder is a size-limited tmpfs (bound_inbox() in the zygote).
# A candidate writes its claims there, outside its scratch: as root, whose candidates otherwise
# write only to a size-limited tmpfs, a worker opens an inbox only when this is true.
INBOX_BOUNDED = False
_INBOX_BYTES = 256 << 20


def bound_inbox(path: str) -> str:
    """In the zygote, before its imports and threads: its own mount namespace (which its children
    inherit) with a size-limited tmpfs at `path`, so claims cannot fill the disk. Returns what
    happened, for the log."""
    global INBOX_BOUNDED
    if os.getuid() != 0:
        return f"compile inbox {path}: on disk (not root: candidates' scratch is on disk too)"
    libc = _libc()
    try:
        os.makedirs(path, exist_ok=True)
        if libc.unshare(_CLONE_NEWNS) != 0:
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
        _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE, None)
        _mount(libc, "tmpfs", path, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
               f"size={_INBOX_BYTES},mode=0711")
    except OSError as e:
        return f"compile inbox {path}: off ({e}); workers read the cache but claim nothing"
    INBOX_BOUNDED = True
    return f"compile inbox {path}: tmpfs of {_INBOX_BYTES >> 20} MiB in the zygote's mount namespace"


def confine_writes(work: str, writable: tuple[str, ...]) -> dict:
    """For kbx's own helper processes (the compile cache's harvester): Landlock allows writes
    only under `work` and `writable`; nothing else changes. Returns the report."""
    libc = _libc()
    report: dict[str, str] = {}
    _landlock(libc, work, report, writable + (f"/proc/{os.getpid()}",))
    return report


def _libc():
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def _unshare(libc, report: dict) -> bool:
    """New mount and network namespaces (through a user namespace when not root)."""
    if libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET) == 0:
        report["network"] = "on: network namespace"
        return True
    first = ctypes.get_errno()
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET) == 0:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
        report["network"] = "on: network namespace (in a user namespace)"
        return True
    report["network"] = f"off: unshare: {os.strerror(first)}"
    return False


def _prepare_scratch(scratch: str, owner: int | None) -> str:
    for sub in ("home", "tmp", "work", "triton"):
        path = os.path.join(scratch, sub)
        os.makedirs(path, mode=0o700, exist_ok=True)
        if owner:
            os.chown(path, owner, owner)
    return os.path.join(scratch, "home")


def _landlock(libc, scratch: str, report: dict, writable: tuple[str, ...] = ()) -> None:
    abi = libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                       ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION))
    if abi < 1:
        report["writes"] = f"off: Landlock unavailable ({os.strerror(ctypes.get_errno())})"
        report["signals"] = "off: Landlock unavailable"
        return
    write = _WRITE_RIGHTS_V1 | (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0)
    attr = _LandlockRulesetAttr(write, (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0,
                                (_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if abi >= 6 else 0)
    size = ctypes.sizeof(_LandlockRulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        _allow(libc, ruleset, scratch, write)
        for path in writable:
            _allow(libc, ruleset, path, write, missing_ok=True)
        devices = list(_DEVICE_FILES) + [os.path.join("/dev", n) for n in _listdir("/dev")
                                         if n.startswith("nvidia")]
        for path in devices:
            _allow(libc, ruleset, path, _FS_WRITE_FILE | (_FS_TRUNCATE if abi >= 3 else 0),
                   missing_ok=True)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    report["writes"] = (f"on: Landlock ABI {abi}, writes only under the scratch, to devices and "
                        "to the worker's own /proc entry")
    report["tcp"] = "on: Landlock denies TCP bind and connect" if abi >= 4 else \
        f"off: Landlock ABI {abi} has no network rules"
    report["signals"] = "on: Landlock scopes signals and abstract sockets" if abi >= 6 else \
        f"off: Landlock ABI {abi} has no scoping"


def _allow(libc, ruleset: int, path: str, rights: int, missing_ok: bool = False) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        if missing_ok:
            return
        raise
    try:
        if not os.path.isdir(path):
            # Rights that only make sense on folders are refused for files.
            rights &= _FS_WRITE_FILE | _FS_TRUNCATE | _FS_READ_FILE | _FS_EXECUTE
        rule = _LandlockPathBeneathAttr(rights, fd)
        if libc.syscall(_SYS_LANDLOCK_ADD_RULE, ruleset, _LANDLOCK_RULE_PATH_BENEATH,
                        ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule({path})")
    finally:
        os.close(fd)


def _drop_identity(libc, uid: int | None, report: dict) -> None:
    """An own unprivileged uid when kbx is root and the Python install is readable by others;
    else root's uid without any capability (no overriding file permissions, no mounts, no
    signals to other users, no raw sockets, no ptrace of processes outside its Landlock domain)."""
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if os.getuid() != 0:
        report["identity"] = "on: kbx's own unprivileged user"
        return
    if uid:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        # Changing credentials clears the parent-death signal: set it again, so the worker still
        # dies with its zygote (even one killed with SIGKILL), and check the zygote is still there.
        parent = os.getppid()
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) after the uid switch")
        if os.getppid() != parent or parent == 1:
            os._exit(1)  # the zygote died during the switch: nothing to serve
        report["identity"] = f"on: uid and gid {uid}, no capabilities"
        return
    _drop_capabilities(libc)
    report["identity"] = ("on: root's uid without capabilities (the Python install is not readable "
                          "by other users, so kbx cannot switch to an unprivileged uid)")


_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _drop_capabilities(libc) -> None:
    """Empties the bounding, ambient, effective, permitted and inheritable capability sets."""
    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != errno.EINVAL:
            raise OSError(ctypes.get_errno(), f"prctl(PR_CAPBSET_DROP, {cap})")
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    number = _SYS_CAPSET.get(os.uname().machine)
    if number is None:
        raise OSError(errno.ENOSYS, f"capset on {os.uname().machine}")
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    if libc.syscall(number, ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def _python_readable_by_others() -> bool:
    """True when every folder Python imports from can be read by any user (so an unprivileged
    uid can still import the rest of the standard library and site-packages)."""
    import sys

    roots = {sys.prefix, sys.base_prefix, *(p for p in sys.path if p and os.path.isdir(p))}
    if not all(_reachable(p) for p in roots):
        return False
    # The GPU's device files must be usable by any user too (CUDA opens them after confine()).
    for name in _listdir("/dev"):
        if name.startswith("nvidia"):
            path = os.path.join("/dev", name)
            try:
                mode = os.stat(path).st_mode
            except OSError:
                continue
            if stat.S_ISCHR(mode) and mode & 0o006 != 0o006:
                return False
    return True


def _reachable(path: str) -> bool:
    path = os.path.realpath(path)
    try:
        if not os.stat(path).st_mode & 0o005 == 0o005:
            return False
        parent = os.path.dirname(path)
        while parent and parent != path:
            if not os.stat(parent).st_mode & 0o001:
                return False
            path, parent = parent, os.path.dirname(parent)
    except OSError:
        return False
    return True


def pids_cgroup_of(pid: int) -> str | None:
    """The pids cgroup confine() made for worker `pid`, if that kind of cgroup exists here."""
    for root in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup"):
        if os.path.exists(os.path.join(root, "cgroup.procs")) and (
                root.endswith("pids") or _v2_has_pids(root)):
            return os.path.join(root, f"kbx-w{pid}")
    return None


def _v2_has_pids(root: str) -> bool:
    try:
        with open(os.path.join(root, "cgroup.subtree_control")) as f:
            return "pids" in f.read().split()
    except OSError:
        return False


def _join_pids_cgroup(limit: int, report: dict) -> None:
    """Root ignores RLIMIT_NPROC: a pids cgroup of its own caps the processes and threads."""
    path = pids_cgroup_of(os.getpid())
    if path is None:
        report["processes"] = "off: no pids cgroup here, and root ignores RLIMIT_NPROC"
        return
    try:
        os.makedirs(path, exist_ok=True)
        _write(os.path.join(path, "pids.max"), str(limit))
        _write(os.path.join(path, "cgroup.procs"), str(os.getpid()))
    except OSError as e:
        report["processes"] = f"off: pids cgroup {path}: {e.strerror}"
        return
    report["processes"] = f"on: pids cgroup {path}, pids.max={limit}"


def _set_limits(limits: dict[str, int], device: str, report: dict) -> None:
    applied = []
    for name, value in limits.items():
        if name == "address_space_bytes" and device == "cuda":
            continue  # CUDA's unified addressing reserves terabytes of virtual memory
        which = _LIMITS[name]
        _, hard = resource.getrlimit(which)
        soft = value if hard == resource.RLIM_INFINITY else min(value, hard)
        # CPU time: SIGXCPU at the soft limit, SIGKILL a little later.
        new_hard = soft + 5 if name == "cpu_seconds" and (hard == resource.RLIM_INFINITY
                                                           or hard > soft + 5) else soft
        resource.setrlimit(which, (soft, new_hard))
        applied.append(f"{name}={soft}")
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    report["limits"] = "on: " + ", ".join(applied + ["core=0"])
    if device == "cuda" and "address_space_bytes" in limits:
        report["address_space"] = "off: CUDA reserves virtual memory beyond any useful limit"


# A candidate's copy of the kernels torch compiled at run time for the trusted side (below).
KERNEL_CACHE_MAX_BYTES = 64 << 20
KERNEL_FILE_MAX_BYTES = 8 << 20


def torch_kernel_cache_dir(env: dict) -> str | None:
    """Where torch keeps the CUDA kernels it compiles at run time with NVRTC (the jiterator:
    special functions such as zeta, polygamma, airy_ai and i0 are built on first use, 1-2 s each),
    found as torch finds it: PYTORCH_KERNEL_CACHE_PATH, else XDG_CACHE_HOME or HOME/.cache, plus
    torch/kernels; None when USE_PYTORCH_KERNEL_CACHE=0."""
    if env.get("USE_PYTORCH_KERNEL_CACHE") == "0":
        return None
    if env.get("PYTORCH_KERNEL_CACHE_PATH"):
        return env["PYTORCH_KERNEL_CACHE_PATH"]
    base = env.get("XDG_CACHE_HOME") or (os.path.join(env["HOME"], ".cache")
                                         if env.get("HOME") else None)
    return os.path.join(base, "torch", "kernels") if base else None


def read_kernel_cache(path: str) -> list[tuple[str, bytes]]:
    """The regular files of a kernel cache folder (no links, none over KERNEL_FILE_MAX_BYTES,
    KERNEL_CACHE_MAX_BYTES in all, in name order); empty when it cannot be read."""
    files, total = [], 0
    for name in sorted(_listdir(path)):
        full = os.path.join(path, name)
        try:
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            size = os.path.getsize(full)
            if size > KERNEL_FILE_MAX_BYTES or total + size > KERNEL_CACHE_MAX_BYTES:
                continue
            with open(full, "rb") as f:
                files.append((name, f.read()))
            total += size
        except OSError:
            continue
    return files


def seed_kernel_cache(files: list[tuple[str, bytes]], source: str | None, home: str,
                      owner: int | None) -> str:
    """Writes `files` (read from the trusted side's kernel cache) into the candidate's own cache,
    HOME/.cache/torch/kernels, where torch looks once HOME is the scratch home. Every candidate
    starts with a fresh home, so without this each one compiled the jiterator's kernels again:
    on the H100 the cases of the references of zeta, polygamma and airy_ai took 4-6 s in a
    candidate process (0.02-0.03 s on the CPU), under a shared GPU hold that the next exclusive
    one waits for. A copy, not a shared folder: what a candidate compiles stays in its own
    scratch."""
    if source is None:
        return "off: USE_PYTORCH_KERNEL_CACHE=0 or no cache folder"
    dest = os.path.join(home, ".cache", "torch", "kernels")
    try:
        for part in (os.path.join(home, ".cache"), os.path.join(home, ".cache", "torch"), dest):
            os.makedirs(part, mode=0o700, exist_ok=True)
            if owner:
                os.chown(part, owner, owner)
        for name, data in files:
            if "/" in name or name in (".", ".."):
                continue
            path = os.path.join(dest, name)
            with open(path, "wb") as f:
                f.write(data)
            if owner:
                os.chown(path, owner, owner)
    except OSError as e:
        return f"off: {e}"
    return f"on: {len(files)} kernels copied from {source}"


def _scrub_environment(home: str, scratch: str) -> None:
    kept = {k: v for k, v in os.environ.items() if k in _KEEP_ENV}
    os.environ.clear()
    os.environ.update(kept)
    os.environ.update({
        "HOME": home,
        "TMPDIR": os.path.join(scratch, "tmp"),
        "TRITON_CACHE_DIR": os.path.join(scratch, "triton"),
        "PWD": os.path.join(scratch, "work"),
        "USER": "candidate",
        "LOGNAME": "candidate",
    })
    import tempfile

    tempfile.tempdir = None  # recomputed from TMPDIR on next use


def _mount(libc, source, target, fstype, flags, data) -> None:
    enc = (lambda s: s.encode() if s is not None else None)
    if libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {fstype or 'propagation'} on {target}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        if e.errno != errno.ENOENT:  # setgroups is missing on old kernels
            raise


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def torch_state() -> dict[str, Any]:
    """torch's global numerics flags: a candidate must leave them as the worker set them."""
    import torch

    state: dict[str, Any] = {
        "cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
        "cudnn.benchmark": torch.backends.cudnn.benchmark,
        "cudnn.deterministic": torch.backends.cudnn.deterministic,
        "cudnn.enabled": torch.backends.cudnn.enabled,
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "default_dtype": str(torch.get_default_dtype()),
        "grad_enabled": torch.is_grad_enabled(),
    }
    matmul = torch.backends.cuda.matmul
    for name in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
        if hasattr(matmul, name):
            state[f"cuda.matmul.{name}"] = bool(getattr(matmul, name))
    return state


def changed_state(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """'name: before -> after' for every flag that differs."""
    return [f"{k}: {before.get(k)!r} -> {after.get(k)!r}" for k in sorted(set(before) | set(after))
            if before.get(k) != after.get(k)]
