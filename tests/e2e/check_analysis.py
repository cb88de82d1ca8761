#!/usr/bin/env python3
"""Checks `kbx analyze --json` and `kbx report` on the analysis fixture (tests/data/analysis).

    check_analysis.py KBX FIXTURE_DIR WORK_DIR

The figures of the CPU runs (refine, one-shot, examples, model, with solutions as the best-known
run) are fixed: they come from the recorded answers and kernels tools/make_analysis_fixture.sh
uses. Any other run in FIXTURE_DIR (an H200 run added later) is analysed with all of them: the
cross-device analysis must then compare it with the CPU run of the same labels. Prints
`analysis-check: ok (...)`; exits 1 on the first problem.
"""
import json
import pathlib
import subprocess
import sys

CPU_RUNS = ["refine", "one-shot", "examples", "model"]


def fail(message):
    print(f"analysis-check: {message}")
    sys.exit(1)


def eq(what, got, want):
    if got != want:
        fail(f"{what}: got {got!r}, want {want!r}")


def kbx_json(kbx, *args):
    done = subprocess.run([kbx, "analyze", *args, "--json"], capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        fail(f"kbx analyze {' '.join(args)} exited {done.returncode}: {done.stderr[-800:]}")
    return json.loads(done.stdout)


def check_iterations(j):
    its = {it["method"]: it for it in j["iterations"]}
    eq("methods with rounds", sorted(its), ["refine"])
    it = its["refine"]
    eq("refine lineages", it["lineages"], 6)  # relu, softmax, sum, fused_add_gelu, mse_loss, SGD
    eq("transitions", it["transitions"],
       {"fail_to_pass": 3, "pass_to_fail": 0, "pass_to_pass": 0, "fail_to_fail": 3})
    eq("persistent", it["persistent"]["lineages"], 2)  # relu, mse_loss
    eq("rescued", it["rescued"]["lineages"], 3)  # softmax (round 1), SGD (1), sum (2)
    eq("never correct", it["never_correct"], 1)  # fused_add_gelu crashes every round
    rounds = [(r["round"], r["submissions"], r["exe_pass"], r["solved_by_round"], r["lineages"])
              for r in it["rounds"]]
    eq("rounds", rounds, [("0", 6, 2, 2, 6), ("1", 4, 2, 4, 6), ("2", 2, 1, 5, 6)])
    steps = [(s["from"], s["to"], s["counts"]["fail_to_pass"], s["counts"]["fail_to_fail"])
             for s in it["steps"]]
    eq("steps", steps, [("0", "1", 2, 2), ("1", "2", 1, 1)])


def check_taxonomy(j):
    t = j["failure_taxonomy"]
    eq("failures", (t["failures"], t["submissions"]), (17, 44))
    eq("families", t["families"], {"compile": 3, "runtime": 4, "numerical": 6, "contract": 1,
                                   "triton_rule": 3, "exploit": 0, "resource": 0, "harness": 0})
    kinds = {(k["family"], k["kind"]): k for k in t["kinds"]}
    eq("syntax errors by method", kinds[("compile", "syntax_error")]["by_method"],
       {"examples": 1, "one-shot": 1, "refine": 1})
    eq("SIGSEGV", kinds[("runtime", "SIGSEGV")]["count"], 4)
    eq("expected_error", kinds[("contract", "expected_error")]["by_category"], {"Reduce": 1})
    numerical = sum(k["count"] for k in t["kinds"] if k["family"] == "numerical")
    eq("numerical kinds", numerical, 6)


def check_groups(j):
    eq("submissions", j["overall"]["submissions"], 44)
    eq("exe pass", j["overall"]["exe_pass"], 27)
    groups = {g["method"]: g for g in j["groups"]}
    eq("methods", sorted(groups), ["examples", "model-kernels", "one-shot", "refine"])
    eq("refine exe", (groups["refine"]["submissions"], groups["refine"]["exe_pass"]), (12, 5))


def check_best_known(j):
    b = j["best_known"]
    eq("best-known source", pathlib.Path(b["source"]).name, "solutions")
    tasks = {t["task"]: t for t in b["tasks"]}
    eq("expert softmax", tasks["Math/softmax.py"]["best_known"]["outcome"], "ok")
    eq("no expert relu", tasks["Activation/relu.py"]["best_known"]["outcome"], None)


def main():
    kbx, fixture, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    cpu = [str(fixture / r) for r in CPU_RUNS]
    j = kbx_json(kbx, *cpu, "--by", "method", "--best-known", str(fixture / "solutions"))
    check_groups(j)
    check_iterations(j)
    check_taxonomy(j)
    check_best_known(j)
    eq("cross-device (one device)", j["cross_device"], [])
    eq("utilisation (no timings on the CPU)", [g["gbs"]["n"] for g in j["utilisation"]["groups"]],
       [0] * len(j["utilisation"]["groups"]))
    others = sorted(str(p) for p in fixture.iterdir()
                    if p.name not in CPU_RUNS + ["solutions"] and (p / "kbx.db").exists())
    note = "one device"
    if others:
        everything = kbx_json(kbx, *cpu, *others)
        devices = {d for c in everything["cross_device"] for d in
                   (r["device"] for r in c["comparison"]["runs"])}
        if len(devices) < 2:
            fail(f"extra runs {others} were compared with no CPU run: give them the labels of one")
        note = f"{len(devices)} devices, {len(everything['cross_device'])} configurations"
    print(f"analysis-check: ok (44 submissions, 17 failures, refine 6 lineages; {note})")


if __name__ == "__main__":
    main()
