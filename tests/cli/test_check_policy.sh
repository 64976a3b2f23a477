#!/usr/bin/env bash
# respite check-policy: every problem with file and pointer, syntax errors
# with line and column, exit codes 0 / 1 / 2.
source "$(dirname "$0")/lib.sh"
policies="$source_dir/tests/cli/policies"

run check-policy "$policies/valid.json"
expect_code 0 "a valid policy"
expect_out "valid.json: valid: \"edgehog\", capacity 100, 2 handlers, retry_times 3, event_ttl 30s" "a valid policy"

run check-policy "$policies/invalid.json"
expect_code 1 "an invalid policy"
expect_out "invalid.json: invalid: 5 problems" "an invalid policy"
expect_out "invalid.json: /name: must not start with '@'" "an invalid policy's name"
expect_out "invalid.json: /maximum_capacity: must be an integer from 1 to 1000000 (got 0)" "capacity"
expect_out "invalid.json: /error_handlers/1/on/2: repeats the code 503" "duplicate code"
expect_out "invalid.json: /retry_times: must be set if some events are to be retried." "retry_times"
expect_out "invalid.json: /colour: is not a policy field" "unknown field"

run check-policy "$policies/syntax.json"
expect_code 1 "a syntax error"
expect_out "syntax.json:5:33: invalid JSON at line 5, column 33" "line and column"

run check-policy "$policies/valid.json" "$policies/invalid.json"
expect_code 1 "one valid, one invalid"
expect_out "2 files: 1 valid, 1 invalid" "the summary"

run check-policy "$policies/valid.json" "$policies/no-such-file.json"
expect_code 2 "an unreadable file"
expect_err "cannot read $policies/no-such-file.json: No such file or directory" "says which file and why"
expect_out "valid.json: valid" "the other file is still checked"

run check-policy "$policies"
expect_code 2 "a directory"
expect_err "Is a directory" "a directory"

"$respite" check-policy - <"$policies/valid.json" >"$out" 2>"$err"; code=$?
expect_code 0 "standard input"
expect_out "<stdin>: valid" "standard input"

# P1: an endless input is refused after 1 MiB and a byte, in bounded time
# and memory (it read all of /dev/zero before: 2.8 GB in 3 s). The child's
# peak RSS comes from getrusage; the time limit stops a regression.
read -r code peak_kb seconds < <(python3 - "$respite" "$out" "$err" <<'PY'
import resource, subprocess, sys, time
respite, out, err = sys.argv[1:4]
start = time.monotonic()
with open(out, "w") as o, open(err, "w") as e:
    try:
        code = subprocess.run([respite, "check-policy", "/dev/zero"], stdout=o, stderr=e, timeout=5).returncode
    except subprocess.TimeoutExpired:
        code = 124
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, round(time.monotonic() - start, 2))
PY
)
expect_code 1 "/dev/zero"
expect_out "/dev/zero: invalid: 1 problem" "/dev/zero"
expect_out "/dev/zero: (document): the document is longer than 1048576 bytes; at most 1048576 bytes are accepted" "/dev/zero"
[ "$peak_kb" -lt 200000 ] || fail "/dev/zero: peak RSS ${peak_kb} kB, expected under 200 MB (1 MiB is read)"
awk -v s="$seconds" 'BEGIN { exit !(s < 5) }' || fail "/dev/zero: took ${seconds}s, expected well under 5 s"

# --json: one stable object for every file, the same exit codes.
# json_says EXPRESSION: a Python expression over the document `d` on stdout.
json_says() {
  python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
print($1)" "$out" || echo "(stdout is not one JSON document)"
}
run check-policy --json "$policies/valid.json" "$policies/invalid.json" "$policies/syntax.json" "$policies/no-such-file.json"
expect_code 2 "--json: the worst result decides the exit code"
[ ! -s "$err" ] || fail "--json: nothing on stderr"
[ "$(json_says "sorted(d)")" = "['files', 'invalid', 'not_checked', 'valid']" ] || fail "--json: the document's keys"
[ "$(json_says "(d['valid'], d['invalid'], d['not_checked'])")" = "(1, 2, 1)" ] || fail "--json: the counts"
[ "$(json_says "[sorted(f) for f in d['files']] == [['error', 'file', 'policy', 'problems', 'result']] * 4")" = True ] ||
  fail "--json: every file has the same keys"
[ "$(json_says "[f['result'] for f in d['files']]")" = "['valid', 'invalid', 'invalid', 'unreadable']" ] ||
  fail "--json: each file's result, in order"
[ "$(json_says "d['files'][0]['policy']")" = "{'name': 'edgehog', 'maximum_capacity': 100, 'error_handlers': [{'on': 'server_error', 'strategy': 'retry'}, {'on': 'client_error', 'strategy': 'discard'}], 'retry_times': 3, 'event_ttl': 30}" ] ||
  fail "--json: a valid policy as the core reads it"
[ "$(json_says "d['files'][1]['problems'][1]")" = "{'pointer': '/maximum_capacity', 'line': None, 'column': None, 'message': 'must be an integer from 1 to 1000000 (got 0)'}" ] ||
  fail "--json: a problem with its pointer"
[ "$(json_says "(len(d['files'][1]['problems']), d['files'][1]['policy'])")" = "(5, None)" ] || fail "--json: every problem, no policy"
[ "$(json_says "(d['files'][2]['problems'][0]['line'], d['files'][2]['problems'][0]['column'])")" = "(5, 33)" ] ||
  fail "--json: a syntax error's line and column"
[ "$(json_says "(d['files'][3]['error'], d['files'][3]['problems'])")" = "('No such file or directory', [])" ] ||
  fail "--json: an unreadable file says why"

run check-policy --json "$policies/valid.json"
expect_code 0 "--json: a valid policy"
[ "$(json_says "(d['valid'], d['files'][0]['result'], d['files'][0]['error'])")" = "(1, 'valid', None)" ] ||
  fail "--json: one valid file"

run check-policy --json "$policies/invalid.json"
expect_code 1 "--json: an invalid policy"

run check-policy
expect_code 2 "no file"
expect_err "usage: respite check-policy [--json] FILE..." "no file"

run check-policy --frobnicate x.json
expect_code 2 "an unknown option"
expect_err "unknown option --frobnicate" "an unknown option"

run check-policy --help
expect_code 0 "--help"
expect_out "usage: respite check-policy [--json] FILE..." "--help"

finish
