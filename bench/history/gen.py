#!/usr/bin/env python3
"""Generate a store with a long history (issue 33; docs/performance.md).

  gen.py ROOT --cases N --gates G [--failing F] [--flagged R] [--seed S]

ROOT gets suite.toml + cases.json, a reference of N cases (5 samples each,
one `contains` check), a stored run of the same cases in which R cases
fail where the reference passed once (a one-sample reference for those, so
the gate asks nothing again), and a history of G gates on the base branch,
each listing a fraction F of the pairs as failed (seeded): what
`gate --run latest --history read` reads and draws. Stdlib only.
"""
import argparse
import datetime
import json
import os
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "noisy"))
from noisy import SUITE as NOISY_SUITE  # noqa: E402

HASH = "0123456789abcdef"
T0 = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)

# The noisy benchmark's suite, on a port nothing answers (the stored run is
# gated without a call).
SUITE = NOISY_SUITE.format(port=9).replace('name = "noisy"', 'name = "hist"')


def verdict(status, samples):
    v = {"assertion": "contains", "assertion_id": "contains-1", "metadata": {}, "reason": "",
         "score": 1.0 if status == "pass" else 0.0, "status": status, "threshold": 1.0,
         "tolerance": 0.0}
    if samples:
        v["samples"] = samples
        v["sample_min"] = min(samples)
        v["sample_max"] = max(samples)
    return v


def document(created_at, results):
    return {"aggregate": [], "artifacts": {}, "config_hash": HASH, "created_at": created_at,
            "digline_version": "0.10.0", "environment": "local", "git_commit": None,
            "judge_config": {}, "metadata": {}, "redacted": False, "results": results,
            "schema_version": 10, "suite": "hist", "target_config": {}, "tenant": "bench"}


def key(created_at):
    out, gap = "", False
    for c in created_at:
        if c.isascii() and c.isalnum():
            if gap and out:
                out += "-"
            gap = False
            out += c
        else:
            gap = True
    return f"{out}-{HASH}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("root")
    p.add_argument("--cases", type=int, default=10_000)
    p.add_argument("--gates", type=int, default=1_000)
    p.add_argument("--failing", type=float, default=0.02)
    p.add_argument("--flagged", type=int, default=40)
    p.add_argument("--seed", type=int, default=33)
    a = p.parse_args()
    rng = random.Random(a.seed)
    ids = [f"case-{i:05d}" for i in range(a.cases)]
    flagged = set(ids[: a.flagged])
    os.makedirs(a.root, exist_ok=True)
    with open(os.path.join(a.root, "suite.toml"), "w") as f:
        f.write(SUITE)
    with open(os.path.join(a.root, "cases.json"), "w") as f:
        json.dump([{"id": i, "vars": {}} for i in ids], f)
    store = os.path.join(a.root, ".digline", "bench")
    for d in ("baselines", "runs/hist", "history"):
        os.makedirs(os.path.join(store, d), exist_ok=True)
    made = T0.isoformat()
    reference = [{"case_id": i, "suspended": False,
                  "verdicts": [verdict("pass", None if i in flagged else [1.0] * 5)]} for i in ids]
    with open(os.path.join(store, "baselines", "hist.json"), "w") as f:
        json.dump(document(made, reference), f)
    ran = (T0 + datetime.timedelta(days=60)).isoformat()
    run = [{"case_id": i, "suspended": False,
            "verdicts": [verdict("fail" if i in flagged else "pass", None)]} for i in ids]
    with open(os.path.join(store, "runs", "hist", key(ran) + ".json"), "w") as f:
        json.dump(document(ran, run), f)
    with open(os.path.join(store, "history", "hist.jsonl"), "w") as f:
        for g in range(a.gates):
            at = (T0 + datetime.timedelta(hours=g + 1)).strftime("%Y-%m-%dT%H:%M:%SZ")
            failing = [i for i in ids if rng.random() < a.failing]
            line = {"v": 1, "at": at, "commit": f"{g:040x}", "reference": made,
                    "reference_config": HASH, "config": HASH, "exit": 0,
                    "usd": round(0.5 + rng.random() / 10, 4),
                    "checks": [["contains", a.cases, a.cases - len(failing)]],
                    "flagged": [[i, "contains", "f", 1, int(rng.random() < 0.5)] for i in failing]}
            f.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
