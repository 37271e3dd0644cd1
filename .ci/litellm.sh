#!/usr/bin/env bash
# CI: digline against LiteLLM's own proxy (bench/litellm/budget.sh): its
# deployment-budget and key-budget refusals are named and never retried,
# and --max-retries 1 means at most one retry a judge call. Installs
# 'litellm[proxy]' into a virtual environment when it is not there
# ($DIGLINE_LITELLM_VENV, default target/litellm-venv; pip, from PyPI).
# Bounded: 3 minutes for the check, install apart; both are timed.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${DIGLINE_LITELLM_VENV:-target/litellm-venv}"
version="${DIGLINE_LITELLM_VERSION:-1.108.7}"
started=$SECONDS
export LITELLM_LOCAL_MODEL_COST_MAP=True
if ! [ -x "$venv/bin/litellm" ] \
  || ! "$venv/bin/python" -c "import litellm, fastapi, uvicorn, backoff" >/dev/null 2>&1; then
  echo "== installing litellm[proxy]==$version into $venv (pip)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "litellm[proxy]==$version"
  echo "installed in $((SECONDS - started)) s"
fi
[ -x target/debug/digline ] || cargo build --locked -q
checked=$SECONDS
LITELLM="$(realpath "$venv")/bin/litellm" DIGLINE=target/debug/digline \
  timeout 180 bench/litellm/budget.sh
echo "the LiteLLM check took $((SECONDS - checked)) s"
