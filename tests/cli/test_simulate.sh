#!/usr/bin/env bash
# respite simulate: a scenario's timeline with the gate's state, exit 0 when
# the results match the expectations, 1 when they do not, 2 for bad input.
source "$(dirname "$0")/lib.sh"
scenarios="$source_dir/conformance/scenarios"
own="$source_dir/tests/cli/scenarios"

run simulate "$own/trips.json"
expect_code 0 "a matching gate scenario"
expect_out "cli/trips" "the id"
expect_out "rules: G2, G3, G5" "the rules"
# the gate's state and pause after each step: window filling, then open
expect_out "closed (2 in window)" "the window fills"
grep -qE '^ok +3\.000 +check +open +59\.0s +allowed=false probe=false retry_after=59' "$out" ||
  fail "the refused check's line (time, step, gate, pause, result)"
expect_out "recovery resumes in 59.0s" "the refusal message"
grep -qE '^ok +62\.000 +check +probing' "$out" || fail "the probe at 62 is admitted in probing"
expect_out "7 steps, 4 checked: every result matches" "the summary"

run simulate "$own/mismatch.json"
expect_code 1 "a scenario whose expectation is wrong"
expect_out "MISMATCH" "the mark"
expect_out "/retry_after: expected 30, got 60" "the reason"

run simulate --json "$own/trips.json"
expect_code 0 "--json"
expect_out '{"id":"cli/trips","steps":[' "--json prints the runner's line"

# Every kind the brief names: back-off and delivery scenarios of the suite.
for scenario in "$scenarios"/backoff/seeds/polly-two-four-eight.json \
                "$scenarios"/delivery/astarte/*.json; do
  [ -e "$scenario" ] || continue
  run simulate "$scenario"
  expect_code 0 "$(basename "$scenario")"
  expect_out "every result matches" "$(basename "$scenario")"
done
ls "$scenarios"/delivery/astarte/*.json >/dev/null 2>&1 || fail "no delivery scenarios found under $scenarios"

# The whole suite: simulate reads scenarios as the C runner does, so every
# scenario the C runner passes must match here too (drift shows up here).
expected_failures="$source_dir/conformance/expected-failures/c.txt"
mismatched=""
while IFS= read -r scenario; do
  id="${scenario#"$scenarios"/}"
  id="${id%.json}"
  grep -qxF "$id" "$expected_failures" 2>/dev/null && continue
  "$respite" simulate "$scenario" >/dev/null 2>&1 || mismatched="$mismatched $id"
done < <(find "$scenarios" -name '*.json' | sort)
[ -z "$mismatched" ] || { code=1; fail "scenarios that do not match under simulate:$mismatched"; }

printf '{"id": "x", "component": "gate", "steps": [' >"$out.bad"
run simulate "$out.bad"
expect_code 2 "a file that is not JSON"
expect_err "respite simulate: $out.bad:1:" "says where"
rm -f "$out.bad"

run simulate "$own/no-such.json"
expect_code 2 "a missing file"

run simulate
expect_code 2 "no file"

finish
