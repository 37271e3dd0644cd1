#!/usr/bin/env bash
# Build the schema 3–11 inputs of this golden and record what digline 0.10.0's
# `migrate` makes of them (needs root and the oracle: ../../../../shared/oracle).
#   ./generate.sh [ORACLE]
# Inputs (before/): the schema-9 baseline and run the digline-action fixture
# committed (digline/digline-action test/fixtures/green @664c2f60), and from
# the run, one document per older schema with the keys that schema did not
# have yet taken out (ADR 0014, python-store.md §4), one sampled (schema 8:
# metadata.scores without the interval), one at 3 (not migratable) and one
# at 11 (newer). Outputs: after/ (the files as 0.10.0 leaves them), and
# migrate.stdout / migrate.stderr / migrate.exit, dry-run.* the same with --dry-run.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
ORACLE=${1:-$HERE/../../../../shared/oracle/oracle-digline}
python3 "$HERE/make_inputs.py" "$HERE"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for mode in dry-run migrate; do
  rm -rf "$W/s"; mkdir -p "$W/s"
  cp -r "$HERE/before/.digline" "$W/s/"; cp "$HERE/suite.toml" "$HERE/cases.json" "$W/s/"
  flag=""; [ "$mode" = dry-run ] && flag="--dry-run"
  set +e
  (cd "$W/s" && "$ORACLE" --v 0.10 migrate --suite suite.toml $flag >"$HERE/$mode.stdout" 2>"$HERE/$mode.stderr")
  echo $? >"$HERE/$mode.exit"
  set -e
done
rm -rf "$HERE/after"; mkdir -p "$HERE/after"
cp -r "$W/s/.digline" "$HERE/after/"
chmod -R u+rwX,go+rX "$HERE/after"
