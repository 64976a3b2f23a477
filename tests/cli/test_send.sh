#!/usr/bin/env bash
# respite send: events from standard input delivered by a sender to the
# standalone fault server (respite-fault-server, passed as the third
# argument), the accounting printed, exit codes 0 / 1 / 2.
source "$(dirname "$0")/lib.sh"
fault_server="${3:?the fault server program (respite-fault-server) is the third argument}"
portfile="$(mktemp)"
server_pid=""
trap 'rm -f "$out" "$err" "$portfile"; [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null' EXIT

start_server() {
  : >"$portfile"
  "$fault_server" --script "$1" >"$portfile" &
  server_pid=$!
  for _ in $(seq 1 100); do
    [ -s "$portfile" ] && break
    sleep 0.05
  done
  port="$(head -1 "$portfile")"
  [ -n "$port" ] || { echo "FAIL: the fault server did not start"; exit 1; }
  url="http://127.0.0.1:$port/ingest"
}

stop_server() {
  kill "$server_pid"
  wait "$server_pid" 2>/dev/null
  server_pid=""
}

# server_says EXPRESSION: a Python expression over the server's statistics
# document `s` (tools/fault_server/README.md); prints its value.
server_says() {
  python3 -c "import json, urllib.request
s = json.load(urllib.request.urlopen('http://127.0.0.1:$port/__control/stats'))
print($1)"
}

# send INPUT ARGS...: runs respite send with INPUT on standard input.
send() {
  local input="$1"
  shift
  printf "$input" | "$respite" send "$@" >"$out" 2>"$err"
  code=$?
}

# ------------------------------------------------ delivered, exit 0
start_server "healthy"
send 'e1\ne2\n\ne3\n' --url "$url" --min-entries-per-message 2 --max-entries-per-message 2
expect_code 0 "every event delivered"
expect_out "events read          3 (1 empty line skipped)" "lines read"
expect_out "accepted             3" "accepted"
expect_out "delivered            3" "delivered"
expect_out "discarded            0" "discarded"
expect_out "accounting           balanced" "D9"
expect_out "result               every event was delivered" "the result"
[ "$(server_says "s['requests']")" = 2 ] || fail "two batches of at most 2 reached the endpoint"
[ "$(server_says "'|'.join(r['body'] for r in s['received'])")" = "e1
e2|e3" ] || fail "the endpoint received e1, e2 and e3 in order, newline-separated"
stop_server

# ------------------------------------------------ gzip and a retry policy
start_server "503; healthy"
send 'a\nb\n' --url "$url" --policy "$source_dir/tests/cli/policies/valid.json" --gzip --min-entries-per-message 1
expect_code 0 "a 503 retried by the policy, then delivered"
expect_out "delivered            2" "delivered after a retry"
expect_err "warning: send failed: HTTP 503" "the failed send is reported as a warning"
[ "$(server_says "all(r['gzip'] for r in s['received'])")" = True ] || fail "--gzip sends gzip bodies"
[ "$(server_says "s['statuses'].get('503')")" = 1 ] || fail "one 503 answered"
stop_server

# ------------------------------------------------ paused at close: exit 1
start_server "503"
send 'x1\nx2\nx3\n' --url "$url" --min-entries-per-message 1 --max-entries-per-message 1 \
  --failures-to-enter-recovery 1 --recovery-seconds 30
expect_code 1 "the gate paused sending"
expect_out "discarded            1" "@default discards the failed event"
expect_out "pending              2 (not sent at close: 2)" "the rest stays unsent"
expect_out "accounting           balanced" "D9 still holds"
expect_out "result               some events were NOT delivered" "the result"
expect_err "warning: recovery started: 1 failure within 100s; requests paused for 30s" "the pause, as a warning"
expect_err "warning: closed with 2 events not sent" "unsent at close"
expect_err "note: the default policy @default discarded 1 event (it discards on any error); to retry failed events, give --policy FILE" \
  "@default's discards are pointed out, with how to retry"
[ "$(server_says "s['requests']")" = 1 ] || fail "nothing is sent while paused"
stop_server

# --------------------------------- --wait: a pause is waited out, not given up
# The endpoint answers 503 for 2 s, then 200: the gate pauses after the
# first failure (1 s, then 2 s after the failed probe); the retry policy
# makes --wait the default, so all 20 events are delivered. --no-wait
# closes at once with the events unsent (what send did before --wait).
healthy_in() { # healthy_in SECONDS: the fault server turns healthy then
  (sleep "$1"; python3 -c "import urllib.request
urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:$port/__control/script', data=b'healthy'))") &
}
retrying=(--policy "$source_dir/tests/cli/policies/valid.json" --min-entries-per-message 1
  --max-entries-per-message 5 --failures-to-enter-recovery 1 --recovery-seconds 1)
events20="$(seq 1 20 | tr '\n' ' ' | sed 's/ /\\n/g')"

start_server "503"
healthy_in 2
started=$(date +%s%N)
send "$events20" --url "$url" "${retrying[@]}"
took=$(( ($(date +%s%N) - started) / 1000000 ))
expect_code 0 "a retry policy waits out the pauses by default"
expect_out "delivered            20" "all 20 delivered after the outage"
expect_out "pending              0 (not sent at close: 0)" "nothing left at close"
expect_no_out "paused at close" "the gate is not paused at close"
expect_err "info: recovered: the service answered; requests resume" "the gate recovered before close"
expect_no_out "closed with" "no events unsent"
[ "$took" -ge 1500 ] && [ "$took" -lt 5000 ] || fail "--wait took ${took} ms, expected the outage's 2 s and less than close_timeout_seconds (5 s)"
[ "$(server_says "s['statuses'].get('200', 0) > 0 and sum(r['body'].count('\\n') + 1 for r in s['received'] if r['status'] == 200)")" = 20 ] ||
  fail "the endpoint answered 200 to requests holding the 20 events"
[ -z "$(grep '^respite send: ' "$err")" ] || fail "no progress lines when stderr is not a terminal"
stop_server

start_server "503"
send "$events20" --url "$url" "${retrying[@]}" --no-wait
expect_code 1 "--no-wait closes while paused"
expect_out "delivered            0" "nothing delivered"
expect_out "(not sent at close: 20)" "the events are left unsent"
expect_err "warning: closed with 20 events not sent" "unsent at close"
stop_server

# close_timeout_seconds bounds the wait: a pause longer than it is not waited out
start_server "503"
started=$(date +%s%N)
send "$events20" --url "$url" "${retrying[@]}" --recovery-seconds 30 --close-timeout-seconds 1
took=$(( ($(date +%s%N) - started) / 1000000 ))
expect_code 1 "a pause longer than close_timeout_seconds"
expect_out "(not sent at close: 20)" "the events are left unsent"
[ "$took" -ge 900 ] && [ "$took" -lt 3000 ] || fail "--wait took ${took} ms, expected close_timeout_seconds (1 s)"
stop_server

# --wait with @default: the failed batch is discarded, nothing is left to wait for
start_server "503"
send "$events20" --url "$url" --min-entries-per-message 20 --failures-to-enter-recovery 1 --recovery-seconds 2 --wait
expect_code 1 "@default with --wait"
expect_out "discarded            20" "@default discarded the failed batch"
expect_err "note: the default policy @default discarded 20 events" "the note"
stop_server

# ----------------- progress on a terminal: at least once a second, --quiet
# in_pty ARGS...: runs respite send with stderr on a pseudo-terminal (the
# events on stdin, stdout in $out); what the terminal showed goes to $err.
in_pty() {
  python3 - "$respite" "$out" "$err" "$@" <<'PY'
import os, pty, subprocess, sys
respite, out, err, *args = sys.argv[1:]
master, slave = pty.openpty()
with open(out, "w") as o:
    proc = subprocess.Popen([respite, "send", *args], stdin=subprocess.PIPE, stdout=o, stderr=slave)
os.close(slave)
proc.stdin.write("".join(f"{i}\n" for i in range(1, 21)).encode())
proc.stdin.close()
shown = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:  # EIO: the child closed the terminal
        break
    if not chunk:
        break
    shown += chunk
code = proc.wait()
open(err, "wb").write(shown.replace(b"\r\n", b"\n"))
sys.exit(code)
PY
  code=$?
}

start_server "503"
healthy_in 2
in_pty --url "$url" "${retrying[@]}"
expect_code 0 "on a terminal"
lines=$(grep -c '^respite send: ' "$err")
[ "$lines" -ge 2 ] || fail "progress lines on a terminal: $lines, expected one a second during the 2 s outage"
grep -qE '^respite send: [0-9.]+s: draining \(waiting out pauses\); accepted 20, delivered 0, pending 20, in flight 0; gate (open, [0-9.]+m?s left|probing)$' "$err" ||
  fail "a progress line gives the events accepted, delivered and pending and the gate's state"
stop_server

start_server "503"
healthy_in 2
in_pty --url "$url" "${retrying[@]}" --quiet
expect_code 0 "--quiet on a terminal"
[ -z "$(grep '^respite send: ' "$err")" ] || fail "--quiet: no progress lines"
expect_err "info: recovered" "--quiet keeps the gate's events"
stop_server

# ------------------------------------------------ capacity: drop_newest refuses
start_server "healthy"
printf '{"name": "tiny", "maximum_capacity": 2, "error_handlers": [{"on": "any_error", "strategy": "discard"}]}' \
  >"$portfile.policy"
send 'a\nb\nc\nd\n' --url "$url" --policy "$portfile.policy" --overflow drop_newest --min-entries-per-message 50
expect_code 1 "events refused by capacity"
expect_out "refused_full         2" "two refused"
expect_err "warning: 2 events refused: the queue is full" "the refusals, as a warning"
rm -f "$portfile.policy"
stop_server

# ------------------------------------------------ usage errors: exit 2, the core's messages
send 'e\n' --url http://127.0.0.1:1/ --failures-to-enter-recovery 0
expect_code 2 "an out-of-range setting"
expect_err "respite send: failures_to_enter_recovery must be an integer from 1 to 1000 (got 0)" "the core's message"

send 'e\n' --url http://127.0.0.1:1/ --overflow sideways
expect_code 2 "a bad choice"
expect_err "respite send: overflow must be one of drop_oldest, drop_newest (got" "the core's message"

send 'e\n' --url http://127.0.0.1:1/ --colour blue
expect_code 2 "an unknown option"
expect_err "unknown option --colour" "an unknown option"

send 'e\n' --min-entries-per-message 1
expect_code 2 "no --url"
expect_err "--url is required" "no --url"

send 'e\n' --url http://127.0.0.1:1/ --timeout-seconds
expect_code 2 "a missing value"
expect_err "option --timeout-seconds needs a value" "a missing value"

send 'e\n' --url http://127.0.0.1:1/ --policy "$source_dir/tests/cli/policies/invalid.json"
expect_code 2 "an invalid policy"
expect_err "invalid.json: /maximum_capacity: must be an integer from 1 to 1000000 (got 0)" "its problems"

send 'e\n' --url http://127.0.0.1:1/ --policy "$source_dir/tests/cli/policies/none.json"
expect_code 2 "an unreadable policy"
expect_err "cannot read the policy" "an unreadable policy"

# ------------------------- a shared gate named with --gate-name (H3)
shared="$(mktemp -u /tmp/respite-send-shared-XXXXXX)"
start_server "healthy"
send 'e1\n' --url "$url" --shared-path "$shared" --gate-name billing --name sender-1
expect_code 0 "a sender on a shared gate"
run gates "$shared"
expect_code 0 "respite gates reads the sender's shared gate file"
expect_out "billing" "the gate's slot is named by --gate-name, not by the sender's --name"
expect_no_out "sender-1" "the sender's name is not a gate"
send 'e1\n' --url "$url" --shared-path "$shared"
expect_code 2 "a shared gate without --gate-name"
expect_err "name must not be empty when shared_path is set" "the core's H3 message"
rm -f "$shared"
stop_server

run send --help
expect_code 0 "--help"
expect_out "--failures-to-enter-recovery N" "--help lists gate settings"
expect_out "an integer from 1 to 1000; default 10" "with bounds and the profile's defaults"
expect_out "--min-entries-per-message N" "--help lists sender settings"
expect_out "--overflow WORD" "--help lists queue settings"
expect_out "--gate-name NAME" "--help lists the gate's name"
expect_out "--recovery-multiplier FACTOR" "a multiplier is a factor"
expect_out "--jitter FRACTION" "the gate's jitter is a fraction"
expect_out "--close-timeout-seconds SECONDS" "seconds are seconds"
expect_no_out "multiplier SECONDS" "no multiplier in seconds"
expect_no_out "--jitter SECONDS" "no jitter in seconds"
expect_out "--wait " "--help shows --wait"
expect_out "--no-wait " "--help shows --no-wait"
expect_out "--quiet " "--help shows --quiet"

finish
