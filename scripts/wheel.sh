#!/usr/bin/env bash
# Builds the `pip install broadside` wheel (the binary inside; see pyproject.toml) into
# dist/. Needs maturin (`python3 -m pip install maturin`). Extra arguments go to maturin:
#   scripts/wheel.sh                          # a release wheel for this machine (linux_x86_64)
#   scripts/wheel.sh --compatibility manylinux_2_28   # inside a manylinux container, as the release workflow does
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v maturin >/dev/null 2>&1; then
  echo "scripts/wheel.sh: maturin is missing: python3 -m pip install maturin" >&2
  exit 2
fi
if [ "$#" -eq 0 ]; then
  set -- --compatibility linux
fi
maturin build --release --out dist "$@"
ls -l dist/*.whl
