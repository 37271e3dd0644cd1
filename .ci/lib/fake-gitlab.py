#!/usr/bin/env python3
"""A loopback fake of GitLab's merge-request notes API for the GitLab job
check: project `group/project`, merge request 5, token given by --token.
GET (paged with page/per_page and X-Next-Page), POST and PUT of
/api/v4/projects/:id/merge_requests/5/notes, GET /api/v4/user. Prints
"listening PORT"; writes the notes as JSON to --notes after each change."""
import argparse
import http.server
import json
import re
import urllib.parse

ap = argparse.ArgumentParser()
ap.add_argument("--token", required=True)
ap.add_argument("--notes", required=True)
args = ap.parse_args()
notes = []  # [id, body]
NOTES = "/api/v4/projects/group%2Fproject/merge_requests/5/notes"


def save():
    with open(args.notes, "w") as f:
        json.dump(notes, f)


def note(nid, body):
    return {"id": nid, "body": body, "system": False, "noteable_iid": 5,
            "author": {"id": 1, "username": "digline-bot"}}


class Handler(http.server.BaseHTTPRequestHandler):
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
        url = urllib.parse.urlsplit(self.path)
        if self.headers.get("private-token") != args.token:
            return self.reply(401, {"message": "401 Unauthorized"})
        if self.command == "GET" and url.path == "/api/v4/user":
            return self.reply(200, {"id": 1, "username": "digline-bot"})
        if url.path == NOTES and self.command == "GET":
            q = urllib.parse.parse_qs(url.query)
            per, page = int(q.get("per_page", ["20"])[0]), int(q.get("page", ["1"])[0])
            nxt = str(page + 1) if page * per < len(notes) else ""
            return self.reply(200, [note(i, b) for i, b in notes[(page - 1) * per: page * per]],
                              [("x-next-page", nxt)])
        if url.path == NOTES and self.command == "POST":
            notes.append([len(notes) + 100, json.loads(body)["body"]])
            save()
            return self.reply(201, note(*notes[-1]))
        m = re.fullmatch(re.escape(NOTES) + r"/(\d+)", url.path)
        if m and self.command == "PUT":
            for n in notes:
                if n[0] == int(m.group(1)):
                    n[1] = json.loads(body)["body"]
                    save()
                    return self.reply(200, note(*n))
        return self.reply(404, {"message": "404 Not found"})

    do_GET = do_POST = do_PUT = handle_any


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
save()
print(f"listening {server.server_address[1]}", flush=True)
server.serve_forever()
