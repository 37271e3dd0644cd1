#!/usr/bin/env python3
"""Shard runs at scale for the merge + gate benchmark (stdlib only).

  gen_shards.py plan CASES.json CONFIG_HASH
      print the plan digline computes for these cases and rules (docs/shards.md)
  gen_shards.py build DIR --template RUN.json --cases N --shards S
      DIR/cases.json with N cases; the baseline (every case passing, as in
      the template run) under DIR/.digline; S shard runs of those N cases
      under DIR/shards/shard-K/, each case's verdicts copied from the
      template run's first case. What `digline run --shard K/S` would store
      against the bench stub, without asking the stub N times.
"""
import argparse
import copy
import hashlib
import json
import os
import struct


def compact(value):
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def plan_hash(config_hash, cases):
    h = hashlib.sha256()

    def field(text):
        data = text if isinstance(text, bytes) else text.encode()
        h.update(struct.pack(">Q", len(data)))
        h.update(data)

    def optional(v):
        return "\0" if v is None else "=" + v

    field(b"digline shard plan 1")
    field(config_hash)
    for c in cases:
        field(c["id"])
        field(compact(c.get("vars", {})))
        field("\0" if c.get("expected") is None else compact(c["expected"]))
        field(compact(c.get("context", [])))
        field(compact(c.get("metadata", {})))
        field(optional(c.get("suspended")))
        field(optional(c.get("label")))
        field(optional(c.get("group")))
        field(b"canary" if c.get("canary") else b"-")
    return h.hexdigest()[:16]


def shard_of(case_id, total):
    return int.from_bytes(hashlib.sha256(case_id.encode()).digest()[:8], "big") % total + 1


def key_of(created_at, config_hash):
    out, gap = "", False
    for ch in created_at:
        if ch.isascii() and ch.isalnum():
            if gap and out:
                out += "-"
            gap = False
            out += ch
        else:
            gap = True
    return f"{out}-{config_hash}"


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        # A shell first, then one result at a time (a 1,000,000-case run
        # never exists as one string here either).
        results = doc.pop("results")
        shell = json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)
        head, tail = shell.rsplit("\n}", 1)
        f.write(head + ',\n  "results": [')
        for i, r in enumerate(results):
            f.write(("," if i else "") + "\n    " + json.dumps(r, indent=2, sort_keys=True, ensure_ascii=False).replace("\n", "\n    "))
        f.write("\n  ]\n}\n")
        doc["results"] = results


def build(a):
    with open(a.template) as f:
        template = json.load(f)
    one = template["results"][0]
    cases = [
        {"id": f"case-{i:07d}", "vars": {"question": f"Where is my order {1000 + i}?"}}
        for i in range(a.cases)
    ]
    with open(os.path.join(a.dir, "cases.json"), "w") as f:
        json.dump(cases, f)
    config_hash = template["config_hash"]
    plan = plan_hash(config_hash, cases)
    tenant, suite = template["tenant"], template["suite"]

    def results(ids):
        for cid in ids:
            r = copy.copy(one)
            r["case_id"] = cid
            yield r

    base = dict(template)
    base["results"] = list(results(c["id"] for c in cases))
    base["created_at"] = "2026-01-01T00:00:00.000001+00:00"
    base["promoted_at"] = "2026-01-01T00:00:00.000002+00:00"
    write(os.path.join(a.dir, ".digline", tenant, "baselines", f"{suite}.json"), base)
    del base
    by_shard = {k: [] for k in range(1, a.shards + 1)}
    for c in cases:
        by_shard[shard_of(c["id"], a.shards)].append(c["id"])
    for k, ids in by_shard.items():
        doc = dict(template)
        doc["results"] = list(results(ids))
        doc["created_at"] = f"2026-01-02T00:00:{k % 60:02d}.{k:06d}+00:00"
        doc["metadata"] = {"digline_shard": f"{k}/{a.shards} plan {plan}"}
        key = key_of(doc["created_at"], config_hash)
        write(os.path.join(a.dir, "shards", f"shard-{k}", f"{key}.json"), doc)
    print(plan)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    pl = sub.add_parser("plan")
    pl.add_argument("cases")
    pl.add_argument("config_hash")
    b = sub.add_parser("build")
    b.add_argument("dir")
    b.add_argument("--template", required=True)
    b.add_argument("--cases", type=int, required=True)
    b.add_argument("--shards", type=int, required=True)
    a = p.parse_args()
    if a.cmd == "plan":
        with open(a.cases) as f:
            print(plan_hash(a.config_hash, json.load(f)))
    else:
        build(a)


if __name__ == "__main__":
    main()
