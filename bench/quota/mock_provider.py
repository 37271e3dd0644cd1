#!/usr/bin/env python3
"""A loopback OpenAI-compatible provider that enforces a requests-per-minute
limit the way providers do, with their real headers.

POST /v1/chat/completions answers a short completion. The limit is a token
bucket refilled continuously at RPM/60 requests a second, holding at most
one second's worth (OpenAI documents its per-minute limits as enforced over
shorter periods). Every answer carries OpenAI's headers:
x-ratelimit-limit-requests, x-ratelimit-remaining-requests and
x-ratelimit-reset-requests (a Go duration such as "150ms" or "1s"). A
refused call is a 429 with retry-after (whole seconds, as OpenAI sends
it), retry-after-ms and the same x-ratelimit-* headers.

Every request is logged as one line "<unix seconds> <status>" to LOG, which
bench/quota/summary.py reads.

    mock_provider.py PORT RPM LOG
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, RPM, LOG = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
RATE = RPM / 60.0  # requests a second
CAPACITY = max(1.0, RATE)  # one second's worth
lock = threading.Lock()
bucket = {"tokens": CAPACITY, "at": time.monotonic()}
log = open(LOG, "a", buffering=1)


def go_duration(seconds):
    """A Go time.Duration string, as OpenAI prints it."""
    ms = int(round(seconds * 1000))
    if ms < 1000:
        return f"{ms}ms"
    s = ms / 1000.0
    if s < 60:
        return f"{s:g}s"
    m, rest = divmod(s, 60)
    return f"{int(m)}m{rest:g}s"


def take():
    """(allowed, remaining, seconds until one more token)."""
    with lock:
        now = time.monotonic()
        bucket["tokens"] = min(CAPACITY, bucket["tokens"] + (now - bucket["at"]) * RATE)
        bucket["at"] = now
        if bucket["tokens"] >= 1.0:
            bucket["tokens"] -= 1.0
            allowed = True
        else:
            allowed = False
        tokens = bucket["tokens"]
    wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / RATE
    return allowed, int(tokens), wait


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        allowed, remaining, wait = take()
        headers = {
            "x-ratelimit-limit-requests": str(int(RPM)),
            "x-ratelimit-remaining-requests": str(remaining),
            "x-ratelimit-reset-requests": go_duration(wait),
        }
        if allowed:
            status = 200
            payload = {
                "id": "chatcmpl-bench",
                "object": "chat.completion",
                "model": body.get("model", "m"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "Hello from the mock."}}],
                "usage": {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18},
            }
        else:
            status = 429
            headers["retry-after"] = str(max(1, int(wait + 0.999)))
            headers["retry-after-ms"] = str(int(wait * 1000) + 1)
            payload = {"error": {"type": "requests", "code": "rate_limit_exceeded",
                                 "message": f"Rate limit reached: limit {int(RPM)} requests per minute."}}
        log.write(f"{time.time():.4f} {status}\n")
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
