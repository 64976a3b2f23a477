#!/usr/bin/env bash
# respite demo --time-scale 0.1: finishes in bounded time, exits 0, and its
# summary is present and consistent.
source "$(dirname "$0")/lib.sh"

start=$(date +%s)
"$respite" demo --time-scale 0.1 >"$out" 2>"$err" </dev/null &
pid=$!
# bounded: the demo takes about 5 s at this scale
for _ in $(seq 1 600); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  kill "$pid"
  fail "the demo did not finish within 60 s"
fi
wait "$pid"; code=$?
seconds=$(( $(date +%s) - start ))
expect_code 0 "the demo"
[ "$seconds" -le 30 ] || fail "the demo took ${seconds}s at time scale 0.1"

# the timeline: every phase, the gate's events with their levels
expect_out "time  endpoint  what happened" "the timeline's heading"
expect_out "now times out: requests hang" "the timeouts phase"
expect_out "now answers 503" "the 5xx phase"
expect_out "healthy again" "the recovery phase"
expect_out "warning   requests: recovery started: 4 failures within" "recovery started, as a warning"
expect_out "info      requests: recovered: the service answered" "recovered, as information"
grep -qE 'calls? refused, no request' "$out" || fail "no refused-calls row"

# the summary's figures agree
number() { grep -E "^ +$1 " "$out" | head -1 | awk '{print $NF}' | tr -d ','; }
field() { grep -E "^ +$1 " "$out" | head -1 | sed -E "s/^ +$1 +([0-9]+).*/\1/"; }
made=$(field "calls made")
refused=$(field "calls refused")
accepted=$(field "events accepted")
delivered=$(field "events delivered")
received=$(grep -E '^ +endpoint received ' "$out" | head -1 | sed -E 's/^ +endpoint received +([0-9]+).*/\1/')
[ -n "$refused" ] && [ "$refused" -gt 0 ] || fail "calls refused is '$refused', expected > 0"
[ -n "$made" ] && [ "$made" -gt 0 ] || fail "calls made is '$made'"
[ "$made" = "$received" ] || fail "calls made ($made) differs from the requests the endpoint received ($received)"
[ -n "$accepted" ] && [ "$accepted" -gt 0 ] || fail "events accepted is '$accepted'"
[ "$accepted" = "$delivered" ] || fail "accepted ($accepted) differs from delivered ($delivered)"
expect_out "dropped by reason    dropped_capacity 0, expired 0, retries_exhausted 0, discarded 0" "dropped by reason"
expect_out "without the gate     those $refused calls would have waited about" "the time saved"
expect_out "ok     accounting balanced" "the accounting check"
expect_no_out "FAILED" "every check passed"

run demo --time-scale 0
expect_code 2 "a time scale of 0"
expect_err "--time-scale must be a number from 0.01 to 10 (got 0)" "the message"

run demo --fast
expect_code 2 "an unknown option"
expect_err "unknown option --fast" "the message"

run demo --help
expect_code 0 "--help"
expect_out "usage: respite demo [--time-scale X]" "--help"

finish
