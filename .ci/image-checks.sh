#!/usr/bin/env bash
# The image, exercised in a real container engine (podman with runc):
#
#   .ci/image-checks.sh IMAGE GITLAB_IMAGE
#
# In the container, as the caller's uid:gid, the workspace mounted at /work,
# --network host (as the Action runs it): the quickstart gate exits 0, a
# made-worse run 1, an errored case 2, a dead target 64; the outputs land
# on the mount owned by the caller; then as an arbitrary uid (4242, no
# passwd entry) HOME is writable; TLS to a loopback HTTPS server works with
# the CA bundle at the image's path (and fails without the test CA in it);
# the runtime image has no shell; --base-ref HEAD^1 reads a replaced
# baseline from git objects (outcome.json baseline_changed) and a --depth 1
# clone refuses with what to fetch (64). Then the GitLab job: the documented
# template's script: lines through `sh -c` in the -gitlab image as GitLab
# Runner's docker executor runs them (the image's user, the project at
# /builds/<group>/<project>, world-writable as the runner's umask 0000
# leaves it, CI_* variables). Any failure exits non-zero with a sentence.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
image="${1:?usage: image-checks.sh IMAGE GITLAB_IMAGE}"
gitlab_image="${2:?usage: image-checks.sh IMAGE GITLAB_IMAGE}"
docker="$repo/.ci/lib/docker"
stub="${DIGLINE_STUB:-${CARGO_TARGET_DIR:-$repo/target}/release/examples/quickstart-stub}"
[ -x "$stub" ] || cargo build --quiet --release --example quickstart-stub

fail() { echo "image-checks: FAIL: $*" >&2; exit 1; }
top="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$top"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { # LOG: until it says listening
  for _ in $(seq 1 200); do grep -q listening "$1" 2>/dev/null && return 0; sleep 0.05; done
  cat "$1" >&2; fail "a helper did not start"
}
start_stub() { # ANSWERS PORT
  "$stub" --answers "$1" --port "$2" >"$top/stub-$2.log" 2>&1 &
  pids+=($!)
  wait_for "$top/stub-$2.log"
}

uid="$(id -u)"; gid="$(id -g)"
ws="$top/work"
mkdir -p "$ws"
cp -r examples/quickstart/. "$ws/"
rm -rf "$ws/.digline/quickstart/runs" "$ws"/*.rs "$ws/gate.sh"
port="$(free_port)"
sed -i "s|http://127.0.0.1:8731/|http://127.0.0.1:$port/|" "$ws/suite.toml"
# A checkout: the run records the commit without a git binary.
mkdir -p "$ws/.git" && git rev-parse HEAD >"$ws/.git/HEAD"
cp "$ws/answers.json" "$top/answers.good.json"
start_stub "$ws/answers.json" "$port"

# gate in the container: EXPECTED [extra docker args…] -- [extra gate args…]
gate() {
  local expected="$1"; shift
  local dargs=() gargs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do dargs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  gargs=("$@")
  local code=0
  "$docker" run --rm --network host --user "$uid:$gid" --volume "$ws:/work" --workdir /work \
    "${dargs[@]}" "$image" gate --suite suite.toml --root . --out digline-gate --publish none \
    "${gargs[@]}" >"$top/gate.log" 2>&1 || code=$?
  if [ "$code" != "$expected" ]; then
    cat "$top/gate.log" >&2
    fail "gate exited $code, expected $expected (${gargs[*]:-the quickstart})"
  fi
  echo "ok: exit $expected — $(grep -m1 -v '^$' "$top/gate.log" | cut -c1-100)"
}

echo "== the quickstart gate in the container: 0"
gate 0 --
for f in outcome.json comment.md summary.md junit.xml report.html; do
  [ -f "$ws/digline-gate/$f" ] || fail "digline-gate/$f was not written"
  owner="$(stat -c %u:%g "$ws/digline-gate/$f")"
  [ "$owner" = "$uid:$gid" ] || fail "digline-gate/$f is owned by $owner, not the caller ($uid:$gid)"
done
run_file="$(find "$ws/.digline/quickstart/runs" -name '*.json' | head -n 1)"
[ -n "$run_file" ] || fail "no run was stored on the mount"
[ "$(stat -c %u:%g "$run_file")" = "$uid:$gid" ] || fail "the stored run is not owned by the caller"
grep -q "\"git_commit\": \"$(git rev-parse HEAD)\"" "$run_file" || fail "the run did not record the commit from .git"
echo "ok: outputs on the mount owned by $uid:$gid; commit read from .git without git"

echo "== made worse: 1"
python3 - "$ws/answers.json" <<'EOF'
import json, sys
table = json.load(open(sys.argv[1]))
table["opening-hours"]["answer"] = "We open at 9 on Saturdays."
json.dump(table, open(sys.argv[1], "w"))
EOF
gate 1 --

echo "== an errored case: 2"
python3 - "$ws/answers.json" "$top/answers.good.json" <<'EOF'
import json, sys
table = json.load(open(sys.argv[2]))
table["opening-hours"] = {"status": 400, "raw": "{\"error\": \"bad request\"}"}
json.dump(table, open(sys.argv[1], "w"))
EOF
gate 2 --
cp "$top/answers.good.json" "$ws/answers.json"

echo "== a dead target: 64"
dead="$(free_port)"
sed "s|http://127.0.0.1:$port/|http://127.0.0.1:$dead/|" "$ws/suite.toml" >"$ws/dead.toml"
code=0
"$docker" run --rm --network host --user "$uid:$gid" --volume "$ws:/work" "$image" \
  gate --suite dead.toml --root . --out dead-out --publish none >"$top/dead.log" 2>&1 || code=$?
[ "$code" = 64 ] || { cat "$top/dead.log" >&2; fail "a dead target exited $code, expected 64"; }
echo "ok: exit 64 — $(grep -m1 'digline' "$top/dead.log" | cut -c1-100)"

echo "== an arbitrary uid (4242, no passwd entry): HOME is usable"
chmod -R a+rwX "$ws"
perm="$("$docker" create "$image" >"$top/cid" && "$docker" export "$(cat "$top/cid")" | tar -tvf - | awk '$NF == "tmp/" {print $1}'; "$docker" rm "$(cat "$top/cid")" >/dev/null)"
[ "$perm" = drwxrwxrwt ] || fail "the image's /tmp (HOME) is '$perm', expected drwxrwxrwt"
"$docker" run --rm --user 4242:4242 "$gitlab_image" sh -c 'echo probe > "$HOME/probe" && test "$(cat "$HOME/probe")" = probe' \
  || fail "uid 4242 cannot write HOME in the image"
"$docker" run --rm --network host --user 4242:4242 --volume "$ws:/work" "$image" \
  gate --suite suite.toml --root . --out uid-out --publish none >"$top/uid.log" 2>&1 \
  || { cat "$top/uid.log" >&2; fail "the gate as uid 4242 did not exit 0"; }
[ "$(stat -c %u "$ws/uid-out/outcome.json")" = 4242 ] || fail "uid 4242's outcome is not owned by 4242"
echo "ok: /tmp is drwxrwxrwt; uid 4242 wrote HOME and its outputs"

echo "== TLS to a loopback HTTPS server with the image's CA bundle"
tls="$top/tls"
mkdir -p "$tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=digline-test-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
  -keyout "$tls/ca.key" -out "$tls/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
  -keyout "$tls/leaf.key" -out "$tls/leaf.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$tls/ext"
openssl x509 -req -in "$tls/leaf.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial \
  -days 2 -extfile "$tls/ext" -out "$tls/leaf.crt" 2>/dev/null
https_port="$(free_port)"
python3 "$repo/.ci/lib/https-proxy.py" --cert "$tls/leaf.crt" --key "$tls/leaf.key" \
  --port "$https_port" --upstream "http://127.0.0.1:$port" >"$top/https.log" 2>&1 &
pids+=($!)
wait_for "$top/https.log"
sed "s|http://127.0.0.1:$port/|https://127.0.0.1:$https_port/|" "$ws/suite.toml" >"$ws/tls.toml"
# The image's bundle with the test CA added, at the image's path.
"$docker" run --rm --entrypoint /bin/sh "$gitlab_image" -c 'cat /etc/ssl/certs/ca-certificates.crt' >"$tls/bundle.crt"
[ "$(grep -c 'BEGIN CERTIFICATE' "$tls/bundle.crt")" -gt 100 ] || fail "the image's CA bundle is missing or small"
cat "$tls/ca.crt" >>"$tls/bundle.crt"
chmod 644 "$tls/bundle.crt"
"$docker" run --rm --network host --user "$uid:$gid" --volume "$ws:/work" \
  --volume "$tls/bundle.crt:/etc/ssl/certs/ca-certificates.crt:ro" "$image" \
  gate --suite tls.toml --root . --out tls-out --publish none >"$top/tls.log" 2>&1 \
  || { cat "$top/tls.log" "$top/https.log" >&2; fail "the gate over HTTPS with the test CA in the image's bundle did not exit 0"; }
code=0
"$docker" run --rm --network host --user "$uid:$gid" --volume "$ws:/work" "$image" \
  gate --suite tls.toml --root . --out tls-out --publish none >"$top/notls.log" 2>&1 || code=$?
[ "$code" != 0 ] || fail "the gate trusted a server whose CA is not in the image's bundle"
echo "ok: 0 with the test CA in /etc/ssl/certs/ca-certificates.crt; $code without it"

echo "== --base-ref in the image (no git binary): a replaced reference, and a shallow clone"
base_repo="$top/baseref"
mkdir -p "$base_repo"
cp -r examples/quickstart/. "$base_repo/"
rm -rf "$base_repo/.digline/quickstart/runs" "$base_repo"/*.rs "$base_repo/gate.sh"
sed -i "s|http://127.0.0.1:8731/|http://127.0.0.1:$port/|" "$base_repo/suite.toml"
git_in() { # DIR ARGS…: git on the host, with an identity of its own
  local dir="$1"; shift
  git -C "$dir" -c user.name=image-checks -c user.email=image-checks@example.com "$@"
}
git_in "$base_repo" init -q -b main
git_in "$base_repo" add -A
git_in "$base_repo" commit -q -m base
# The pull request: a worse run promoted and committed as the new baseline.
python3 - "$ws/answers.json" <<'EOF'
import json, sys
table = json.load(open(sys.argv[1]))
table["opening-hours"]["answer"] = "We open at 9 on Saturdays."
json.dump(table, open(sys.argv[1], "w"))
EOF
in_repo() { # DIR ARGS…: digline in the container on DIR mounted at /work
  local dir="$1"; shift
  "$docker" run --rm --network host --user "$uid:$gid" --volume "$dir:/work" --workdir /work \
    "$image" "$@"
}
in_repo "$base_repo" run --suite suite.toml --root . >"$top/baseref-run.log" 2>&1 \
  || { cat "$top/baseref-run.log" >&2; fail "digline run in the base-ref repository failed"; }
in_repo "$base_repo" promote --suite suite.toml --root . --run latest >"$top/baseref-promote.log" 2>&1 \
  || { cat "$top/baseref-promote.log" >&2; fail "digline promote in the base-ref repository failed"; }
rm -rf "$base_repo/.digline/quickstart/runs"
git_in "$base_repo" add -A
git_in "$base_repo" commit -q -m "the pull request replaces the baseline"
[ -n "$(git_in "$base_repo" diff --name-only HEAD^1 HEAD -- .digline)" ] \
  || fail "the pull request commit did not replace the baseline"
code=0
in_repo "$base_repo" gate --suite suite.toml --root . --out digline-gate --publish none --base-ref HEAD^1 \
  >"$top/baseref.out" 2>"$top/baseref.err" || code=$?
[ "$code" = 0 ] || { cat "$top/baseref.out" "$top/baseref.err" >&2; fail "the gate with --base-ref HEAD^1 exited $code, expected 0 (the pull request's own baseline)"; }
head -n 1 "$top/baseref.out" | grep -q '^This pull request replaces the approved reference\.' \
  || { cat "$top/baseref.out" >&2; fail "stdout does not start with \"This pull request replaces the approved reference.\""; }
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["baseline_changed"])' "$base_repo/digline-gate/outcome.json")" = True ] \
  || fail "outcome.json does not say \"baseline_changed\": true"
echo "ok: exit 0 — $(head -n 1 "$top/baseref.out" | cut -c1-100)"
# A --depth 1 clone has no HEAD^1: one sentence says what to fetch, exit 64.
git clone -q --depth 1 "file://$base_repo" "$top/shallow"
code=0
in_repo "$top/shallow" gate --suite suite.toml --root . --out digline-gate --publish none --base-ref HEAD^1 \
  >"$top/shallow.log" 2>&1 || code=$?
[ "$code" = 64 ] || { cat "$top/shallow.log" >&2; fail "the gate in a --depth 1 clone exited $code, expected 64"; }
grep -qF 'the base commit HEAD^1 is not in this clone, so the approved reference it holds could not be read: fetch it (on GitHub, actions/checkout with `fetch-depth: 2`' "$top/shallow.log" \
  || { cat "$top/shallow.log" >&2; fail "the shallow clone's refusal does not say what to fetch"; }
cp "$top/answers.good.json" "$ws/answers.json"
echo "ok: exit 64 in a --depth 1 clone — $(grep -m1 'base commit' "$top/shallow.log" | cut -c1-100)"

echo "== the runtime image has no shell"
if "$docker" run --rm --entrypoint /bin/sh "$image" -c true >/dev/null 2>&1; then
  fail "the runtime image has a /bin/sh"
fi
echo "ok"

echo "== the GitLab job: the template's script: through sh -c, as the docker executor runs it"
gl="$top/gitlab"
proj="$gl/project"
mkdir -p "$proj/eval"
cp -r examples/quickstart/. "$proj/eval/"
mv "$proj/eval/.digline" "$proj/.digline"
rm -rf "$proj/.digline/quickstart/runs" "$proj"/eval/*.rs "$proj/eval/gate.sh"
sed -i "s|http://127.0.0.1:8731/|http://127.0.0.1:$port/|" "$proj/eval/suite.toml"
# GitLab Runner's helper clones with umask 0000: the build container's
# non-root user can write in the project directory.
chmod -R a+rwX "$proj"
python3 "$repo/.ci/gitlab-template.py" render examples/gitlab/digline.yml \
  --input suite=eval/suite.toml --input comment-on-success=true >"$gl/job.json"
# A merge-request pipeline against a loopback fake GitLab: the job notes
# the merge request (one note, edited in place by the second run).
python3 "$repo/.ci/lib/fake-gitlab.py" --token glpat-image-check --notes "$gl/notes.json" >"$gl/fake.log" 2>&1 &
pids+=($!)
wait_for "$gl/fake.log"
gl_port="$(sed -n 's/^listening //p' "$gl/fake.log")"
gitlab_job() { # EXPECTED [--env K=V ...]
  local expected="$1" code=0 envs=() event=()
  shift
  # A merge-request pipeline unless the caller says which event it is.
  event=("$@")
  [ "${#event[@]}" -gt 0 ] || event=(--env=CI_PIPELINE_SOURCE=merge_request_event --env=CI_MERGE_REQUEST_IID=5)
  mapfile -t envs < <(python3 -c 'import json,sys; [print(f"--env={k}={v}") for k,v in json.load(open(sys.argv[1]))["variables"].items()]' "$gl/job.json")
  local script
  script="$(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["script"]))' "$gl/job.json")"
  # The docker executor: the image's entrypoint overridden (entrypoint: [""]),
  # the image's user, the job's variables, the shell found in the image.
  "$docker" run --rm --network host --entrypoint "" \
    --volume "$proj:/builds/group/project" --workdir /builds/group/project \
    --env CI=true --env GITLAB_CI=true --env CI_PROJECT_DIR=/builds/group/project \
    --env CI_COMMIT_SHA="$(git rev-parse HEAD)" \
    --env GITLAB_CI=true --env CI_API_V4_URL="http://127.0.0.1:$gl_port/api/v4" \
    --env CI_PROJECT_ID=group/project \
    --env CI_JOB_URL=https://gitlab.example/group/project/-/jobs/9 \
    --env DIGLINE_GITLAB_TOKEN=glpat-image-check \
    "${envs[@]}" "${event[@]}" "$gitlab_image" sh -c "set -e
$script" >"$gl/job.log" 2>&1 || code=$?
  if [ "$code" != "$expected" ]; then cat "$gl/job.log" >&2; fail "the GitLab job exited $code, expected $expected"; fi
}
gitlab_job 0
note_count() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$gl/notes.json"; }
note_text() { python3 -c 'import json,sys; n=json.load(open(sys.argv[1])); print(n[0][1] if n else "")' "$gl/notes.json"; }
[ "$(note_count)" = 1 ] || { cat "$gl/job.log" >&2; fail "the GitLab job did not note the merge request once"; }
note="$(note_text)"
grep -qF "https://gitlab.example/group/project/-/jobs/9/artifacts/browse/digline-gate" <<<"$note" \
  || { note_text >&2; cat "$gl/job.log" >&2; fail "the merge-request note does not link the job's artifacts"; }
for f in outcome.json junit.xml report.html; do
  [ -f "$proj/digline-gate/$f" ] || fail "the GitLab job did not write digline-gate/$f (the artifacts path)"
done
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["artifacts"]["reports"]["junit"])' "$gl/job.json")" = digline-gate/junit.xml ] \
  || fail "the template's junit report is not the file the gate writes"
python3 - "$ws/answers.json" <<'EOF'
import json, sys
table = json.load(open(sys.argv[1]))
table["opening-hours"]["answer"] = "We open at 9 on Saturdays."
json.dump(table, open(sys.argv[1], "w"))
EOF
gitlab_job 1
[ "$(note_count)" = 1 ] || fail "the second GitLab job did not edit its note in place"
cp "$top/answers.good.json" "$ws/answers.json"
echo "ok: the job passes at 0 and fails with 1; one merge-request note, edited in place; digline-gate/ holds the artifacts and the JUnit report"

echo "== the GitLab job: the history carried across pipelines by the template's cache"
# GitLab's cache as the runner keeps it, for the template's one key: pulled
# into the project before the script, pushed after it (when: always) by a
# job whose policy is pull-push. Each pipeline starts from a fresh clone:
# only the cache carries the history. Two pushes of the default branch
# (the job run with DIGLINE_HISTORY_POLICY=pull-push, as docs/gate.md
# says), then a merge request (the template's pull).
cache_dir="$gl/cache"
mkdir -p "$cache_dir"
cache_key="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cache"][0]["key"])' "$gl/job.json")"
cached_job() { # POLICY ENV...
  local policy="$1"
  shift
  rm -rf "$proj/.digline/quickstart/history" "$proj/.digline/quickstart/runs" "$proj/digline-gate"
  if [ -f "$cache_dir/$cache_key.tar" ]; then tar -xf "$cache_dir/$cache_key.tar" -C "$proj"; fi
  chmod -R a+rwX "$proj"
  gitlab_job 0 "$@" --env=DIGLINE_HISTORY_POLICY="$policy"
  if [ "$policy" = pull-push ]; then
    (cd "$proj" && tar -cf "$cache_dir/$cache_key.tar" .digline/*/history/)
  fi
}
pushed=(--env=CI_PIPELINE_SOURCE=push --env=CI_COMMIT_BRANCH=main --env=CI_DEFAULT_BRANCH=main)
cached_job pull-push "${pushed[@]}"
cached_job pull-push "${pushed[@]}"
lines="$(tar -xOf "$cache_dir/$cache_key.tar" | grep -c '"v":1')"
[ "$lines" = 2 ] || fail "two pushes of the default branch left $lines history line(s) in the cache, expected 2"
before="$(sha256sum "$cache_dir/$cache_key.tar")"
cached_job pull --env=CI_PIPELINE_SOURCE=merge_request_event --env=CI_MERGE_REQUEST_IID=5 --env=CI_DEFAULT_BRANCH=main
[ "$(sha256sum "$cache_dir/$cache_key.tar")" = "$before" ] || fail "the merge request's job changed the history cache"
grep -qF "2 gates on the base branch against this reference are in the history" "$proj/digline-gate/comment.md" \
  || { cat "$proj/digline-gate/comment.md" >&2; fail "the merge request's comment does not read the two gates of the cache"; }
echo "ok: two pushes recorded the history into the cache; the merge request pulled it, read 2 gates, and pushed nothing"
echo "image-checks: ok"
