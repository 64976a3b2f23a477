#!/usr/bin/env bash
# respite gates: every gate of a shared gate file (written by make_gate_file)
# as a table and as JSON; files that are not gate files give the core's
# message and exit 2.
source "$(dirname "$0")/lib.sh"
maker="${RESPITE_MAKE_GATE_FILE:?RESPITE_MAKE_GATE_FILE names the make_gate_file helper}"
dir="$(mktemp -d)"
trap 'rm -f "$out" "$err"; rm -rf "$dir"' EXIT
file="$dir/gates"

"$maker" "$file" || fail "make_gate_file could not write $file"

# row NAME: the table row of gate NAME (its fields split by blanks).
row() {
  awk -v name="$1" '$1 == name' "$out"
}

run gates "$file"
expect_code 0 "a gate file"
expect_out "$file: 4 gates" "the gate count"
expect_out "NAME" "the heading"
read -r name state pause in_window generation outstanding admitted refused reported successes counted trips pauses probes timeouts <<<"$(row cloud)"
[ "$state" = open ] || fail "cloud: state '$state', expected open"
# 30s pause, read a moment after it started: 29.xs or 30.0s.
[[ "$pause" =~ ^(29\.[0-9]|30\.0)s$ ]] || fail "cloud: pause left '$pause', expected about 30s"
[ "$in_window $generation $outstanding" = "0 2 0" ] || fail "cloud: window/generation/outstanding '$in_window $generation $outstanding'"
[ "$admitted $refused $reported $successes $counted $trips $pauses $probes $timeouts" = "3 0 3 0 3 1 1 0 0" ] ||
  fail "cloud: counts '$admitted $refused $reported $successes $counted $trips $pauses $probes $timeouts', expected 3 0 3 0 3 1 1 0 0"
read -r name state pause in_window generation outstanding admitted refused reported successes counted trips pauses probes timeouts <<<"$(row billing)"
[ "$state $pause $in_window $generation $outstanding" = "closed - 1 1 0" ] ||
  fail "billing: '$state $pause $in_window $generation $outstanding', expected closed - 1 1 0"
[ "$admitted $refused $reported $successes $counted $trips $pauses" = "4 0 4 3 1 0 0" ] ||
  fail "billing: counts '$admitted $refused $reported $successes $counted $trips $pauses', expected 4 0 4 3 1 0 0"
row forever | grep -qE '^forever +open +until reset +0 +2 ' || fail "forever: open until a reset"
row search | grep -qE '^search +probing +- +0 +2 +0 ' || fail "search: probing (its pause ended), no probe out"

run gates --json "$file"
expect_code 0 "--json"
python3 - "$out" "$file" <<'PY' || fail "--json: the document above does not match"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["file"] == sys.argv[2], doc["file"]
gates = {g["name"]: g for g in doc["gates"]}
assert list(gates) == ["cloud", "billing", "forever", "search"], list(gates)
cloud = gates["cloud"]
assert cloud["state"] == "open" and 29 < cloud["pause_left"] <= 30, cloud
expected = dict(window_failures=0, generation=2, probes_outstanding=0, admitted=3, refused=0, reported=3,
                counted_failures=3, trips=1, probes=0, probe_timeouts=0, successes=0, pauses=1)
assert {k: cloud[k] for k in expected} == expected, cloud
billing = gates["billing"]
assert billing["state"] == "closed" and billing["pause_left"] == 0, billing
assert (billing["window_failures"], billing["admitted"], billing["counted_failures"]) == (1, 4, 1), billing
assert (billing["successes"], billing["pauses"]) == (3, 0), billing
assert gates["forever"]["state"] == "open" and gates["forever"]["pause_left"] is None, gates["forever"]
assert gates["search"]["state"] == "probing" and gates["search"]["pause_left"] == 0, gates["search"]
PY

# M8: the core's OpenMetrics text, one series per gate (tests/unit/test_metrics.c
# checks the text itself; bindings/python/tests/test_metrics.py parses it strictly).
run gates "$file" --prometheus
expect_code 0 "--prometheus"
expect_out 'respite_gate_state{gate="cloud",respite_gate_state="open"} 1' "--prometheus: cloud open"
expect_out 'respite_gate_state{gate="billing",respite_gate_state="closed"} 1' "--prometheus: billing closed"
expect_out 'respite_gate_admitted_total{gate="billing"} 4' "--prometheus: billing admitted"
expect_out 'respite_gate_counted_failures_total{gate="cloud"} 3' "--prometheus: cloud counted failures"
expect_out 'respite_gate_pause_left_seconds{gate="forever"} +Inf' "--prometheus: a pause until a reset"
expect_out 'respite_gate_state{gate="search",respite_gate_state="probing"} 1' "--prometheus: search probing"
# Read a few seconds after the file was made on a busy machine: 20-30s left.
grep -qE '^respite_gate_pause_left_seconds\{gate="cloud"\} (2[0-9](\.[0-9]+)?|30)$' "$out" ||
  fail "--prometheus: cloud's pause left, expected 20-30s"
[ "$(grep -c '^# TYPE ' "$out")" = 17 ] || fail "--prometheus: 17 gate families expected"
[ "$(tail -n 1 "$out")" = "# EOF" ] || fail "--prometheus: the text ends with # EOF"

run gates "$file" --prometheus --json
expect_code 2 "--prometheus with --json"
expect_err "--json and --prometheus: choose one" "--prometheus with --json"

run gates "$dir/no-such-file"
expect_code 2 "a missing file"
expect_err "respite gates: cannot open shared gate file $dir/no-such-file: No such file or directory" "a missing file"

printf 'hello, not a gate file\n' >"$dir/text"
run gates "$dir/text"
expect_code 2 "not a gate file"
expect_err "respite gates: shared gate file $dir/text is not a respite gate file" "not a gate file"

# The same file with layout version 3 (the 32-bit version follows the 8-byte magic).
cp "$file" "$dir/v3"
printf '\003\000\000\000' | dd of="$dir/v3" bs=1 seek=8 conv=notrunc status=none
run gates "$dir/v3"
expect_code 2 "another layout version"
expect_err "respite gates: shared gate file $dir/v3 has layout version 3; this library reads version 2" "version"

run gates
expect_code 2 "no file"
expect_err "usage: respite gates FILE" "no file"

run gates "$file" --frobnicate
expect_code 2 "an unknown option"
expect_err "unknown option --frobnicate" "an unknown option"

run gates "$file" "$file"
expect_code 2 "two files"
expect_err "one FILE only" "two files"

run gates --help
expect_code 0 "--help"
expect_out "usage: respite gates FILE [--fleet URL] [--json | --prometheus]" "--help"

finish
