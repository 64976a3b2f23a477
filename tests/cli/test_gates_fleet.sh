#!/usr/bin/env bash
# respite gates --fleet URL: each gate's fleet state in Redis (spec section
# 11, F12) next to the host's view, from a redis-server this test starts on
# 127.0.0.1 with a fleet state written into it; an unreachable Redis gives
# the core's message and exit 2.
source "$(dirname "$0")/lib.sh"
maker="${RESPITE_MAKE_GATE_FILE:?RESPITE_MAKE_GATE_FILE names the make_gate_file helper}"
dir="$(mktemp -d)"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >/dev/null &
redis=$!
trap 'kill $redis 2>/dev/null; wait $redis 2>/dev/null; rm -f "$out" "$err"; rm -rf "$dir"' EXIT
file="$dir/gates"
"$maker" "$file" || fail "make_gate_file could not write $file"
for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
cli() { redis-cli -p "$port" "$@" >/dev/null; }

# cloud: paused (4 s left of 5), host-b holds no probe yet; billing: one
# host opened 2 s ago (Redis's clock), not paused.
{ read -r seconds; read -r micros; } < <(redis-cli -p "$port" TIME)
now_ms=$((seconds * 1000 + micros / 1000))
cli HSET 'respite:{cloud}:state' paused 1 pause 5000 epoch 3
cli SET 'respite:{cloud}:pause' host-a PX 4000
cli HSET 'respite:{billing}:state' paused 0 pause 5000 epoch 0
cli HSET 'respite:{billing}:hosts' host-c "$((now_ms - 2000))"
cli HSET 'respite:{search}:state' paused 1 pause 10000 epoch 5
cli SET 'respite:{search}:probe' host-d PX 9000

run gates "$file" --fleet "redis://127.0.0.1:$port"
expect_code 0 "--fleet"
expect_out "fleet at redis://127.0.0.1:$port:" "the fleet heading"
awk '$1 == "cloud"' "$out" | tail -1 | grep -qE '^cloud +paused +(3\.[0-9]+|4)s +- +-$' ||
  fail "cloud: paused about 4s, no probe, no hosts"
awk '$1 == "billing"' "$out" | tail -1 | grep -qE '^billing +closed +- +- +host-c \(2(\.[0-9]+)?s ago\)$' ||
  fail "billing: closed, host-c opened 2s ago"
awk '$1 == "search"' "$out" | tail -1 | grep -qE '^search +paused +0ms +host-d +-$' || fail "search: host-d probes"
awk '$1 == "forever"' "$out" | tail -1 | grep -qE '^forever +closed +- +- +-$' || fail "forever: no fleet state"

run gates --json --fleet "redis://127.0.0.1:$port" "$file"
expect_code 0 "--fleet --json"
python3 - "$out" <<'PY' || fail "--fleet --json: the document above does not match"
import json, sys
gates = {g["name"]: g for g in json.load(open(sys.argv[1]))["gates"]}
cloud = gates["cloud"]["fleet"]
assert cloud["paused"] is True and 3 < cloud["pause_left"] <= 4 and cloud["pause"] == 5 and cloud["epoch"] == 3, cloud
assert cloud["probe_host"] is None and cloud["hosts"] == [], cloud
billing = gates["billing"]["fleet"]
assert billing["paused"] is False and billing["hosts_opened"] == 1, billing
assert billing["hosts"][0]["host"] == "host-c" and 2 <= billing["hosts"][0]["opened_ago"] < 3, billing
search = gates["search"]["fleet"]
assert search["probe_host"] == "host-d" and 8 < search["lease_left"] <= 9, search
assert gates["forever"]["fleet"]["paused"] is False, gates["forever"]
PY

closed_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
run gates "$file" --fleet "redis://127.0.0.1:$closed_port"
expect_code 2 "an unreachable Redis"
expect_err "respite gates: cannot read the fleet of gate \"cloud\" at 127.0.0.1:$closed_port: Connection refused" \
  "the core's message"
run gates "$file" --fleet "http://127.0.0.1:$port"
expect_code 2 "a URL that is not redis://"
expect_err "fleet_url must be redis://host:port" "the setting's message"
run gates "$file" --fleet
expect_code 2 "--fleet without a URL"

finish
