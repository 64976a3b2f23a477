#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test respite.
# Idempotent: installs only missing packages.
set -euo pipefail

packages=(
  build-essential cmake pkg-config clang libclang-rt-14-dev
  libcurl4-openssl-dev libjansson-dev libcmocka-dev libmicrohttpd-dev zlib1g-dev
  swig php-cli php-dev phpunit
  libsqlite3-dev sqlite3 libhiredis-dev redis-server php-fpm libfcgi-bin
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: system packages present"

# Each part's own setup (language packages) lives in scripts/setup.d.
for part in "$(dirname "$0")"/setup.d/*.sh; do
  [ -e "$part" ] || continue
  bash "$part" || { echo "setup: $(basename "$part") failed"; exit 1; }
done
