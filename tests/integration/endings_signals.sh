#!/usr/bin/env bash
# Every signal whose default action ends the process, the one-shot fault
# handler, the program's other signal calls, the capture toggle and the
# table rewrite, through the tracer's lifecycle code in a stand-in
# (tests/integration/endings_sink.cpp) loaded by endings_probe. Signals are
# sent as real senders send them: from another process, to the process and
# then to its whole process group (as `timeout` does), by `timeout` itself,
# while threads of the program are inside calls.
#   endings_signals.sh PROBE SINK RELRO_VICTIM OUTDIR
set -u
probe=$1 sink=$2 victim=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
ulimit -c 0
# Job control: each background job is a process group of its own.
set -m
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
# launch NAME MODE WRITE_MS [ARG]: the probe in the background; sets $pid.
launch() {
  local name=$1 mode=$2 ms=$3; shift 3
  "$probe" "$sink" "$out/$name.log" "$ms" "$mode" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null &
  pid=$!
}
wait_ready() { for _ in $(seq 200); do grep -q '^READY' "$out/$1.out" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# finish NAME: waits for $pid; sets $rc and $writes.
finish() {
  wait "$pid"
  rc=$?
  writes=$(cat "$out/$1.log" 2>/dev/null | tr '\n' ' ')
}
# run NAME MODE WRITE_MS [ARG]: in the foreground (60 s at most), in this
# shell's process group (timeout leading a group of its own would pass a
# SIGINT that ended the probe on to this shell).
run() {
  local name=$1 mode=$2 ms=$3; shift 3
  set +m
  timeout -s KILL 60 "$probe" "$sink" "$out/$name.log" "$ms" "$mode" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
  rc=$?
  set -m
  writes=$(cat "$out/$name.log" 2>/dev/null | tr '\n' ' ')
}

# ---- signals sent to the process, then to its group -------------------------
for sig in USR1 USR2 ALRM VTALRM PROF IO PWR STKFLT QUIT XCPU RTMIN RTMIN+3 RTMAX-1 RTMAX; do
  num=$(kill -l "$sig")
  launch "sig-$sig" wait 200
  wait_ready "sig-$sig" || echo "     sig-$sig: never ready"
  kill -s "$sig" "$pid"
  kill -s "$sig" -- "-$pid"
  finish "sig-$sig"
  check "SIG$sig to the process and its group, 3 threads inside calls: one write, then the signal's status (exit $rc, want $((128 + num)); wrote: $writes)" \
    [ "$rc" -eq $((128 + num)) -a "$writes" = "wrote signal $num durable " ]
done

launch two-kinds wait 300
wait_ready two-kinds
kill -s USR1 "$pid"
kill -s TERM -- "-$pid"
finish two-kinds
check "SIGUSR1 to the process and SIGTERM to its group at once: one ending, one write, its signal's status (exit $rc, wrote: $writes)" \
  bash -c "[ '$rc' = 138 -a '$writes' = 'wrote signal 10 durable ' ] || [ '$rc' = 143 -a '$writes' = 'wrote signal 15 durable ' ]"

timeout --preserve-status -s USR2 1 "$probe" "$sink" "$out/timeout.log" 200 wait >"$out/timeout.out" 2>"$out/timeout.err" </dev/null
rc=$? writes=$(cat "$out/timeout.log" 2>/dev/null | tr '\n' ' ')
check "timeout -s USR2 (an LSF warning): one write, killed by SIGUSR2 (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 140 -a "$writes" = "wrote signal 12 durable " ]

run alarm alarm 100
check "alarm() left at the default: one write, killed by SIGALRM (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 142 -a "$writes" = "wrote signal 14 durable " ]

# The kernel repeats SIGXCPU each second past the soft limit: a write of
# 2.5 s is not cut short by its repeats.
(ulimit -S -t 1; exec timeout -s KILL 20 "$probe" "$sink" "$out/xcpu.log" 2500 xcpu >"$out/xcpu.out" 2>"$out/xcpu.err" </dev/null)
rc=$? writes=$(cat "$out/xcpu.log" 2>/dev/null | tr '\n' ' ')
check "ulimit -t: SIGXCPU and its repeats, one whole write, killed by SIGXCPU (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 152 -a "$writes" = "wrote signal 24 durable " ]
check "SIGXCPU repeated by the kernel does not cut the write short" bash -c "! grep -q again '$out/xcpu.err'"

# ---- signals tied to the call that raised them ------------------------------
"$probe" "$sink" "$out/pipe.log" 200 pipe 2>"$out/pipe.err" </dev/null | head -c 10 >/dev/null
rc=${PIPESTATUS[0]} writes=$(cat "$out/pipe.log" 2>/dev/null | tr '\n' ' ')
check "a program piped into head: SIGPIPE, the write on the watcher, killed by SIGPIPE (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 141 -a "$writes" = "wrote fault 13 durable " ]
check "SIGPIPE: the thread that wrote did not go on" bash -c "! grep -q 'write failed' '$out/pipe.err'"
"$probe" "$sink" "$out/pipe-ignored.log" 200 pipe-ignored 2>"$out/pipe-ignored.err" </dev/null | head -c 10 >/dev/null
rc=${PIPESTATUS[0]} writes=$(cat "$out/pipe-ignored.log" 2>/dev/null | tr '\n' ' ')
check "SIGPIPE ignored by the program: its write fails with EPIPE, as untraced (exit $rc, wrote: '$writes')" \
  [ "$rc" -eq 3 -a -z "$writes" ]
check "SIGPIPE ignored: the program saw the broken pipe" grep -q "write failed: Broken pipe" "$out/pipe-ignored.err"
(ulimit -f 1; exec timeout -s KILL 20 "$probe" "$sink" "$out/xfsz.log" 200 xfsz "$out/xfsz.data" >"$out/xfsz.out" 2>"$out/xfsz.err" </dev/null)
rc=$? writes=$(cat "$out/xfsz.log" 2>/dev/null | tr '\n' ' ')
check "ulimit -f: SIGXFSZ, one write, killed by SIGXFSZ (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 153 -a "$writes" = "wrote fault 25 durable " ]

# ---- a one-shot fault handler installed before tracing ----------------------
for mode in segv-once segv-sysv; do
  run "$mode" "$mode" 100
  ran=$(grep -c "fault handler ran" "$out/$mode.out")
  check "$mode: the handler runs once, the fault again ends the program with a write (exit $rc, want 139; handler ran $ran times; wrote: $writes)" \
    [ "$rc" -eq 139 -a "$ran" -eq 1 -a "$writes" = "wrote fault 11 durable " ]
done

# ---- the program's other signal calls ---------------------------------------
run sigset sigset 100
check "sigset(): the tracer's handler stays; SIG_DFL then SIGINT ends with a write (exit $rc, wrote: $writes; $(cat "$out/sigset.out"))" \
  [ "$rc" -eq 130 -a "$writes" = "wrote signal 2 durable " ]
run siginterrupt siginterrupt 100
check "siginterrupt(): the program's handler interrupts read() as untraced, the tracer's stays (exit $rc: $(cat "$out/siginterrupt.out"))" \
  [ "$rc" -eq 8 ]
run reserved reserved 0
check "the signals the C library keeps below SIGRTMIN are left alone (exit $rc: $(cat "$out/reserved.out"))" [ "$rc" -eq 0 ]

# ---- the capture toggle ------------------------------------------------------
ENDINGS_SINK_TOGGLE=$(kill -l USR2) run toggle toggle 0
check "the capture toggle goes on toggling after the program's handler and its SIG_DFL (exit $rc: $(cat "$out/toggle.out"))" \
  [ "$rc" -eq 0 -a -z "$(cat "$out/toggle.log" 2>/dev/null)" ]

# ---- _exit and a long write --------------------------------------------------
# A writer that works (1.5 s of processor time, longer on a loaded machine)
# is waited for past a stall limit of 2 s; one asleep (stuck) is given up on.
ENDINGS_SINK_STALL_MS=2000 run exit-long _exit busy:1500
check "_exit while a write works past the stall limit: waited for (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 4 -a "$writes" = "wrote exit-call _exit durable " ]
start=$(date +%s%N)
ENDINGS_SINK_STALL_MS=2000 run exit-stuck _exit 12000
took=$((($(date +%s%N) - start) / 1000000))
check "_exit while the writer is stuck (asleep 12 s): given up after the stall limit, said (exit $rc, ${took} ms, wrote: '$writes')" \
  [ "$rc" -eq 4 -a -z "$writes" -a "$took" -lt 10000 ]
check "a stuck writer: one line says so" grep -q "^cuptitrace: _exit: the trace's writing made no progress for 2.0 s" "$out/exit-stuck.err"

# ---- the table rewrite on a last, partial RELRO page --------------------------
run relro relro 0 "$victim"
check "a table entry on a RELRO page the loader left writable: redirected, the page left writable (exit $rc: $(cat "$out/relro.out"))" \
  [ "$rc" -eq 0 ]

echo "endings_signals: $failures failed"
[ "$failures" -eq 0 ]
