#!/usr/bin/env bash
# Runs the examples of README.md and docs/*.md (tests/docs/run_doc_examples.py)
# against the fixtures they are written for:
#   doc_examples.sh CUPTITRACE RANK_BENCH SOURCE_DIR [--gpu]
# Without --gpu: `console doc-test` blocks, in directories holding train.native
# (a real trace of docs/examples/train.py) and ranks/rank.{0..3}.native (a
# synthetic four-rank job from bench/rank_bench). With --gpu (on the GPU
# machine): `console doc-test-gpu` blocks, in directories holding train.py.
set -u
cli=$1 rank_bench=$2 src=$3 mode=${4:-}
fixtures=$(mktemp -d)
trap 'rm -rf "$fixtures"' EXIT
if [ "$mode" = --gpu ]; then
  if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "doc examples: no GPU here: skipped"
    exit 77
  fi
  cp "$src/docs/examples/train.py" "$fixtures/"
  gpu=(--gpu)
else
  cp "$src/docs/examples/train.native" "$fixtures/"
  "$rank_bench" --ranks 4 --steps 50 --kernels 5 --dir "$fixtures/ranks" --keep >/dev/null || exit 1
  for f in "$fixtures"/ranks/t.*.native; do mv "$f" "$fixtures/ranks/rank.${f##*/t.}"; done
  gpu=()
fi
python3 "$src/tests/docs/run_doc_examples.py" --cli "$cli" --fixtures "$fixtures" "${gpu[@]}" \
  "$src/README.md" "$src"/docs/*.md
