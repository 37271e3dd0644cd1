#!/usr/bin/env python3
"""A loopback judge whose leniency, noise and reported model can be
switched, and a target that answers from a table: what bench/judge/run.py
gates digline against. Python's standard library only.

Judge: `POST …/chat/completions` in the OpenAI Chat Completions shape that
digline's `openai/…` judges call (src/client/provider/openai.rs). It
grades the text after "Output to judge:" in the user message (the whole
message when that section is absent) by a fixed rule, so the same answer
gets the same verdict from the same judge:

    u    = the first 8 bytes of sha256(salt | text) as a share of 2^64
    pass = u < base + leniency      (the judge's behaviour: a threshold)

then flips the verdict with probability `noise`, drawn from
sha256(seed | text | the how-many-th grading of this text) — independent
of the order concurrent calls arrive in. The reply's content is
`{"score": 1 or 0, "reason": …}`; the envelope reports `model` and
`system_fingerprint` as set (not the requested model).

Switches: the state `{"model", "fingerprint", "base", "leniency", "noise",
"salt", "seed"}`, set by `POST /control` (a JSON object merged into it;
`"reset": true` also zeroes the call counters; the count of gradings per
text, which draws the noise, is never reset) and read by `GET /control` (with
`calls`, `judge_calls`, `target_calls` and the gradings per text). Or per
request path: `key=value` segments before `…/chat/completions` override the
state for that call (`/model=judge-b/leniency=-0.1/v1/chat/completions`);
a different path is a different base URL to digline.

Target: `POST /answer` with `{"id": …}` answers `{"answer": answers[id]}`
from the state's `answers` table (set through `/control`), or
`"answer to <id>"`.

Usage:  bench/judge/server.py [--port 0] [--seed 20261207]
Prints `port N` on stdout once it listens.
"""
import argparse
import hashlib
import http.server
import json
import sys
import threading

DEFAULTS = {
    "model": "bench-judge-2026-01-01",
    "fingerprint": "fp_bench_a",
    "base": 0.5,
    "leniency": 0.0,
    "noise": 0.0,
    "salt": "anchors",
    "seed": 20261207,
    "answers": {},
}
NUMBERS = ("base", "leniency", "noise", "seed")


def unit(*parts):
    """A share of 2^64 from sha256 of the parts joined by `|`: [0, 1)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def behaves(text, salt, base, leniency):
    """The judge's verdict on `text` before noise."""
    return unit(salt, text) < base + leniency


def judged_text(body):
    user = next((m.get("content") for m in body.get("messages", [])
                 if m.get("role") == "user"), "") or ""
    head = "Output to judge:\n"
    at = user.find(head)
    return user[at + len(head):] if at >= 0 else user


class Judge:
    def __init__(self, seed):
        self.lock = threading.Lock()
        self.state = dict(DEFAULTS, seed=seed)
        # How many times each text was graded, for the life of the server:
        # never reset, so a regrading draws fresh noise.
        self.gradings = {}
        self.reset()

    def reset(self):
        self.calls = self.judge_calls = self.target_calls = 0

    def control(self, update):
        with self.lock:
            unknown = sorted(set(update) - set(DEFAULTS) - {"reset"})
            if unknown:
                raise ValueError(f"unknown switch {unknown[0]!r}: one of {', '.join(DEFAULTS)}")
            if update.pop("reset", False):
                self.reset()
            self.state.update(update)

    def snapshot(self):
        with self.lock:
            return dict(self.state, calls=self.calls, judge_calls=self.judge_calls,
                        target_calls=self.target_calls, gradings=len(self.gradings))

    def grade(self, body, overrides):
        text = judged_text(body)
        with self.lock:
            self.calls += 1
            self.judge_calls += 1
            state = dict(self.state, **overrides)
            nth = self.gradings.get(text, 0)
            self.gradings[text] = nth + 1
        verdict = behaves(text, state["salt"], float(state["base"]), float(state["leniency"]))
        if unit(state["seed"], text, nth) < float(state["noise"]):
            verdict = not verdict
        reply = json.dumps({"score": 1.0 if verdict else 0.0,
                            "reason": "meets the rubric" if verdict else "misses the rubric"})
        return {
            "id": f"chatcmpl-bench-{nth}", "object": "chat.completion",
            "model": state["model"], "system_fingerprint": state["fingerprint"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": max(1, len(json.dumps(body)) // 4), "completion_tokens": 12},
        }

    def answer(self, body):
        with self.lock:
            self.calls += 1
            self.target_calls += 1
            case = str(body.get("id", ""))
            return {"answer": self.state["answers"].get(case, f"answer to {case}")}


def overrides_of(path):
    """`key=value` segments of the path: switches for this call only."""
    out = {}
    for segment in path.split("?")[0].split("/"):
        key, eq, value = segment.partition("=")
        if eq and key in DEFAULTS and key != "answers":
            out[key] = float(value) if key in NUMBERS else value
    return out


def serve(port, seed):
    judge = Judge(seed)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, payload):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.split("?")[0] == "/control":
                self.reply(200, judge.snapshot())
            else:
                self.reply(404, {"error": {"message": "GET /control only"}})

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError as e:
                self.reply(400, {"error": {"message": f"not JSON: {e}"}})
                return
            path = self.path.split("?")[0]
            try:
                if path == "/control":
                    judge.control(body)
                    self.reply(200, judge.snapshot())
                elif path == "/answer":
                    self.reply(200, judge.answer(body))
                elif path.endswith("/chat/completions"):
                    self.reply(200, judge.grade(body, overrides_of(path)))
                else:
                    self.reply(404, {"error": {"message": "POST /control, /answer or …/chat/completions"}})
            except (ValueError, TypeError) as e:
                self.reply(400, {"error": {"message": str(e)}})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.judge = judge
    return server


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    args = ap.parse_args()
    server = serve(args.port, args.seed)
    print(f"port {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
