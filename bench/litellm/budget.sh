#!/usr/bin/env bash
# Budget refusals and --max-retries against a real LiteLLM proxy on
# loopback (docs/providers.md, "The hard cap"); run in CI by .ci/litellm.sh.
# Needs `pip install 'litellm[proxy]'` (LITELLM from $LITELLM, default
# `litellm`) and a digline binary ($DIGLINE, default target/debug/digline).
# The proxy answers from `mock_response` (no upstream, no key) and prices
# calls from its local cost map (LITELLM_LOCAL_MODEL_COST_MAP=True, no
# download); every request it serves is one line of its access log, which
# is what is counted here. No database: the proxy runs from its config file
# alone. Bounded: about a minute.
#
# 1. The deployment form: a provider budget of 1e-12 USD
#    (`router_settings.provider_budget_config`) on the judge's deployment
#    (a priced model); after the first judge call the proxy answers 429 "No
#    deployments available - crossed budget". digline must name it
#    (`gateway_budget`) and never retry it: exactly one request per call.
# 2. The key form: a virtual key whose `max_budget` is crossed. Virtual
#    keys live in the proxy's database, but the proxy also takes its keys
#    from a custom auth function (`general_settings.custom_auth`, with
#    `custom_auth_run_common_checks`): key_budget_auth.py below gives the
#    CI key a `max_budget` of 1e-5 USD, which the first call crosses. The
#    proxy then answers its own key refusal (`type: budget_exceeded`,
#    "Budget has been exceeded! Key=… Current cost: …, Max budget: …").
#    digline must name it and never retry it: exactly one request per call.
# 3. A judge that always answers 429 (`mock_response:
#    litellm.RateLimitError`) under `--max-retries 1`: at most two requests
#    per judge call.
set -euo pipefail
DIGLINE="$(realpath "${DIGLINE:-target/debug/digline}")"
LITELLM="${LITELLM:-litellm}"
PORT="${PORT:-4011}"
KEY=sk-digline-local-budget-0123456789
BUDGETED_KEY=sk-digline-local-key-budget-0123456789
work="$(mktemp -d)"
trap 'kill "$(cat "$work/proxy.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"

cat > key_budget_auth.py <<PY
"""The proxy's keys without a database: the budgeted key has a max_budget."""
from litellm.proxy._types import UserAPIKeyAuth


async def user_api_key_auth(request, api_key):
    if api_key == "$BUDGETED_KEY":
        return UserAPIKeyAuth(api_key=api_key, token="digline-budgeted",
                              key_alias="digline-ci", max_budget=0.00001, spend=0.0)
    if api_key == "$KEY":
        return UserAPIKeyAuth(api_key=api_key, token="digline-unbudgeted")
    raise Exception("unknown key")
PY
cat > config.yaml <<YAML
model_list:
  - model_name: gpt-4o-mini
    litellm_params: {model: openai/gpt-4o-mini, api_key: sk-none, mock_response: "Hello! Your order ships tomorrow."}
  - model_name: gpt-4o
    litellm_params: {model: anthropic/claude-haiku-4-5, api_key: sk-none, mock_response: '{"score": 0.9, "reason": "polite"}'}
  - model_name: gpt-4.1
    litellm_params: {model: openai/gpt-4o, api_key: sk-none, mock_response: "litellm.RateLimitError"}
router_settings:
  num_retries: 0
  provider_budget_config:
    anthropic: {budget_limit: 0.000000000001, time_period: 1d}
general_settings:
  master_key: $KEY
  custom_auth: key_budget_auth.user_api_key_auth
  custom_auth_run_common_checks: true
YAML
PYTHONPATH="$work" LITELLM_LOCAL_MODEL_COST_MAP=True \
  "$LITELLM" --config config.yaml --host 127.0.0.1 --port "$PORT" > proxy.log 2>&1 &
echo $! > proxy.pid
up=0
for _ in $(seq 1 60); do
  if curl -sf -o /dev/null "http://127.0.0.1:$PORT/health/liveliness"; then up=1; break; fi
  sleep 2
done
if (( up == 0 )); then echo "the proxy did not start:"; tail -20 proxy.log; exit 1; fi

export OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OPENAI_API_KEY="$KEY"
echo 'Answer the customer: {question}' > prompt.txt
cases='['; for i in 1 2 3 4 5; do cases+="{\"id\": \"c$i\", \"vars\": {\"question\": \"q$i\"}},"; done
echo "${cases%,}]" > cases.json
suite() { # $1: the judge's model name at the proxy (gpt-4o: the budget; gpt-4.1: throttled)
  cat > suite.toml <<TOML
[suite]
tenant = "t"
environment = "local"
name = "s"
cases = "cases.json"

[target]
type = "provider"
provider = "openai/gpt-4o-mini"
prompt_file = "prompt.txt"
max_tokens = 100

[[assertions]]
type = "llm_rubric"
rubric = "Polite."
judge = "openai/$1"
threshold = 0.5
tolerance = 0.1
TOML
}
seen() { grep -c "POST /v1/chat/completions" proxy.log || true; }
reasons() { # the distinct causes of run $1
  python3 -c "import json; d=json.load(open('.digline/t/runs/s/$1.json')); print(sorted({v['reason'][:160] for r in d['results'] for v in r['verdicts'] if v['status'] == 'error'}))"
}
sent() { # every request digline sent in run $1 (its spend record: target and judges)
  python3 -c "import json; d=json.load(open('.digline/t/spend/runs/s/$1.json')); print(sum((d.get(p) or {}).get('sent', 0) for p in ('target', 'judges')))"
}
fail=0
run_counted() { # $1: what; $2: the most requests allowed; then digline's arguments
  local what="$1" most="$2"; shift 2
  local before; before="$(seen)"
  set +e; key="$("$DIGLINE" run -q --suite suite.toml --judge-memo off "$@" 2>err.txt)"; code=$?; set -e
  served=$(( $(seen) - before ))
  echo "$what: exit $code, the proxy served $served request(s) (at most $most)"
  if (( code != 0 )); then cat err.txt; fail=1; return; fi
  echo "  causes: $(reasons "$key")"
  if (( served > most )); then echo "  FAIL: more requests than allowed"; fail=1; fi
}
named_not_retried() { # $1: the refusal's words in the proxy's log; $2: the calls, one request each
  if ! grep -q "$1" proxy.log; then
    echo "  FAIL: the proxy never refused with \"$1\""; fail=1; return
  fi
  local refused
  refused="$(python3 -c "import json; d=json.load(open('.digline/t/runs/s/$key.json')); print(sum(1 for r in d['results'] for v in r['verdicts'] if 'its budget at the gateway is spent' in (v.get('reason') or '')))")"
  if (( refused == 0 )); then
    echo "  FAIL: the refusal is not named as a budget"; fail=1
  else
    echo "  named: its budget at the gateway is spent ($refused verdict(s))"
  fi
  # Never retried: one request a call, as the proxy and digline count them.
  local counted; counted="$(sent "$key")"
  if (( served != $2 || counted != $2 )) || grep -q "were tried again" err.txt; then
    echo "  FAIL: retried ($served request(s) served, $counted sent, for $2 call(s))"; cat err.txt; fail=1
  else
    echo "  never retried: $served request(s) for $2 call(s)"
  fi
}

suite gpt-4o
run_counted "deployment budget crossed (judge)" 10 --concurrency 1
# 5 target calls, 5 judge calls: the first judged, the other four refused.
named_not_retried "No deployments available - crossed budget" 10

OPENAI_API_KEY="$BUDGETED_KEY" run_counted "key budget crossed (max_budget)" 10 --concurrency 1
# c1's target call crosses the key's budget; c1's judge call and c2–c5's
# target calls are refused (a case whose target failed is not judged).
named_not_retried "Budget has been exceeded! Key=" 6

suite gpt-4.1
run_counted "judge always 429, --max-retries 1" 15 --max-retries 1 --concurrency 2
exit "$fail"
