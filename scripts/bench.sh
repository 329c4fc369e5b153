#!/usr/bin/env bash
# Overhead on the GPU machine: the launch-bound loop (bench/launch_loop, 200000
# tiny kernels over 4 streams) untraced, under the floor consumer (CUPTI with
# records only counted) and under cuptitrace, with the same activity kinds,
# interleaved, RUNS times each. The same for a PyTorch loop of TORCH_N tiny
# operations (bench/torch_loop.py, injected into python3) when PyTorch with
# CUDA is installed. Reports the medians of the loop's time per launch and of
# the process's wall time, and their ratios. The row cuptitrace_window is a
# long run with a short capture window (CUPTITRACE_CAPTURE=time:300ms+30ms, the
# default kinds): outside the window collection is off, and about 100 ms after
# its end CUPTI is detached, since it keeps part of its per-launch cost on a
# live context while attached. With N=1000000 and the window 1 s in: 1.00-1.01
# against untraced on an H200; a window that never detaches (signal) 1.15-1.18.
# With the default N the window and the 100 ms before the detach weigh more.
# The row cuptitrace_osrt adds the osrt activity (libcuptitrace-osrt.so
# preloaded, its C library wrappers recording) to the default kinds; it is compared with
# floor_default. The *_threads rows run the loop from THREADS host threads at
# once, each on its own stream with an NVTX range around each launch
# (launch_loop threads=T): shared locks on the launching threads show there.
# "paired floor" is the median of per-round ratios to the floor (each round
# runs every row once, close in time), steadier than the ratio of medians
# when the machine's speed drifts between rounds; "paired untraced" is the same
# against the untraced row of the same workload.
# The exit rows measure the delay from the loop's return from main to the end
# of the process (EXIT_N launches: the trace is written in that time), per
# million records of the trace.
# The resnet_* and compile_* rows are training steps of a real program
# (bench/torch_step.py, STEPS timed steps after warm-up): a ResNet-18 step
# (batch 32, 64x64 images, SGD) eager, and a step under
# torch.compile(mode="reduce-overhead") (CUDA graphs) of COMPILE_MODEL (mlp:
# compiles in seconds; resnet18: the same step, far longer to compile; none:
# no compile rows). One process runs both, so each resnet_* run also gives its
# compile_* row. Rows: untraced, floor_default (CUPTI with cuptitrace's default
# kinds: kernels, copies, sets and the lean API set, records only counted),
# cuptitrace_default, cuptitrace_kernel, cuptitrace_all, and profiler
# (torch.profiler, CPU and CUDA, the peer). Their numbers are us per step.
# They run only when ROWS names them (ROWS="resnet", or "compile", or row
# names): ROWS="resnet" RUNS=5 is 30 runs of some 6-15 s each on an H100.
# ROWS="untraced floor_default cuptitrace_default torch" runs only the rows
# named (a word that names no row names those it begins: torch is the three
# PyTorch rows), so that more rounds of the rows that matter fit in the same
# time; EXIT_N=0 leaves out the exit rows.
#   scripts/bench.sh [BUILD]        BUILD defaults to build-gpu; RUNS=5, N=200000, TORCH_N=40000,
#                                   THREADS=32, EXIT_N=1000000, EXIT_FORMATS="json pftrace sqlite"
#                                   (of native pftrace json json.gz sqlite csv), EXIT_PIN= (unpinned),
#                                   ROWS= (all), STEPS=30, COMPILE_MODEL=mlp
set -u
BUILD=${1:-${BUILD:-build-gpu}}
RUNS=${RUNS:-5}
N=${N:-200000}
TORCH_N=${TORCH_N:-40000}
THREADS=${THREADS:-32}
STEPS=${STEPS:-30}
COMPILE_MODEL=${COMPILE_MODEL:-mlp}
# Every run on the same few cores, so that where the scheduler puts a run does
# not weigh more than what is measured. PIN= runs unpinned.
PIN=${PIN-taskset -c 2-7}
loop=$BUILD/bench/launch_loop
floor=$BUILD/bench/libfloor_consumer.so
lib=$BUILD/injection/libcuptitrace.so
osrtlib=$BUILD/injection/libcuptitrace-osrt.so
out=${OUT:-/tmp}/bench
hook=$(cd "$(dirname "$0")/../python/cuptitrace_pyhook" && pwd)
mkdir -p "$out"
for f in "$loop" "$floor" "$lib" "$osrtlib"; do
  [ -e "$f" ] || { echo "bench: $f is missing (build targets launch_loop floor_consumer cuptitrace_injection)" >&2; exit 2; }
done

# name -> environment for the run
declare -A envs=(
  [untraced]=""
  [floor_kernel]="CUDA_INJECTION64_PATH=$floor FLOOR_KINDS=kernel"
  [cuptitrace_kernel]="CUDA_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=kernel CUPTITRACE_SUMMARY=none"
  [floor_default]="CUDA_INJECTION64_PATH=$floor FLOOR_KINDS=kernel,memcpy,memset,api"
  [cuptitrace_default]="CUDA_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,api CUPTITRACE_SUMMARY=none"
  [floor_runtime]="CUDA_INJECTION64_PATH=$floor FLOOR_KINDS=kernel,memcpy,memset,runtime"
  [cuptitrace_runtime]="CUDA_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,runtime CUPTITRACE_SUMMARY=none"
  [floor_all]="CUDA_INJECTION64_PATH=$floor FLOOR_KINDS=kernel,memcpy,memset,runtime,driver"
  [cuptitrace_all]="CUDA_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=all CUPTITRACE_SUMMARY=none"
  [cuptitrace_window]="CUDA_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,api CUPTITRACE_SUMMARY=none CUPTITRACE_CAPTURE=time:300ms+30ms"
  [cuptitrace_osrt]="LD_PRELOAD=$osrtlib CUDA_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,api,osrt CUPTITRACE_SUMMARY=none"
  [cuptitrace_gpu_metrics]="CUDA_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,api,gpu_metrics CUPTITRACE_SUMMARY=none"
  [cuptitrace_pytorch_ops]="CUDA_INJECTION64_PATH=$lib NVTX_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,api,nvtx CUPTITRACE_SUMMARY=none CUPTITRACE_PYTORCH=ops PYTHONPATH=$hook"
  [cuptitrace_python_backtrace]="CUDA_INJECTION64_PATH=$lib NVTX_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,api,nvtx CUPTITRACE_SUMMARY=none CUPTITRACE_PYTHON_BACKTRACE=on PYTHONPATH=$hook"
  [untraced_threads]=""
  [floor_threads]="CUDA_INJECTION64_PATH=$floor FLOOR_KINDS=kernel,memcpy,memset,api"
  [cuptitrace_threads]="CUDA_INJECTION64_PATH=$lib NVTX_INJECTION64_PATH=$lib CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,api,nvtx CUPTITRACE_SUMMARY=none"
)
order=(untraced floor_kernel cuptitrace_kernel floor_default cuptitrace_default floor_runtime cuptitrace_runtime
       floor_all cuptitrace_all cuptitrace_window cuptitrace_osrt cuptitrace_gpu_metrics untraced_threads floor_threads
       cuptitrace_threads)
# name -> command; every run not named here is the launch loop
declare -A cmds=()
# name -> the row whose run prints this row's time too (it is not run itself)
declare -A derived=()
# cuptitrace_pytorch_ops and cuptitrace_python_backtrace: the Python start-up hook (--pytorch ops,
# --python-backtrace) on top of the default kinds and NVTX; PyTorch steps only.
model_row_names="untraced floor_default cuptitrace_default cuptitrace_kernel cuptitrace_all cuptitrace_gpu_metrics profiler cuptitrace_pytorch_ops cuptitrace_python_backtrace"
for name in untraced_threads floor_threads cuptitrace_threads; do cmds[$name]="$loop $N threads=$THREADS"; done
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  torch_loop="python3 $(dirname "$0")/../bench/torch_loop.py $TORCH_N"
  envs[torch_untraced]=""
  envs[torch_floor_default]="${envs[floor_default]}"
  envs[torch_cuptitrace_default]="${envs[cuptitrace_default]}"
  for name in torch_untraced torch_floor_default torch_cuptitrace_default; do
    cmds[$name]=$torch_loop
    order+=("$name")
  done
  # Training steps, only when ROWS names them (they take minutes): each
  # resnet_* run prints its compile_* row's step time too.
  case " ${ROWS:-} " in *resnet*|*compile*) model_rows=1 ;; *) model_rows=0 ;; esac
  torch_step="python3 $(dirname "$0")/../bench/torch_step.py --steps $STEPS --compile-model $COMPILE_MODEL"
  for row in $model_row_names; do
    [ "$model_rows" = 1 ] || break
    envs[resnet_$row]="${envs[$row]-}"
    cmds[resnet_$row]=$torch_step
    order+=("resnet_$row")
  done
  cmds[resnet_profiler]="$torch_step --profiler $out"
  if [ "$COMPILE_MODEL" != none ] && [ "$model_rows" = 1 ]; then
    for row in $model_row_names; do
      envs[compile_$row]=""
      derived[compile_$row]=resnet_$row
      order+=("compile_$row")
    done
  fi
else
  echo "bench: no PyTorch with CUDA here; the PyTorch rows are left out" >&2
fi
ROWS=${ROWS:-}
if [ -n "$ROWS" ]; then
  kept=()
  for name in "${order[@]}"; do
    for want in $ROWS; do
      # a row's own name, or a word that names no row but starts rows' names
      if [ "$name" = "$want" ] || { [ -z "${envs[$want]+set}" ] && [[ $name == "${want}_"* ]]; }; then
        kept+=("$name"); break
      fi
    done
  done
  [ ${#kept[@]} -gt 0 ] || { echo "bench: ROWS=\"$ROWS\" names no row of: ${order[*]}" >&2; exit 2; }
  order=("${kept[@]}")
  # A compile_* row is measured by its resnet_* run, which gives it anyway.
  for row in $model_row_names; do
    name=compile_$row
    [ -n "${derived[$name]-}" ] || continue
    src=${derived[$name]}
    in_order() { printf '%s\n' "${order[@]}" | grep -qx "$1"; }
    if in_order "$name" && ! in_order "$src"; then order+=("$src"); fi
    if in_order "$src" && ! in_order "$name"; then order+=("$name"); fi
  done
fi
has_row() { local n; for n in "${order[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }
declare -A per_launch wall
for run in $(seq "$RUNS"); do
  for name in "${order[@]}"; do
    [ -n "${derived[$name]-}" ] && continue
    rm -f "$out/$name".json "$out/$name".reports.txt
    t0=$(date +%s%N)
    line=$($PIN env ${envs[$name]} CUPTITRACE_OUTPUT="$out/$name" CUPTITRACE_QUIET=1 ${cmds[$name]:-$loop $N} 2>"$out/$name.err")
    t1=$(date +%s%N)
    # launch_loop and torch_loop: "us per launch"; torch_step: "us per step", its compiled step on a line of its own.
    us=$(grep -v ' compiled ' <<<"$line" | sed -n 's/.* \([0-9.]*\) us per \(launch\|step\)$/\1/p' | head -1)
    [ -n "$us" ] || { echo "bench: $name run $run failed: $(tail -2 "$out/$name.err")" >&2; exit 1; }
    per_launch[$name]+="$us "
    wall[$name]+="$(((t1 - t0) / 1000000)) "
    if [[ $name == resnet_* ]] && [ -n "${derived[compile_${name#resnet_}]-}" ]; then
      us=$(sed -n 's/.* compiled .* \([0-9.]*\) us per step$/\1/p' <<<"$line")
      [ -n "$us" ] || { echo "bench: $name run $run printed no compiled step: $(tail -2 "$out/$name.err")" >&2; exit 1; }
      per_launch[compile_${name#resnet_}]+="$us "
    fi
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# Ratio of two rows' samples taken in the same round, one per round: runs of
# one round are close in time, so what drifts on the machine between rounds
# (other work, clocks) cancels out; the median of these is printed too.
paired() {
  local -a a=(${per_launch[$1]}) b=(${per_launch[$2]})
  local i
  for i in "${!a[@]}"; do awk -v x="${a[$i]}" -v y="${b[$i]}" 'BEGIN {printf "%.4f ", x / y}'; done
}
spread=()
printf '\n%-24s %16s %14s %12s %10s %14s %16s\n' run "us/op (med)" "wall ms (med)" "vs untraced" "vs floor" "paired floor" \
  "paired untraced"
for name in "${order[@]}"; do
  case $name in torch_*) base_name=torch_untraced ;;
                resnet_*) base_name=resnet_untraced ;;
                compile_*) base_name=compile_untraced ;;
                *_threads) base_name=untraced_threads ;;
                *) base_name=untraced ;; esac
  m=$(median <<<"${per_launch[$name]}")
  w=-  # a compile_* row has no process of its own
  [ -n "${wall[$name]-}" ] && w=$(median <<<"${wall[$name]}")
  vs_untraced="-"
  vs_untraced_paired="-"
  if has_row "$base_name"; then
    vs_untraced=$(awk -v a="$m" -v b="$(median <<<"${per_launch[$base_name]}")" 'BEGIN {printf "%.3f", a / b}')
    vs_untraced_paired=$(paired "$name" "$base_name" | median | awk '{printf "%.3f", $1}')
  fi
  vs_floor="-"
  vs_floor_paired="-"
  floor_name=${name/cuptitrace_/floor_}
  [ "$name" = cuptitrace_osrt ] && floor_name=floor_default  # the floor has no osrt to record
  # GPU metrics are compared with the default kinds they are added to: its "vs floor" is vs cuptitrace_default.
  case $name in *cuptitrace_gpu_metrics) floor_name=${name/gpu_metrics/default} ;; esac
  has_row "$floor_name" || floor_name=  # left out by ROWS
  case $name in *cuptitrace_window) ;;  # no floor run takes windows
    *cuptitrace_*)
    if [ -n "$floor_name" ]; then
      f=$(median <<<"${per_launch[$floor_name]}")
      vs_floor=$(awk -v a="$m" -v b="$f" 'BEGIN {printf "%.3f", a / b}')
      vs_floor_paired=$(paired "$name" "$floor_name" | median | awk '{printf "%.3f", $1}')
    fi ;;
  esac
  printf '%-24s %16s %14s %12s %10s %14s %16s\n' "$name" "$m" "$w" "$vs_untraced" "$vs_floor" "$vs_floor_paired" \
    "$vs_untraced_paired"
  # The spread behind the paired medians: every round's ratio, sorted.
  [ "$vs_floor_paired" = - ] || spread+=("  $name / $floor_name: $(paired "$name" "$floor_name" | tr ' ' '\n' | grep -v '^$' | sort -g | tr '\n' ' ')")
  [ "$vs_untraced_paired" = - ] || [ "$name" = "$base_name" ] ||
    spread+=("  $name / $base_name: $(paired "$name" "$base_name" | tr ' ' '\n' | grep -v '^$' | sort -g | tr '\n' ' ')")
done
if [ ${#spread[@]} -gt 0 ]; then
  echo "paired ratios, one per round, sorted:"
  printf '%s\n' "${spread[@]}"
fi

# Exit delay: from the loop's return from main (it prints the wall-clock time)
# to the end of the process, for EXIT_N launches with the default kinds,
# writing each of EXIT_FORMATS, with one writer thread (exit_FORMAT_1:
# CUPTITRACE_WRITER_THREADS=1) and with the default (exit_FORMAT: every core
# the run may use; EXIT_PIN, unpinned by default, says which), the two runs of
# a format back to back in each round so that their ratio is paired;
# untraced for what CUDA's own exit takes.
# Records are the trace's kernels and runtime calls, counted in the JSON.
EXIT_N=${EXIT_N:-1000000}
EXIT_FORMATS=${EXIT_FORMATS:-json pftrace sqlite}
EXIT_PIN=${EXIT_PIN-}
[ "$EXIT_N" -gt 0 ] 2>/dev/null || EXIT_N=0
declare -A delay ratios
exit_rows=(exit_untraced)
for f in $EXIT_FORMATS; do exit_rows+=("exit_${f}_1" "exit_$f"); done
[ "$EXIT_N" -gt 0 ] || exit_rows=()
for run in $(seq "$RUNS"); do
  for name in "${exit_rows[@]}"; do
    rm -f "$out/$name".*
    f=${name#exit_}; f=${f%_1}
    case $name in
      exit_untraced) e="" ;;
      *_1) e="${envs[cuptitrace_default]} CUPTITRACE_FORMAT=$f CUPTITRACE_WRITER_THREADS=1" ;;
      *) e="${envs[cuptitrace_default]} CUPTITRACE_FORMAT=$f" ;;
    esac
    line=$($EXIT_PIN env $e CUPTITRACE_OUTPUT="$out/$name" CUPTITRACE_QUIET=1 $loop "$EXIT_N" 2>"$out/$name.err")
    t1=$(date +%s%N)
    at=$(sed -n 's/.*exit at \([0-9]*\) ns/\1/p' <<<"$line")
    [ -n "$at" ] || { echo "bench: $name run $run failed: $(tail -2 "$out/$name.err")" >&2; exit 1; }
    delay[$name]+="$(((t1 - at) / 1000000)) "
    # The pair's ratio: this round's one-thread delay over its all-cores delay.
    case $name in
      exit_untraced|*_1) ;;
      *) one=$(awk '{print $NF}' <<<"${delay[exit_${f}_1]}"); all=$(((t1 - at) / 1000000))
         ratios[$name]+="$(awk -v a="$one" -v b="$all" 'BEGIN {printf "%.2f", b > 0 ? a / b : 0}') " ;;
    esac
  done
done
if [ "$EXIT_N" -gt 0 ]; then
  # Records: from a JSON of the loop when one was written, else from the native trace's size.
  j=$(ls "$out"/exit_json.json "$out"/exit_json_1.json 2>/dev/null | head -1)
  if [ -n "$j" ]; then
    records=$(( $(grep -c '"cat":"kernel"' "$j") + $(grep -c '"cat":"cuda_runtime"' "$j") ))
  else
    records=$((2 * EXIT_N))
  fi
  printf '\n%-20s %16s %12s %16s %16s\n' "exit ($EXIT_N launches)" "delay ms (med)" records "s per M records" \
    "paired 1/all"
  for name in "${exit_rows[@]}"; do
    d=$(median <<<"${delay[$name]}")
    n=$records; [ "$name" = exit_untraced ] && n=0
    # Less the untraced run's delay: what writing the trace adds.
    u=$(median <<<"${delay[exit_untraced]}")
    per=$(awk -v d="$d" -v u="$u" -v n="$n" 'BEGIN {if (n > 0) printf "%.3f", (d - u) / 1000 / (n / 1e6); else print "-"}')
    r=-; [ -n "${ratios[$name]-}" ] && r=$(median <<<"${ratios[$name]}")
    printf '%-20s %16s %12s %16s %16s\n' "$name" "$d" "$n" "$per" "$r"
  done
  echo "exit delay samples (ms):"
  for name in "${exit_rows[@]}"; do echo "  $name: ${delay[$name]}"; done
fi

echo
echo "per-launch samples (us):"
for name in "${order[@]}"; do echo "  $name: ${per_launch[$name]}"; done
grep -h "floor:" "$out"/floor_*.err 2>/dev/null | tail -3
