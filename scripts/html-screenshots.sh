#!/usr/bin/env bash
# The HTML report's screenshots in docs/images/, made by headless Chromium
# from pages the built command writes: the overview of the docs' real trace
# (docs/examples/train.native, an H100), the operators of a training loop
# built by hand (tests/html/html_fixtures pytorch: the docs' trace was
# recorded without --pytorch), and the GPU metrics of tests/unit's sampled
# kernels (html_fixtures metrics). Given a real trace recorded with
# `--pytorch shapes --activities default,memory,gpu_metrics`, all three tabs
# come from it instead (the README's were made so, from
# tests/gpu/pytorch_train.py --mode half on an H100).
# Usage: scripts/html-screenshots.sh [BUILD_DIR] [TRACE.native]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
trace=${2:-}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/tests/html/html_fixtures" pytorch "$work/torch.native"
"$build/tests/html/html_fixtures" metrics "$work/metrics.native"
"$build/cli/cuptitrace" report docs/examples/train.native -o "$work/train.html"
"$build/cli/cuptitrace" report "$work/torch.native" -o "$work/torch.html"
"$build/cli/cuptitrace" report "$work/metrics.native" -o "$work/metrics.html"
mkdir -p docs/images
shoot() {  # PAGE TAB HEIGHT OUT
  "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --force-device-scale-factor=1 --window-size="1400,$3" --virtual-time-budget=15000 \
    --screenshot="docs/images/$4" "file://$work/$1#$2" >/dev/null 2>&1
  echo "html-screenshots: docs/images/$4"
}
if [ -n "$trace" ]; then
  "$build/cli/cuptitrace" report "$trace" -o "$work/real.html"
  shoot real.html overview 1720 html-overview.png
  shoot real.html operators 1320 html-operators.png
  shoot real.html gpu_metrics 1300 html-gpu-metrics.png
  exit 0
fi
shoot train.html overview 1720 html-overview.png
shoot torch.html operators 1320 html-operators.png
shoot metrics.html gpu_metrics 1300 html-gpu-metrics.png
