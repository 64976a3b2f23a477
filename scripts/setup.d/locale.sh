#!/usr/bin/env bash
# A comma-decimal locale (de_DE.UTF-8) for the core's locale test
# (tests/unit/test_locale.c): numbers in messages and settings must read the
# same under it as under "C". Debian's `locales` package has its source;
# localedef compiles it into the system's locale archive.
set -euo pipefail
if locale -a 2>/dev/null | grep -qix 'de_DE\.utf-\?8'; then
  echo "setup locale: de_DE.UTF-8 present"
  exit 0
fi
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
if ! dpkg-query -W -f='${Status}' locales 2>/dev/null | grep -q "install ok installed"; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends locales >/dev/null
fi
$sudo_cmd localedef -i de_DE -f UTF-8 de_DE.UTF-8
locale -a | grep -qix 'de_DE\.utf-\?8'
echo "setup locale: de_DE.UTF-8 installed"
