#!/usr/bin/env bash
# Child processes on the GPU: a traced program that forks children (they run
# untraced, say so once, never hang; the parent's trace is complete), one that
# forks and execs CUDA programs (each traced on its own, distinct pids), and
# several processes writing into one directory (%p in the default name, %n,
# %q{VAR}), and one fixed name for a program and the helper processes it
# starts.
#   children.sh SAMPLES_DIR LIBCUPTITRACE OUTDIR
# Exits 77 without a GPU, 1 when a case failed.
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 SAMPLES_DIR LIBCUPTITRACE OUTDIR" >&2
  exit 2
fi
samples=$1 lib=$2 out=$3
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "children: no GPU here: skipped"
  exit 77
fi
for f in "$samples/fork_children" "$samples/vector_add" "$samples/profiler_window" "$lib"; do
  [ -e "$f" ] || { echo "FAIL children: $f does not exist" >&2; exit 1; }
done
out=$(mkdir -p "$out" && cd "$out" && pwd)
rm -rf "${out:?}"/*
failures=0
traced() {
  env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_SUMMARY=none "$@"
}
result() {  # NAME STATUS DETAIL
  if [ "$2" -eq 0 ]; then
    echo "ok   $1: $3"
  else
    echo "FAIL $1: $3"
    failures=$((failures + 1))
  fi
}

# check.py DIR GLOB EXPECTED...: every JSON trace matching GLOB in DIR; EXPECTED
# is one "process_name:kernels" per trace wanted (in any order); names end in
# -PID.json (but run-N.json); no .lock or partial file left. Prints the pids.
cat >"$out/check.py" <<'PY'
import glob, json, os, sys
directory, pattern, wanted = sys.argv[1], sys.argv[2], sorted(sys.argv[3:])
named_by_pid = not pattern.startswith("run-")  # %n names carry a number, not the pid
found, problems, pids = [], [], []
for path in sorted(glob.glob(os.path.join(directory, pattern))):
    try:
        trace = json.load(open(path))
    except Exception as e:
        problems.append(f"{os.path.basename(path)}: unreadable ({e.__class__.__name__})"); continue
    meta = trace["metadata"]
    kernels = sum(1 for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel")
    found.append(f'{os.path.basename(meta["process_name"])}:{kernels}')
    pids.append(meta["pid"])
    if named_by_pid and f'-{meta["pid"]}.json' not in os.path.basename(path):
        problems.append(f"{os.path.basename(path)} names no pid {meta['pid']}")
if sorted(found) != wanted:
    problems.append(f"traces {sorted(found)}, expected {wanted}")
if len(set(pids)) != len(pids):
    problems.append(f"pids not distinct: {pids}")
leftovers = [p for p in os.listdir(directory) if p.endswith(".lock") or ".partial-" in p]
if leftovers:
    problems.append(f"left behind: {leftovers}")
print("; ".join(problems) if problems else f"traces {sorted(found)}, pids {pids}")
sys.exit(1 if problems else 0)
PY

# 1. fork after CUDA and NVTX started: untraced first (the program itself must work).
timeout 120 "$samples/fork_children" fork >"$out/fork.untraced.out" 2>&1
result fork_untraced $? "exit $? untraced"
mkdir -p "$out/fork"
traced CUPTITRACE_OUTPUT="$out/fork/trace-%p" timeout 120 "$samples/fork_children" fork \
  >"$out/fork.stdout" 2>"$out/fork.stderr"
rc=$?
detail=$(python3 "$out/check.py" "$out/fork" 'trace-*.json' fork_children:15)
ok=$?
messages=$(grep -c "forked from traced process" "$out/fork.stderr")
children_done=$(grep -c "child .* done" "$out/fork.stdout")
[ $rc -eq 0 ] && [ "$messages" -eq 2 ] && [ "$children_done" -eq 2 ] || ok=1
result fork $ok "exit $rc (124: a hang), $detail, child messages $messages (want 2), children done $children_done"
[ $ok -eq 0 ] || sed 's/^/    /' "$out/fork.stderr" | tail -n 20

# 2. fork + exec: every exec'd CUDA program is traced on its own.
mkdir -p "$out/exec"
traced CUPTITRACE_OUTPUT="$out/exec/trace-%p" timeout 120 "$samples/fork_children" exec "$samples/vector_add" \
  >"$out/exec.stdout" 2>"$out/exec.stderr"
rc=$?
detail=$(python3 "$out/check.py" "$out/exec" 'trace-*.json' fork_children:10 vector_add:1 vector_add:1)
ok=$?
[ $rc -eq 0 ] || ok=1
result exec $ok "exit $rc, $detail"
[ $ok -eq 0 ] || sed 's/^/    /' "$out/exec.stderr" | tail -n 20

# 3. The default name holds %p: two programs started at once from one directory.
mkdir -p "$out/default"
(cd "$out/default" && traced bash -c '"$1" & "$1" & wait' _ "$samples/vector_add" >../default.stdout 2>../default.stderr)
detail=$(python3 "$out/check.py" "$out/default" 'cuptitrace-*.json' vector_add:1 vector_add:1)
result default_name $? "$detail"

# 4. %n: four processes finishing at once into one directory, then one more.
mkdir -p "$out/seq"
traced CUPTITRACE_OUTPUT="$out/seq/run-%n" bash -c 'for i in 1 2 3 4; do "$1" & done; wait' _ "$samples/vector_add" \
  >"$out/seq.stdout" 2>"$out/seq.stderr"
traced CUPTITRACE_OUTPUT="$out/seq/run-%n" "$samples/vector_add" >>"$out/seq.stdout" 2>>"$out/seq.stderr"
detail=$(python3 "$out/check.py" "$out/seq" 'run-*.json' vector_add:1 vector_add:1 vector_add:1 vector_add:1 vector_add:1)
ok=$?
names=$(cd "$out/seq" && ls run-*.json | sort | tr '\n' ' ')
[ "$names" = "run-1.json run-2.json run-3.json run-4.json run-5.json " ] || ok=1
result sequence $ok "$names; $detail"

# 5. %q{VAR}: set, and unset (nothing, and one warning).
mkdir -p "$out/var"
traced FAKE_RANK=3 CUPTITRACE_OUTPUT="$out/var/rank%q{FAKE_RANK}-%p" "$samples/vector_add" >/dev/null 2>"$out/var.stderr"
traced CUPTITRACE_OUTPUT="$out/var/unset%q{CUPTITRACE_TEST_UNSET_VAR}-%p" "$samples/vector_add" >/dev/null 2>>"$out/var.stderr"
ok=0
ls "$out/var"/rank3-*.json >/dev/null 2>&1 || ok=1
ls "$out/var"/unset-*.json >/dev/null 2>&1 || ok=1
grep -q "CUPTITRACE_TEST_UNSET_VAR is not set" "$out/var.stderr" || ok=1
result env_var $ok "$(cd "$out/var" && ls ./*.json | tr '\n' ' ')"

# 6. One fixed name (no %p) for a program and the helper processes it starts,
# which inherit the tracer (torch.compile's workers ask CUDA for the device
# count and launch nothing): with capture windows too, a helper that made no
# CUDA context leaves no trace, so the program's takes the name; a later
# process finding the name taken writes under NAME.PID instead of losing its trace.
mkdir -p "$out/fixed"
traced CUPTITRACE_OUTPUT="$out/fixed/run" CUPTITRACE_CAPTURE=profiler bash -c \
  'python3 -c "import ctypes; ctypes.CDLL(\"libcuda.so.1\").cuInit(0)" && "$1"' _ "$samples/profiler_window" \
  >"$out/fixed.stdout" 2>"$out/fixed.stderr"
rc=$?
# env execs the program: $! is its pid (the function `traced` would add a subshell).
env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_SUMMARY=none CUPTITRACE_OUTPUT="$out/fixed/run" "$samples/vector_add" \
  >>"$out/fixed.stdout" 2>>"$out/fixed.stderr" &
second=$!
wait $second
rc2=$?
detail=$(python3 - "$out/fixed" "$second" "$out/fixed.stderr" <<'PY'
import glob, json, os, sys
directory, second, stderr = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
problems = []
def kernels(path):
    t = json.load(open(path))
    return t["metadata"], sum(1 for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel")
names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(directory, "*.json")))
if names != sorted(["run.json", f"run.{second}.json"]):
    problems.append(f"traces {names}, expected run.json and run.{second}.json")
else:
    meta, n = kernels(os.path.join(directory, "run.json"))
    if not meta["process_name"].endswith("profiler_window") or n != 9:
        problems.append(f"run.json is {meta['process_name']} with {n} kernels, expected profiler_window with 9")
    meta, n = kernels(os.path.join(directory, f"run.{second}.json"))
    if meta["pid"] != second or n != 1:
        problems.append(f"run.{second}.json is pid {meta['pid']} with {n} kernels, expected pid {second} with 1")
if stderr.count("did no GPU work") != 1:
    problems.append(f"{stderr.count('did no GPU work')} 'did no GPU work' lines, expected 1 (the helper)")
if stderr.count("exists already") != 1:
    problems.append(f"{stderr.count('exists already')} 'exists already' lines, expected 1")
print("; ".join(problems) if problems else f"{names}; the helper wrote none")
sys.exit(1 if problems else 0)
PY
)
ok=$?
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] || ok=1
result fixed_name $ok "exit $rc and $rc2, $detail"
[ $ok -eq 0 ] || sed 's/^/    /' "$out/fixed.stderr" | tail -n 20

echo "children: $failures failed"
[ "$failures" -eq 0 ]
