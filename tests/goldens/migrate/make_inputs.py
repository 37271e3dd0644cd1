"""Write before/.digline/: schema 3-11 documents of the suite `gate`, tenant `acme`."""
import copy, json, os, sys

HERE = sys.argv[1]
BASE = os.path.join(HERE, "before", ".digline", "acme")
RUNS = os.path.join(BASE, "runs", "gate")
os.makedirs(RUNS, exist_ok=True)
os.makedirs(os.path.join(BASE, "baselines"), exist_ok=True)
SOURCE = json.load(open(os.path.join(HERE, "source-schema-9.json"), encoding="utf-8"))


def dump(doc, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n")


def key(doc):
    import re
    return re.sub(r"[^0-9A-Za-z]+", "-", doc["created_at"]).strip("-") + "-" + doc["config_hash"]


baseline = copy.deepcopy(SOURCE)
baseline["created_at"] = "2026-09-10T15:45:42.579641+00:00"
dump(baseline, os.path.join(BASE, "baselines", "gate.json"))


def older(version, second):
    doc = copy.deepcopy(SOURCE)
    doc["created_at"] = f"2026-09-0{version % 10}T10:00:{second:02d}.000123+00:00"
    doc["schema_version"] = version
    if version <= 8:
        # 8: a sampled verdict records its scores in metadata, no interval yet.
        v = doc["results"][0]["verdicts"][0]
        v["metadata"] = {"agreement": 0.666667, "errored_samples": 0, "samples": 3,
                         "scores": [1.0, 0.0, 1.0], "spread": 1.0}
        v["score"] = 0.666667
        v["status"] = "fail"
        v["reason"] = "mean of 3 samples (1.000000, 0.000000, 1.000000)"
    if version <= 7:
        del doc["target_config"], doc["judge_config"]
    if version <= 6:
        del doc["artifacts"]
    if version <= 5:
        del doc["aggregate"]
    if version <= 4:
        for case in doc["results"]:
            del case["suspended"]
    if version <= 3:
        del doc["environment"]
    return doc


dump(copy.deepcopy(SOURCE), os.path.join(RUNS, key(SOURCE) + ".json"))
for n, version in enumerate([8, 7, 6, 5, 4, 3]):
    doc = older(version, n)
    dump(doc, os.path.join(RUNS, key(doc) + ".json"))
newer = copy.deepcopy(SOURCE)
newer["created_at"] = "2026-12-01T09:00:00.000001+00:00"
newer["schema_version"] = 11
newer["digline_version"] = "0.11.0"
newer["shiny_new_field"] = {}
dump(newer, os.path.join(RUNS, key(newer) + ".json"))
