"""The request handler the CI's loopback fakes of GitHub
(.ci/runner-harness.py) and GitLab (.ci/lib/fake-gitlab.py) share: it
stays quiet, reads each request's body and URL, hands them to the fake's
`answer(method, url, body)`, and replies with JSON. A fake names the
methods it serves (`do_GET = do_POST = JsonHandler.handle_any`); any other
is answered 501 as before."""
import http.server
import json
import urllib.parse


class JsonHandler(http.server.BaseHTTPRequestHandler):
    """Subclasses define `answer(self, method, url, body)`, where `url` is
    the request path split by urllib.parse.urlsplit and `body` its text."""

    def log_message(self, *a):
        pass

    def reply(self, status, value, headers=()):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        return self.answer(self.command, urllib.parse.urlsplit(self.path), body)

    def answer(self, method, url, body):
        raise NotImplementedError


def loopback_server(handler):
    """A threading server for `handler` on a free loopback port."""
    return http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
