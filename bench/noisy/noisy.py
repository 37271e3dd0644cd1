#!/usr/bin/env python3
"""The noisy-service benchmark (docs/statistics.md, docs/performance.md).

A loopback service whose answers are random per call, seeded: 200 cases
with one `contains` check; 5 % of them borderline (pass rate drawn from
0.3-0.9 per trial), the rest passing 99.5 % of the time. Each trial draws
its rates, measures a 5-sample baseline (`digline run --samples 5`,
`promote`), then runs one gate of a pull request asked once per case
(plus the gate's re-asks). Scenarios:

  unchanged       the pull request's system is the baseline's
  drop5, drop15   5 / 15 steady cases now pass 30 % of the time
  deterministic   a 1-sample baseline of a system that never wobbles, one
                  case now always failing

Usage:  bench/noisy/noisy.py SCENARIO [--trials N] [--seed S]
Writes one JSON line per trial to bench/results/noisy-SCENARIO.jsonl and a
summary to stdout. The service is examples/quickstart/stub.rs serving a
per-trial table of answers (each case's answers in call order, drawn with
Python's seeded generator); digline is target/debug/digline unless
DIGLINE is set. Not a test: `cargo test` runs only a smoke of it
(tests/cli/noisy.rs).
"""
import argparse
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CASES = 200
BORDERLINE = 10
STEADY = 0.995
BROKEN = 0.3
ANSWERS = 16  # per case and trial: 5 reference samples, 1 answer, re-asks, spare

SUITE = """[suite]
tenant = "bench"
environment = "local"
name = "noisy"
cases = "cases.json"

[target]
type = "http"
url = "http://127.0.0.1:{port}/answer"
output_path = "data.answer"
timeout = 10

[target.body]
id = "case.id"

[[assertions]]
type = "contains"
needle = "yes"
"""


def draw(rng, scenario):
    """The reference's and the pull request's pass rate of every case."""
    if scenario == "deterministic":
        reference = [1.0] * CASES
        now = list(reference)
        now[rng.randrange(CASES)] = 0.0
        return reference, now, 1
    reference = [STEADY] * CASES
    borderline = rng.sample(range(CASES), BORDERLINE)
    for i in borderline:
        reference[i] = rng.uniform(0.3, 0.9)
    now = list(reference)
    broken = {"unchanged": 0, "drop5": 5, "drop15": 15}[scenario]
    steady = [i for i in range(CASES) if i not in set(borderline)]
    for i in rng.sample(steady, broken):
        now[i] = BROKEN
    return reference, now, 5


def table(rng, reference, now, samples):
    out = {}
    for i in range(CASES):
        calls = [reference[i]] * samples + [now[i]] * (ANSWERS - samples)
        out[f"case-{i:03d}"] = {"answers": ["yes" if rng.random() < p else "no" for p in calls]}
    return out


def digline(args, cwd):
    binary = os.environ.get("DIGLINE", str(REPO / "target/debug/digline"))
    return subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True)


def trial(work, answers_file, rng, scenario):
    reference, now, samples = draw(rng, scenario)
    answers_file.write_text(json.dumps(table(rng, reference, now, samples)))
    shutil.rmtree(work / ".digline", ignore_errors=True)
    measure = ["run", "--suite", "suite.toml", "-q"] + (["--samples", str(samples)] if samples > 1 else [])
    ran = digline(measure, work)
    if ran.returncode != 0:
        raise SystemExit(f"the baseline run failed: {ran.stderr}")
    key = ran.stdout.strip().splitlines()[-1]
    promoted = digline(["promote", "--suite", "suite.toml", "--run", key], work)
    if promoted.returncode != 0:
        raise SystemExit(f"promote failed: {promoted.stderr}")
    gate = digline(["gate", "--suite", "suite.toml", "-q", "--out", "out"], work)
    extra = 0
    worse = []
    for record in (work / ".digline/bench/reasks/runs/noisy").glob("*.json"):
        data = json.loads(record.read_text())
        extra += sum(len(p["failed"]) for p in data["pairs"])
    broken = [f"case-{i:03d}" for i in range(CASES) if now[i] < reference[i] and reference[i] >= STEADY]
    return {"exit": gate.returncode, "extra_calls": extra, "broken": len(broken)}


def run_trials(prefix, suite, ids, count, out, trial):
    """Start the stub in a fresh folder holding `suite` (its `{port}` filled)
    and the cases `ids`, then run `trial(work, answers_file)` `count` times,
    each row written to `out` as it comes. Returns the rows and the seconds."""
    stub = os.environ.get("STUB", str(REPO / "target/debug/examples/quickstart-stub"))
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = pathlib.Path(tmp)
        answers_file = work / "answers.json"
        answers_file.write_text("{}")
        server = subprocess.Popen([stub, "--answers", str(answers_file), "--port", "0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            line = server.stdout.readline()
            port = int(line.rsplit(":", 1)[-1].split()[0].strip().rstrip("/"))
            (work / "suite.toml").write_text(suite.format(port=port))
            (work / "cases.json").write_text(json.dumps([{"id": i, "vars": {}} for i in ids]))
            rows = []
            started = time.time()
            out.parent.mkdir(parents=True, exist_ok=True)
            with out.open("w") as sink:
                for _ in range(count):
                    row = trial(work, answers_file)
                    rows.append(row)
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
        finally:
            server.terminate()
            server.wait()
    return rows, round(time.time() - started, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["unchanged", "drop5", "drop15", "deterministic"])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--out", default=str(REPO / "bench/results"))
    args = parser.parse_args()
    rng = random.Random(f"{args.seed}-{args.scenario}")
    out = pathlib.Path(args.out) / f"noisy-{args.scenario}.jsonl"
    ids = [f"case-{i:03d}" for i in range(CASES)]
    rows, seconds = run_trials("digline-noisy-", SUITE, ids, args.trials, out,
                               lambda work, answers: trial(work, answers, rng, args.scenario))
    g = len(rows)
    blocked = sum(r["exit"] != 0 for r in rows)
    caught = sum(r["exit"] == 1 for r in rows)
    errors = sum(r["exit"] not in (0, 1) for r in rows)
    extra = sum(r["extra_calls"] for r in rows) / g
    print(json.dumps({
        "scenario": args.scenario, "gates": g, "blocked": blocked / g, "caught": caught / g,
        "exit_other": errors, "extra_calls_mean": extra, "extra_calls_share": extra / CASES,
        "extra_calls_max": max(r["extra_calls"] for r in rows),
        "seconds": seconds,
    }))


if __name__ == "__main__":
    sys.exit(main())
