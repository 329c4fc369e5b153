#!/usr/bin/env bash
# Every way a job ends leaves a trace, with the exit status it has untraced.
# Each row runs untraced, then traced through CUDA_INJECTION64_PATH (env) and
# through the cuptitrace command (cmd), on a C++ program (samples/endings,
# busy_threads) and on a PyTorch program (endings.py). Signals are sent the
# way real senders send them: to the process and then to its whole process
# group, microseconds apart (as `timeout` does), by `timeout` itself, and to
# a torchrun job's process group (a terminal's Ctrl-C).
#   endings.sh SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_BIN OUTDIR
set -u
samples=$1 lib=$2 cli=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "endings: no GPU here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
ulimit -c 0
# Job control: each background job is a process group of its own (its pid is
# the group's id), and bash does not start it with SIGINT ignored.
set -m
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
signum() { kill -l "$1" 2>/dev/null; }

# how_to_run HOW PREFIX PROGRAM...: sets $cmd to PROGRAM untraced (plain), traced
# through the environment (env) or through the command (cmd), writing PREFIX.*.
how_to_run() {
  local how=$1 prefix=$2; shift 2
  case $how in
    plain) cmd=("$@") ;;
    env) cmd=(env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_OUTPUT="$prefix"
              CUPTITRACE_FORMAT=json,native "$@") ;;
    cmd) cmd=("$cli" -o "$prefix" --format json,native -- "$@") ;;
  esac
}
# launch HOW NAME PROGRAM...: starts PROGRAM in the background; sets $pid.
launch() {
  local how=$1 name=$2; shift 2
  how_to_run "$how" "$out/$name" "$@"
  "${cmd[@]}" >"$out/$name.out" 2>"$out/$name.err" &
  pid=$!
}
wait_ready() {  # wait_ready NAME [COUNT]: until COUNT lines READY (3 minutes at most)
  local n=${2:-1}
  for _ in $(seq 1800); do
    [ "$(grep -c '^READY' "$out/$1.out" 2>/dev/null)" -ge "$n" ] && return 0
    sleep 0.1
  done
  return 1
}
# What `timeout` does when its time is up: the signal to the program, then to
# its whole process group.
send_twice() { kill -s "$1" "$2" 2>/dev/null; kill -s "$1" -- "-$2" 2>/dev/null; }
finish() {  # finish NAME: waits for $pid, leaves its status in NAME.rc
  wait "$pid"
  echo $? >"$out/$1.rc"
}
rc_of() { cat "$out/$1.rc" 2>/dev/null || echo none; }
# The last count printed before the tracer said it was ending (stdout and
# stderr in one file, in the order written): what had returned by then.
launched_before_signal() {
  awk '/^cuptitrace: SIG/ { exit } /^launched=/ { sub(/^launched=/, ""); n = $1 } END { print n }' "$out/$1.out"
}
last_launched() {  # last_launched NAME [RANK]
  if [ $# -gt 1 ]; then sed -n "s/^launched=\([0-9]*\) rank=$2\$/\1/p" "$out/$1.out" | tail -1
  else sed -n 's/^launched=\([0-9]*\).*/\1/p' "$out/$1.out" | tail -1; fi
}
# row LABEL NAME WANT_RC WORD MIN EXACT: the traced run NAME against the
# untraced status and the expected one; its trace's kernels holding WORD,
# at least MIN of them (exactly MIN when EXACT is 1).
row() {
  local label=$1 name=$2 want=$3 word=$4 min=$5 exact=$6
  local rc counts all matching
  rc=$(rc_of "$name")
  counts=$(python3 "$here/count_kernels.py" "$out/$name.json" "$word")
  all=${counts% *} matching=${counts#* }
  grep -E '^cuptitrace: ' "$out/$name.err" | cut -c1-160 | sed 's/^/     /'
  local ok=1
  [ "$rc" = "$want" ] || ok=0
  if [ "$exact" = 1 ]; then [ "$matching" = "$min" ] || ok=0; else [ "${matching:--1}" -ge "${min:-1}" ] 2>/dev/null || ok=0; fi
  check "$label: exit $rc (want $want); kernels in the trace: $matching '$word' of $all (want $([ "$exact" = 1 ] && echo "$min" || echo ">= $min"))" \
    [ "$ok" = 1 ]
}

# ---- C++: the ways out that need no signal ---------------------------------
for entry in exit:3 _exit:4 Exit:6 quick_exit:7 terminate:134; do
  mode=${entry%%:*} want=${entry#*:}
  launch plain "cxx-$mode-plain" "$samples/endings" "$mode"; finish "cxx-$mode-plain"
  check "c++ $mode untraced: exit $(rc_of "cxx-$mode-plain") (want $want)" [ "$(rc_of "cxx-$mode-plain")" = "$want" ]
  for how in env cmd; do
    launch "$how" "cxx-$mode-$how" "$samples/endings" "$mode"; finish "cxx-$mode-$how"
    row "c++ $mode ($how)" "cxx-$mode-$how" "$want" spin 20 1
  done
done

# ---- C++: signals from outside, sent twice (the process, then its group) ----
# wait: the default action; reraise: a handler of its own, then SIG_DFL and
# raise (installed after CUDA started, or before); read: a handler without
# SA_RESTART must interrupt a blocking read() as it does untraced.
for entry in wait:INT:130 wait:TERM:143 wait:HUP:129 reraise:INT:130 reraise:TERM:143 reraise-early:INT:130 \
  read:INT:8 read-late:INT:8; do
  IFS=: read -r mode sig want <<<"$entry"
  for how in plain env cmd; do
    name=cxx-$mode-$sig-$how
    launch "$how" "$name" "$samples/endings" "$mode"
    wait_ready "$name" || echo "     $name: never ready"
    send_twice "$sig" "$pid"
    finish "$name"
  done
  check "c++ $mode SIG$sig untraced: exit $(rc_of "cxx-$mode-$sig-plain") (want $want)" \
    [ "$(rc_of "cxx-$mode-$sig-plain")" = "$want" ]
  for how in env cmd; do row "c++ $mode, SIG$sig to process and group ($how)" "cxx-$mode-$sig-$how" "$want" spin 20 1; done
done

# ---- C++: endings that reached no trace before ------------------------------
# segv-once: a one-shot SIGSEGV handler (SA_RESETHAND) from before CUDA logs
# and returns: untraced the fault comes back and dumps core. alarm: SIGALRM
# left at its default. execlp: exec through a variadic call.
for entry in segv-once:139 alarm:142 execlp:4; do
  mode=${entry%%:*} want=${entry#*:}
  launch plain "cxx-$mode-plain" "$samples/endings" "$mode"; finish "cxx-$mode-plain"
  check "c++ $mode untraced: exit $(rc_of "cxx-$mode-plain") (want $want)" [ "$(rc_of "cxx-$mode-plain")" = "$want" ]
  for how in env cmd; do
    launch "$how" "cxx-$mode-$how" "$samples/endings" "$mode"; finish "cxx-$mode-$how"
    row "c++ $mode ($how)" "cxx-$mode-$how" "$want" spin 20 1
  done
done
for how in env cmd; do
  ran=$(grep -c "fault handler ran" "$out/cxx-segv-once-$how.err")
  check "c++ segv-once ($how): the one-shot handler ran once ($ran)" [ "$ran" = 1 ]
done
# Slurm's --signal=USR1, LSF's USR2, a real-time signal: to the process and its group.
for sig in USR1 USR2 RTMIN+2; do
  want=$((128 + $(signum "$sig")))
  for how in plain env cmd; do
    name=cxx-wait-$sig-$how
    launch "$how" "$name" "$samples/endings" wait
    wait_ready "$name" || echo "     $name: never ready"
    send_twice "$sig" "$pid"
    finish "$name"
  done
  check "c++ wait SIG$sig untraced: exit $(rc_of "cxx-wait-$sig-plain") (want $want)" [ "$(rc_of "cxx-wait-$sig-plain")" = "$want" ]
  for how in env cmd; do row "c++ wait, SIG$sig to process and group ($how)" "cxx-wait-$sig-$how" "$want" spin 20 1; done
done
# A program piped into head: SIGPIPE on the thread that wrote, which must not go on.
for how in plain env cmd; do
  name=cxx-pipe-$how
  how_to_run "$how" "$out/$name" "$samples/endings" pipe
  "${cmd[@]}" 2>"$out/$name.err" </dev/null | head -c 1000 >"$out/$name.out"
  echo "${PIPESTATUS[0]}" >"$out/$name.rc"
done
check "c++ pipe untraced: exit $(rc_of cxx-pipe-plain) (want 141)" [ "$(rc_of cxx-pipe-plain)" = 141 ]
for how in env cmd; do
  row "c++ pipe into head ($how)" "cxx-pipe-$how" 141 spin 20 1
  check "c++ pipe ($how): the thread that wrote did not go on" bash -c "! grep -q 'write failed' '$out/cxx-pipe-$how.err'"
done

# ---- C++: `timeout` on 8 threads inside CUDA calls --------------------------
for sig in TERM INT; do
  want=$((128 + $(signum "$sig")))
  for how in plain env cmd; do
    name=cxx-timeout-$sig-$how
    how_to_run "$how" "$out/$name" "$samples/busy_threads" 8 60
    timeout --preserve-status -s "$sig" 4 "${cmd[@]}" >"$out/$name.out" 2>&1 &
    pid=$!
    finish "$name"
    cp "$out/$name.out" "$out/$name.err"
  done
  check "c++ timeout -s $sig untraced: exit $(rc_of "cxx-timeout-$sig-plain") (want $want)" \
    [ "$(rc_of "cxx-timeout-$sig-plain")" = "$want" ]
  for how in env cmd; do
    name=cxx-timeout-$sig-$how
    row "c++ timeout -s $sig, 8 threads launching ($how)" "$name" "$want" tick "$(launched_before_signal "$name")" 0
  done
done

# ---- PyTorch ---------------------------------------------------------------
if ! python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "endings: python3 with CUDA-enabled torch not found: the PyTorch rows are skipped"
  echo "endings: $failures failed"
  [ "$failures" -eq 0 ]
  exit
fi
py=(python3 "$here/endings.py")
for entry in return:0 exit:3 exception:1 os_exit:4; do
  mode=${entry%%:*} want=${entry#*:}
  launch plain "py-$mode-plain" "${py[@]}" "$mode"; finish "py-$mode-plain"
  check "python $mode untraced: exit $(rc_of "py-$mode-plain") (want $want)" [ "$(rc_of "py-$mode-plain")" = "$want" ]
  for how in env cmd; do
    launch "$how" "py-$mode-$how" "${py[@]}" "$mode"; finish "py-$mode-$how"
    row "python $mode ($how)" "py-$mode-$how" "$want" add 20 1
  done
done
# subprocess and os.execvp along a PATH with three misses: the program's own
# output, byte for byte as untraced, and no line of ours about an exec.
for mode in subprocess execvp; do
  launch plain "py-$mode-plain" "${py[@]}" "$mode"; finish "py-$mode-plain"
  grep -E "^(OUTPUT|exec'd)" "$out/py-$mode-plain.out" >"$out/py-$mode-plain.own"
  check "python $mode untraced: $(cat "$out/py-$mode-plain.own")" [ -s "$out/py-$mode-plain.own" ]
  for how in env cmd; do
    name=py-$mode-$how
    launch "$how" "$name" "${py[@]}" "$mode"; finish "$name"
    row "python $mode, PATH with misses ($how)" "$name" 0 add 20 1
    grep -E "^(OUTPUT|exec'd)" "$out/$name.out" >"$out/$name.own"
    check "python $mode ($how): its output as untraced ($(cat "$out/$name.own")), no exec line of ours" \
      bash -c "cmp -s '$out/py-$mode-plain.own' '$out/$name.own' && ! grep -q 'exec.*failed' '$out/$name.err'"
  done
done
# os._exit with a journal: sealed (the whole trace on disk) before the outputs.
for how in env cmd; do
  name=py-os_exit-spill-$how
  CUPTITRACE_SPILL=always launch "$how" "$name" "${py[@]}" os_exit; finish "$name"
  row "python os_exit, CUPTITRACE_SPILL=always ($how)" "$name" 4 add 20 1
  check "python os_exit ($how): the journal sealed before the outputs" \
    grep -q "holds the whole trace until the outputs are written" "$out/$name.err"
done
# sleep: SIGINT becomes KeyboardInterrupt; CPython finalizes, sets SIG_DFL and
# raises it again. loop: the same while launching. queue: Ctrl-C must
# interrupt queue.get() as it does untraced.
for entry in sleep:INT:130 sleep:TERM:143 loop:INT:130 loop:TERM:143 queue:INT:9; do
  IFS=: read -r mode sig want <<<"$entry"
  for how in plain env cmd; do
    name=py-$mode-$sig-$how
    launch "$how" "$name" "${py[@]}" "$mode"
    wait_ready "$name" || echo "     $name: never ready"
    [ "$mode" = loop ] && sleep 1
    # The program goes on launching while the trace is written: the trace
    # holds at least what had returned when the signal went.
    last_launched "$name" >"$out/$name.before"
    send_twice "$sig" "$pid"
    finish "$name"
  done
  check "python $mode SIG$sig untraced: exit $(rc_of "py-$mode-$sig-plain") (want $want)" \
    [ "$(rc_of "py-$mode-$sig-plain")" = "$want" ]
  for how in env cmd; do
    name=py-$mode-$sig-$how
    if [ "$mode" = loop ]; then min=$(cat "$out/$name.before") exact=0; else min=20 exact=1; fi
    row "python $mode, SIG$sig to process and group ($how)" "$name" "$want" add "$min" "$exact"
  done
done
# timeout -s INT on a launch loop (Ctrl-C after 25 s, torch's start included).
for how in plain env cmd; do
  name=py-timeout-$how
  how_to_run "$how" "$out/$name" "${py[@]}" loop
  timeout --preserve-status -s INT 25 "${cmd[@]}" >"$out/$name.out" 2>&1 &
  pid=$!
  finish "$name"
  cp "$out/$name.out" "$out/$name.err"
done
check "python timeout -s INT untraced: exit $(rc_of py-timeout-plain) (want 130)" [ "$(rc_of py-timeout-plain)" = 130 ]
for how in env cmd; do row "python timeout -s INT, launch loop ($how)" "py-timeout-$how" 130 add "$(launched_before_signal "py-timeout-$how")" 0; done

# ---- torchrun, two ranks, Ctrl-C to the job's process group -----------------
if ! python3 -c "import torch.distributed.run" 2>/dev/null; then
  echo "endings: torch.distributed.run not found: the torchrun rows are skipped"
else
  tr=(python3 -m torch.distributed.run --standalone --nproc_per_node=2 "$here/endings.py" loop)
  for how in plain env cmd; do
    name=torchrun-$how
    how_to_run "$how" "$out/$name.%r" "${tr[@]}"
    "${cmd[@]}" >"$out/$name.out" 2>"$out/$name.err" &
    pid=$!
    wait_ready "$name" 2 || echo "     $name: never ready"
    sleep 1
    kill -s INT -- "-$pid"  # a terminal's Ctrl-C: every process of the foreground group
    finish "$name"
  done
  plain=$(rc_of torchrun-plain)
  for how in env cmd; do
    check "torchrun Ctrl-C ($how): exit $(rc_of "torchrun-$how"), untraced $plain" [ "$(rc_of "torchrun-$how")" = "$plain" ]
    for rank in 0 1; do
      name=torchrun-$how.$rank
      counts=$(python3 "$here/count_kernels.py" "$out/$name.json" add)
      launched=$(last_launched "torchrun-$how" "$rank")
      check "torchrun Ctrl-C ($how): rank $rank's trace holds ${counts#* } add kernels >= $launched launched" \
        [ "${counts#* }" -ge "${launched:-1}" ]
    done
  done
  grep -E '^cuptitrace: ' "$out"/torchrun-env.err | cut -c1-160 | sed 's/^/     /'
fi

echo "endings: $failures failed"
[ "$failures" -eq 0 ]
