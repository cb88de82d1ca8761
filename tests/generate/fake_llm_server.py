#!/usr/bin/env python3
"""A local stand-in for an LLM API, for kbx generate's end-to-end test (no network).

Serves OpenAI-compatible chat completions (POST /v1/chat/completions) and Anthropic's messages API
(POST /v1/messages) on 127.0.0.1, answering from recorded answers (answers/*.md):

- a prompt about Activation/relu.py gets relu.md (a correct kernel, prose around it);
- Math/softmax.py gets softmax_wrong.md first, and softmax_fixed.md once the prompt carries kbx's
  feedback about a mismatch (a refine round) or asks to make a correct kernel faster;
- Math/abs.py gets abs_refusal.md (no code).

Faults are injected on the first requests, in order, as --faults lists them: `429` (with
Retry-After: 1), `500`, `timeout` (sleeps past the client's timeout, then answers nothing) and
`malformed` (200 with a body that is not JSON). Every request is logged as one JSON line to --log:
path, the fault served (or null), the task, whether the prompt was a refine, and the usage sent.

With --script FILE (tools/make_analysis_fixture.sh), answers come from a JSON object instead:
{"Category/task.py": [ENTRY, ...]}, the n-th request whose prompt names the task getting the n-th
entry (the last one repeats); an entry is a path of a Python file (relative to the repository),
answered in a ```python fence, or "refuse" (an answer with no code). Tasks the script does not
name get the answers above.

Prints `port N` on stdout once listening (--port 0 picks a free one).
"""
import argparse
import http.server
import json
import pathlib
import sys
import threading
import time

ANSWERS = pathlib.Path(__file__).resolve().parent / "answers"
ROOT = pathlib.Path(__file__).resolve().parents[2]


class State:
    def __init__(self, faults, log_path, sleep_s, script=None):
        self.faults = list(faults)
        self.script = script or {}
        self.served = {}  # task -> requests answered from the script
        self.log_path = log_path
        self.sleep_s = sleep_s
        self.lock = threading.Lock()

    def next_fault(self):
        with self.lock:
            return self.faults.pop(0) if self.faults else None

    def scripted(self, prompt):
        """The script's next answer for the task the prompt names, or None."""
        for task, entries in self.script.items():
            if task in prompt:
                with self.lock:
                    n = self.served.get(task, 0)
                    self.served[task] = n + 1
                entry = entries[min(n, len(entries) - 1)]
                if entry == "refuse":
                    return task, "I cannot write this kernel."
                code = (ROOT / entry).read_text()
                return task, f"Here is the kernel for `{task}`.\n\n```python\n{code}```\n"
        return None

    def log(self, entry):
        with self.lock, open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def prompt_text(api, body):
    parts = [body.get("system", "")] if api == "anthropic" else []
    for m in body.get("messages", []):
        content = m.get("content", "")
        parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


def choose_answer(prompt):
    refine = "What the judge found:" in prompt
    if "Activation/relu.py" in prompt:
        return "relu", refine, (ANSWERS / "relu.md").read_text()
    if "Math/softmax.py" in prompt:
        optimise = "Make it faster" in prompt  # an optimise round keeps the fixed kernel
        fixed = optimise or (refine and ("does not match" in prompt or "mismatch" in prompt))
        name = "softmax_fixed.md" if fixed else "softmax_wrong.md"
        return "softmax", refine, (ANSWERS / name).read_text()
    if "Math/abs.py" in prompt:
        return "abs", refine, (ANSWERS / "abs_refusal.md").read_text()
    return "unknown", refine, "I do not know this task."


def answer_body(api, model, text, tokens_in, tokens_out):
    if api == "openai":
        return {"id": "chatcmpl-fake", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                          "total_tokens": tokens_in + tokens_out}}
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out}}


def make_handler(state):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def send(self, status, body, headers=()):
            data = body.encode() if isinstance(body, str) else body
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            if self.path.endswith("/chat/completions"):
                api = "openai"
            elif self.path.endswith("/messages"):
                api = "anthropic"
            else:
                self.send(404, '{"error": "unknown path"}')
                return
            body = json.loads(raw)
            prompt = prompt_text(api, body)
            task, refine, text = choose_answer(prompt)
            scripted = state.scripted(prompt)
            if scripted:
                task, text = scripted
            model = str(body.get("model", ""))
            if model.startswith("variant-"):  # another model's answer: the same code, marked
                text = text.replace("```python\n", f"```python\n# written by {model}\n", 1)
            fault = state.next_fault()
            tokens_in, tokens_out = len(prompt) // 4, len(text) // 4
            state.log({"path": self.path, "api": api, "fault": fault, "task": task,
                       "refine": refine, "prompt": prompt,
                       "temperature": body.get("temperature"),
                       "auth": self.headers.get("Authorization") or self.headers.get("x-api-key"),
                       "tokens_in": None if fault else tokens_in,
                       "tokens_out": None if fault else tokens_out})
            try:
                if fault == "429":
                    self.send(429, '{"error": "rate limited"}', [("Retry-After", "1")])
                elif fault == "500":
                    self.send(500, '{"error": "internal"}')
                elif fault == "timeout":
                    time.sleep(state.sleep_s)
                    self.send(504, '{"error": "too late"}')
                elif fault == "malformed":
                    self.send(200, '{"choices": [{"message": ')
                else:
                    out = answer_body(api, body.get("model", ""), text, tokens_in, tokens_out)
                    self.send(200, json.dumps(out))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout fault)

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log", required=True)
    ap.add_argument("--faults", default="", help="comma-separated: 429,500,timeout,malformed")
    ap.add_argument("--sleep", type=float, default=5.0, help="seconds the timeout fault sleeps")
    ap.add_argument("--script", help="JSON file: task -> answers in request order (see above)")
    args = ap.parse_args()
    script = json.loads(pathlib.Path(args.script).read_text()) if args.script else None
    state = State([f for f in args.faults.split(",") if f], args.log, args.sleep, script)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(state))
    server.daemon_threads = True
    print(f"port {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
