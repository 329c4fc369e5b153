#!/usr/bin/env bash
# Tracing cost on a real training step, measured inside each process: the
# ResNet-18 step (and the torch.compile(mode="reduce-overhead") step of
# COMPILE_MODEL) of bench/torch_step.py --alternate, whose blocks of steps
# alternate between collection on and off (cudaProfilerStart/Stop). From one
# process to the next the step moves by up to 30% on a shared host, far more
# than the few percent being judged; inside one process, pairs of blocks a few
# milliseconds apart see the same machine.
#
# Rows, each a process per round, RUNS rounds:
#   untraced            no tracer: on and off are the same state, so its
#                       on/off shows how steady the comparison is (1.00 +- noise)
#   floor_kernel        CUPTI alone (bench/floor_consumer, records only counted),
#   floor_default       kernel kind, or cuptitrace's default kinds, on in the "on" blocks
#   cuptitrace_kernel   cuptitrace with CUPTITRACE_CAPTURE=profiler, kernel kind,
#   cuptitrace_default  or the default kinds (kernel, memcpy, memset, lean API set)
#   cuptitrace_gpu_metrics  the default kinds and GPU metrics (sampled only inside
#                       the windows): its on/off over cuptitrace_default's of the
#                       same round ("vs default") is what --gpu-metrics costs
# What "off" is: CUPTI attached with no activity kind on; with the default kinds
# the lean API set stays on in both states (CUPTI records nothing of it once it
# is switched off and on), in the floor as in cuptitrace, so the default rows'
# on/off leaves out the API records' cost, which the process-level rows of
# scripts/bench.sh include.
# Programs: the ResNet-18 step (and the compiled one) of bench/torch_step.py,
# and bench/launch_loop's launches (LAUNCHES of them in PAIRS pairs of blocks;
# LAUNCH_ARGS=work=W makes each kernel W FMAs long on every SM, so that the
# loop is bound by the GPU);
# PROGRAMS="torch launch" (the default) or either alone.
# Printed per row: the medians over rounds of the step on and off and of the
# process's own on/off (the median of its pairs), and for a cuptitrace row its
# on/off over the floor's of the same round ("vs floor": what cuptitrace adds
# to CUPTI's own cost), the median of the rounds' ratios, and every round's.
#   scripts/bench-alternate.sh [BUILD]   BUILD defaults to build-gpu; RUNS=5, PAIRS=20,
#                                        BLOCK=5, COMPILE_MODEL=mlp (none: ResNet only),
#                                        ROWS= (all), PROGRAMS="torch launch",
#                                        LAUNCHES=4000000
set -u
BUILD=${1:-${BUILD:-build-gpu}}
RUNS=${RUNS:-5}
PAIRS=${PAIRS:-20}
BLOCK=${BLOCK:-5}
COMPILE_MODEL=${COMPILE_MODEL:-mlp}
PROGRAMS=${PROGRAMS:-torch launch}
LAUNCHES=${LAUNCHES:-4000000}
PIN=${PIN-taskset -c 2-7}
floor=$BUILD/bench/libfloor_consumer.so
lib=$BUILD/injection/libcuptitrace.so
out=${OUT:-/tmp}/bench-alternate
mkdir -p "$out"
for f in "$floor" "$lib"; do
  [ -e "$f" ] || { echo "bench-alternate: $f is missing (build floor_consumer cuptitrace_injection)" >&2; exit 2; }
done
if [[ " $PROGRAMS " == *" torch "* ]]; then
  python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
    { echo "bench-alternate: needs PyTorch with CUDA" >&2; exit 77; }
fi
if [[ " $PROGRAMS " == *" launch "* ]] && [ ! -x "$BUILD/bench/launch_loop" ]; then
  echo "bench-alternate: $BUILD/bench/launch_loop is missing (build launch_loop)" >&2; exit 2
fi

ct="CUDA_INJECTION64_PATH=$lib CUPTITRACE_CAPTURE=profiler CUPTITRACE_SUMMARY=none"
declare -A envs=(
  [untraced]=""
  [floor_kernel]="CUDA_INJECTION64_PATH=$floor FLOOR_CAPTURE=profiler FLOOR_KINDS=kernel"
  [cuptitrace_kernel]="$ct CUPTITRACE_ACTIVITIES=kernel"
  [floor_default]="CUDA_INJECTION64_PATH=$floor FLOOR_CAPTURE=profiler FLOOR_KINDS=kernel,memcpy,memset,api"
  [cuptitrace_default]="$ct CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,api"
  [cuptitrace_gpu_metrics]="$ct CUPTITRACE_ACTIVITIES=kernel,memcpy,memset,api,gpu_metrics"
)
order=(untraced floor_kernel cuptitrace_kernel floor_default cuptitrace_default cuptitrace_gpu_metrics)
if [ -n "${ROWS:-}" ]; then
  kept=()
  for name in "${order[@]}"; do [[ " $ROWS " == *" $name "* ]] && kept+=("$name"); done
  [ ${#kept[@]} -gt 0 ] || { echo "bench-alternate: ROWS=\"$ROWS\" names no row of: ${order[*]}" >&2; exit 2; }
  order=("${kept[@]}")
fi
steps=()
if [[ " $PROGRAMS " == *" torch "* ]]; then
  steps+=(resnet18)
  [ "$COMPILE_MODEL" = none ] || steps+=("$COMPILE_MODEL compiled")
fi
[[ " $PROGRAMS " == *" launch "* ]] && steps+=("launch loop")
torch_cmd="python3 $(dirname "$0")/../bench/torch_step.py --alternate $PAIRS --block $BLOCK --compile-model $COMPILE_MODEL"
launch_cmd="$BUILD/bench/launch_loop $LAUNCHES alternate=$PAIRS ${LAUNCH_ARGS:-}"

# "<row>|<step>" -> space-separated samples, one per round
declare -A on off ratio
for run in $(seq "$RUNS"); do
  for name in "${order[@]}"; do
    lines=""
    for program in $PROGRAMS; do
      cmd=$torch_cmd
      [ "$program" = launch ] && cmd=$launch_cmd
      rm -rf "$out/$name".*
      lines+=$($PIN env ${envs[$name]} CUPTITRACE_OUTPUT="$out/$name" CUPTITRACE_QUIET=1 $cmd 2>"$out/$name.err")$'\n'
    done
    for step in "${steps[@]}"; do
      if [ "$step" = "launch loop" ]; then
        line=$(grep "launch_loop: alternate" <<<"$lines")
      else
        line=$(grep "torch_step: $step alternate" <<<"$lines")
        [[ $step == *compiled* ]] || line=$(grep -v ' compiled ' <<<"$line")
      fi
      read -r a b r < <(sed -n 's/.* on \([0-9.]*\) us, off \([0-9.]*\) us per [a-z]*, on\/off \([0-9.]*\)$/\1 \2 \3/p' <<<"$line")
      [ -n "${r:-}" ] || { echo "bench-alternate: $name ($step) run $run failed: $(tail -2 "$out/$name.err")" >&2; exit 1; }
      on["$name|$step"]+="$a "
      off["$name|$step"]+="$b "
      ratio["$name|$step"]+="$r "
    done
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# One ratio per round: row x's on/off over row y's of the same round.
paired() {
  local -a a=(${ratio[$1]}) b=(${ratio[$2]})
  local i
  for i in "${!a[@]}"; do awk -v x="${a[$i]}" -v y="${b[$i]}" 'BEGIN {printf "%.4f ", x / y}'; done
}
has_row() { local n; for n in "${order[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }
for step in "${steps[@]}"; do
  unit="$BLOCK steps"
  [ "$step" = "launch loop" ] && unit="$((LAUNCHES / (2 * PAIRS))) launches"
  printf '\n%s, %s pairs of blocks of %s per process, %s rounds\n' "$step" "$PAIRS" "$unit" "$RUNS"
  printf '%-22s %12s %12s %10s %10s   %s\n' row "on us" "off us" "on/off" "vs floor" "rounds (on/off, or vs floor; gpu_metrics: vs default)"
  for name in "${order[@]}"; do
    key="$name|$step"
    vs="-"
    rounds=$(tr ' ' '\n' <<<"${ratio[$key]}" | grep -v '^$' | sort -g | tr '\n' ' ')
    floor_name=${name/cuptitrace_/floor_}
    [ "$name" = cuptitrace_gpu_metrics ] && floor_name=cuptitrace_default
    if [[ $name == cuptitrace_* ]] && has_row "$floor_name"; then
      vs=$(paired "$key" "$floor_name|$step" | median | awk '{printf "%.4f", $1}')
      rounds=$(paired "$key" "$floor_name|$step" | tr ' ' '\n' | grep -v '^$' | sort -g | tr '\n' ' ')
    fi
    printf '%-22s %12.3f %12.3f %10.4f %10s   %s\n' "$name" "$(median <<<"${on[$key]}")" \
      "$(median <<<"${off[$key]}")" "$(median <<<"${ratio[$key]}")" "$vs" "$rounds"
  done
done
