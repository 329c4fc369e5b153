#!/usr/bin/env bash
# Signals as real jobs get them: sent from another process while threads are
# inside CUDA calls (a scheduler's SIGTERM at a time limit, Ctrl-C, a hangup),
# SIGTERM followed by SIGKILL while the trace is being written (Slurm's
# KillWait), and a program that takes SIGSEGV on purpose and recovers.
#   signals.sh SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_BIN OUTDIR
set -u
samples=$1 lib=$2 cli=$3 out=$4
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "signals: no GPU here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
ulimit -c 0  # SIGQUIT's default action dumps core
# Job control: without it, bash starts background commands with SIGINT and
# SIGQUIT ignored, and they would never see the signals sent below.
set -m
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
# Starts busy_threads (injected when $1 is "traced"), waits until it has
# launched $2 kernels, sends signal $3 from here, and waits for it to end.
# Leaves NAME.out/.err and the exit status in NAME.rc.
run_and_signal() {  # run_and_signal traced|untraced MIN_LAUNCHES SIGNAL NAME [VAR=VALUE...]
  local how=$1 min=$2 sig=$3 name=$4; shift 4
  local env=(env)
  [ "$how" = traced ] && env=(env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" "$@")
  "${env[@]}" "$samples/busy_threads" 8 120 >"$out/$name.out" 2>"$out/$name.err" &
  local pid=$! waited=0
  while [ "$(sed -n 's/^launched=//p' "$out/$name.out" | tail -1)" -lt "$min" ] 2>/dev/null ||
    ! grep -q '^launched=' "$out/$name.out"; do
    sleep 0.1; waited=$((waited + 1))
    [ $waited -lt 600 ] || break
  done
  # What had returned when the signal went: the trace must hold at least that
  # (the program goes on launching while the trace is written).
  last_launched "$out/$name.out" >"$out/$name.before"
  kill -s "$sig" "$pid"
  wait "$pid"
  echo $? >"$out/$name.rc"
}
kernels_in() {  # kernels_in TRACE.json: kernel slices, or -1 when unreadable
  python3 -c "
import json, sys
try: t = json.load(open(sys.argv[1]))
except Exception: print(-1); sys.exit()
print(sum(1 for e in t['traceEvents'] if e.get('ph') == 'X' and e.get('cat') == 'kernel'))" "$1"
}
last_launched() { sed -n 's/^launched=//p' "$1" | tail -1; }

# 1. Polite signals from another process while 8 threads launch: the handler
#    returns, our thread writes, the process ends as the signal would.
for entry in TERM:143 INT:130 HUP:129 QUIT:131; do
  sig=${entry%%:*} want=${entry#*:}
  run_and_signal untraced 20000 "$sig" "plain-$sig"
  run_and_signal traced 20000 "$sig" "$sig" CUPTITRACE_OUTPUT="$out/$sig" CUPTITRACE_FORMAT=json,native
  plain=$(cat "$out/plain-$sig.rc") traced=$(cat "$out/$sig.rc")
  kernels=$(kernels_in "$out/$sig.json")
  launched=$(cat "$out/$sig.before")
  grep -E "^cuptitrace: (SIG|wrote)" "$out/$sig.err" | cut -c1-200
  check "SIG$sig from outside: exit status $traced, untraced $plain (expected $want)" \
    [ "$traced" -eq "$want" -a "$plain" -eq "$want" ]
  check "SIG$sig from outside: the trace holds $kernels kernels >= $launched launched before the signal" \
    [ "${kernels:--1}" -ge "${launched:-1}" ]
  check "SIG$sig from outside: it said what it does" grep -q "cuptitrace: SIG$sig: writing the trace" "$out/$sig.err"
  check "SIG$sig from outside: no partial file, no journal left" \
    [ -z "$(ls "$out" | grep -E "^$sig\.(.*partial.*|spill)$")" ]
done

# 2. SIGTERM, then SIGKILL while the outputs are written: the spill journal,
#    sealed first, rebuilds the whole trace up to the signal.
name=kill
CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_OUTPUT="$out/$name" \
  CUPTITRACE_FORMAT=json,pftrace,csv,native "$samples/busy_threads" 8 120 >"$out/$name.out" 2>"$out/$name.err" &
pid=$!
for _ in $(seq 300); do
  [ "$(last_launched "$out/$name.out")" -ge 300000 ] 2>/dev/null && break
  sleep 0.1
done
launched=$(last_launched "$out/$name.out")
kill -TERM "$pid"
for _ in $(seq 600); do
  grep -q "holds the whole trace" "$out/$name.err" && break
  sleep 0.01
done
kill -KILL "$pid" 2>/dev/null
wait "$pid"
rc=$?
grep "^cuptitrace" "$out/$name.err" | cut -c1-200
check "TERM then KILL: killed by SIGKILL (exit $rc)" [ "$rc" -eq 137 ]
check "TERM then KILL: the journal was sealed before the outputs" grep -q "holds the whole trace" "$out/$name.err"
check "TERM then KILL: no partial output file" [ -z "$(ls "$out" | grep -E "^$name\..*partial")" ]
if [ -e "$out/$name.spill" ]; then
  "$cli" recover "$out/$name.spill" -o "$out/recovered" >"$out/recover.log" 2>&1
  rrc=$?
  cat "$out/recover.log" | head -5
  rkernels=$(kernels_in "$out/recovered.json")
  check "TERM then KILL: cuptitrace recover exits 0" [ "$rrc" -eq 0 ]
  check "TERM then KILL: recovered $rkernels kernels >= $launched launched before the signal" \
    [ "${rkernels:--1}" -ge "${launched:-1}" ]
else
  check "TERM then KILL: the spill journal $out/$name.spill is there" false
fi

# 3. A program that takes SIGSEGV 1000 times on purpose, with a handler of its
#    own installed before CUDA: every fault is its own, the trace is complete,
#    and nothing stalls.
t0=$(date +%s%N)
"$samples/segv_recover" 1000 >"$out/segv-plain.out" 2>&1
plain=$? t1=$(date +%s%N)
CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_OUTPUT="$out/segv" \
  "$samples/segv_recover" 1000 >"$out/segv.out" 2>"$out/segv.err"
traced=$? t2=$(date +%s%N)
plain_ms=$(((t1 - t0) / 1000000)) traced_ms=$(((t2 - t1) / 1000000))
kernels=$(kernels_in "$out/segv.json")
cat "$out/segv.out"; grep "^cuptitrace: wrote" "$out/segv.err" | cut -c1-200
check "SIGSEGV x1000 recovered by the program: exit 0 traced ($traced) and untraced ($plain)" \
  [ "$traced" -eq 0 -a "$plain" -eq 0 ]
check "SIGSEGV x1000: the trace holds all 1000 kernels ($kernels)" [ "${kernels:--1}" -eq 1000 ]
check "SIGSEGV x1000: no stall (traced ${traced_ms} ms, untraced ${plain_ms} ms)" \
  [ "$traced_ms" -lt $((plain_ms + 5000)) ]
check "SIGSEGV x1000: nothing said of a signal" [ "$(grep -c 'SIGSEGV' "$out/segv.err")" -eq 0 ]

echo "signals: $failures failed"
[ "$failures" -eq 0 ]
