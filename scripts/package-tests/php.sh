#!/usr/bin/env bash
# The PHP extension's source tarball installed as PIE or a user would:
# unpacked in an empty directory outside the checkout, `phpize &&
# ./configure && make && make install` there (into that directory, not the
# system), the Respite\ classes copied beside it as Composer would (autoload,
# src, generated), then a program run from there with only that directory on
# its paths: a gate records failures and refuses with retry_after.
set -euo pipefail
root="$(pwd)"
tarball="$(bash bindings/php/package.sh)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
case "$work" in "$root"/*) echo "php package test: $work is inside the checkout" >&2; exit 1 ;; esac
cp "$tarball" "$work/"
cd "$work"
tar -xzf "$(basename "$tarball")"
rm "$(basename "$tarball")"
(
  cd respite-*/
  phpize >phpize.log 2>&1 || { cat phpize.log; exit 1; }
  ./configure >configure.log 2>&1 || { cat configure.log; exit 1; }
  make -j2 >make.log 2>&1 || { cat make.log; exit 1; }
  if grep -q "warning:" make.log; then grep "warning:" make.log >&2; exit 1; fi
  make install INSTALL_ROOT="$work/installed" >/dev/null
)
extension="$(find "$work/installed" -name respite.so)"
[ -f "$extension" ] || { echo "php package test: make install gave no respite.so" >&2; exit 1; }
# Nothing built may point back at the checkout.
if grep -q -F "$root" "$extension"; then
  echo "php package test: $extension names $root" >&2
  exit 1
fi

library="$work/vendor/respite/respite"
mkdir -p "$library"
cp -r "$root/bindings/php/autoload.php" "$root/bindings/php/composer.json" \
  "$root/bindings/php/src" "$root/bindings/php/generated" "$library/"

cat >app.php <<'PHP'
<?php
require __DIR__ . '/vendor/respite/respite/autoload.php';

use Respite\Gate;
use Respite\Outcome;
use Respite\TemporarilyUnavailableException;

$gate = new Gate(['failures_to_enter_recovery' => 2, 'failures_window_seconds' => 60,
                  'recovery_seconds' => 30, 'name' => 'billing']);
for ($i = 0; $i < 2; $i++) {
    $gate->report(Outcome::ServerError, $gate->acquire());
}
try {
    $gate->call(fn () => 'called');
    fwrite(STDERR, "the gate let a call through after 2 failures\n");
    exit(1);
} catch (TemporarilyUnavailableException $refusal) {
    if (!($refusal->getRetryAfter() > 0 && $refusal->getRetryAfter() <= 30)) {
        fwrite(STDERR, "retry_after " . $refusal->getRetryAfter() . " is not in (0, 30]\n");
        exit(1);
    }
    printf("refused: %s (retry_after %.1f s)\n", $refusal->getMessage(), $refusal->getRetryAfter());
}
PHP
# -n: no php.ini, so only this extension; run from the temp directory.
env -i PATH=/usr/bin:/bin HOME="$work" php -n -d extension="$extension" app.php
