#!/usr/bin/env python3
"""Print expected vs kbx verdict per variant for a run of build_jsonl.py's JSONL.

Usage: report.py RUN_DIR JSONL [--cases]   (--cases: print every failing case's detail)
"""
import json, re, sqlite3, sys
run, jsonl = sys.argv[1], sys.argv[2]
show_cases = '--cases' in sys.argv
lines = [json.loads(l) for l in open(jsonl)]
db = sqlite3.connect(f"{run}/kbx.db")
rows = db.execute("select s.submission_id, s.origin, e.outcome, e.reason, e.detail, e.rules from submissions s "
                  "join evaluations e using(submission_id)").fetchall()
for sid, origin, outcome, reason, detail, rules in sorted(rows, key=lambda r: int(r[1].rsplit(':', 1)[1])):
    i = int(origin.rsplit(':', 1)[1]) - 1
    ent = lines[i]
    m = re.search(r'#\s*expect:\s*(\w+)', ent['predict'])
    exp = m.group(1) if m else '?'
    flag = '' if (exp == 'ok') == (outcome == 'ok') else '  <-- MISMATCH'
    print(f"{ent['variant']:55s} exp={exp:9s} kbx[{rules}]={outcome} ({reason}){flag}")
    if show_cases or flag:
        for name, st, rs, det, ea, er in db.execute(
                "select name,status,reason,detail,err_abs_max,err_rel_max from cases where submission_id=? and status not in ('pass','ok')", (sid,)):
            print(f"     {name}: {st} {rs} {det[:400]}")
        if outcome != 'ok' and not list(db.execute("select 1 from cases where submission_id=? and status not in ('pass','ok')", (sid,))):
            print('     detail:', detail[:600])
