#!/usr/bin/env bash
# The conformance driver (conformance/run) checks scenarios against their
# JSON Schema with the jsonschema package. Idempotent: installs it only when
# Python cannot import it.
set -euo pipefail
if python3 -c 'import jsonschema' 2>/dev/null; then
  echo "setup: jsonschema present"
  exit 0
fi
python3 -m pip install --quiet 'jsonschema>=4.18' \
  || python3 -m pip install --quiet --break-system-packages 'jsonschema>=4.18'
python3 -c 'import jsonschema'
echo "setup: jsonschema installed"
