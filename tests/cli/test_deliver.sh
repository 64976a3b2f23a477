#!/usr/bin/env bash
# respite deliver: a worker over a durable queue file fed by
# `respite send --queue FILE`, against the standalone fault server (the
# third argument): --until-empty, SIGTERM with a drain, what stays in the
# file, --stats, the ids header, usage errors. (Crashes and several
# producers: test_deliver_crash.py, test_deliver_producers.py.)
source "$(dirname "$0")/lib.sh"
fault_server="${3:?the fault server program (respite-fault-server) is the third argument}"
tmp="$(mktemp -d)"
server_pid=""
worker_pid=""
trap 'rm -rf "$out" "$err" "$tmp"; [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null;
      [ -n "$worker_pid" ] && kill -9 "$worker_pid" 2>/dev/null' EXIT

start_server() {
  : >"$tmp/port"
  "$fault_server" --script "$1" >"$tmp/port" &
  server_pid=$!
  for _ in $(seq 1 100); do
    [ -s "$tmp/port" ] && break
    sleep 0.05
  done
  port="$(head -1 "$tmp/port")"
  [ -n "$port" ] || { echo "FAIL: the fault server did not start"; exit 1; }
  url="http://127.0.0.1:$port/ingest"
}

stop_server() {
  kill "$server_pid"
  wait "$server_pid" 2>/dev/null
  server_pid=""
}

server_says() {
  python3 -c "import json, urllib.request
s = json.load(urllib.request.urlopen('http://127.0.0.1:$port/__control/stats'))
print($1)"
}

# enqueue QUEUE INPUT: respite send --queue QUEUE with INPUT on stdin.
enqueue() {
  printf "$2" | "$respite" send --queue "$1" >"$out" 2>"$err"
  code=$?
}

retry_policy="$tmp/retry.json"
printf '{"name": "retry", "maximum_capacity": 100, "retry_times": 100, "error_handlers": [{"on": "any_error", "strategy": "retry"}]}' >"$retry_policy"

# ------------------------------------------------ enqueue without a sender
enqueue "$tmp/q1.db" 'e1\ne2\n\ne3\n'
expect_code 0 "send --queue alone enqueues"
expect_out "events read          3 (1 empty line skipped)" "lines read"
expect_out "enqueued             3 into $tmp/q1.db" "enqueued into the file"
expect_out "pending              3" "the file's accounting"
expect_out "accounting           balanced" "D9"
[ -s "$tmp/q1.db" ] || fail "the queue file exists"

run deliver --queue "$tmp/q1.db" --stats
expect_code 0 "--stats"
expect_out "queue                $tmp/q1.db" "--stats names the file"
expect_out "accepted             3" "--stats reads the file's figures"
expect_out "pending              3" "--stats pending"

# ------------------------------------------------ --until-empty, the ids header
start_server "healthy"
run deliver --queue "$tmp/q1.db" --url "$url" --until-empty --ids-header X-Event-Ids --max-entries-per-message 2
expect_code 0 "--until-empty delivers and exits 0"
# (the sender may have taken a batch already: pending + in flight = 3)
grep -qE "^respite deliver: $tmp/q1.db: [0-3] pending, [0-3] in flight, 3 accepted so far, accounting balanced; sending to $url\$" "$err" ||
  fail "the opening line"
expect_err "respite deliver: stopping (the queue is empty)" "why it stopped"
expect_err "delivered 3 in this run; 0 left in $tmp/q1.db" "the run's summary"
expect_err "delivered            3" "the accounting on stderr"
expect_err "accounting           balanced" "D9 on stderr"
[ ! -s "$out" ] || fail "a worker writes nothing on stdout"
[ "$(server_says "'|'.join(r['body'] for r in s['received'])")" = "e1
e2|e3" ] || fail "min 1, max 2 per batch: e1 and e2, then e3, in order"
[ "$(server_says "'|'.join(r['headers'].get('X-Event-Ids', '-') for r in s['received'])")" = "1,2|3" ] ||
  fail "the ids header carries each batch's ids"

run deliver --queue "$tmp/q1.db" --stats
expect_code 0 "--stats after delivery"
expect_out "delivered            3" "the file remembers what was delivered"
expect_out "pending              0" "nothing pending"

# ------------------------------------------------ a worker picks up what other processes enqueue; SIGTERM
"$respite" deliver --queue "$tmp/q1.db" --url "$url" --progress-seconds 0.3 >"$out" 2>"$err" &
worker_pid=$!
enqueue "$tmp/q1.db" 'late1\nlate2\n'
for _ in $(seq 1 100); do
  [ "$(server_says "s['requests']")" -ge 3 ] 2>/dev/null && break
  sleep 0.05
done
progress_line='^respite deliver: [0-9.]+s: delivered 5 \(\+2 in [0-9.]+s\), pending 0, in flight 0; requests [0-9]+ \(0 failed\); gate closed$'
for _ in $(seq 1 200); do # a progress line is due within 0.3 s of the delivery: waited for, not assumed
  grep -qE "$progress_line" "$err" && break
  sleep 0.05
done
kill -TERM "$worker_pid"
wait "$worker_pid"
code=$?
worker_pid=""
expect_code 0 "SIGTERM: exit 0"
expect_err "stopping (SIGTERM); draining for up to 5.00s" "SIGTERM drains"
expect_err "delivered 2 in this run" "it sent what another process enqueued"
expect_err "respite deliver: " "progress lines"
grep -qE "$progress_line" "$err" || fail "a progress line with the figures"
[ "$(grep -c 's: delivered' "$err")" -le 3 ] || fail "progress lines only when something changed"

# send --queue with --url: a sender over the file, judged by this run's events
printf 's1\ns2\n' | "$respite" send --queue "$tmp/q1.db" --url "$url" >"$out" 2>"$err"
code=$?
expect_code 0 "send --queue --url delivers through the file"
expect_out "accepted             7" "the file's figures (5 earlier, 2 now)"
expect_out "result               every event was delivered" "judged by this run"
stop_server

# ------------------------------------------------ the file locked longer than SQLite's busy timeout (5 s)
start_server "healthy"
enqueue "$tmp/q4.db" 'before\n'
"$respite" deliver --queue "$tmp/q4.db" --url "$url" --progress-seconds 0 >"$out" 2>"$err" &
worker_pid=$!
python3 -c "import sqlite3, time
db = sqlite3.connect('$tmp/q4.db', isolation_level=None)
db.execute('BEGIN IMMEDIATE'); time.sleep(6); db.execute('COMMIT')"
enqueue "$tmp/q4.db" 'after\n'
for _ in $(seq 1 100); do
  [ "$(server_says "s['requests']")" -ge 2 ] 2>/dev/null && break
  sleep 0.05
done
kill -TERM "$worker_pid"
wait "$worker_pid"
code=$?
worker_pid=""
expect_code 0 "a worker outlives a lock held past the busy timeout"
expect_err "delivered 2 in this run" "it still sends what comes after the lock"
stop_server

# ------------------------------------------------ SIGTERM while the receiver is down: the rest stays in the file
start_server "down"
enqueue "$tmp/q2.db" 'x1\nx2\nx3\n'
"$respite" deliver --queue "$tmp/q2.db" --url "$url" --policy "$retry_policy" --close-timeout-seconds 0.5 \
  --failures-to-enter-recovery 2 --recovery-seconds 30 >"$out" 2>"$err" &
worker_pid=$!
for _ in $(seq 1 100); do
  grep -q "recovery started" "$err" && break
  sleep 0.05
done
started=$(date +%s.%N)
kill -INT "$worker_pid"
wait "$worker_pid"
code=$?
worker_pid=""
expect_code 0 "SIGINT while paused: exit 0"
python3 -c "import sys; sys.exit(0 if $(date +%s.%N) - $started < 3 else 1)" || fail "a paused worker stops at once"
expect_err "stopping (SIGINT)" "SIGINT"
expect_err "warning: recovery started: 2 failures within 100s; requests paused for 30s" "the gate's warning"
expect_err "3 left in $tmp/q2.db for the next run" "what stays in the file"
expect_err "accounting           balanced" "D9"
run deliver --queue "$tmp/q2.db" --stats --policy "$retry_policy"
expect_code 0 "--stats"
expect_out "pending              3" "the events wait in the file"
expect_out "delivered            0" "none delivered"
stop_server

# ------------------------------------------------ a corrupt file is set aside, never a crash loop
head -c 8192 /dev/urandom >"$tmp/q5.db"
run deliver --queue "$tmp/q5.db" --url http://127.0.0.1:1/ --until-empty
expect_code 0 "a corrupt file: the worker starts on a new one"
expect_err "warning: $tmp/q5.db was corrupt: set aside as $tmp/q5.db.corrupt-<time> with an unknown number of events; a new queue started" "the warning"
expect_err "corrupt_set_aside    1 (the file was corrupt: set aside, events lost unknown)" "the accounting says so"
ls "$tmp"/q5.db.corrupt-* >/dev/null 2>&1 || fail "the corrupt file was kept aside"
run deliver --queue "$tmp/q5.db" --stats
expect_code 0 "the new file opens cleanly"
expect_no_out "corrupt_set_aside" "only the opener that found it says so"

# ------------------------------------------------ usage errors: exit 2
run deliver --url http://127.0.0.1:1/
expect_code 2 "no --queue"
expect_err "respite deliver: --queue FILE is required" "no --queue"

run deliver --queue "$tmp/q3.db"
expect_code 2 "no --url"
expect_err "respite deliver: --url is required" "no --url"

run deliver --queue "$tmp/q3.db" --url http://127.0.0.1:1/ --progress-seconds soon
expect_code 2 "a bad --progress-seconds"
expect_err "--progress-seconds must be a number from 0 to 86400 (got 'soon')" "its message"

run deliver --queue "$tmp/q3.db" --stats=maybe
expect_code 2 "a bad flag value"
expect_err "--stats takes no value, or true or false (got 'maybe')" "its message"

run deliver --queue "$tmp/q3.db" --url http://127.0.0.1:1/ --lease-seconds 0
expect_code 2 "a bad setting"
expect_err "respite deliver: lease_seconds must be" "the core's message"

run deliver --queue "$tmp/no-such-dir/q.db" --stats
expect_code 2 "a file that cannot be made"
expect_err "respite deliver: " "the core's message"

run deliver --queue "$tmp/q3.db" --url http://127.0.0.1:1/ extra
expect_code 2 "an unexpected argument"
expect_err "unexpected argument 'extra'" "its message"

run send --min-entries-per-message 1
expect_code 2 "send with neither --url nor --queue"
expect_err "--url is required (or --queue FILE alone" "its message"

run deliver --help
expect_code 0 "--help"
expect_out "usage: respite deliver --queue FILE --url URL" "usage"
expect_out "--lease-seconds SECONDS" "--help lists the queue's durable settings"
expect_out "--ids-header" "--help lists the sender's ids header"
expect_out "(an integer from 1 to 1000000; default 1)" "deliver's own default for min-entries-per-message"

finish
