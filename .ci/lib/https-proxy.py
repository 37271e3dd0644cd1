#!/usr/bin/env python3
"""A loopback HTTPS server for the image's TLS check: terminates TLS with
the given certificate and forwards each POST to an HTTP upstream (the
quickstart stub), returning its answer. Prints "listening" when ready."""
import argparse
import http.server
import ssl
import urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("--cert", required=True)
ap.add_argument("--key", required=True)
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--upstream", required=True)
args = ap.parse_args()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        req = urllib.request.Request(args.upstream + self.path, data=body, method="POST",
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, data = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, data = e.code, e.read()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(args.cert, args.key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print("listening", flush=True)
server.serve_forever()
