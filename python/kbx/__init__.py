"""kbx from Python: the task suite, one-off evaluations and finished runs, over the kbx binary.

    import kbx
    tasks = kbx.suite()                                   # [Task(key='Activation/gelu.py', ...), ...]
    r = kbx.evaluate("Math/softmax.py", code, device="cpu")
    r.outcome, r.reason, r.stages, r.diagnostics          # 'ok', '', {'load': 14.5, ...}, (...)
    run = kbx.load_run("runs/mymodel")                    # records of kbx-results.json (or kbx.db)
    run.to_pandas()                                       # when pandas is installed

Every call runs the binary (`kbx` on PATH is the same program); docs/python.md has the details.
"""

from kbx._binary import KbxError, binary
from kbx.evaluate import CaseDiagnostic, EvalResult, evaluate
from kbx.runs import Run, as_dataframe, load_run
from kbx.suite import Task, suite, task

__all__ = [
    "CaseDiagnostic", "EvalResult", "KbxError", "Run", "Task", "as_dataframe", "binary", "evaluate",
    "load_run", "suite", "task",
]
