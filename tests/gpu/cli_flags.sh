#!/usr/bin/env bash
# The cuptitrace command's flags on a real run (vector_add): a plain --quiet
# leaves out the summary line, --overwrite replaces the outputs of an earlier
# run, json.gz holds exactly the bytes of the JSON (read back by Python's gzip
# and by zcat), and a mistake on the command line exits 2 with one line and
# runs nothing.
#   cli_flags.sh SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_CLI OUTDIR
# Exits 77 without a GPU, 1 when a check failed.
set -u
if [ $# -ne 4 ]; then
  echo "usage: $0 SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_CLI OUTDIR" >&2
  exit 2
fi
samples=$1 lib=$2 cli=$3 out=$4
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "cli_flags: no GPU here: skipped"
  exit 77
fi
mkdir -p "$out" && rm -f "$out"/run.* "$out"/bad.*
fail() { echo "FAIL cli_flags: $*"; exit 1; }

# 1. Not quiet: the summary line is there (so its absence below means something).
"$cli" --library "$lib" --summary none --format json,json.gz,native -o "$out/run" -- \
  "$samples/vector_add" >"$out/run.1.out" 2>"$out/run.1.err" || fail "first run exited $?: $(cat "$out/run.1.err")"
grep -q '^cuptitrace: wrote ' "$out/run.1.err" || fail "no summary line without --quiet: $(cat "$out/run.1.err")"
cp "$out/run.json" "$out/run.1.json"

# 2. --quiet and --overwrite as plain flags, the program's pid known ($! is the
# program: the command runs it in its own place).
"$cli" --library "$lib" --quiet --overwrite --summary=none --format json,json.gz,native -o "$out/run" -- \
  "$samples/vector_add" >"$out/run.2.out" 2>"$out/run.2.err" &
pid=$!
wait $pid || fail "second run exited $?: $(cat "$out/run.2.err")"
if grep -q '^cuptitrace: wrote ' "$out/run.2.err"; then fail "summary line despite --quiet"; fi
if grep -q 'already exists' "$out/run.2.err"; then fail "outputs kept despite --overwrite: $(cat "$out/run.2.err")"; fi

python3 - "$out" "$pid" <<'PY' || exit 1
import gzip, json, shutil, subprocess, sys
out, pid = sys.argv[1], int(sys.argv[2])
def check(ok, what):
    if not ok:
        print("FAIL cli_flags:", what)
        sys.exit(1)
raw = open(f"{out}/run.json", "rb").read()
doc = json.loads(raw)
meta = doc["metadata"]
check(meta["pid"] == pid, f"run.json is not the second run's (pid {meta['pid']}, expected {pid}): --overwrite")
check(raw != open(f"{out}/run.1.json", "rb").read(), "run.json unchanged by the second run")
config = meta["config"]
check(str(config.get("CUPTITRACE_QUIET")) == "1", f"CUPTITRACE_QUIET in the metadata: {config.get('CUPTITRACE_QUIET')}")
check(str(config.get("CUPTITRACE_OVERWRITE")) == "1", "CUPTITRACE_OVERWRITE in the metadata")
unz = gzip.open(f"{out}/run.json.gz", "rb").read()
check(unz == raw, "run.json.gz is not the bytes of run.json")
zcat = shutil.which("zcat")
if zcat:
    check(subprocess.run([zcat, f"{out}/run.json.gz"], capture_output=True, check=True).stdout == raw, "zcat")
kernels = sum(1 for e in doc["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X")
check(kernels > 0, "no kernels in run.json")
print(f"cli_flags: run.json of pid {pid}, {kernels} kernels; run.json.gz {len(unz)} bytes back from "
      f"{len(open(out + '/run.json.gz', 'rb').read())}, read by python gzip{' and zcat' if zcat else ''}")
PY

# 3. A mistake: exit 2, one line, the program not run.
"$cli" --library "$lib" --quiet=maybe -o "$out/bad" -- "$samples/vector_add" >"$out/bad.out" 2>"$out/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "--quiet=maybe exited $rc, not 2"
[ "$(wc -l <"$out/bad.err")" -eq 1 ] || fail "--quiet=maybe: not one line: $(cat "$out/bad.err")"
[ ! -s "$out/bad.out" ] && ! ls "$out"/bad.json >/dev/null 2>&1 || fail "--quiet=maybe ran the program"
"$cli" convert --help >/dev/null || fail "convert --help exited $?"
echo "PASS cli_flags"
