"""Write cases.json: tricky inputs for the first six checks, judged by digline 0.10.0.

Run from a scratch directory with the oracle's Python:
    oracle-digline --v 0.10 --exec python generate.py > cases.json
Each case builds the 0.10.0 check class directly from `check` and calls it on
`inputs`; `verdict` is what it returned (status, score, reason, metadata).
"""
import json
import digline.core.assertions as a

CLASSES = {
    "contains": a.Contains, "not_contains": a.NotContains, "regex": a.Regex,
    "length": a.Length, "cost_budget": a.CostBudget, "latency_budget": a.LatencyBudget,
}

def case(label, check, output="", **measures):
    return {"label": label, "check": check, "inputs": dict(output=output, **measures)}

C = []
for needle in ["it's", 'say "hi"', "both ' and \"", "a\nb", "tab\there", "😀", "\x00\x1f\x7f",
               "\x85\xa0\u2028", "back\\slash", "ß", "\u200b"]:
    C.append(case(f"needle {needle!r} absent", {"type": "contains", "needle": needle}, "zzz"))
    C.append(case(f"needle {needle!r} present", {"type": "not_contains", "needle": needle}, f"x{needle}y"))
for needle, output in [("STRASSE", "Die Straße"), ("straße", "STRASSE"), ("ﬁle", "FILE"), ("É", "e\u0301"),
                       ("İ", "i\u0307"), ("ς", "ΣΑΣ"), ("Grüße", "GRÜSSE"), ("ǅ", "ǆ")]:
    for cs in [False, True]:
        C.append(case(f"{needle} in {output} cs={cs}", {"type": "contains", "needle": needle, "case_sensitive": cs}, output))
        C.append(case(f"{needle} not in {output} cs={cs}", {"type": "not_contains", "needle": needle, "case_sensitive": cs}, output))
for out in [{"a": 1}, [], [{"role": "user", "content": "x"}]]:
    C.append(case(f"contains on {type(out).__name__}", {"type": "contains", "needle": "x"}, out))
    C.append(case(f"regex on {type(out).__name__}", {"type": "regex", "pattern": "x"}, out))
    C.append(case(f"length on {type(out).__name__}", {"type": "length", "maximum": 3}, out))
C.append(case("contains, accepts conversation+text, on structured",
              {"type": "contains", "needle": "x", "accepts": ["text", "conversation"]}, {"a": 1}))
C.append(case("named contains on structured", {"type": "contains", "needle": "x", "name": "my check"}, {"a": 1}))
for out in [5, 1.5, True, None, [1, 2]]:
    C.append(case(f"contains on {out!r}", {"type": "contains", "needle": "x"}, out))
for pattern, output in [(r"\d{3}", "Bestellung 482"), (r"\d{3}", "٣٤٥"), (r"end$", "the end\n"), (r"end$", "the end\n\n"),
                        (r"end\Z", "the end\n"), (r"^\w+$", "café"), (r"^\w$", "²"), (r"^\w$", "\u0301"),
                        (r"a\sb", "a\x1fb"), (r"(?P<x>ab)(?P=x)", "abab"), (r"(\w)\1", "xy"),
                        (r"foo(?=bar)", "foobar"), (r"foo(?!bar)", "foobar"), (r"(?<=\$)\d+", "cost $12"),
                        (r"(?i)straße", "STRAßE"), (r"x{,2}y", "xxy"), (r"a{}", "a{}"), (r"[[]", "["),
                        (r"it's /odd/", "it's /odd/"), ("(?x) a b # note", "ab"), (r"(?m)^b$", "a\nb\nc")]:
    C.append(case(f"regex {pattern!r} on {output!r}", {"type": "regex", "pattern": pattern}, output))
for bounds in [{"minimum": 2}, {"maximum": 4}, {"minimum": 2, "maximum": 4}, {"minimum": 2.0, "maximum": 4.5}, {"minimum": 0}]:
    for unit in ["characters", "words"]:
        for out in ["", "one", "a\x1cb\x1dc\x1ed\x1ff", "Grüße\x1ftab\tend 😀", "\x85\xa0\u2028\u3000 x", "é😀e\u0301 z\u200bw", "one two three four five"]:
            C.append(case(f"length {bounds} {unit} {out!r}", dict(type="length", unit=unit, **bounds), out))
for cap, cost, extra in [(2, 0.1, {}), (2, 2.0, {}), (2, 3.0, {}), (2, 3.0, {"threshold": 0.3}), (2, 2.0, {"threshold": 0.9}),
                         (0.3, 0.1 + 0.2, {}), (0.3, 0.30000000000000004, {}), (1, 0.0, {}), (1.0, 0.5, {}), (1, None, {}), (1, -0.1, {}),
                         (0.01, 0.0078125, {}), (1, 1.0000004, {}), (1, 1.000001, {}), (1, 0.9999996, {}), (1e-07, 1e-07, {}),
                         (0.002, 0.0015, {}), (0.01, 0.001, {"threshold": 1.0}), (1, 1e-05, {})]:
    C.append(case(f"cost {cost!r} against {cap!r} {extra}", dict(type="cost_budget", max_usd=cap, tolerance=0.1, **extra), "x", cost_usd=cost))
for cap, ms, extra in [(800, 5.0, {}), (800, 0.0, {}), (800.0, 800.0, {}), (800, None, {}), (800, -1.0, {}), (0.5, 0.0005, {}),
                       (1, 0.0015, {}), (100, 250.0, {}), (100, 100.0000004, {"threshold": 0.75})]:
    C.append(case(f"latency {ms!r} against {cap!r} {extra}", dict(type="latency_budget", max_ms=cap, tolerance=0.05, **extra), {"structured": True}, latency_ms=ms))

for c in C:
    params = {k: v for k, v in c["check"].items() if k != "type"}
    if "accepts" in params:
        params["accepts"] = frozenset(params["accepts"])
    check = CLASSES[c["check"]["type"]](**params)
    inputs = dict(c["inputs"])
    if isinstance(inputs["output"], list) and all(isinstance(m, dict) for m in inputs["output"]):
        inputs["output"] = [a.Message(**m) for m in inputs["output"]]  # what a target hands over
    v = check(a.EvaluatorInputs(metadata={}, **inputs))
    c["verdict"] = {"assertion": v.score.name, "status": v.status, "score": v.score.score,
                    "reason": v.reason, "metadata": dict(v.score.metadata),
                    "threshold": v.threshold, "tolerance": v.tolerance}
print("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False, sort_keys=True) for c in C) + "\n]")
