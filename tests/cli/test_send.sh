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
[ "$(server_says "s['requests']")" = 1 ] || fail "nothing is sent while paused"
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

finish
