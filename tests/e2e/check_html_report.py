#!/usr/bin/env python3
"""Checks a `kbx report` page: self-contained, and, where Chromium is installed, loaded headless.

    check_html_report.py REPORT.html [--expect TEXT ...] [--tasks N] [--require-browser]
                         [--plots N] [--screenshot OUT.png]

Without a browser: the file references nothing outside itself (no http(s) or protocol-relative
src/href, no <link>, no @import) and holds every --expect TEXT. With `chromium` (or
chromium-browser, google-chrome) on PATH it also loads the page headless (--dump-dom) and checks
the DOM after the page's script ran: #kbx-script-status has data-status="ok" (the script sets it
last, or "error: ..." when it throws), the script's row count reads "N of N tasks shown", and every
--expect TEXT is there. With a browser it also checks, in the same headless Chromium:
- no console messages: Chromium logs each to stderr (--enable-logging=stderr) as `CONSOLE(...)`,
  and an uncaught error is one; the page's script logs nothing;
- every plot rendered: each <svg> in the DOM has drawn children (at least --plots N of them);
- sorting works: a copy of the page with a probe script appended clicks every sortable table's
  headers and checks each column comes out ascending, then descending (by the page's own sort
  key), writing the result into the DOM;
- a screenshot (--screenshot, 1280x1400): a PNG that decodes, and whose pixels vary (a blank or
  single-colour page fails). Written to OUT.png when given, else to a temporary file.
Prints `html-check: ok (...)`; exits 1 on the first problem.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

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


def run_browser(browser: str, path: pathlib.Path, *extra: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="kbx-chromium-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
               *extra, path.resolve().as_uri()]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def dump_dom(browser: str, path: pathlib.Path) -> str:
    done = run_browser(browser, path, "--dump-dom")
    if done.returncode != 0 or not done.stdout.strip():
        fail(f"{browser} exited {done.returncode} without a DOM: {done.stderr[-600:]}")
    console = [l for l in done.stderr.splitlines() if "CONSOLE(" in l or ":CONSOLE" in l]
    if console:
        fail(f"the page wrote to the console: {console[:3]}")
    return done.stdout


def check_plots(dom: str, at_least: int) -> int:
    svgs = re.findall(r"<svg\b[^>]*>(.*?)</svg>", dom, re.S)
    for i, inner in enumerate(svgs):
        if not re.search(r"<(rect|circle|line|path|polyline|text)\b", inner):
            fail(f"plot {i + 1} of {len(svgs)} is empty")
    if len(svgs) < at_least:
        fail(f"{len(svgs)} plots rendered, expected at least {at_least}")
    return len(svgs)


# Appended to a copy of the page: clicks each sortable table's headers and checks the order.
SORT_PROBE = r"""
<script>
(function () {
  var out = [];
  function key(cell) {
    var v = cell.getAttribute('data-sort');
    return v === null ? cell.textContent.trim() : v;
  }
  function cmp(a, b) {
    if (a === b) return 0;
    if (a === '') return 1;
    if (b === '') return -1;
    var x = parseFloat(a), y = parseFloat(b);
    if (!isNaN(x) && !isNaN(y) && String(x) === a && String(y) === b) return x - y;
    return a < b ? -1 : 1;
  }
  var tables = document.querySelectorAll('table.sortable');
  var checked = 0;
  Array.prototype.forEach.call(tables, function (t) {
    var heads = t.tHead.rows[0].cells;
    for (var c = 0; c < heads.length; c++) {
      for (var pass = 0; pass < 2; pass++) {
        heads[c].click();
        var want = pass === 0 ? 'ascending' : 'descending';
        if (heads[c].getAttribute('aria-sort') !== want) out.push(t.id + ' col ' + c + ' not ' + want);
        var rows = t.tBodies[0].rows;
        for (var r = 1; r < rows.length; r++) {
          var d = cmp(key(rows[r - 1].cells[c]), key(rows[r].cells[c]));
          var a = key(rows[r - 1].cells[c]), b = key(rows[r].cells[c]);
          if (a === '' || b === '') continue;  // blanks sort last both ways
          if (pass === 0 ? d > 0 : d < 0) { out.push(t.id + ' col ' + c + ' ' + want + ' row ' + r); break; }
        }
        checked++;
      }
    }
  });
  var p = document.createElement('p');
  p.id = 'kbx-sort-probe';
  p.setAttribute('data-result', out.length ? out.join('; ') : 'ok ' + tables.length + ' tables ' + checked + ' sorts');
  document.body.appendChild(p);
})();
</script>
"""


def check_sorting(browser: str, html: str) -> str:
    with tempfile.TemporaryDirectory(prefix="kbx-sort-") as tmp:
        probe = pathlib.Path(tmp) / "probe.html"
        probe.write_text(html.replace("</body>", SORT_PROBE + "</body>"))
        dom = dump_dom(browser, probe)
    m = re.search(r'id="kbx-sort-probe" data-result="([^"]*)"', dom) or \
        re.search(r'data-result="([^"]*)" id="kbx-sort-probe"', dom)
    if not m:
        fail("the sort probe did not run")
    if not m.group(1).startswith("ok "):
        fail(f"sorting failed: {m.group(1)}")
    if m.group(1).startswith("ok 0 tables"):
        fail("no sortable table")
    return m.group(1)


def decode_png(data: bytes) -> tuple[int, int, int, bytes]:
    """Width, height, bytes per pixel and the unfiltered pixel rows of an 8-bit RGB(A) PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("the screenshot is not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
            depth, colour, interlace = body[8], body[9], body[12]
            if depth != 8 or colour not in (2, 6) or interlace:
                fail(f"unexpected PNG format (depth {depth}, colour {colour})")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    out = bytearray()
    prev = bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return width, height, bpp, bytes(out)


def check_screenshot(browser: str, path: pathlib.Path, out: pathlib.Path | None) -> str:
    with tempfile.TemporaryDirectory(prefix="kbx-shot-") as tmp:
        shot = out.resolve() if out else pathlib.Path(tmp) / "shot.png"
        done = run_browser(browser, path, f"--screenshot={shot}", "--window-size=1280,1400",
                           "--hide-scrollbars")
        if not shot.exists():
            fail(f"{browser} wrote no screenshot (exit {done.returncode}): {done.stderr[-400:]}")
        width, height, bpp, pixels = decode_png(shot.read_bytes())
    grey = [sum(pixels[i:i + 3]) / 3 for i in range(0, len(pixels), bpp * 7)]  # every 7th pixel
    mean = sum(grey) / len(grey)
    variance = sum((g - mean) ** 2 for g in grey) / len(grey)
    dark = sum(1 for g in grey if g < 128) / len(grey)
    if variance < 50 or dark < 0.002:
        fail(f"the screenshot looks blank: variance {variance:.1f}, dark share {dark:.4f}")
    return f"screenshot {width}x{height}, grey variance {variance:.0f}, {100 * dark:.1f}% dark"


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
    ap.add_argument("--plots", type=int, default=0, help="plots (SVG) the page must render")
    ap.add_argument("--screenshot", type=pathlib.Path, help="where to keep the screenshot")
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
    plots = check_plots(dom, a.plots)
    sorting = check_sorting(browser, html)
    shot = check_screenshot(browser, a.report, a.screenshot)
    print(f"html-check: ok ({pathlib.Path(browser).name} ran the script: {shown.split('>')[1][:-1]}; "
          f"{plots} plots; sorting {sorting}; {shot})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
