"""A client for `kbx serve` (docs/serve.md), standard library only.

    from kbx_client import Client
    c = Client("http://127.0.0.1:8765", token=None)
    v = c.evaluate("Math/softmax.py", open("softmax.py").read(), perf=False)
    print(v["verdict"]["outcome"], v["verdict"]["speedup"])

evaluate() retries a 429 (queue full) and a 503 after the server's Retry-After, up to `retries`
times; every other non-200 answer raises KbxError with the server's message and status.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request


class KbxError(Exception):
    """A non-200 answer from kbx serve: `status` is the HTTP status, `message` the server's text."""

    def __init__(self, status: int, message: str, retry_after: float | None = None):
        super().__init__(f"kbx serve answered {status}: {message}")
        self.status = status
        self.message = message
        self.retry_after = retry_after


class Client:
    def __init__(self, url: str = "http://127.0.0.1:8765", token: str | None = None,
                 timeout: float = 960.0, retries: int = 5):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries

    def evaluate(self, task: str, code: str, perf: bool | None = None, label: str | None = None,
                 metadata: dict | None = None, timeout_s: int | None = None) -> dict:
        """The verdict on `code` for `task`: {"submission_id", "served_from", "verdict": {...}}.
        `timeout_s` shortens the load and test-case stages' deadlines (never beyond the server's)."""
        body: dict = {"task": task, "code": code}
        if perf is not None:
            body["perf"] = perf
        if timeout_s is not None:
            body["timeout_s"] = timeout_s
        if label is not None:
            body["label"] = label
        if metadata is not None:
            body["metadata"] = metadata
        for attempt in range(self.retries + 1):
            try:
                return self._request("POST", "/v1/evaluate", body)
            except KbxError as e:
                if e.status not in (429, 503) or attempt == self.retries:
                    raise
                time.sleep(e.retry_after if e.retry_after is not None else 1.0)
        raise AssertionError("unreachable")

    def tasks(self) -> list:
        """Every task's summary (as `kbx suite list --json`)."""
        return self._request("GET", "/v1/tasks")

    def task(self, key: str) -> dict:
        """One task's detail (as `kbx suite show --json`)."""
        return self._request("GET", "/v1/tasks/" + urllib.parse.quote(key, safe="/"))

    def health(self) -> dict:
        """Queue depth and capacity, evaluations in flight, workers, device, counts."""
        return self._request("GET", "/v1/health")

    def _request(self, method: str, path: str, body: dict | None = None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                message = json.loads(text).get("error", text)
            except (ValueError, AttributeError):
                message = text
            retry = e.headers.get("Retry-After")
            raise KbxError(e.code, message, float(retry) if retry else None) from None
