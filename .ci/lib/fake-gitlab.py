#!/usr/bin/env python3
"""A loopback fake of GitLab's merge-request notes API for the GitLab job
check: project `group/project`, merge request 5, token given by --token.
GET (paged with page/per_page and X-Next-Page), POST and PUT of
/api/v4/projects/:id/merge_requests/5/notes, GET /api/v4/user. Prints
"listening PORT"; writes the notes as JSON to --notes after each change."""
import argparse
import json
import re
import urllib.parse

from json_api import JsonHandler, loopback_server

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


class Handler(JsonHandler):
    def answer(self, method, url, body):
        if self.headers.get("private-token") != args.token:
            return self.reply(401, {"message": "401 Unauthorized"})
        if method == "GET" and url.path == "/api/v4/user":
            return self.reply(200, {"id": 1, "username": "digline-bot"})
        if url.path == NOTES and method == "GET":
            q = urllib.parse.parse_qs(url.query)
            per, page = int(q.get("per_page", ["20"])[0]), int(q.get("page", ["1"])[0])
            nxt = str(page + 1) if page * per < len(notes) else ""
            return self.reply(200, [note(i, b) for i, b in notes[(page - 1) * per: page * per]],
                              [("x-next-page", nxt)])
        if url.path == NOTES and method == "POST":
            notes.append([len(notes) + 100, json.loads(body)["body"]])
            save()
            return self.reply(201, note(*notes[-1]))
        m = re.fullmatch(re.escape(NOTES) + r"/(\d+)", url.path)
        if m and method == "PUT":
            for n in notes:
                if n[0] == int(m.group(1)):
                    n[1] = json.loads(body)["body"]
                    save()
                    return self.reply(200, note(*n))
        return self.reply(404, {"message": "404 Not found"})

    do_GET = do_POST = do_PUT = JsonHandler.handle_any


server = loopback_server(Handler)
save()
print(f"listening {server.server_address[1]}", flush=True)
server.serve_forever()
