"""Keeps the process being timed on CPUs that run at full speed (the `time` op, issue 7).

On the cloud hosts kbx is measured on, a CPU's speed comes and goes. Session 32's
tune/host_pair.py (an H100 host, 16 CPUs, one NUMA node) ran six fresh processes in turn on the same
CPUs, six rounds: on CPU 11 every process ran a pure-Python loop 1.9x slower, masked_select's host
part 1.4x and a launch with its synchronisation 1.5x, in three rounds of the six, and at full speed
in the others. The slow level follows the CPU and the moment (spells of tens of milliseconds to
seconds), never the process.
A call whose time includes host work (a solve checking its info, masked_select sizing its output,
eig's LAPACK share) is timed at whatever level its CPU happens to be at, so the same reference read
0.8x or 1.3x of itself between two processes.

So a time request with `fast_cpus` (`kbx eval --timing-cpus fast`; off by default until a run
shows it helps) first measures each CPU it may run on with a short pure-Python loop (the canary,
about 0.1 ms each), pins every thread of the process to the CPUs within FAST_WITHIN of the fastest,
checks the canary again before each workload and measures again when it has slowed past
RECHECK_SLOWER, and gives every thread its own affinity back at the end. Nothing here judges: a
process whose CPUs cannot be read or set is timed where it runs.

A time request with `spread_cpus` (`--timing-cpus spread`) instead moves the timing thread to the
next of its CPUs before each sample of a call whose samples include host work (SpreadCpus): the
samples of one workload then come from many CPUs, and their median from the CPUs at full speed as
long as fewer than half of them are in a slow spell at once (session 32: one to three of 16),
where a thread that stays on one CPU reads the speed that CPU happens to have for the whole
workload.
"""

from __future__ import annotations

import math
import os
import threading
import time
from typing import Callable, Iterable

CANARY_LOOPS = 2000       # about 30-60 us of interpreter work on a 2020s server core
CANARY_REPS = 3           # the fastest of these (the first after a move runs on cold caches)
FAST_WITHIN = 1.15        # a CPU this close to the fastest one joins the set the process runs on
RECHECK_SLOWER = 1.3      # a canary this much slower than the fastest measures the CPUs again
MAX_PROBES = 8            # measurements of every CPU in one request, the first included
MAX_CPUS = 256            # CPUs measured at most (about 0.15 ms each)
MIN_CPUS = 4              # the set never narrows below this many (nor below 2x torch's threads,
                          # at most 8): threads pinned to few CPUs cannot leave one that another
                          # process starts to use, and a 2-thread LAPACK call's barriers then wait

_perf_counter = time.perf_counter


def canary_us() -> float:
    """The fastest of CANARY_REPS runs of a pure-Python loop on this thread's CPU, in us."""
    best = math.inf
    for _ in range(CANARY_REPS):
        begin = _perf_counter()
        total = 0
        for i in range(CANARY_LOOPS):
            total += i
        best = min(best, (_perf_counter() - begin) * 1e6)
    return best


class Affinity:
    """The process's threads and their CPU masks (Linux; a fake in tests)."""

    def threads(self) -> list[int]:
        try:
            return [int(t) for t in os.listdir("/proc/self/task")]
        except OSError:  # no /proc: the calling thread alone
            return [threading.get_native_id()]

    def get(self, tid: int) -> set[int]:
        return set(os.sched_getaffinity(tid))

    def set(self, tid: int, cpus: Iterable[int]) -> None:
        os.sched_setaffinity(tid, set(cpus))

    def me(self) -> int:
        return threading.get_native_id()


class FastCpus:
    """A time request's CPUs: `with FastCpus(min_cpus) as host:` measures and pins, `host.check()`
    before each workload, and the exit restores each thread's affinity.

    `min_cpus`: the set holds at least this many CPUs (the fastest ones), so that a process with
    helper threads (torch's intra-op threads, which eig's LAPACK share uses) does not crowd onto
    few. Figures for the timing result: `canary_us` (the fastest CPU's at the last measurement),
    `cpus` (how many the process was pinned to), `probes` (measurements of every CPU)."""

    def __init__(self, min_cpus: int = MIN_CPUS, canary: Callable[[], float] = canary_us,
                 affinity: Affinity | None = None):
        self.min_cpus = max(1, min_cpus)
        self.canary = canary
        self.affinity = affinity or Affinity()
        self.saved: dict[int, set[int]] = {}
        self.allowed: list[int] = []
        self.best_us = math.nan
        self.cpus = 0
        self.probes = 0
        self.active = False
        self.touched = False  # a thread's affinity was changed

    def __enter__(self) -> "FastCpus":
        try:
            me = self.affinity.me()
            self.allowed = sorted(self.affinity.get(me))[:MAX_CPUS]
            for tid in self.affinity.threads():
                try:
                    self.saved[tid] = self.affinity.get(tid)
                except OSError:  # a thread that ended meanwhile
                    pass
            self.saved.setdefault(me, set(self.allowed))
        except OSError:
            return self
        self.active = len(self.allowed) > 1
        if self.active:
            self.probe()
        return self

    def __exit__(self, *exc) -> None:
        """Each thread gets its affinity back; one started meanwhile (torch's intra-op pool, say)
        gets the calling thread's."""
        if not self.touched:
            return  # nothing was moved
        me = self.saved.get(self.affinity.me(), set(self.allowed))
        for tid in set(self.affinity.threads()) | set(self.saved):
            try:
                self.affinity.set(tid, self.saved.get(tid, me))
            except OSError:
                pass

    def probe(self) -> None:
        """Measures every allowed CPU, then pins every thread to the fast ones."""
        me = self.affinity.me()
        speeds: dict[int, float] = {}
        self.touched = True
        try:
            for cpu in self.allowed:
                self.affinity.set(me, {cpu})
                speeds[cpu] = self.canary()
        except OSError:  # a CPU taken away meanwhile: back to the whole set
            self._pin(self.allowed)
            self.active = False
            return
        self.probes += 1
        self.best_us = min(speeds.values())
        ranked = sorted(speeds, key=speeds.get)
        fast = [c for c in ranked if speeds[c] <= self.best_us * FAST_WITHIN]
        if len(fast) < self.min_cpus:
            fast = ranked[:self.min_cpus]
        self._pin(fast)

    def check(self) -> None:
        """Before a workload: measures the CPUs again when this one has slowed."""
        if not self.active or self.probes >= MAX_PROBES:
            return
        if self.canary() > self.best_us * RECHECK_SLOWER:
            self.probe()

    def _pin(self, cpus: list[int]) -> None:
        self.cpus = len(cpus)
        me = self.affinity.me()
        for tid in set(self.affinity.threads()) | {me}:
            try:
                self.affinity.set(tid, cpus)
            except OSError:
                pass

    def figures(self) -> dict:
        if not self.probes:
            return {}
        return {"canary_us": round(self.best_us, 2), "cpus": self.cpus, "probes": self.probes}


class SpreadCpus:
    """`with SpreadCpus() as spread:` for a time request; `spread.step()` before each sample moves
    the calling thread to the next of the CPUs it started with (round robin, carried over from one
    workload to the next), `spread.settle()` after a workload's samples gives it its whole set
    back, and so does the exit. Only the timing thread moves: torch's helper threads stay where the
    system puts them. Figures: `cpus` (how many it cycles over), `moves`."""

    def __init__(self, affinity: Affinity | None = None):
        self.affinity = affinity or Affinity()
        self.saved: set[int] = set()
        self.allowed: list[int] = []
        self.next_index = 0
        self.moves = 0
        self.moved = False  # away from the saved set since the last settle

    def __enter__(self) -> "SpreadCpus":
        try:
            self.saved = self.affinity.get(self.affinity.me())
            self.allowed = sorted(self.saved)[:MAX_CPUS]
        except OSError:  # CPUs that cannot be read: the thread is timed where it runs
            self.allowed = []
        return self

    def __exit__(self, *exc) -> None:
        self.settle()

    def step(self) -> None:
        if len(self.allowed) < 2:
            return
        cpu = self.allowed[self.next_index % len(self.allowed)]
        self.next_index += 1
        try:
            self.affinity.set(self.affinity.me(), {cpu})
        except OSError:  # a CPU taken away meanwhile: stay
            return
        self.moves += 1
        self.moved = True

    def settle(self) -> None:
        if not self.moved:
            return
        try:
            self.affinity.set(self.affinity.me(), self.saved)
        except OSError:
            pass
        self.moved = False

    def figures(self) -> dict:
        return {"cpus": len(self.allowed), "moves": self.moves} if self.moves else {}
