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
# host opened 2 s ago (Redis's clock), not paused; search: paused, its pause
# over, host-d's probe lease 9 s long.
redis_ms() {
  local seconds micros
  { read -r seconds; read -r micros; } < <(redis-cli -p "$port" TIME)
  echo $((seconds * 1000 + micros / 1000))
}
now_ms="$(redis_ms)"
cli HSET 'respite:{cloud}:state' paused 1 pause 5000 epoch 3
cli SET 'respite:{cloud}:pause' host-a PX 4000
cli HSET 'respite:{billing}:state' paused 0 pause 5000 epoch 0
cli HSET 'respite:{billing}:hosts' host-c "$((now_ms - 2000))"
cli HSET 'respite:{search}:state' paused 1 pause 10000 epoch 5
cli SET 'respite:{search}:probe' host-d PX 9000

# The times read are exact on Redis's clock, between these bounds: the keys
# were written after now_ms and read before the TIME after the command (on a
# loaded machine that may be seconds later). Text rounds to 10 ms.
check_times() { # check_times FORMAT WHAT
  python3 - "$1" "$out" "$now_ms" "$(redis_ms)" <<'PY' || fail "$2: the times above are off"
import json, re, sys
form, path, before, after = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
late = after - before  # at most this many ms passed between writing a key and reading it

def within(what, value_ms, low, high, slack=0):
    ok = low - slack <= value_ms <= high + slack
    print(f"{what}: {value_ms} ms, expected {low}..{high} ms" + (f" (+-{slack})" if slack else ""))
    assert ok, what

def ms(text):  # as cli_format_seconds prints it
    return float(text[:-2]) if text.endswith("ms") else float(text[:-1]) * 1000

if form == "json":
    gates = {g["name"]: g for g in json.load(open(path))["gates"]}
    cloud, billing, search = (gates[n]["fleet"] for n in ("cloud", "billing", "search"))
    assert cloud["paused"] is True and cloud["pause"] == 5 and cloud["epoch"] == 3, cloud
    assert cloud["probe_host"] is None and cloud["hosts"] == [], cloud
    within("cloud pause_left", round(cloud["pause_left"] * 1000), max(0, 4000 - late), 4000)
    assert billing["paused"] is False and billing["hosts_opened"] == 1, billing
    assert billing["hosts"][0]["host"] == "host-c", billing
    within("billing opened_ago", round(billing["hosts"][0]["opened_ago"] * 1000), 2000, 2000 + late)
    assert search["paused"] is True and search["pause_left"] == 0 and search["probe_host"] == "host-d", search
    within("search lease_left", round(search["lease_left"] * 1000), max(0, 9000 - late), 9000)
    assert gates["forever"]["fleet"]["paused"] is False, gates["forever"]
else:
    rows = {}
    for line in open(path).read().split("\nfleet at ")[1].splitlines()[2:]:
        if line.startswith("PAUSE LEFT"):
            break
        rows[line.split()[0]] = line
    cloud = re.fullmatch(r"cloud +paused +([0-9.]+m?s) +- +-", rows["cloud"])
    assert cloud, rows["cloud"]
    within("cloud pause left", ms(cloud.group(1)), max(0, 4000 - late), 4000, slack=5)
    billing = re.fullmatch(r"billing +closed +- +- +host-c \(([0-9.]+m?s) ago\)", rows["billing"])
    assert billing, rows["billing"]
    within("billing host-c opened", ms(billing.group(1)), 2000, 2000 + late, slack=5)
    assert re.fullmatch(r"search +paused +0ms +host-d +-", rows["search"]), rows["search"]
    assert re.fullmatch(r"forever +closed +- +- +-", rows["forever"]), rows["forever"]
PY
}

run gates "$file" --fleet "redis://127.0.0.1:$port"
expect_code 0 "--fleet"
expect_out "fleet at redis://127.0.0.1:$port:" "the fleet heading"
check_times text "--fleet"

run gates --json --fleet "redis://127.0.0.1:$port" "$file"
expect_code 0 "--fleet --json"
check_times json "--fleet --json"

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
