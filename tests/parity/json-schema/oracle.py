"""Record digline 0.10.0's `json_schema` verdicts on the vendored
JSON-Schema-Test-Suite (draft 2020-12 and draft 7, required tests).

Run inside the 0.10.0 oracle, from the repository root:

    /work/shared/oracle/oracle-digline --v 0.10 --exec python \
        tests/parity/json-schema/oracle.py > tests/parity/json-schema/digline-0.10.0.jsonl

One line per test: {"key": "<draft>/<file>#<group>/<test>", "verdict":
"pass" | "fail" | "error" | "refused" | "raised"}. The data are handed to
the check as JSON text (0.10.0 takes a structured output only as an
object), which it decodes with `json.loads`.
"""

import json
import os
import sys

from digline.core.assertions import JsonSchema
from digline.core.types import EvaluatorInputs

ROOT = os.path.join(os.path.dirname(__file__), "..", "JSON-Schema-Test-Suite", "tests")


def verdict(schema, data):
    try:
        check = JsonSchema(schema=schema if isinstance(schema, dict) else {"allOf": [schema]})
    except Exception:  # noqa: BLE001 - refused at load
        return "refused"
    try:
        v = check(EvaluatorInputs(output=json.dumps(data)))
    except Exception:  # noqa: BLE001 - 0.10.0 raised while judging
        return "raised"
    status = v.status if isinstance(v.status, str) else v.status.value
    return status


for draft in ("draft2020-12", "draft7"):
    for name in sorted(os.listdir(os.path.join(ROOT, draft))):
        if not name.endswith(".json"):
            continue
        groups = json.load(open(os.path.join(ROOT, draft, name), encoding="utf-8"))
        for g, group in enumerate(groups):
            for t, test in enumerate(group["tests"]):
                key = f"{draft}/{name}#{g}/{t}"
                print(json.dumps({"key": key, "verdict": verdict(group["schema"], test["data"])}))
sys.stdout.flush()
