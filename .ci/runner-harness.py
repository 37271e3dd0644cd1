#!/usr/bin/env python3
"""Run action.yml's steps as a GitHub runner would, for a two-suite matrix.

    .ci/runner-harness.py --image REF --stub PATH [--action action.yml]
    .ci/runner-harness.py --binary PATH base --workspace DIR --base-sha SHA \
        --expect-changed true|false|unknown [--expect-code N]

What the runner does, done here: each `run:` step through
`bash --noprofile --norc -e -o pipefail FILE` with the step's `env:`, a
fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY file per step (read back as the
step's outputs), GITHUB_EVENT_PATH naming a pull_request event, RUNNER_TEMP,
`${{ }}` expressions and `if:` conditions evaluated by a small evaluator
that refuses any expression it does not know (so a new one in action.yml
fails here rather than passing unseen), `docker` provided by podman
(.ci/lib/docker), and `actions/upload-artifact` stubbed with its
documented behaviour: an artifact name already used in the workflow run
is refused with 409 Conflict unless `overwrite` is true. The judge memo's
`actions/cache/restore` and `actions/cache/save` are stubbed with theirs:
a restore takes the exact key, else the newest cache whose key starts with
a `restore-keys` prefix; a save of a key that exists is a warning, never a
failure, and never overwrites.

Against a fake GitHub (loopback, standalone here): two matrix jobs of two
suites (a/ nothing got worse, b/ something got worse) sharing one
RUNNER_TEMP and one workflow run. Checks two artifacts with their own
files, two comments, the Action's outputs, and that the job ends with
digline's exit code (0 and 1). Then job a again (a new push): its comment
is edited in place. Exits non-zero with a sentence on any failure.

`history` (--stub or `history --stub-port`, and --image or --binary): the base branch's history
carried across jobs by the Action's cache, as three workflow runs do it:
two pushes of the default branch (each a fresh checkout: the history
arrives only from the cache, is recorded and saved), then a pull request
(restores the newest, reads both lines, says so in its comment, saves
nothing).

`base` (the CLI tests run it, tests/cli/integrity.rs): one job of the
Action in a git clone the caller made (its suite.toml at the top, its stub
answering), the event naming --base-sha as the pull request's base; checks
the job's exit code and its `baseline-changed` output. With --binary the
`docker` the steps call runs that digline binary in the step's own
environment, passing only what `docker run` forwards (--env, --volume,
--workdir), so the Action's command lines are what is tested, not an image.
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from json_api import JsonHandler, loopback_server  # noqa: E402

TOKEN = "ghs_harness_token_0123456789"
REPO = "o/r"
PR = 7
BOT = "github-actions[bot]"


def fail(msg):
    print(f"runner-harness: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


# --- the fake GitHub -------------------------------------------------------

class FakeGitHub:
    """Issue comments of one pull request, paged 100 at a time."""

    def __init__(self):
        self.comments = []  # [id, body]
        self.next_id = 1000
        self.lock = threading.Lock()
        self.requests = []
        fake = self

        class Handler(JsonHandler):
            def answer(self, method, url, body):
                with fake.lock:
                    fake.requests.append((method, url.path))
                    if self.headers.get("authorization") != f"Bearer {TOKEN}":
                        return self.reply(401, {"message": "Bad credentials"})
                    return fake.route(self, method, url, body)

            do_GET = do_POST = do_PATCH = JsonHandler.handle_any

        self.server = loopback_server(Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def user(self):
        u = f"https://api.github.com/users/{urllib.parse.quote(BOT)}"
        return {
            "login": BOT, "id": 41898282, "node_id": "MDM6Qm90NDE4OTgyODI=",
            "avatar_url": "https://avatars.githubusercontent.com/in/15368?v=4",
            "gravatar_id": "", "url": u, "html_url": "https://github.com/apps/github-actions",
            "followers_url": u + "/followers", "following_url": u + "/following{/other_user}",
            "gists_url": u + "/gists{/gist_id}", "starred_url": u + "/starred{/owner}{/repo}",
            "subscriptions_url": u + "/subscriptions", "organizations_url": u + "/orgs",
            "repos_url": u + "/repos", "events_url": u + "/events{/privacy}",
            "received_events_url": u + "/received_events", "type": "Bot", "site_admin": False,
        }

    def comment(self, cid, body):
        return {
            "id": cid, "node_id": f"IC_{cid}",
            "url": f"{self.url()}/repos/{REPO}/issues/comments/{cid}",
            "html_url": f"https://github.com/{REPO}/pull/{PR}#issuecomment-{cid}",
            "issue_url": f"{self.url()}/repos/{REPO}/issues/{PR}",
            "body": body, "user": self.user(), "author_association": "NONE",
            "created_at": "2026-12-01T10:00:00Z", "updated_at": "2026-12-01T10:00:00Z",
        }

    def route(self, h, method, url, body):
        path = url.path
        query = urllib.parse.parse_qs(url.query)
        if method == "GET" and path == "/user":
            return h.reply(200, self.user())
        listing = f"/repos/{REPO}/issues/{PR}/comments"
        if method == "GET" and path == listing:
            per = int(query.get("per_page", ["30"])[0])
            page = int(query.get("page", ["1"])[0])
            items = self.comments[(page - 1) * per: page * per]
            headers = []
            if page * per < len(self.comments):
                headers.append(("link", f'<{self.url()}{listing}?per_page={per}&page={page + 1}>; rel="next"'))
            return h.reply(200, [self.comment(c, b) for c, b in items], headers)
        if method == "POST" and path == listing:
            text = json.loads(body).get("body", "")
            self.next_id += 1
            self.comments.append([self.next_id, text])
            return h.reply(201, self.comment(self.next_id, text))
        m = re.fullmatch(rf"/repos/{REPO}/issues/comments/(\d+)", path)
        if m and method in ("POST", "PATCH"):
            cid = int(m.group(1))
            for c in self.comments:
                if c[0] == cid:
                    c[1] = json.loads(body).get("body", "")
                    return h.reply(200, self.comment(cid, c[1]))
        return h.reply(404, {"message": "Not Found"})


# --- the runner --------------------------------------------------------------

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Job:
    """One job using the action once: the runner's side of it."""

    def __init__(self, action, workspace, runner_temp, artifacts, env, inputs):
        self.action = action
        self.workspace = workspace
        self.temp = runner_temp
        self.artifacts = artifacts
        self.base_env = env
        self.inputs = {}
        for name, spec in action["inputs"].items():
            default = str(spec.get("default", ""))
            if name in inputs:
                self.inputs[name] = str(inputs[name])
            elif spec.get("required"):
                fail(f"input {name} is required")
            else:
                self.inputs[name] = self.expand(default) if "${{" in default else default
        self.steps = {}
        self.failed = False
        self.summary = ""

    def value(self, ref):
        ref = ref.strip()
        if ref in ("runner.temp",):
            return self.temp
        if ref == "runner.os":
            return "Linux"
        if ref == "github.run_id":
            return self.base_env.get("GITHUB_RUN_ID", "1")
        if ref == "github.run_attempt":
            return "1"
        if ref == "github.token":
            return TOKEN
        m = re.fullmatch(r"inputs\.([A-Za-z0-9_-]+)", ref)
        if m:
            return self.inputs[m.group(1)]
        m = re.fullmatch(r"github\.event((?:\.[A-Za-z0-9_-]+)+)", ref)
        if m:
            # A field of the event file, as the runner reads it: "" when absent.
            with open(self.base_env["GITHUB_EVENT_PATH"]) as f:
                node = json.load(f)
            for part in m.group(1)[1:].split("."):
                node = node.get(part) if isinstance(node, dict) else None
            return node if isinstance(node, str) else ("" if node is None else json.dumps(node))
        m = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", ref)
        if m:
            return self.steps.get(m.group(1), {}).get("outputs", {}).get(m.group(2), "")
        m = re.fullmatch(r"'([^']*)'", ref)
        if m:
            return m.group(1)
        fail(f"the harness does not know the expression `{ref}` (teach it, then trust it)")

    def expand(self, text):
        return EXPR.sub(lambda m: self.value(m.group(1)), str(text))

    def condition(self, cond):
        if cond is None:
            return not self.failed
        cond = EXPR.sub(lambda m: m.group(1), str(cond)).strip()
        result = True
        for term in (t.strip() for t in cond.split("&&")):
            if term == "always()":
                continue
            if term == "success()":
                result = result and not self.failed
                continue
            if term == "failure()":
                result = result and self.failed
                continue
            m = re.fullmatch(r"(.+?)\s*(==|!=)\s*(.+)", term)
            if not m:
                fail(f"the harness does not know the condition `{term}`")
            a, b = self.value(m.group(1)), self.value(m.group(3))
            result = result and ((a == b) if m.group(2) == "==" else (a != b))
        if "always()" not in cond and "failure()" not in cond:
            result = result and not self.failed
        return result

    def run(self):
        """Runs the steps; returns the exit code of the last step run."""
        last = 0
        for i, step in enumerate(self.action["runs"]["steps"]):
            sid = step.get("id", f"__{i}")
            if not self.condition(step.get("if")):
                self.steps[sid] = {"outputs": {}, "outcome": "skipped"}
                continue
            if "uses" in step:
                outputs, code = self.uses(step)
            else:
                outputs, code = self.shell(step, sid)
            self.steps[sid] = {"outputs": outputs, "outcome": "success" if code == 0 else "failure"}
            if code != 0:
                self.failed = True
            last = code
        return last

    def uses(self, step):
        action = step["uses"].split("@")[0]
        if action not in ("actions/upload-artifact", "actions/cache/restore", "actions/cache/save"):
            fail(f"the harness has no stub for {step['uses']}")
        if not re.fullmatch(r"[^@]+@[0-9a-f]{40}", step["uses"].split(" ")[0]):
            fail(f"{step['uses']} is not pinned to a commit")
        w = {k: self.expand(v) for k, v in step.get("with", {}).items()}
        if action != "actions/upload-artifact":
            return self.cache(action, w)
        name, path = w.get("name", "artifact"), w["path"]
        # upload-artifact v4+: names are unique within a workflow run.
        bad = set('":<>|*?\r\n\\/')
        if not name or bad & set(name):
            print(f"::error::Artifact name is not valid: {name}", file=sys.stderr)
            return {}, 1
        dest = os.path.join(self.artifacts, name)
        if os.path.exists(dest) and w.get("overwrite", "false") != "true":
            print("::error::Failed to CreateArtifact: Received non-retryable error: "
                  "Failed request: (409) Conflict: an artifact with this name already "
                  "exists on the workflow run", file=sys.stderr)
            return {}, 1
        if not os.path.isdir(path) or not os.listdir(path):
            if w.get("if-no-files-found", "warn") == "error":
                return {}, 1
            print(f"::warning::No files were found with the provided path: {path}.")
            return {}, 0
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(path, dest)
        aid = str(len(os.listdir(self.artifacts)))
        return {"artifact-id": aid,
                "artifact-url": f"https://github.com/{REPO}/actions/runs/1/artifacts/{aid}"}, 0

    def cache(self, action, w):
        """actions/cache/restore and /save over a folder of keyed tarballs
        shared by every job of the workflow run (saved in key order)."""
        import glob
        import tarfile
        store = getattr(Job, "cache_store", None) or os.path.join(os.path.dirname(self.artifacts), "_caches")
        os.makedirs(store, exist_ok=True)
        key = w["key"]
        if "," in key or len(key) > 512:
            print(f"::error::Key Validation Error: {key} cannot contain commas.", file=sys.stderr)
            return {}, 1
        def tarball(k):  # keys may hold '/': a file named by the key's hex
            return os.path.join(store, k.encode().hex() + ".tar")
        if action == "actions/cache/restore":
            found = key if os.path.exists(tarball(key)) else None
            if found is None:
                saved = sorted(os.listdir(store), key=lambda n: os.path.getmtime(os.path.join(store, n)))
                saved = [bytes.fromhex(n[:-4]).decode() for n in saved]
                for prefix in [p for p in w.get("restore-keys", "").split("\n") if p.strip()]:
                    hits = [k for k in saved if k.startswith(prefix.strip())]
                    if hits:
                        found = hits[-1]
                        break
            if found is not None:
                with tarfile.open(tarball(found)) as tar:
                    tar.extractall(self.workspace, filter="data")
            return {"cache-hit": str(found == key).lower(), "cache-primary-key": key,
                    "cache-matched-key": found or ""}, 0
        dest = tarball(key)
        if os.path.exists(dest):
            print(f"::warning::Failed to save: Unable to reserve cache with key {key}, "
                  "another job may be creating this cache.")
            return {}, 0
        paths = [p for pat in w["path"].split("\n") if pat.strip()
                 for p in glob.glob(os.path.join(self.workspace, pat.strip()))]
        if not paths:
            print("::warning::Path Validation Error: Path(s) specified in the action for "
                  "caching do(es) not exist, hence no cache is being saved.")
            return {}, 0
        with tarfile.open(dest, "w") as tar:
            for p in paths:
                tar.add(p, arcname=os.path.relpath(p, self.workspace))
        return {}, 0

    def shell(self, step, sid):
        if step.get("shell") != "bash":
            fail(f"step {sid}: the harness runs shell: bash only")
        files = os.path.join(self.temp, "_runner_file_commands")
        os.makedirs(files, exist_ok=True)
        out = tempfile.NamedTemporaryFile("w", dir=files, prefix="set_output_", delete=False).name
        summary = tempfile.NamedTemporaryFile("w", dir=files, prefix="step_summary_", delete=False).name
        script = tempfile.NamedTemporaryFile("w", dir=self.temp, suffix=".sh", delete=False)
        script.write(step["run"])
        script.close()
        env = dict(self.base_env)
        env.update({k: self.expand(v) for k, v in step.get("env", {}).items()})
        env["GITHUB_OUTPUT"] = out
        env["GITHUB_STEP_SUMMARY"] = summary
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", script.name],
                              env=env, cwd=self.workspace)
        with open(summary) as f:
            self.summary += f.read()
        return parse_outputs(out), proc.returncode

    def outputs(self):
        return {k: self.expand(v["value"]) for k, v in self.action.get("outputs", {}).items()}


def parse_outputs(path):
    """GITHUB_OUTPUT's two forms: key=value and key<<DELIMITER … DELIMITER."""
    outputs = {}
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delim = line.split("<<", 1)
            j = lines.index(delim, i + 1)
            outputs[key] = "\n".join(lines[i + 1: j])
            i = j + 1
            continue
        if "=" in line:
            key, val = line.split("=", 1)
            outputs[key] = val
        i += 1
    return outputs


# --- docker without a container (--binary) ----------------------------------

SHIM = r'''#!/usr/bin/env python3
"""`docker run` as the Action calls it, running the digline binary."""
import os, sys
args = sys.argv[1:]
if not args or args[0] != "run":
    sys.exit(f"docker shim: only `run` is known, not {args[:1]}")
env, vols, workdir, i = {}, [], None, 1
while i < len(args):
    a = args[i]
    if a == "--rm":
        i += 1
    elif a in ("--network", "--user", "--ulimit", "--runtime"):
        i += 2
    elif a == "--env":
        name, eq, value = args[i + 1].partition("=")
        if eq:
            env[name] = value
        elif name in os.environ:
            env[name] = os.environ[name]
        i += 2
    elif a == "--volume":
        host, _, inside = args[i + 1].partition(":")
        vols.append((inside.split(":")[0], host))
        i += 2
    elif a == "--workdir":
        workdir = args[i + 1]
        i += 2
    elif a.startswith("-"):
        sys.exit(f"docker shim: unknown option {a}")
    else:
        break
rest = args[i + 1:]
cwd = os.getcwd()
if workdir:
    inside, host = max(((c, h) for c, h in vols if workdir == c or workdir.startswith(c + "/")),
                       key=lambda v: len(v[0]), default=(None, None))
    if inside is None:
        sys.exit(f"docker shim: --workdir {workdir} is not a mounted volume")
    cwd = host + workdir[len(inside):]
binary = os.environ["DIGLINE_HARNESS_BINARY"]
os.chdir(cwd)
os.execve(binary, [binary] + rest, env)
'''


def docker_shim(binary, top):
    """A directory holding a `docker` that runs `binary` (see SHIM)."""
    d = os.path.join(top, "shim")
    os.makedirs(d)
    path = os.path.join(d, "docker")
    with open(path, "w") as f:
        f.write(SHIM)
    os.chmod(path, 0o755)
    return d, {"DIGLINE_HARNESS_BINARY": os.path.abspath(binary)}


def runner_env(workspace, runner_temp, event, fake, bin_dir):
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": os.environ.get("HOME", "/root"),
        "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": workspace,
        "GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event,
        "GITHUB_API_URL": fake.url(), "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "1", "GITHUB_SHA": "1" * 40, "RUNNER_TEMP": runner_temp,
        "RUNNER_OS": "Linux",
    }
    if "XDG_RUNTIME_DIR" in os.environ:
        env["XDG_RUNTIME_DIR"] = os.environ["XDG_RUNTIME_DIR"]
    return env


def write_event(runner_temp, pull_request):
    event = os.path.join(runner_temp, "_github_workflow", "event.json")
    os.makedirs(os.path.dirname(event))
    with open(event, "w") as f:
        json.dump({"action": "synchronize", "number": PR, "pull_request": pull_request}, f)
    return event


def base_scenario(args, action):
    """One job in the caller's clone; checks the exit and baseline-changed."""
    top = tempfile.mkdtemp(prefix="digline-harness-")
    try:
        runner_temp = os.path.join(top, "_temp")
        artifacts = os.path.join(top, "artifacts")
        for d in (runner_temp, artifacts):
            os.makedirs(d)
        bin_dir, extra = docker_shim(args.binary, top)
        fake = FakeGitHub()
        event = write_event(runner_temp, {"number": PR, "head": {"sha": "0" * 40},
                                          "base": {"ref": "main", "sha": args.base_sha}})
        env = runner_env(os.path.abspath(args.workspace), runner_temp, event, fake, bin_dir)
        env.update(extra)
        inputs = {"suite": "suite.toml", "image": "digline-under-test", "forward-env": ""}
        if args.base_ref is not None:
            inputs["base-ref"] = args.base_ref
        job = Job(action, os.path.abspath(args.workspace), runner_temp, artifacts, env, inputs)
        code = job.run()
        out = job.outputs()
        print(f"job: exit {code}, outputs {json.dumps(out, sort_keys=True)}")
        if code != args.expect_code:
            fail(f"the job ended with {code}, expected {args.expect_code}")
        if out.get("baseline-changed") != args.expect_changed:
            fail(f"baseline-changed is {out.get('baseline-changed')!r}, expected {args.expect_changed!r}")
        print(f"runner-harness: ok — exit {code}, baseline-changed={out['baseline-changed']}")
    finally:
        shutil.rmtree(top, ignore_errors=True)


def history_scenario(args, action, repo):
    """Two pushes record the history and save it in the cache; a pull
    request restores it, reads both gates and saves nothing."""
    top = tempfile.mkdtemp(prefix="digline-harness-")
    proc = None
    try:
        workspace = os.path.join(top, "workspace")
        artifacts = os.path.join(top, "artifacts")
        os.makedirs(artifacts)
        quick = os.path.join(repo, "examples", "quickstart")
        port = args.stub_port or free_port()
        fake = FakeGitHub()
        image, bin_dir, extra = args.image, os.path.join(repo, ".ci", "lib"), {}
        if args.binary:
            bin_dir, extra = docker_shim(args.binary, top)
            image = "digline-under-test"
        caches = os.path.join(top, "_caches")

        def job(run_id, event_name, event):
            # A fresh checkout each time: only the cache carries the history.
            shutil.rmtree(workspace, ignore_errors=True)
            dest = os.path.join(workspace, "a")
            shutil.copytree(quick, dest, ignore=shutil.ignore_patterns("runs", "*.rs", "gate.sh", "history"))
            suite = os.path.join(dest, "suite.toml")
            with open(suite) as f:
                text = f.read()
            with open(suite, "w") as f:
                f.write(text.replace("http://127.0.0.1:8731/", f"http://127.0.0.1:{port}/"))
            runner_temp = os.path.join(top, f"_temp-{run_id}")
            os.makedirs(runner_temp)
            event_path = os.path.join(runner_temp, "_github_workflow", "event.json")
            os.makedirs(os.path.dirname(event_path))
            with open(event_path, "w") as f:
                json.dump(event, f)
            env = runner_env(workspace, runner_temp, event_path, fake, bin_dir)
            env.update(extra)
            env["GITHUB_EVENT_NAME"] = event_name
            env["GITHUB_RUN_ID"] = str(run_id)
            if event_name == "push":
                env["GITHUB_REF"] = "refs/heads/main"
            j = Job(action, workspace, runner_temp, os.path.join(artifacts, str(run_id)), env, {
                "suite": "a/suite.toml", "root": "a", "image": image,
                "comment-on-success": "true", "forward-env": "",
            })
            os.makedirs(j.artifacts)
            code = j.run()
            out = j.outputs()
            # The mode the gate step chose (a step output, not the Action's).
            out["history"] = j.steps.get("gate", {}).get("outputs", {}).get("history")
            print(f"run {run_id} ({event_name}): exit {code}, history={out.get('history')}")
            if code != 0:
                fail(f"run {run_id} ended with {code}, expected 0")
            lines = sorted(glob_lines(os.path.join(workspace, "a", ".digline")))
            return j, out, lines

        # The Job's caches live beside its artifacts folder: one store for all runs.
        Job.cache_store = caches
        if not args.stub_port:
            proc = start_stub(args.stub, os.path.join(quick, "answers.json"), port)
        push = {"ref": "refs/heads/main", "repository": {"default_branch": "main"}}
        saved = []
        for n, run_id in enumerate((101, 102), start=1):
            j, out, lines = job(run_id, "push", push)
            if out.get("history") != "record":
                fail(f"push {run_id}: the Action chose history={out.get('history')!r}, expected record")
            if len(lines) != n:
                fail(f"push {run_id}: the history holds {len(lines)} line(s), expected {n}")
            saved = sorted(os.listdir(caches))
            history_keys = [bytes.fromhex(k[:-4]).decode() for k in saved]
            if not any(k.startswith("digline-history-") and k.endswith(f"-{run_id}-1") for k in history_keys):
                fail(f"push {run_id}: no history cache saved ({history_keys})")
        pr = {"number": PR, "pull_request": {"number": PR, "head": {"sha": "0" * 40}},
              "repository": {"default_branch": "main"}}
        j, out, lines = job(103, "pull_request", pr)
        if out.get("history") != "read":
            fail(f"the pull request chose history={out.get('history')!r}, expected read")
        if len(lines) != 2:
            fail(f"the pull request's workspace holds {len(lines)} history line(s), expected 2 (restored, not written)")
        if sorted(os.listdir(caches)) != saved:
            fail("the pull request's job saved a cache")
        with open(os.path.join(out["out"], "comment.md")) as f:
            comment = f.read()
        if "2 gates on the base branch against this reference are in the history" not in comment:
            fail(f"the pull request's comment does not read the two gates:\n{comment}")
        print("runner-harness: ok — the history recorded by two pushes, read by the pull request (2 gates), saved by no pull request")
    finally:
        if proc:
            proc.terminate()
            proc.wait()
        shutil.rmtree(top, ignore_errors=True)


def glob_lines(digline_dir):
    """Every line of every history file under `digline_dir`."""
    import glob
    out = []
    for path in glob.glob(os.path.join(digline_dir, "*", "history", "*.jsonl")):
        with open(path) as f:
            out += [line for line in f if line.strip()]
    return out


# --- the scenario ------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_stub(stub, answers, port):
    log = tempfile.NamedTemporaryFile("w+", delete=False)
    proc = subprocess.Popen([stub, "--answers", answers, "--port", str(port)], stdout=log, stderr=log)
    for _ in range(200):
        with open(log.name) as f:
            if "listening" in f.read():
                return proc
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    fail(f"the stub did not start: {open(log.name).read()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--image")
    ap.add_argument("--stub")
    ap.add_argument("--binary")
    ap.add_argument("--action", default="action.yml")
    sub = ap.add_subparsers(dest="scenario")
    base = sub.add_parser("base")
    base.add_argument("--workspace", required=True)
    base.add_argument("--base-sha", required=True)
    base.add_argument("--base-ref")
    base.add_argument("--expect-changed", required=True, choices=["true", "false", "unknown"])
    base.add_argument("--expect-code", type=int, default=0)
    history = sub.add_parser("history")
    history.add_argument("--stub-port", type=int,
                         help="a stub already serving examples/quickstart/answers.json on this port")
    args = ap.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(args.action) as f:
        action = yaml.safe_load(f)
    if args.scenario == "base":
        if not args.binary:
            fail("base needs --binary")
        return base_scenario(args, action)
    if args.scenario == "history":
        if not (args.stub or args.stub_port) or not (args.image or args.binary):
            fail("history needs --stub (or --stub-port) and --image or --binary")
        return history_scenario(args, action, repo)
    if not args.image or not args.stub:
        fail("the matrix scenario needs --image and --stub")

    top = tempfile.mkdtemp(prefix="digline-harness-")
    procs = []
    try:
        workspace = os.path.join(top, "workspace")
        runner_temp = os.path.join(top, "_temp")
        artifacts = os.path.join(top, "artifacts")
        for d in (runner_temp, artifacts):
            os.makedirs(d)
        quick = os.path.join(repo, "examples", "quickstart")
        ports = {"a": free_port(), "b": free_port()}
        for name in ("a", "b"):
            dest = os.path.join(workspace, name)
            shutil.copytree(quick, dest, ignore=shutil.ignore_patterns("runs", "*.rs", "gate.sh"))
            suite = os.path.join(dest, "suite.toml")
            with open(suite) as f:
                text = f.read()
            text = text.replace("http://127.0.0.1:8731/", f"http://127.0.0.1:{ports[name]}/")
            with open(suite, "w") as f:
                f.write(text)
        # b's system got worse: one answer lost its signature.
        answers_b = os.path.join(workspace, "b", "answers.json")
        with open(answers_b) as f:
            table = json.load(f)
        table["opening-hours"]["answer"] = "We open at 9 on Saturdays."
        with open(answers_b, "w") as f:
            json.dump(table, f)
        for name in ("a", "b"):
            procs.append(start_stub(args.stub, os.path.join(workspace, name, "answers.json"), ports[name]))

        fake = FakeGitHub()
        event = write_event(runner_temp, {"number": PR, "head": {"sha": "0" * 40}})
        env = runner_env(workspace, runner_temp, event, fake, os.path.join(repo, ".ci", "lib"))

        results = {}
        for name, expected in (("a", 0), ("b", 1)):
            job = Job(action, workspace, runner_temp, artifacts, env, {
                "suite": f"{name}/suite.toml", "root": name, "image": args.image,
                "comment-on-success": "true", "forward-env": "",
            })
            code = job.run()
            results[name] = (job, code)
            out = job.outputs()
            print(f"job {name}: exit {code}, outputs {json.dumps(out, sort_keys=True)}")
            if code != expected:
                fail(f"job {name} ended with {code}, digline's code is {expected}")
            if job.steps["upload"]["outcome"] != "success":
                fail(f"job {name}: the upload step failed")
            if out["exit-code"] != str(expected):
                fail(f"job {name}: output exit-code is {out['exit-code']!r}, expected {expected}")
            for key in ("headline", "run-key", "report", "artifact-name", "out", "comment-url"):
                if not out.get(key):
                    fail(f"job {name}: output {key} is empty")
            if not os.path.isfile(out["report"]) or not out["report"].startswith(out["out"] + "/"):
                fail(f"job {name}: report {out['report']} is not a file in {out['out']}")
            if not job.summary.strip():
                fail(f"job {name}: nothing was written to the job summary")

        names = [results[n][0].outputs()["artifact-name"] for n in ("a", "b")]
        if names[0] == names[1]:
            fail(f"both suites use the artifact name {names[0]}")
        if sorted(os.listdir(artifacts)) != sorted(names):
            fail(f"artifacts {sorted(os.listdir(artifacts))}, expected {sorted(names)}")
        for (name, expected), art in zip((("a", 0), ("b", 1)), names):
            with open(os.path.join(artifacts, art, "outcome.json")) as f:
                outcome = json.load(f)
            if outcome["exit_code"] != expected:
                fail(f"artifact {art} holds exit code {outcome['exit_code']}, expected {expected}")
            files = sorted(os.listdir(os.path.join(artifacts, art)))
            for wanted in ("comment.md", "junit.xml", "outcome.json", "report.html", "summary.md"):
                if wanted not in files:
                    fail(f"artifact {art} lacks {wanted}: {files}")
        if len(fake.comments) != 2:
            fail(f"{len(fake.comments)} comments on the pull request, expected 2")
        markers = {c[1].split("\n", 1)[0] for c in fake.comments}
        if len(markers) != 2:
            fail(f"the two comments share a marker: {markers}")

        # A new push: job a again edits its comment in place.
        job = Job(action, workspace, runner_temp, artifacts, env, {
            "suite": "a/suite.toml", "root": "a", "image": args.image,
            "comment-on-success": "true", "forward-env": "",
            "artifact-name": names[0] + "-rerun",
        })
        code = job.run()
        if code != 0 or len(fake.comments) != 2:
            fail(f"the re-run ended with {code} and left {len(fake.comments)} comments (expected 0 and 2)")
        print(f"runner-harness: ok — artifacts {names}, {len(fake.comments)} comments, exits 0 and 1")
    finally:
        for p in procs:
            p.terminate()
            p.wait()
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
