#!/usr/bin/env bash
# The Python start-up hook of `cuptitrace --pytorch` and `--python-backtrace`
# (python/cuptitrace_pyhook) with a stand-in torch package: needs python3 only.
#   tests/integration/pyhook.sh [PYTHON]
set -u
here=$(cd "$(dirname "$0")" && pwd)
python=${1:-python3}
command -v "$python" >/dev/null || { echo "pyhook: no $python" >&2; exit 77; }
exec "$python" "$here/pyhook/test_pyhook.py" -v
