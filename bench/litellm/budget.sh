#!/usr/bin/env bash
# Budget refusals and --max-retries against a real LiteLLM proxy on
# loopback (docs/providers.md, "The hard cap"). Needs
# `pip install 'litellm[proxy]'` (LITELLM from $LITELLM, default `litellm`)
# and a digline binary ($DIGLINE, default target/debug/digline). The proxy
# answers from `mock_response` (no upstream, no key) and prices calls from
# its local cost map; every request it serves is one line of its access
# log, which is what is counted here. Bounded: about a minute.
#
# 1. The deployment form: a provider budget of 1e-12 USD
#    (`router_settings.provider_budget_config`); after the first judge call
#    the proxy answers 429 "No deployments available - crossed budget".
#    digline must name it (`gateway_budget`) and never retry it: one
#    request per judge call.
# 2. A judge that always answers 429 (`mock_response:
#    litellm.RateLimitError`) under `--max-retries 1`: at most two requests
#    per judge call.
# (The key form — a virtual key's `max_budget` — needs the proxy's
# database; its bodies are replayed by `cost::a_gateway_budget_refusal_is_
# named_and_never_retried` in CI.)
set -euo pipefail
DIGLINE="$(realpath "${DIGLINE:-target/debug/digline}")"
LITELLM="${LITELLM:-litellm}"
PORT="${PORT:-4011}"
KEY=sk-digline-local-budget-0123456789
work="$(mktemp -d)"
trap 'kill "$(cat "$work/proxy.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"

cat > config.yaml <<YAML
model_list:
  - model_name: gpt-4o-mini
    litellm_params: {model: openai/gpt-4o-mini, api_key: sk-none, mock_response: "Hello! Your order ships tomorrow."}
  - model_name: gpt-4o
    litellm_params: {model: anthropic/claude-3-5-haiku-20241022, api_key: sk-none, mock_response: '{"score": 0.9, "reason": "polite"}'}
  - model_name: gpt-4.1
    litellm_params: {model: openai/gpt-4o, api_key: sk-none, mock_response: "litellm.RateLimitError"}
router_settings:
  num_retries: 0
  provider_budget_config:
    anthropic: {budget_limit: 0.000000000001, time_period: 1d}
general_settings: {master_key: $KEY}
YAML
LITELLM_LOCAL_MODEL_COST_MAP=True "$LITELLM" --config config.yaml --host 127.0.0.1 --port "$PORT" > proxy.log 2>&1 &
echo $! > proxy.pid
for _ in $(seq 1 60); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/health/liveliness" && break; sleep 2; done

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
fail=0
run_counted() { # $1: what; $2: the most requests allowed; then digline's arguments
  local what="$1" most="$2"; shift 2
  local before; before="$(seen)"
  set +e; key="$("$DIGLINE" run -q --suite suite.toml --judge-memo off "$@" 2>err.txt)"; code=$?; set -e
  local served=$(( $(seen) - before ))
  echo "$what: exit $code, the proxy served $served request(s) (at most $most: 5 target calls and the judges')"
  if (( code != 0 )); then cat err.txt; fail=1; return; fi
  echo "  causes: $(reasons "$key")"
  if (( served > most )); then echo "  FAIL: more requests than allowed"; fail=1; fi
}

suite gpt-4o
run_counted "deployment budget crossed (judge)" 10 --concurrency 1
if grep -q "crossed budget" proxy.log; then
  grep -q "its budget at the gateway is spent" ".digline/t/runs/s/$key.json" \
    && echo "  named: its budget at the gateway is spent" \
    || { echo "  FAIL: the refusal is not named as a budget"; fail=1; }
else
  # LiteLLM 1.108.7 prices a mocked call at 0 USD, so its provider budget
  # is never crossed here: said, not passed.
  echo "  NOT CHECKED: the proxy never crossed its deployment budget"
fi
suite gpt-4.1
run_counted "judge always 429, --max-retries 1" 15 --max-retries 1 --concurrency 2
exit "$fail"
