#!/usr/bin/env bash
# The tracer's lifecycle code (signals, the program's view of its handlers,
# exit calls) in a program without a GPU: tests/integration/endings_probe.cpp
# loads a stand-in for the tracer built from that code, then ends one way
# per mode. Each row: the exit status the program has untraced, how many
# times "the trace" was written, what was said.
#   endings.sh PROBE SINK OUTDIR
set -u
probe=$1 sink=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
# run MODE WRITE_MS [JOURNAL]: status in $rc, writes in $writes, stderr in $err
run() {
  local mode=$1 ms=$2
  "$probe" "$sink" "$out/$mode.log" "$ms" "$mode" ${3:+"$3"} >"$out/$mode.out" 2>"$out/$mode.err" </dev/null
  rc=$?
  writes=$(cat "$out/$mode.log" 2>/dev/null | tr '\n' ' ')
  err=$(cat "$out/$mode.err")
}

run twice 300
check "SIGTERM to the process twice at once: one write, killed by SIGTERM (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 143 -a "$writes" = "wrote signal 15 durable " ]

: >"$out/journal.spill"
run again 5000 "$out/journal.spill"
check "SIGINT again 2.5 s later: the writing is cut short (exit $rc, wrote: '$writes')" [ "$rc" -eq 130 -a -z "$writes" ]
check "SIGINT again: one line says so and how to recover" \
  grep -q "SIGINT again: the trace's writing is cut short.*cuptitrace recover $out/journal.spill" "$out/again.err"

run reraise 100
check "a handler of the program's, then SIG_DFL and raise: one write, killed by SIGINT (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 130 -a "$writes" = "wrote signal 2 durable " ]
check "reraise: the program's handler ran" grep -q "handled 2" "$out/reraise.out"

run resethand 100
check "SA_RESETHAND: the handler runs once, the second SIGTERM ends it with a write (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 143 -a "$writes" = "wrote signal 15 durable " ]

for mode in read read-early; do
  run "$mode" 100
  check "$mode: SIGINT interrupts a blocking read() as untraced (no SA_RESTART) (exit $rc: $(cat "$out/$mode.out"))" \
    [ "$rc" -eq 8 ]
done

for entry in _exit:4:_exit Exit:6:_Exit quick_exit:7:quick_exit; do
  IFS=: read -r mode want call <<<"$entry"
  run "$mode" 300
  check "$mode: the trace made durable and written before the process ends (exit $rc, want $want; wrote: $writes)" \
    [ "$rc" -eq "$want" -a "$writes" = "wrote exit-call $call durable " ]
done

run exec 100
check "exec: the trace written before the process becomes another (exit $rc of /bin/true, wrote: $writes)" \
  [ "$rc" -eq 0 -a "$writes" = "wrote exec execv durable " ]
run exec-fail 0
check "exec of a missing file: nothing written, nothing said, the program goes on (exit $rc, wrote: '$writes')" \
  [ "$rc" -eq 5 -a -z "$writes" -a ! -s "$out/exec-fail.err" ]
printf 'not a program\n' >"$out/noexec" && chmod 755 "$out/noexec"
run exec-noexec 0 "$out/noexec"
check "exec of an executable that is no program: written, then exec fails; the program goes on (exit $rc, wrote: $writes)" \
  [ "$rc" -eq 5 -a "$writes" = "wrote exec execv durable " ]
check "exec that fails after the write: one line says where the trace ends" \
  grep -q "^cuptitrace: execv of $out/noexec failed (Exec format error) after the trace was written" "$out/exec-noexec.err"

# The exec calls the C library makes of its own reach the tracer too.
for entry in execl:3 execlp:4 execle:9 fexecve:5 execveat:6; do
  mode=${entry%%:*} want=${entry#*:}
  run "$mode" 100
  check "$mode: the trace written first, the arguments passed on (exit $rc, want $want; wrote: $writes)" \
    [ "$rc" -eq "$want" -a "$writes" = "wrote exec $mode durable " ]
done

run view 0
check "the program sees its own dispositions, the kernel runs the tracer's (exit $rc: $(cat "$out/view.out"))" [ "$rc" -eq 0 ]
run vfork 0
check "a vforked child's signal() and _exit() leave the parent alone (exit $rc, wrote: '$writes': $(cat "$out/vfork.out"))" \
  [ "$rc" -eq 0 -a -z "$writes" ]
run fork 0
check "a forked child killed by SIGTERM writes nothing (exit $rc, wrote: '$writes': $(cat "$out/fork.out"))" \
  [ "$rc" -eq 0 -a -z "$writes" ]

echo "endings: $failures failed"
[ "$failures" -eq 0 ]
