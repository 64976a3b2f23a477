#!/usr/bin/env bash
# The PHP binding's HTTP integrations (bindings/php/src/Http) and their tests:
# the PSR-18/PSR-7/PSR-17 interfaces, Guzzle and a PSR-7 implementation, from
# Debian (installed under /usr/share/php with their own autoloaders, which the
# tests load). Idempotent: installs only missing packages.
set -euo pipefail
packages=(php-psr-http-client php-psr-http-message php-psr-http-factory php-guzzlehttp-guzzle
  php-guzzlehttp-psr7 php-nyholm-psr7)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup php: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup php: PSR-18 and Guzzle packages present"
