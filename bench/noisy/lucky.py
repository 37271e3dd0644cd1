#!/usr/bin/env python3
"""The lucky-reference benchmark (issue 33; docs/statistics.md).

A loopback service whose answers are random per call, seeded: 20 cases with
one `contains` check, 19 steady (pass 99.5 % of the time) and one
borderline case that passes `--rate` of the time (default 35 %; the issue's
"a case with a 35 % true rate"; `--rate 0.65` measures a case that fails
35 %). Each trial
measures a 5-sample reference (`run --samples 5`, `promote`), then runs 10
gates on the base branch (`gate --history record`, the system unchanged),
then one pull-request gate of the last run (`gate --run latest`, reading
the history of all 10). The notice fires when any of these comments names
"A lucky reference". Scenarios:

  lucky   the borderline case's reference passed 5 of 5 (its five
          reference answers drawn given that they all passed)
  sound   the borderline case's reference passed at most 4 of 5 (drawn
          given that); the steady cases' references are drawn as they come

Usage:  bench/noisy/lucky.py SCENARIO [--rate R] [--trials N] [--seed S]
Writes one JSON line per trial to bench/results/lucky-SCENARIO-R.jsonl and a
summary (with a 95 % Wilson interval) to stdout. digline is
target/release/digline unless DIGLINE is set (noisy.py's default); the service is
examples/quickstart/stub.rs (STUB).
"""
import argparse
import json
import math
import pathlib
import random
import shutil
import sys

from noisy import REPO, SUITE as NOISY_SUITE, digline, run_trials

CASES = 20
STEADY = 0.995
BORDERLINE = 0.35
SAMPLES = 5
GATES = 10
ANSWERS = 200  # per case and trial: 5 reference samples, then every gate's answers and re-asks

SUITE = NOISY_SUITE.replace('name = "noisy"', 'name = "lucky"')


def reference_answers(rng, rate, scenario):
    """Five reference answers of the borderline case, drawn given the scenario."""
    while True:
        drawn = [rng.random() < rate for _ in range(SAMPLES)]
        if (sum(drawn) == SAMPLES) == (scenario == "lucky"):
            return drawn


def table(rng, scenario, borderline):
    out = {}
    for i in range(CASES):
        rate = borderline if i == 0 else STEADY
        first = reference_answers(rng, rate, scenario) if i == 0 else [rng.random() < rate for _ in range(SAMPLES)]
        later = [rng.random() < rate for _ in range(ANSWERS - SAMPLES)]
        out[f"case-{i:02d}"] = {"answers": ["yes" if a else "no" for a in first + later]}
    return out


def named(work):
    comment = (work / "out/comment.md").read_text()
    return "#### A lucky reference" in comment


def trial(work, answers_file, rng, scenario, borderline):
    answers_file.write_text(json.dumps(table(rng, scenario, borderline)))
    shutil.rmtree(work / ".digline", ignore_errors=True)
    ran = digline(["run", "--suite", "suite.toml", "-q", "--samples", str(SAMPLES)], work)
    if ran.returncode != 0:
        raise SystemExit(f"the reference run failed: {ran.stderr}")
    key = ran.stdout.strip().splitlines()[-1]
    if digline(["promote", "--suite", "suite.toml", "--run", key], work).returncode != 0:
        raise SystemExit("promote failed")
    first = None
    exits = []
    for g in range(GATES + 1):
        args = ["gate", "--suite", "suite.toml", "-q", "--out", "out", "--publish", "none"]
        args += ["--history", "record"] if g < GATES else ["--run", "latest", "--history", "read"]
        gate = digline(args, work)
        exits.append(gate.returncode)
        if first is None and named(work):
            first = g
    return {"fired": first is not None, "first_gate": first, "exits": exits}


def wilson(k, n, z=1.959964):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z / d * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, c - h), min(1.0, c + h))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["lucky", "sound"])
    parser.add_argument("--rate", type=float, default=BORDERLINE)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261207)
    parser.add_argument("--out", default=str(REPO / "bench/results"))
    args = parser.parse_args()
    rng = random.Random(f"{args.seed}-{args.scenario}-{args.rate}")
    out = pathlib.Path(args.out) / f"lucky-{args.scenario}-{args.rate}.jsonl"
    ids = [f"case-{i:02d}" for i in range(CASES)]
    rows, seconds = run_trials("digline-lucky-", SUITE, ids, args.trials, out,
                               lambda work, answers: trial(work, answers, rng, args.scenario, args.rate))
    n = len(rows)
    fired = sum(r["fired"] for r in rows)
    lo, hi = wilson(fired, n)
    blocked = sum(sum(e == 1 for e in r["exits"][:GATES]) for r in rows) / (n * GATES)
    print(json.dumps({
        "scenario": args.scenario, "rate": args.rate, "trials": n, "fired": fired / n,
        "fired_interval_95": [round(lo, 3), round(hi, 3)],
        "base_gates_exit_1": round(blocked, 3),
        "seconds": seconds,
    }))


if __name__ == "__main__":
    sys.exit(main())
