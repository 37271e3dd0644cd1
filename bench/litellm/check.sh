#!/usr/bin/env bash
# The judge memo and the spending cap against a real LiteLLM proxy on
# loopback (docs/providers.md, "Cost as a contract"). Needs
# `pip install 'litellm[proxy]'` (LITELLM from $LITELLM, default `litellm`)
# and a digline binary ($DIGLINE, default target/debug/digline). The proxy
# answers from `mock_response` (no upstream, no key) and prices each call
# from its local cost map; every request it serves is one line of its
# access log, which is what is counted here.
set -euo pipefail
DIGLINE="$(realpath "${DIGLINE:-target/debug/digline}")"
LITELLM="${LITELLM:-litellm}"
PORT="${PORT:-4000}"
KEY=sk-digline-local-check-0123456789
work="$(mktemp -d)"
trap 'kill "$(cat "$work/proxy.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"

cat > config.yaml <<YAML
model_list:
  - model_name: gpt-4o-mini
    litellm_params: {model: openai/gpt-4o-mini, api_key: sk-none, mock_response: "Hello! Your order ships tomorrow."}
  - model_name: gpt-4o
    litellm_params: {model: openai/gpt-4o, api_key: sk-none, mock_response: '{"score": 0.9, "reason": "polite"}'}
general_settings: {master_key: $KEY}
YAML
LITELLM_LOCAL_MODEL_COST_MAP=True "$LITELLM" --config config.yaml --host 127.0.0.1 --port "$PORT" > proxy.log 2>&1 &
echo $! > proxy.pid
for _ in $(seq 1 60); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/health/liveliness" && break; sleep 2; done

export OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OPENAI_API_KEY="$KEY"
echo 'Answer the customer: {question}' > prompt.txt
cases='['; for i in 1 2 3 4 5; do cases+="{\"id\": \"c$i\", \"vars\": {\"question\": \"q$i\"}},"; done
echo "${cases%,}]" > cases.json
suite() { # $1: the second rubric
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
judge = "openai/gpt-4o"
threshold = 0.5
tolerance = 0.1

[[assertions]]
type = "llm_rubric"
rubric = "$1"
judge = "openai/gpt-4o"
threshold = 0.5
tolerance = 0.1
TOML
}
seen() { grep -c 'POST /v1/chat/completions' proxy.log || true; }
judges() { # the judge calls and USD of run $1, from its spend record
  python3 -c "import json,sys; s=json.load(open('.digline/t/spend/runs/s/$1.json')); print(s['judges']['calls'], s['judges']['usd'] or 0.0, s.get('memo', {}))"
}
step() { # $1: what; then the command; prints what the proxy saw
  local what="$1"; shift
  local before; before="$(seen)"
  set +e; out="$("$@" 2>err.txt)"; code=$?; set -e
  echo "$what: exit $code, the proxy served $(( $(seen) - before )) request(s)"
}

suite "Short."
step "first run (5 target + 10 judge calls)" "$DIGLINE" run -q --suite suite.toml; first="$out"
echo "  judges: $(judges "$first")"
"$DIGLINE" promote --suite suite.toml --run "$first" > /dev/null 2>&1
step "unchanged rerun" "$DIGLINE" run -q --suite suite.toml
echo "  judges: $(judges "$out")"
suite "Short and kind."
step "one rubric edited" "$DIGLINE" run -q --suite suite.toml
echo "  judges: $(judges "$out")"
suite "Short, kind and exact."
step "replay with a miss (gate)" "$DIGLINE" gate --suite suite.toml --publish none --out replay --judge-memo replay
python3 -c "import json; o=json.load(open('replay/outcome.json')); print('  causes', o['causes'], 'memo', o['spent'].get('memo'))"
verdicts=""
for i in $(seq 1 20); do
  "$DIGLINE" run -q --suite suite.toml --judge-memo on > key.txt 2>/dev/null
  verdicts+="$(python3 -c "import json; d=json.load(open('.digline/t/runs/s/'+open('key.txt').read().strip()+'.json')); print([(v['status'], v['score']) for r in d['results'] for v in r['verdicts']])")"$'\n'
done
echo "20 reruns: $(printf '%s' "$verdicts" | sort -u | wc -l) distinct set(s) of verdicts"
step "capped gate (--max-usd 0.01, memo off)" "$DIGLINE" gate --suite suite.toml --publish none --out capped --judge-memo off --max-usd 0.01
python3 -c "import json; o=json.load(open('capped/outcome.json')); s=o['spent']; print('  spent', (s['target']['usd'] or 0)+(s['judges']['usd'] or 0), 'of cap', s['max_usd'], 'causes', o['causes'])"
grep -c "spending cap" capped/comment.md capped/summary.md || true
grep "spending cap" err.txt || true
