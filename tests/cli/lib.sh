# Shared by the tests/cli/test_*.sh scripts: run the respite binary, check
# exit codes and output. Each script is called as: test_x.sh RESPITE SOURCE_DIR
set -uo pipefail
respite="$1"
source_dir="$2"
failures=0
out="$(mktemp)"
err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT

# run ARGS... : runs respite, leaves stdout in $out, stderr in $err, code in $code.
run() {
  "$respite" "$@" >"$out" 2>"$err"
  code=$?
}

fail() {
  echo "FAIL: $*"
  echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; echo "---"
  failures=$((failures + 1))
}

# Also fails on a sanitizer's report (the sanitizer builds run these tests
# too, and a report may share its exit code with an expected failure).
expect_code() {
  [ "$code" -eq "$1" ] || fail "$2: exit code $code, expected $1"
  ! grep -qE 'Sanitizer|runtime error:' "$err" || fail "$2: a sanitizer reported a problem"
}

# expect_out PATTERN WHAT : stdout contains the fixed string PATTERN.
expect_out() {
  grep -qF -- "$1" "$out" || fail "$2: stdout lacks '$1'"
}

expect_err() {
  grep -qF -- "$1" "$err" || fail "$2: stderr lacks '$1'"
}

expect_no_out() {
  ! grep -qF -- "$1" "$out" || fail "$2: stdout has '$1'"
}

finish() {
  if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "all checks passed"
}
