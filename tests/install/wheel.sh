#!/usr/bin/env bash
# The Python wheel (pyproject.toml, packaging/wheel/): built by pip from the
# build tree as it is (-C build-dir=BUILD, no second build), offline; its
# contents and RECORD; installed into a fresh virtual environment, which then
# holds the whole tool: prefix_checks.sh runs the command, its library, its
# hook and its recipes from the environment alone (the trees hidden), and
# `cuptitrace stats` on the docs' trace. Then `pip install .` itself, and
# `pip uninstall`.
#   wheel.sh PYTHON BUILD SOURCE NVTX_ONLY RANK_BENCH
set -u
python=$1 build=$(cd "$2" && pwd) source=$(cd "$3" && pwd) nvtx_only=$4 bench=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "SKIP: $python cannot make virtual environments with pip (Debian: python3-venv)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/cuptitrace-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1

"$python" -m venv "$work/builder" || exit 1
"$work/builder/bin/pip" wheel --no-build-isolation --no-deps -C build-dir="$build" -w "$work/dist" "$source" \
  >"$work/wheel.log" 2>&1 ||
  { cat "$work/wheel.log"; exit 1; }
wheel=$(ls "$work"/dist/cuptitrace-*.whl 2>/dev/null)
echo "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
check "one wheel, tagged py3-none-<platform>" bash -c '[[ $(basename "$1") =~ ^cuptitrace-[0-9.]+-py3-none-linux_[a-z0-9_]+\.whl$ ]]' _ "$wheel"
"$python" - "$wheel" >"$work/contents.txt" <<'PY'
import base64, csv, hashlib, io, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    names = z.namelist()
    record = [n for n in names if n.endswith(".dist-info/RECORD")][0]
    rows = list(csv.reader(io.StringIO(z.read(record).decode())))
    bad = [p for p, h, size in rows if h and (h != "sha256=" + base64.urlsafe_b64encode(
        hashlib.sha256(z.read(p)).digest()).rstrip(b"=").decode() or int(size) != len(z.read(p)))]
    unlisted = sorted(set(names) - {r[0] for r in rows})
    print("record: %d entries, %d wrong, %d unlisted" % (len(rows), len(bad), len(unlisted)))
    for n in names:
        mode = (z.getinfo(n).external_attr >> 16) & 0o777
        print("%o %s" % (mode, n))
PY
check "RECORD lists every file with its right hash and size" grep -qE '^record: [0-9]+ entries, 0 wrong, 0 unlisted$' "$work/contents.txt"
for entry in "755 cuptitrace-[0-9.]*\.data/scripts/cuptitrace" "cuptitrace-[0-9.]*\.data/data/lib/libcuptitrace\.so" \
  "cuptitrace-[0-9.]*\.data/data/lib/libcuptitrace-osrt\.so" "cuptitrace-[0-9.]*\.data/data/lib/libcuptitrace-watch\.so" \
  "cuptitrace-[0-9.]*\.data/data/share/cuptitrace/python/cuptitrace_pyhook/sitecustomize\.py" \
  "cuptitrace-[0-9.]*\.data/data/share/cuptitrace/python/cuptitrace_recipes/__main__\.py" \
  "cuptitrace-[0-9.]*\.data/data/include/cuptitrace/cuptitrace\.h" \
  "cuptitrace-[0-9.]*\.dist-info/METADATA" "cuptitrace-[0-9.]*\.dist-info/LICENSE"; do
  check "the wheel holds $entry" grep -qE " ?$entry\$" "$work/contents.txt"
done
check "no module file naming the staging prefix" bash -c '! grep -q modulefiles "$1"' _ "$work/contents.txt"

# A fresh environment, the wheel alone (installed by the other one's pip:
# one copy of pip made is enough).
"$python" -m venv --without-pip "$work/env" || exit 1
"$work/builder/bin/pip" --python "$work/env/bin/python" install "$wheel" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
check "pip put the command on the environment's PATH" \
  bash -c '. "$1/bin/activate" && [ "$(command -v cuptitrace)" = "$1/bin/cuptitrace" ]' _ "$work/env"
prepare_checks "$work" "$source" "$build" "$nvtx_only" "$bench"
checks_from "$work/env" "$work" "$source" "$build" || failures=$((failures + 1))

# `pip install .` from the source tree, then uninstalled.
"$work/builder/bin/pip" install --no-build-isolation -C build-dir="$build" "$source" >"$work/dot.log" 2>&1 || { cat "$work/dot.log"; exit 1; }
"$work/builder/bin/cuptitrace" --version >"$work/dot-version.txt"
check "pip install . gives cuptitrace --version" grep -qE '^cuptitrace [0-9.]+$' "$work/dot-version.txt"
"$work/builder/bin/pip" uninstall -y cuptitrace >/dev/null 2>&1
check "pip uninstall removes the command, the libraries and the hook" \
  bash -c '[ -z "$(find "$1/bin/cuptitrace" "$1"/lib/libcuptitrace*.so "$1/share/cuptitrace" -type f 2>/dev/null)" ]' _ "$work/builder"
finish wheel "$(basename "$wheel") installs the command, library, hook and recipes into a virtual environment"
