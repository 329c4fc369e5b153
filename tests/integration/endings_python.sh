#!/usr/bin/env bash
# A real CPython with the tracer's lifecycle code in a stand-in
# (endings_sink.cpp), loaded from CUDA_INJECTION64_PATH as the driver loads
# the tracer: directly, and through the cuptitrace command (--library).
# Each row checks the exact bytes the program's own streams carry against
# the untraced run, and what "the trace" got.
#   endings_python.sh SINK CUPTITRACE_BIN OUTDIR
set -u
sink=$1 cli=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
py=(python3 "$here/endings_py.py")
rm -rf "$out" && mkdir -p "$out"
set -m
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
# start HOW NAME MODE: plain (untraced), env (CUDA_INJECTION64_PATH) or cmd
# (the cuptitrace command), in the background; sets $pid.
start() {
  local how=$1 name=$2 mode=$3 cmd
  case $how in
    plain) cmd=(env -u CUDA_INJECTION64_PATH "${py[@]}" "$mode") ;;
    env) cmd=(env CUDA_INJECTION64_PATH="$sink" "${py[@]}" "$mode") ;;
    cmd) cmd=("$cli" --library "$sink" -- "${py[@]}" "$mode") ;;
  esac
  ENDINGS_SINK_LOG=$out/$name.log ENDINGS_SINK_WRITE_MS=100 "${cmd[@]}" >"$out/$name.out" 2>"$out/$name.err" </dev/null &
  pid=$!
}
finish() {  # finish NAME: sets $rc and $writes
  wait "$pid"
  rc=$?
  writes=$(cat "$out/$1.log" 2>/dev/null | tr '\n' ' ')
}
same_bytes() { cmp -s "$out/$1.out" "$out/$2.out" && [ ! -s "$out/$2.err" ]; }

for mode in subprocess execvp; do
  start plain "$mode-plain" "$mode"; finish "$mode-plain"
done
check "subprocess untraced: check_output gives $(cat "$out/subprocess-plain.out") (exit $rc)" \
  [ "$(cat "$out/subprocess-plain.out")" = "b'hello\\n'" ]
check "execvp untraced: echo ran ($(cat "$out/execvp-plain.out"))" [ "$(cat "$out/execvp-plain.out")" = "exec'd" ]
for how in env cmd; do
  start "$how" "subprocess-$how" subprocess; finish "subprocess-$how"
  check "subprocess, PATH with 3 misses ($how): the same bytes, nothing on stderr ($(cat "$out/subprocess-$how.out"); exit $rc; wrote: $writes)" \
    same_bytes subprocess-plain "subprocess-$how"
  check "subprocess ($how): the children wrote nothing, os._exit wrote once" \
    [ "$rc" -eq 0 -a "$writes" = "wrote exit-call _exit durable " ]
  start "$how" "execvp-$how" execvp; finish "execvp-$how"
  check "os.execvp, PATH with 3 misses ($how): the misses finalize nothing, the hit writes once (exit $rc; wrote: $writes)" \
    [ "$rc" -eq 0 -a "$writes" = "wrote exec execv durable " ]
  check "os.execvp ($how): the same bytes, nothing on stderr" same_bytes execvp-plain "execvp-$how"

  start "$how" "os_exit-$how" os_exit; finish "os_exit-$how"
  check "os._exit(4) ($how): written before the end (exit $rc; wrote: $writes)" \
    [ "$rc" -eq 4 -a "$writes" = "wrote exit-call _exit durable " ]

  # Ctrl-C as a terminal sends it: the process, then its whole group.
  start "$how" "sigint-$how" sleep
  for _ in $(seq 200); do grep -q '^READY' "$out/sigint-$how.out" && break; sleep 0.05; done
  kill -s INT "$pid"
  kill -s INT -- "-$pid"
  finish "sigint-$how"
  check "KeyboardInterrupt, re-raised by CPython ($how): one write, killed by SIGINT (exit $rc; wrote: $writes)" \
    [ "$rc" -eq 130 -a "$writes" = "wrote signal 2 durable " ]
  check "KeyboardInterrupt ($how): the traceback as untraced" grep -q "^KeyboardInterrupt" "$out/sigint-$how.err"
done

echo "endings_python: $failures failed"
[ "$failures" -eq 0 ]
