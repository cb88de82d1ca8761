"""Ends a starting zygote at once when kbx goes away (killed, or crashed) before the zygote is ready.

The zygote reads its control socket only after importing torch and Triton, which takes seconds; a
kbx killed meanwhile would leave it importing, and then failing to say hello, for nothing, beside
the next kbx's own zygote. A thread watches the socket until the zygote is ready: kbx sends nothing
before the hello, so the socket becomes readable only when kbx's end closes. Stdlib only: it starts
before the heavy imports.
"""

from __future__ import annotations

import os
import select
import sys
import threading

_CLOSED = select.POLLHUP | getattr(select, "POLLRDHUP", 0) | select.POLLERR


class StartupWatch:
    """Exits the process when `control_fd`'s peer closes, until stop() is called."""

    def __init__(self, control_fd: int):
        self._fd = control_fd
        self._stop_r, self._stop_w = os.pipe2(os.O_CLOEXEC)
        self._thread = threading.Thread(target=self._run, name="kbx-startup-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Ends the watch (before the zygote serves: it must not fork beside a live thread)."""
        os.write(self._stop_w, b"x")
        self._thread.join()
        os.close(self._stop_r)
        os.close(self._stop_w)

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN | _CLOSED)
        poller.register(self._stop_r, select.POLLIN)
        while True:
            events = dict(poller.poll())
            if self._stop_r in events:
                return
            if events.get(self._fd, 0) & _CLOSED:
                print("kbx_worker zygote: kbx closed the control socket while the zygote was "
                      "starting; exiting", file=sys.stderr, flush=True)
                os._exit(1)
            if self._fd in events:
                return  # data before the hello: the zygote's own loop will read (and refuse) it
