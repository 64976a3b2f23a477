#!/usr/bin/env bash
# respite, respite --help, --version, and an unknown command.
source "$(dirname "$0")/lib.sh"

run --help
expect_code 0 "--help"
for command in demo check-policy simulate send deliver gates; do
  expect_out "  $command " "--help lists $command"
done

run --version
expect_code 0 "--version"
grep -qE '^respite [0-9]+\.[0-9]+\.[0-9]+$' "$out" || fail "--version prints 'respite X.Y.Z'"

run
expect_code 2 "no command"
expect_err "usage: respite <command>" "no command"

run frobnicate
expect_code 2 "an unknown command"
expect_err "unknown command 'frobnicate'" "an unknown command"

for command in demo check-policy simulate send deliver gates; do
  run "$command" --help
  expect_code 0 "$command --help"
  expect_out "usage: respite $command" "$command --help"
done

finish
