#!/usr/bin/env bash
# Fuzzes the policy parser (fuzz/fuzz_policy.c) with libFuzzer under ASan and
# UBSan for a bounded time. Fails on any crash, leak or sanitizer report.
set -euo pipefail
out="${BUILD_ROOT:-build}/fuzz"
mkdir -p "$out/corpus"
# The parser, validation and what they use; nothing else of the core.
sources=(core/src/status.c core/src/problems.c core/src/policy.c core/src/policy_parse.c core/src/policy_builder.c
         core/src/utf8.c core/src/c_locale.c)
clang -std=c11 -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -Icore/include fuzz/fuzz_policy.c "${sources[@]}" $(pkg-config --cflags --libs jansson) -lm \
  -o "$out/fuzz_policy"
cp fuzz/corpus/policy/*.json "$out/corpus/"
# New inputs go to the build directory, never into the repository's corpus.
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
  "$out/fuzz_policy" -max_total_time="${RESPITE_FUZZ_SECONDS:-20}" -max_len=4096 -timeout=10 \
  -rss_limit_mb=1024 -dict=fuzz/policy.dict -print_final_stats=1 -artifact_prefix="$out/" \
  "$out/corpus" 2>&1 | tail -n 15
exit "${PIPESTATUS[0]}"
