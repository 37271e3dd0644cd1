#!/usr/bin/env python3
"""The noisy-service benchmark on the binary (docs/statistics.md, docs/performance.md).

A loopback service whose answers are random per call: every case has one
`contains "yes"` check and a pass rate; `--border` of the cases are
borderline (a rate drawn from 0.3-0.9 per reference), the rest pass at
`--steady`. A reference is measured by the binary (`digline run --samples
N`, `promote`); a pull request is one `digline gate` (one answer per case
plus the gate's re-asks). Scenarios:

  unchanged      fresh reference per gate, the pull request's system is the
                 reference's
  drop5, drop15  fresh reference per gate, 5 / 15 steady cases now pass
  drop50         30 % of the time (drop50: 50 cases)
  deterministic  a system that never wobbles, one case now always failing;
                 gates alternate a 1-sample and an N-sample reference: exit 1
                 naming the case, at most 3 calls beyond one per case
  perref         --refs references, each measured once and gated --gates
                 times unchanged: the per-reference false-block rates
  reruns         --gates heads, each gated --reruns times against one
                 reference (unchanged, or --broken steady cases dropped),
                 the evidence carried between the gates of one head
  judge          a deterministic target graded by a loopback OpenAI-shaped
                 judge that passes each judging with --judge-rate
                 (`llm_rubric`, threshold 0.5); --refs references with the
                 judge memo on and kept across the --gates gates of each

The work directory is a git repository and DIGLINE_EVIDENCE_KEY is set, as
in CI: every gate is a new commit (its own head) except a rerun's.

Usage:  bench/noisy/noisy.py SCENARIO [--cases N] [--border F] [--steady F]
        [--samples N] [--gates N] [--refs N] [--reruns N] [--seed S]
Writes one JSON line per gate to bench/results/noisy-SCENARIO-<cases>-<steady>.jsonl
(with -border/-broken/-samples when not the defaults; or under --out DIR), a human summary with 95 % Wilson intervals to stderr and a
one-line JSON summary to stdout. The service is the quickstart stub
(examples/quickstart/stub.rs, STUB, default target/release/examples/
quickstart-stub) serving seeded entries `{"rate": R, "seed": S}`; digline is
DIGLINE, default target/release/digline. Not a test: `cargo test` runs only
a smoke of it (tests/cli/noisy.rs).
"""
import argparse
import http.server
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from wilson import wilson

REPO = pathlib.Path(__file__).resolve().parents[2]
BROKEN = 0.3
DROPS = {"unchanged": 0, "drop5": 5, "drop15": 15, "drop50": 50}

TARGET = """[suite]
tenant = "bench"
environment = "local"
name = "noisy"
cases = "cases.json"

[target]
type = "http"
url = "http://127.0.0.1:{port}/answer"
output_path = "data.answer"
timeout = 30

[target.body]
id = "case.id"
"""

CONTAINS = """
[[assertions]]
type = "contains"
needle = "yes"
"""

# The whole suite of the contains scenarios (bench/noisy/lucky.py uses it too).
SUITE = TARGET + CONTAINS

RUBRIC = """
[[assertions]]
name = "says_yes"
type = "llm_rubric"
rubric = "The answer says yes."
judge = "openai/bench-judge"
threshold = 0.5
tolerance = 0.1
"""


def rate(x, n):
    lo, hi = wilson(x, n)
    return {"rate": round(x / n, 4) if n else None, "low": round(lo, 4), "high": round(hi, 4),
            "count": x, "of": n}


def case_id(i):
    return f"case-{i:05d}"


class Judge:
    """An OpenAI-shaped loopback judge: each judging passes (score 1) with
    probability `rate`, else fails (score 0), from a seeded generator."""

    def __init__(self, rate, seed):
        self.rate, self.rng, self.lock, self.calls = rate, random.Random(seed), threading.Lock(), 0
        judge = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with judge.lock:
                    judge.calls += 1
                    passed = judge.rng.random() < judge.rate
                reply = json.dumps({"score": 1.0 if passed else 0.0,
                                    "reason": "passes" if passed else "fails"})
                body = json.dumps({
                    "id": "chatcmpl-bench", "object": "chat.completion", "model": "bench-judge",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 10},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


class Bench:
    def __init__(self, args, work, port, judge=None):
        self.args, self.work, self.judge = args, work, judge
        self.answers = work / "answers.json"
        self.measured_in = None
        self.env = dict(os.environ)
        suite = TARGET.format(port=port) + (RUBRIC if judge else CONTAINS)
        if judge:
            self.env.update(OPENAI_BASE_URL=f"http://127.0.0.1:{judge.port}/v1",
                            OPENAI_API_KEY="bench-key")
        (work / "suite.toml").write_text(suite)
        cases = [{"id": case_id(i), "vars": {}} for i in range(args.cases)]
        (work / "cases.json").write_text(json.dumps(cases))
        # A repository, so the gates of one head (its tree) carry their
        # evidence, sealed under one key as in CI (`DIGLINE_EVIDENCE_KEY`):
        # the judge memo and the rerun record are believed across processes.
        (work / ".gitignore").write_text(".digline/\nout/\nanswers.json\n")
        self.env.update(DIGLINE_EVIDENCE_KEY="noisy-benchmark-evidence-key",
                        GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@localhost",
                        GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@localhost")
        self.heads = 0
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-qm", "suite")

    def git(self, *args):
        subprocess.run(["git", *args], cwd=self.work, env=self.env, check=True,
                       capture_output=True)

    def new_head(self):
        """A new commit of the pull request (its own tree): its gates start
        a record of their own."""
        self.heads += 1
        (self.work / "head.txt").write_text(f"{self.heads}\n")
        self.git("add", "head.txt")
        self.git("commit", "-qm", f"head {self.heads}")

    def serve(self, rates, default, seed):
        """The stub's table: `rates` (index -> rate) listed, every other case
        at `default`; a new seed makes every draw fresh."""
        table = {"*": {"rate": default, "seed": seed}}
        for i, r in rates.items():
            table[case_id(i)] = {"rate": r, "seed": seed}
        self.answers.write_text(json.dumps(table))

    def digline(self, *args):
        return digline(list(args), self.work, self.env)

    def measure(self, rates, default, samples, rng, fresh=True):
        if fresh:
            shutil.rmtree(self.work / ".digline", ignore_errors=True)
        self.serve(rates, default, rng.getrandbits(63))
        started = time.time()
        ran = self.digline("run", "--suite", "suite.toml", "-q",
                           *(["--samples", str(samples)] if samples > 1 else []))
        self.measured_in = round(time.time() - started, 2)
        if ran.returncode != 0:
            raise SystemExit(f"the reference run failed ({ran.returncode}): {ran.stderr}")
        key = ran.stdout.strip().splitlines()[-1]
        promoted = self.digline("promote", "--suite", "suite.toml", "--run", key)
        if promoted.returncode != 0:
            raise SystemExit(f"promote failed: {promoted.stderr}")

    def gate(self, rates, default, rng, rerun=False):
        """One gate (of a new head unless `rerun`); its exit, the calls
        beyond one per case (target and judge) and the gate's output."""
        if not rerun:
            self.new_head()
        self.serve(rates, default, rng.getrandbits(63))
        shutil.rmtree(self.work / "out", ignore_errors=True)
        reasks = self.work / ".digline/bench/reasks"
        shutil.rmtree(reasks, ignore_errors=True)
        judged = self.judge.calls if self.judge else 0
        started = time.time()
        gate = self.digline("gate", "--suite", "suite.toml", "--out", "out")
        seconds = time.time() - started
        outcome = json.loads((self.work / "out/outcome.json").read_text()) \
            if (self.work / "out/outcome.json").exists() else {}
        spent = outcome.get("spent") or {}
        target_calls = (spent.get("target") or {}).get("calls")
        reasked = 0
        for record in reasks.glob("runs/*/*.json"):
            data = json.loads(record.read_text())
            reasked += sum(len(p["failed"]) for p in data["pairs"])
        if target_calls is not None:
            reasked = target_calls - self.args.cases  # every call is counted (issue 30)
        row = {"exit": gate.returncode, "reasks": reasked,
               "target_calls": target_calls, "seconds": round(seconds, 2),
               "reference_seconds": self.measured_in}
        if self.judge:
            row["judge_calls"] = self.judge.calls - judged
            row["judge_calls_recorded"] = (spent.get("judges") or {}).get("calls")
            row["memo"] = spent.get("memo")
        if gate.returncode not in (0, 1):
            row["stderr"] = gate.stderr[-400:]
        return row, gate


def digline(args, cwd, env=None):
    """Run the binary (DIGLINE, default target/release/digline) in `cwd`."""
    binary = os.environ.get("DIGLINE", str(REPO / "target/release/digline"))
    return subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True, env=env)


def start_stub(answers_file):
    """The stub (STUB, default the release example) serving `answers_file`,
    and the port it listens on."""
    stub = os.environ.get("STUB", str(REPO / "target/release/examples/quickstart-stub"))
    server = subprocess.Popen([stub, "--answers", str(answers_file), "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = server.stdout.readline()
    return server, int(line.rsplit(":", 1)[-1].split()[0].strip().rstrip("/"))


def run_trials(prefix, suite, ids, count, out, trial):
    """Start the stub in a fresh folder holding `suite` (its `{port}` filled)
    and the cases `ids`, then run `trial(work, answers_file)` `count` times,
    each row written to `out` as it comes. Returns the rows and the seconds."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = pathlib.Path(tmp)
        answers_file = work / "answers.json"
        answers_file.write_text("{}")
        server, port = start_stub(answers_file)
        try:
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


def reference_rates(rng, args):
    """A reference's borderline cases and their rates (index -> rate)."""
    if args.all_half:
        return {i: 0.5 for i in range(args.cases)}
    border = rng.sample(range(args.cases), int(round(args.cases * args.border)))
    return {i: rng.uniform(0.3, 0.9) for i in border}


def dropped(rng, args, border, count):
    steady = [i for i in range(args.cases) if i not in border]
    return {i: BROKEN for i in rng.sample(steady, count)}


def scenario_rows(bench, args, rng):
    """Yields (scenario, row), one row per gate."""
    s = args.scenario
    if s in DROPS:
        # Scenarios listed together share each fresh reference: one gate of
        # each per reference (each scenario's gates stay one per reference).
        for g in range(args.gates):
            border = reference_rates(rng, args)
            bench.measure(border, args.steady, args.samples, rng)
            for scenario in args.scenarios:
                now = {**border, **dropped(rng, args, border, DROPS[scenario])}
                row, _ = bench.gate(now, args.steady, rng)
                yield scenario, {"gate": g, "broken": DROPS[scenario], **row}
        return
    for row in other_rows(bench, args, rng):
        yield s, row


def other_rows(bench, args, rng):
    """The rows of the scenarios that are not fresh-reference drops."""
    s = args.scenario
    if s == "deterministic":
        for g in range(args.gates):
            samples = 1 if g % 2 == 0 else args.samples
            bench.measure({}, 1.0, samples, rng)
            broken = rng.randrange(args.cases)
            row, gate = bench.gate({broken: 0.0}, 1.0, rng)
            named = f"{case_id(broken)} · " in gate.stdout
            yield {"gate": g, "samples": samples, "named": named, **row}
    elif s == "perref":
        for r in range(args.refs):
            border = reference_rates(rng, args)
            bench.measure(border, args.steady, args.samples, rng)
            for g in range(args.gates):
                row, _ = bench.gate(border, args.steady, rng)
                yield {"ref": r, "gate": g, **row}
    elif s == "reruns":
        for h in range(args.gates):
            border = reference_rates(rng, args)
            bench.measure(border, args.steady, args.samples, rng)
            now = {**border, **dropped(rng, args, border, args.broken)}
            for attempt in range(1, args.reruns + 1):
                row, _ = bench.gate(now, args.steady, rng, rerun=attempt > 1)
                yield {"head": h, "attempt": attempt, "broken": args.broken, **row}
    elif s == "judge":
        for r in range(args.refs):
            bench.measure({}, 1.0, args.samples, rng)
            for g in range(args.gates):
                row, _ = bench.gate({}, 1.0, rng)
                yield {"ref": r, "gate": g, **row}


def summarize(args, scenario, rows):
    g = len(rows)
    worse = sum(r["exit"] == 1 for r in rows)
    extra = [r["reasks"] for r in rows]
    out = {"scenario": scenario, "cases": args.cases, "border": args.border,
           "all_half": args.all_half,
           "steady": args.steady, "samples": args.samples, "gates": g,
           "exit1": rate(worse, g), "exit_other": sum(r["exit"] not in (0, 1) for r in rows),
           "extra_calls_mean": round(sum(extra) / g, 3),
           "extra_calls_share": round(sum(extra) / g / args.cases, 5),
           "extra_calls_max": max(extra), "seconds": round(sum(r["seconds"] for r in rows), 1),
           "date": time.strftime("%Y-%m-%d", time.gmtime())}
    counted = [r for r in rows if r["target_calls"] is not None]
    if counted:
        out["target_calls_beyond_one_mean"] = round(
            sum(r["target_calls"] - args.cases for r in counted) / len(counted), 3)
    if args.scenario == "deterministic":
        for samples in sorted({r["samples"] for r in rows}):
            part = [r for r in rows if r["samples"] == samples]
            out[f"samples_{samples}"] = {
                "exit1_named": rate(sum(r["exit"] == 1 and r["named"] for r in part), len(part)),
                "extra_calls_max": max(r["reasks"] for r in part)}
    if args.scenario == "perref":
        per = []
        for ref in sorted({r["ref"] for r in rows}):
            part = [r for r in rows if r["ref"] == ref]
            per.append(round(sum(r["exit"] == 1 for r in part) / len(part), 4))
        out.update(refs=len(per), per_reference=sorted(per), max=max(per),
                   share_at_most_10pct=rate(sum(x <= 0.10 for x in per), len(per)))
    if args.scenario == "reruns":
        heads = {}
        for r in rows:
            heads.setdefault(r["head"], []).append(r["exit"] == 1)
        found = [h for h in heads.values() if h[0]]
        out.update(reruns=args.reruns, broken=args.broken, heads=len(heads),
                   some_exit1=rate(sum(any(h) for h in heads.values()), len(heads)),
                   found_first=len(found),
                   stayed_worse=rate(sum(all(h) for h in found), len(found)) if found else None)
    if args.scenario == "judge":
        out["judge_rate"] = args.judge_rate
        out["refs"] = args.refs
        out["judge_calls_beyond_reasks"] = sum(r["judge_calls"] - r["reasks"] for r in rows)
        out["gates_without_reasks_and_judge_calls"] = sum(
            1 for r in rows if r["reasks"] == 0 and r["judge_calls"] > 0)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", help="unchanged, drop5, drop15, drop50 (several, comma-separated, "
                    "share each fresh reference), deterministic, perref, reruns or judge")
    ap.add_argument("--cases", type=int, default=200, help="cases in the suite (200, 2000, 10000)")
    ap.add_argument("--border", type=float, default=0.05,
                    help="share of borderline cases, rates 0.3-0.9 (default 0.05)")
    ap.add_argument("--steady", type=float, default=1.0,
                    help="the other cases' pass rate (1.0 or 0.995; default 1.0)")
    ap.add_argument("--all-half", action="store_true",
                    help="every case at 0.5 instead (the stress case; unchanged, perref)")
    ap.add_argument("--samples", type=int, default=30, help="reference samples (default 30)")
    ap.add_argument("--gates", "--trials", type=int, default=100,
                    help="gates (perref, judge: per reference; reruns: heads)")
    ap.add_argument("--refs", type=int, default=20, help="references (perref, judge)")
    ap.add_argument("--reruns", type=int, default=5, help="gates per head (reruns)")
    ap.add_argument("--broken", type=int, default=0, help="steady cases dropped to 0.3 (reruns)")
    ap.add_argument("--judge-rate", type=float, default=0.8, help="the judge's pass rate (judge)")
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--out", default=str(REPO / "bench/results"), help="where the JSON lines go")
    args = ap.parse_args()
    args.scenarios = args.scenario.split(",")
    others = ["deterministic", "perref", "reruns", "judge"]
    if not all(s in DROPS for s in args.scenarios) and \
            (len(args.scenarios) > 1 or args.scenario not in others):
        ap.error(f"unknown scenario {args.scenario!r}: one of {', '.join([*DROPS, *others])}, "
                 "or several of the first four joined by commas")
    if args.scenarios[0] in DROPS:
        args.scenario = args.scenarios[0]
    rng = random.Random(f"{args.seed}-{','.join(args.scenarios)}-{args.cases}-{args.steady}")
    pathlib.Path(args.out).mkdir(parents=True, exist_ok=True)
    tail = ("-allhalf" if args.all_half else "") + \
        (f"-border{args.border}" if args.border != 0.05 else "") + \
        (f"-broken{args.broken}" if args.broken else "") + \
        (f"-samples{args.samples}" if args.samples != 30 else "")
    sinks = {s: (pathlib.Path(args.out) / f"noisy-{s}-{args.cases}-{args.steady}{tail}.jsonl")
             .open("w") for s in args.scenarios}
    judge = Judge(args.judge_rate, rng.getrandbits(63)) if args.scenario == "judge" else None
    rows = {s: [] for s in args.scenarios}
    with tempfile.TemporaryDirectory(prefix="digline-noisy-") as tmp:
        work = pathlib.Path(tmp)
        (work / "answers.json").write_text("{}")
        server, port = start_stub(work / "answers.json")
        try:
            bench = Bench(args, work, port, judge)
            for scenario, row in scenario_rows(bench, args, rng):
                row = {"scenario": scenario, "cases": args.cases, "steady": args.steady,
                       "samples": args.samples, **row}
                rows[scenario].append(row)
                sinks[scenario].write(json.dumps(row) + "\n")
                sinks[scenario].flush()
        finally:
            server.terminate()
            server.wait()
            if judge:
                judge.stop()
            for sink in sinks.values():
                sink.close()
    for scenario in args.scenarios:
        summary = summarize(args, scenario, rows[scenario])
        e = summary["exit1"]
        print(f"{scenario} at {args.cases} cases, steady {args.steady}, {args.samples}-sample "
              f"references: exit 1 in {e['count']} of {e['of']} gates = {e['rate']:.1%} "
              f"(95 % {e['low']:.1%}-{e['high']:.1%}); re-asks {summary['extra_calls_mean']} a "
              f"gate = {summary['extra_calls_share']:.2%} calls beyond one per case; "
              f"{summary['exit_other']} other exit(s)", file=sys.stderr)
        print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    sys.exit(main())
