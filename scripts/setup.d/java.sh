#!/usr/bin/env bash
# Java binding: JDK 17 and Maven come with the machine; Maven fetches the
# build's plugins and JUnit itself on first use. Only check they are there.
set -euo pipefail
command -v javac >/dev/null || { echo "setup.d/java: javac (JDK 17) is missing"; exit 1; }
command -v mvn >/dev/null || { echo "setup.d/java: mvn is missing"; exit 1; }
