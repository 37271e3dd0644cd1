#!/usr/bin/env python3
"""The GitLab CI template's shape, checked offline, and its job rendered.

    .ci/gitlab-template.py check FILE
    .ci/gitlab-template.py render FILE --input NAME=VALUE ...   (JSON on stdout)

GitLab's own linter needs a GitLab instance; this checks what can be
checked without one, from GitLab's documented rules for `spec:inputs`
(a header document, then `---`, then the configuration; input types
string/number/boolean/array; `default`, `options`, `regex`, `description`;
an input without `default` is required; `$[[ inputs.NAME ]]` only names
declared inputs) and for the keywords the job uses (`image:name` and
`entrypoint`, `rules:if`, `script` as strings, `artifacts` with `when`,
`paths`, `expose_as` — no CI variables or globs in its paths, a directory
ending in `/` — and `reports:junit`). Every failure is a sentence naming
the key; exit 1.
"""

import json
import re
import sys

import yaml

INTERP = re.compile(r"\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*\]\]")
TYPES = {"string": str, "number": (int, float), "boolean": bool, "array": list}
INPUT_KEYS = {"type", "default", "description", "options", "regex"}
JOB_KEYS = {
    "after_script", "allow_failure", "artifacts", "before_script", "cache", "coverage",
    "dependencies", "environment", "extends", "hooks", "id_tokens", "image", "inherit",
    "interruptible", "needs", "parallel", "release", "resource_group", "retry", "rules",
    "script", "secrets", "services", "stage", "tags", "timeout", "trigger", "variables", "when",
}
ARTIFACT_KEYS = {"paths", "exclude", "expire_in", "expose_as", "name", "public", "access",
                 "reports", "untracked", "when"}


def fail(msg):
    print(f"gitlab-template: {msg}", file=sys.stderr)
    sys.exit(1)


def load(path):
    with open(path) as f:
        docs = list(yaml.safe_load_all(f))
    if len(docs) != 2:
        fail(f"{path}: expected a spec header, `---`, then the configuration ({len(docs)} documents)")
    header, body = docs
    if not isinstance(header, dict) or set(header) != {"spec"} or set(header["spec"]) != {"inputs"}:
        fail(f"{path}: the header must hold only spec:inputs")
    return header["spec"]["inputs"], body


def check_inputs(path, inputs):
    for name, spec in inputs.items():
        where = f"{path}: spec:inputs:{name}"
        if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
            fail(f"{where}: not a valid input name")
        extra = set(spec) - INPUT_KEYS
        if extra:
            fail(f"{where}: unknown key {sorted(extra)[0]} (known: {sorted(INPUT_KEYS)})")
        kind = spec.get("type", "string")
        if kind not in TYPES:
            fail(f"{where}: type {kind!r} is not one of {sorted(TYPES)}")
        if "description" not in spec:
            fail(f"{where}: no description")
        if "default" in spec:
            default = spec["default"]
            ok = isinstance(default, TYPES[kind]) and not (kind == "number" and isinstance(default, bool))
            if not ok:
                fail(f"{where}: default {default!r} is not a {kind}")
            if "options" in spec and default not in spec["options"]:
                fail(f"{where}: default {default!r} is not among options {spec['options']}")
            if "regex" in spec and not re.search(spec["regex"], str(default)):
                fail(f"{where}: default {default!r} does not match regex {spec['regex']}")
        if ("options" in spec or "regex" in spec) and kind != "string":
            fail(f"{where}: options and regex apply to string inputs only")


def interpolate(value, given):
    if isinstance(value, dict):
        return {interpolate(k, given): interpolate(v, given) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, given) for v in value]
    if isinstance(value, str):
        whole = INTERP.fullmatch(value.strip())
        if whole:
            return given[whole.group(1)]
        # Inside a longer string a value is text (a boolean is true/false).
        return INTERP.sub(lambda m: json.dumps(given[m.group(1)]) if isinstance(given[m.group(1)], bool)
                          else str(given[m.group(1)]), value)
    return value


def used_names(value, found):
    if isinstance(value, dict):
        for k, v in value.items():
            used_names(k, found)
            used_names(v, found)
    elif isinstance(value, list):
        for v in value:
            used_names(v, found)
    elif isinstance(value, str):
        found.update(INTERP.findall(value))
    return found


def resolve(path, inputs, pairs):
    given = {}
    for pair in pairs:
        name, _, raw = pair.partition("=")
        if name not in inputs:
            fail(f"{path}: no input named {name}")
        kind = inputs[name].get("type", "string")
        value = {"number": lambda r: int(r) if r.isdigit() else float(r),
                 "boolean": lambda r: r == "true", "array": json.loads}.get(kind, str)(raw)
        given[name] = value
    for name, spec in inputs.items():
        if name not in given:
            if "default" not in spec:
                fail(f"{path}: the input {name} is required")
            given[name] = spec["default"]
        spec_opts = spec.get("options")
        if spec_opts and given[name] not in spec_opts:
            fail(f"{path}: input {name}={given[name]!r} is not among {spec_opts}")
        if "regex" in spec and not re.search(spec["regex"], str(given[name])):
            fail(f"{path}: input {name}={given[name]!r} does not match {spec['regex']}")
    return given


def check_job(path, name, job):
    where = f"{path}: {name}"
    if not isinstance(job, dict):
        fail(f"{where}: a job must be a mapping")
    extra = set(job) - JOB_KEYS
    if extra:
        fail(f"{where}: unknown keyword {sorted(extra)[0]}")
    image = job.get("image")
    if not isinstance(image, dict) or not isinstance(image.get("name"), str) or not image["name"]:
        fail(f"{where}: image:name must be a non-empty string")
    if "entrypoint" in image and (not isinstance(image["entrypoint"], list) or not image["entrypoint"]):
        fail(f"{where}: image:entrypoint must be a non-empty list")
    script = job.get("script")
    if not isinstance(script, list) or not script or not all(isinstance(s, str) for s in script):
        fail(f"{where}: script must be a non-empty list of strings")
    rules = job.get("rules", [])
    if not any(isinstance(r, dict) and r.get("if") == '$CI_PIPELINE_SOURCE == "merge_request_event"' for r in rules):
        fail(f"{where}: rules must run the job in merge-request pipelines")
    for k, v in job.get("variables", {}).items():
        if not isinstance(v, str):
            fail(f"{where}: variables:{k} must be a string, not {type(v).__name__}")
    art = job.get("artifacts")
    if not isinstance(art, dict):
        fail(f"{where}: no artifacts")
    extra = set(art) - ARTIFACT_KEYS
    if extra:
        fail(f"{where}: artifacts: unknown keyword {sorted(extra)[0]}")
    if art.get("when") not in ("on_success", "on_failure", "always"):
        fail(f"{where}: artifacts:when must be on_success, on_failure or always")
    paths = art.get("paths")
    if not isinstance(paths, list) or not paths:
        fail(f"{where}: artifacts:paths must be a non-empty list")
    junit = art.get("reports", {}).get("junit")
    if not isinstance(junit, str) or not junit.endswith(".xml"):
        fail(f"{where}: artifacts:reports:junit must name the JUnit file")
    expose = art.get("expose_as")
    if not isinstance(expose, str) or not re.fullmatch(r"[\w\- ]+", expose):
        fail(f"{where}: artifacts:expose_as must be letters, digits, '-', '_' and spaces")
    for p in paths:
        if "$" in p or any(c in p for c in "*?["):
            fail(f"{where}: artifacts:paths {p!r}: with expose_as, no CI variables or globs")
    if not any(junit.startswith(p) for p in paths if p.endswith("/")):
        fail(f"{where}: the JUnit report {junit} is not inside an artifacts path")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("check", "render"):
        fail("usage: gitlab-template.py check FILE | render FILE --input NAME=VALUE ...")
    mode, path = sys.argv[1], sys.argv[2]
    pairs = [a for i, a in enumerate(sys.argv[3:]) if sys.argv[3 + i - 1] == "--input"]
    inputs, body = load(path)
    check_inputs(path, inputs)
    used = used_names(body, set())
    for name in used - set(inputs):
        fail(f"{path}: $[[ inputs.{name} ]] names no declared input")
    for name in set(inputs) - used:
        fail(f"{path}: the input {name} is declared but never used")
    if mode == "check":
        required = [f"{n}=x/suite.toml" for n, s in inputs.items() if "default" not in s]
        pairs = required
    given = resolve(path, inputs, pairs)
    config = interpolate(body, given)
    if not isinstance(config, dict) or len(config) != 1:
        fail(f"{path}: the template must define exactly one job")
    (name, job), = config.items()
    check_job(path, name, job)
    if mode == "render":
        print(json.dumps(job, indent=2))
    else:
        print(f"gitlab-template: {path}: ok ({len(inputs)} typed inputs, job {name})")


if __name__ == "__main__":
    main()
