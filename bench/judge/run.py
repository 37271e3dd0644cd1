#!/usr/bin/env python3
"""Judge drift through the digline binary: a reference with judge anchors
graded by the loopback judge (bench/judge/server.py), then one gate per
trial with the judge swapped, renamed or unchanged but noisy; counts the
exit codes and whether the comment and `outcome.json` name the judge.

Per trial (fresh repository under --work, its own anchor salt so every
trial grades other answers): the suite has --cases cases whose answers a
`llm_rubric` check (judge `openai/bench-judge`) grades, and --anchors
anchors for that check in `judge-anchors.json`. The judge passes a text
when its hash falls under 0.5 + leniency (server.py). `run` + `promote`
make the reference with the judge as it was, then the scenario moves it
and `gate` runs:

  swap-named   reports another model and fingerprint, and its threshold
               moved so that ceil(shift * anchors) anchors change verdict
               one way (direction drawn per trial): the anchors' pass rate
               moves by --shift (default 0.1: 10 points)
  swap-silent  the same move behind the same model and fingerprint
  rename       another model and fingerprint, behaviour byte-identical
  steady       nothing changed; --noise flips each grading
  pr-strict    the pull request changes every case's answer while the
               judge silently turned strict as in swap-silent

"Names the judge": the comment (`comment.md`) says "The judge of says_yes
(openai/bench-judge) changed … the judge changed" (`gate.judge_moved`) and
`outcome.json`'s `judges` entry for `says_yes` reads `moved`. Each gate's
reading (`steady`, `renamed`, `moved`, `unproven`) and changed identity
fields are kept in the raw lines.

Usage:  bench/judge/run.py SCENARIO[,SCENARIO…] [--trials 100]
        [--anchors 40] [--cases 20] [--noise 0.0] [--shift 0.1] [--seed 20261207]
        [--judge-memo on|off] [--work /tmp/digline-judgebench]
Environment: DIGLINE (default target/debug/digline).
Raw gates go to bench/results/judge-SCENARIO.jsonl, one summary line per
scenario (rates with 95 % Clopper-Pearson intervals) to stdout and
bench/results/judge-summary.jsonl.
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import server  # noqa: E402

REPO = HERE.parent.parent
SCENARIOS = ("swap-named", "swap-silent", "rename", "steady", "pr-strict")
JUDGE = "bench-judge"
CHECK = "says_yes"

SUITE = """[suite]
tenant = "bench"
environment = "local"
name = "judgebench"
cases = "cases.json"
judge_anchors = "judge-anchors.json"

[target]
type = "http"
url = "http://127.0.0.1:{port}/answer"
output_path = "answer"
timeout = 30

[target.body]
id = "case.id"

[[assertions]]
name = "{check}"
type = "llm_rubric"
rubric = "The answer says yes."
judge = "openai/{judge}"
threshold = 0.5
tolerance = 0.1
"""


def clopper_pearson(x, n, alpha=0.05):
    """The exact interval, by bisection on the binomial tail (stdlib only)."""
    if n == 0:
        return (0.0, 1.0)

    def tail_ge(p):  # P(X >= x)
        return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(x, n + 1))

    def tail_le(p):  # P(X <= x)
        return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(0, x + 1))

    def solve(f, target, increasing):
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if (f(mid) < target) == increasing:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = 0.0 if x == 0 else solve(tail_ge, alpha / 2, True)
    high = 1.0 if x == n else solve(tail_le, alpha / 2, False)
    return (low, high)


def rate(x, n):
    low, high = clopper_pearson(x, n)
    return {"count": x, "of": n, "share": round(x / n, 4) if n else None,
            "ci95": [round(low, 4), round(high, 4)]}


def moved_threshold(texts, salt, base, k, strict):
    """The leniency that moves exactly the k anchors nearest the threshold
    (and any tie) one way: strict fails the k highest passing ones."""
    us = sorted(server.unit(salt, t) for t in texts)
    passing = [u for u in us if u < base]
    failing = [u for u in us if u >= base]
    if strict and len(passing) < k or not strict and len(failing) < k:
        strict = not strict
    if strict:
        return passing[-k] - base, strict
    above = (failing[k - 1] + failing[k]) / 2 if len(failing) > k else failing[k - 1] + 1e-9
    return above - base, strict


class Bench:
    def __init__(self, args, judge, port, work):
        self.args, self.judge, self.port, self.work = args, judge, port, work
        self.binary = str(Path(os.environ.get("DIGLINE", REPO / "target/debug/digline")).resolve())
        self.env = dict(os.environ, OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1",
                        OPENAI_API_KEY="bench-key",
                        DIGLINE_EVIDENCE_KEY="judge-benchmark-evidence-key",
                        GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@localhost",
                        GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@localhost",
                        NO_COLOR="1")
        for key in ("GITHUB_ACTIONS", "GITLAB_CI", "CI", "RUNNER_TEMP"):
            self.env.pop(key, None)

    def control(self, **update):
        self.judge.control(update)

    def run(self, *args):
        return subprocess.run([self.binary, *args], cwd=self.work, env=self.env,
                              capture_output=True, text=True, timeout=600)

    def git(self, *args):
        subprocess.run(["git", *args], cwd=self.work, env=self.env, check=True, capture_output=True)

    def trial(self, scenario, index, rng):
        args = self.args
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True)
        salt = f"{args.seed}-{scenario}-{index}"
        anchors = [f"Anchor answer {i} of trial {index}." for i in range(args.anchors)]
        cases = [f"case-{i:03d}" for i in range(args.cases)]
        answers = {c: f"The answer to {c}, trial {index}." for c in cases}
        (self.work / "suite.toml").write_text(SUITE.format(port=self.port, check=CHECK, judge=JUDGE))
        (self.work / "cases.json").write_text(json.dumps([{"id": c, "vars": {}} for c in cases]))
        (self.work / "judge-anchors.json").write_text(json.dumps(
            [{"check": CHECK, "answer": a} for a in anchors], indent=1))
        (self.work / ".gitignore").write_text(".digline/\nout/\n")
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-qm", "suite")

        before = {"model": f"{JUDGE}-2026-01-01", "fingerprint": "fp_bench_a", "base": 0.5,
                  "leniency": 0.0, "noise": args.noise, "salt": salt,
                  "seed": rng.getrandbits(63), "answers": answers}
        self.control(reset=True, **before)
        ran = self.run("run", "--suite", "suite.toml", "-q")
        if ran.returncode != 0:
            raise SystemExit(f"the reference run failed ({ran.returncode}): {ran.stderr}")
        key = ran.stdout.strip().splitlines()[-1]
        promoted = self.run("promote", "--suite", "suite.toml", "--run", key)
        if promoted.returncode != 0:
            raise SystemExit(f"promote failed: {promoted.stderr}")
        reference_calls = self.judge.snapshot()["judge_calls"]

        after = dict(before)
        k = math.ceil(args.shift * args.anchors - 1e-9)
        strict = rng.random() < 0.5
        if scenario in ("swap-named", "swap-silent", "pr-strict"):
            after["leniency"], strict = moved_threshold(anchors, salt, 0.5, k, strict or scenario == "pr-strict")
        if scenario in ("swap-named", "rename"):
            after["model"], after["fingerprint"] = f"{JUDGE}-2026-06-01", "fp_bench_b"
        if scenario == "pr-strict":
            after["answers"] = {c: f"A changed answer to {c}, trial {index}." for c in cases}
            (self.work / "head.txt").write_text("changed answers\n")
        else:
            (self.work / "head.txt").write_text(f"head {index}\n")
        self.git("add", "head.txt")
        self.git("commit", "-qm", "head")
        old = sum(server.behaves(a, salt, 0.5, 0.0) for a in anchors)
        new = sum(server.behaves(a, salt, 0.5, after["leniency"]) for a in anchors)
        self.control(reset=True, **after)

        started = time.time()
        gate = self.run("gate", "--suite", "suite.toml", "--out", "out",
                        "--judge-memo", args.judge_memo)
        seconds = time.time() - started
        out = self.work / "out"
        comment = (out / "comment.md").read_text() if (out / "comment.md").exists() else ""
        outcome_text = (out / "outcome.json").read_text() if (out / "outcome.json").exists() else ""
        seen = self.judge.snapshot()
        reading = judge_reading(outcome_text)
        return {
            "scenario": scenario, "trial": index, "exit": gate.returncode,
            "anchors": args.anchors, "cases": args.cases, "noise": args.noise,
            "anchor_shift": round((new - old) / args.anchors, 4), "strict": strict,
            "leniency": round(after["leniency"], 6), "model": after["model"],
            "names_judge_comment": names(comment),
            "names_judge_outcome": (reading or {}).get("reading") == "moved",
            "reading": (reading or {}).get("reading"),
            "changed": (reading or {}).get("changed"),
            "lost_gained": [(reading or {}).get("lost"), (reading or {}).get("gained")],
            "judge_calls": seen["judge_calls"], "reference_judge_calls": reference_calls,
            "seconds": round(seconds, 2),
            "stderr_tail": gate.stderr.strip().splitlines()[-1:] if gate.returncode not in (0, 1, 2) else [],
        }


def names(comment):
    """Whether the comment names the judge as changed: the sentence the
    gate writes for a moved judge (`gate.judge_moved`, English) naming
    this judge's check."""
    plain = re.sub(r"\\(.)", r"\1", comment).lower()  # the comment escapes Markdown
    return f"the judge of {CHECK} (openai/{JUDGE}) changed" in plain and "the judge changed" in plain


def judge_reading(outcome_text):
    """The judge's entry in `outcome.json` (`judges`, issue 32): its reading
    and the identity fields that changed; `None` without one."""
    try:
        outcome = json.loads(outcome_text)
    except json.JSONDecodeError:
        return None
    for judge in outcome.get("judges") or []:
        if judge.get("check") == CHECK:
            return judge
    return None


def summarize(scenario, rows, args):
    n = len(rows)
    exits = {str(code): sum(1 for r in rows if r["exit"] == code) for code in sorted({r["exit"] for r in rows})}
    named = sum(1 for r in rows if r["names_judge_comment"] and r["names_judge_outcome"])
    exit2_named = sum(1 for r in rows if r["exit"] == 2 and r["names_judge_comment"] and r["names_judge_outcome"])
    return {
        "scenario": scenario, "trials": n, "anchors": args.anchors, "cases": args.cases,
        "noise": args.noise, "shift": args.shift, "seed": args.seed, "judge_memo": args.judge_memo,
        "binary": os.environ.get("DIGLINE", "target/debug/digline"),
        "binary_commit": args.binary_commit,
        "exits": exits,
        "exit1": rate(sum(1 for r in rows if r["exit"] == 1), n),
        "exit2": rate(sum(1 for r in rows if r["exit"] == 2), n),
        "exit2_naming_judge": rate(exit2_named, n),
        "names_judge": rate(named, n),
        "readings": {str(k): sum(1 for r in rows if r["reading"] == k)
                     for k in sorted({r["reading"] for r in rows}, key=str)},
        "renamed": rate(sum(1 for r in rows if r["reading"] == "renamed"), n),
        "moved": rate(sum(1 for r in rows if r["reading"] == "moved"), n),
        "min_anchor_shift": min((abs(r["anchor_shift"]) for r in rows), default=None),
        "median_gate_seconds": sorted(r["seconds"] for r in rows)[n // 2] if n else None,
        "judge_calls_per_gate": sorted(r["judge_calls"] for r in rows)[n // 2] if n else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenarios")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--anchors", type=int, default=40)
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--shift", type=float, default=0.1,
                    help="swaps and pr-strict: the least share of anchors whose verdict moves one way")
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--judge-memo", default="on", choices=("on", "off", "replay"))
    ap.add_argument("--work", default="/tmp/digline-judgebench")
    ap.add_argument("--results", default=str(REPO / "bench/results"))
    ap.add_argument("--binary-commit", default="", help="recorded in the summary: what the binary was built from")
    args = ap.parse_args()
    scenarios = args.scenarios.split(",")
    for s in scenarios:
        if s not in SCENARIOS:
            raise SystemExit(f"unknown scenario {s!r}: one of {', '.join(SCENARIOS)}")
    http = server.serve(0, args.seed)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    port = http.server_address[1]
    bench = Bench(args, http.judge, port, Path(args.work))
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    suffix = f"-{args.anchors}-{args.noise}" + ("" if args.shift == 0.1 else f"-shift-{args.shift}") + ("" if args.judge_memo == "on" else f"-memo-{args.judge_memo}")
    try:
        for i, scenario in enumerate(scenarios):
            rng = random.Random(args.seed * 100 + SCENARIOS.index(scenario))
            rows = []
            with open(results / f"judge-{scenario}{suffix}.jsonl", "w") as raw:
                for t in range(args.trials):
                    row = bench.trial(scenario, t, rng)
                    rows.append(row)
                    raw.write(json.dumps(row, sort_keys=True) + "\n")
                    raw.flush()
            line = json.dumps(summarize(scenario, rows, args), sort_keys=True)
            print(line, flush=True)
            with open(results / "judge-summary.jsonl", "a") as out:
                out.write(line + "\n")
    finally:
        http.shutdown()


if __name__ == "__main__":
    main()
