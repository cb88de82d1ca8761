#!/usr/bin/env python3
"""Checks a `kbx report` page: self-contained, and, where Chromium is installed, loaded headless.

    check_html_report.py REPORT.html [--expect TEXT ...] [--tasks N] [--require-browser]

Without a browser: the file references nothing outside itself (no http(s) or protocol-relative
src/href, no <link>, no @import) and holds every --expect TEXT. With `chromium` (or
chromium-browser, google-chrome) on PATH it also loads the page headless (--dump-dom) and checks
the DOM after the page's script ran: #kbx-script-status has data-status="ok" (the script sets it
last, or "error: ..." when it throws), the script's row count reads "N of N tasks shown", and every
--expect TEXT is there. Prints `html-check: ok (...)`; exits 1 on the first problem.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def fail(message: str) -> None:
    print(f"html-check: {message}")
    sys.exit(1)


def check_self_contained(html: str) -> None:
    external = re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:|//)""", html, re.I)
    if external:
        fail(f"the page loads something from outside: {html[external.start():external.start() + 80]!r}")
    for needle in ("<link", "@import"):
        if needle in html:
            fail(f"the page holds {needle!r}")


def dump_dom(browser: str, path: pathlib.Path) -> str:
    with tempfile.TemporaryDirectory(prefix="kbx-chromium-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", f"--user-data-dir={profile}", "--dump-dom", path.resolve().as_uri()]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not done.stdout.strip():
        fail(f"{browser} exited {done.returncode} without a DOM: {done.stderr[-600:]}")
    return done.stdout


def check_dom(dom: str, tasks: int | None) -> str:
    status = re.search(r'id="kbx-script-status"[^>]*data-status="([^"]*)"', dom) or \
        re.search(r'data-status="([^"]*)"[^>]*id="kbx-script-status"', dom)
    if not status:
        fail("the DOM has no #kbx-script-status")
    if status.group(1) != "ok":
        fail(f"the page's script did not finish: data-status={status.group(1)!r}")
    count = re.search(r'id="task-count">(\d+) of (\d+) tasks shown<', dom)
    if not count:
        fail("the script wrote no task count")
    if tasks is not None and (int(count.group(1)), int(count.group(2))) != (tasks, tasks):
        fail(f"task count {count.group(0)!r}, expected {tasks} of {tasks}")
    return count.group(0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=pathlib.Path)
    ap.add_argument("--expect", action="append", default=[], help="text the page must hold")
    ap.add_argument("--tasks", type=int, help="lines the task table must have")
    ap.add_argument("--require-browser", action="store_true")
    a = ap.parse_args()
    html = a.report.read_text()
    check_self_contained(html)
    for text in a.expect:
        if text not in html:
            fail(f"the page lacks {text!r}")
    browser = next((b for b in map(shutil.which, BROWSERS) if b), None)
    if browser is None:
        if a.require_browser:
            fail(f"no browser ({', '.join(BROWSERS)}) on PATH")
        print("html-check: ok (static checks; no chromium on PATH, DOM not checked)")
        return 0
    dom = dump_dom(browser, a.report)
    shown = check_dom(dom, a.tasks)
    for text in a.expect:
        if text not in dom:
            fail(f"the DOM lacks {text!r}")
    print(f"html-check: ok ({pathlib.Path(browser).name} ran the script: {shown.split('>')[1][:-1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
