"""host_cpus.FastCpus: a timed process measures its CPUs, runs on the fast ones, measures again
when its CPU slows, and every thread gets its affinity back."""

from __future__ import annotations

import os

import pytest

from kbx_worker import host_cpus


class Host:
    """A process of threads on a machine whose CPUs run at `speed[cpu]` us a canary (a number, or
    a function of how many canaries ran so far), with the canary measuring the CPU the calling
    thread is on (the lowest of its mask)."""

    def __init__(self, speed: dict, threads=(100, 101, 102), me=100):
        self.speed = speed
        self.masks = {t: set(speed) for t in threads}
        self.me_ = me
        self.canaries = 0
        self.started: list[int] = []  # threads that start once the first probe ran

    # Affinity
    def threads(self):
        return sorted(self.masks)

    def get(self, tid):
        return set(self.masks[tid])

    def set(self, tid, cpus):
        if tid not in self.masks:
            raise OSError("no such thread")
        self.masks[tid] = set(cpus)
        for t in self.started:  # a pool started while pinned inherits the caller's mask
            self.masks.setdefault(t, set(self.masks[self.me_]))

    def me(self):
        return self.me_

    def canary(self):
        cpu = min(self.masks[self.me_])
        s = self.speed[cpu]
        self.canaries += 1
        return s(self.canaries) if callable(s) else s


def test_every_thread_runs_on_the_fast_cpus_and_gets_its_mask_back():
    host = Host({0: 50.0, 1: 90.0, 2: 52.0, 3: 88.0})
    host.masks[102] = {0, 1}  # a thread with a mask of its own
    before = {t: set(m) for t, m in host.masks.items()}
    with host_cpus.FastCpus(min_cpus=2, canary=host.canary, affinity=host) as fast:
        assert all(host.masks[t] == {0, 2} for t in host.masks)
        assert fast.figures() == {"canary_us": 50.0, "cpus": 2, "probes": 1}
    assert host.masks == before


def test_the_set_holds_at_least_min_cpus():
    host = Host({0: 50.0, 1: 90.0, 2: 70.0, 3: 88.0})
    with host_cpus.FastCpus(min_cpus=3, canary=host.canary, affinity=host):
        assert host.masks[100] == {0, 2, 3}  # the three fastest: 50, 70, 88


def test_a_cpu_that_slows_is_left_at_the_next_check():
    # CPU 0 is fastest at first, then slows to 1.9x (session 32: a CPU's slow spell lasts seconds).
    host = Host({0: lambda n: 50.0 if n <= 4 else 95.0, 1: 90.0, 2: 52.0, 3: 51.0})
    with host_cpus.FastCpus(min_cpus=1, canary=host.canary, affinity=host) as fast:
        assert host.masks[100] == {0, 2, 3}
        fast.check()  # on CPU 0 (the lowest of its mask): 95 us > 1.3 x 50
        assert fast.probes == 2
        assert host.masks[100] == {2, 3} and host.masks[101] == {2, 3}
        fast.check()  # on CPU 2: fast, nothing measured again
        assert fast.probes == 2


def test_checks_stop_measuring_after_max_probes():
    host = Host({0: lambda n: 50.0 if n % 2 else 200.0, 1: 60.0})
    with host_cpus.FastCpus(min_cpus=1, canary=host.canary, affinity=host) as fast:
        for _ in range(3 * host_cpus.MAX_PROBES):
            fast.check()
        assert fast.probes == host_cpus.MAX_PROBES


def test_a_single_cpu_is_left_alone():
    host = Host({5: 50.0})
    with host_cpus.FastCpus(canary=host.canary, affinity=host) as fast:
        assert fast.figures() == {} and host.canaries == 0
        fast.check()
        assert host.canaries == 0
    assert host.masks[100] == {5}


def test_threads_started_while_pinned_get_the_callers_mask_back():
    host = Host({0: 50.0, 1: 90.0, 2: 52.0})
    host.started = [103]
    with host_cpus.FastCpus(min_cpus=1, canary=host.canary, affinity=host):
        assert host.masks[103] <= {0, 1, 2}
    assert host.masks[103] == {0, 1, 2} and host.masks[100] == {0, 1, 2}


def test_a_thread_that_ends_meanwhile_is_skipped():
    host = Host({0: 50.0, 1: 51.0})
    with host_cpus.FastCpus(min_cpus=1, canary=host.canary, affinity=host):
        del host.masks[102]  # set() on it now raises OSError
    assert host.masks[100] == {0, 1} and 102 not in host.masks


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux CPU affinity")
def test_the_real_process_is_restored():
    before = os.sched_getaffinity(0)
    with host_cpus.FastCpus(min_cpus=1) as fast:
        assert os.sched_getaffinity(0) <= before
        if len(before) > 1:
            assert fast.probes == 1 and fast.best_us > 0
    assert os.sched_getaffinity(0) == before


def test_the_canary_times_interpreter_work():
    assert 0 < host_cpus.canary_us() < 1e6


def test_spread_moves_the_calling_thread_round_robin_and_gives_its_set_back():
    host = Host({0: 50.0, 1: 90.0, 2: 52.0, 3: 51.0})
    host.masks[102] = {1, 2}  # another thread's mask: never touched
    with host_cpus.SpreadCpus(affinity=host) as spread:
        seen = []
        for _ in range(5):
            spread.step()
            seen.append(set(host.masks[100]))
        assert seen == [{0}, {1}, {2}, {3}, {0}]
        assert host.masks[101] == {0, 1, 2, 3} and host.masks[102] == {1, 2}
        spread.settle()  # after a workload's samples: the whole set again
        assert host.masks[100] == {0, 1, 2, 3}
        spread.step()  # the next workload goes on where the last one stopped
        assert host.masks[100] == {1}
        assert spread.figures() == {"cpus": 4, "moves": 6}
    assert host.masks[100] == {0, 1, 2, 3}


def test_spread_leaves_a_single_cpu_alone():
    host = Host({5: 50.0})
    with host_cpus.SpreadCpus(affinity=host) as spread:
        spread.step()
        assert spread.figures() == {} and host.masks[100] == {5}


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux CPU affinity")
def test_spread_restores_the_real_thread():
    before = os.sched_getaffinity(0)
    with host_cpus.SpreadCpus() as spread:
        spread.step()
        assert len(os.sched_getaffinity(0)) == (1 if len(before) > 1 else len(before))
    assert os.sched_getaffinity(0) == before
