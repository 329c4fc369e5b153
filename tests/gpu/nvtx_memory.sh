#!/usr/bin/env bash
# NVTX ranges whose messages all differ, under a memory cap: strings and NVTX
# state count against CUPTITRACE_MAX_MEMORY and spill with the records.
#  1. the traced run's peak RSS <= the untraced run's + the cap + 64 MiB;
#  2. its exit line counts every range, and nothing dropped or failed;
#  3. converted to CSV, the trace holds every range once, each with its own
#     message.
#   nvtx_memory.sh SAMPLE_BIN LIBCUPTITRACE CUPTITRACE_BIN OUTDIR [RANGES] [CAP]
# Defaults: 10 million ranges, a 512M cap (CUPTITRACE_MAX_MEMORY's default).
set -u
bin=$1 lib=$2 cli=$3 out=$4 ranges=${5:-10000000} cap=${6:-512M}
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "nvtx_memory: no GPU here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"

# Peak RSS (KiB) of a command, from its own waiting parent: ru_maxrss of children.
peak() {
  python3 -c '
import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "w"), stderr=open(sys.argv[1] + ".err", "w")).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}

read -r rc0 rss0 < <(peak "$out/untraced" "$bin" "$ranges")
start=$(date +%s)
read -r rc1 rss1 < <(peak "$out/traced" env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" \
  CUPTITRACE_MAX_MEMORY="$cap" CUPTITRACE_FORMAT=native CUPTITRACE_SUMMARY=none CUPTITRACE_OUTPUT="$out/trace" \
  "$bin" "$ranges")
echo "== untraced: exit $rc0, peak RSS $((rss0 / 1024)) MiB; traced: exit $rc1, peak RSS $((rss1 / 1024)) MiB, $(( $(date +%s) - start )) s"
echo "== traced stderr:"
cat "$out/traced.err"
if [ "$rc0" = 77 ]; then echo "nvtx_memory: the sample found no GPU: skipped"; exit 77; fi

"$cli" convert "$out/trace.native" --to csv -o "$out/csv" >"$out/convert.out" 2>&1
echo "== convert: exit $? ($(tail -1 "$out/convert.out"))"

python3 - "$out" "$ranges" "$cap" "$rc0" "$rss0" "$rc1" "$rss1" <<'PY'
import csv, re, sys
out, ranges, cap, rc0, rss0, rc1, rss1 = sys.argv[1], int(sys.argv[2]), sys.argv[3], *map(int, sys.argv[4:])
units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
cap_bytes = int(cap[:-1]) * units[cap[-1]] if cap[-1] in units else int(cap)
fails = 0
def check(name, ok, detail):
    global fails
    print(f"{'ok  ' if ok else 'FAIL'} nvtx_memory: {name}: {detail}")
    fails += 0 if ok else 1

check("exit status", rc0 == 0 and rc1 == 0, f"untraced {rc0}, traced {rc1}")
limit = rss0 * 1024 + cap_bytes + (64 << 20)
check("peak RSS", rss1 * 1024 <= limit,
      f"traced {rss1 >> 10} MiB <= untraced {rss0 >> 10} MiB + cap {cap_bytes >> 20} MiB + 64 MiB = {limit >> 20} MiB")
err = open(out + "/traced.err").read()
line = [l for l in err.splitlines() if l.startswith("cuptitrace: wrote")]
nvtx = re.search(r"\bnvtx (\d+)", line[-1]) if line else None
dropped = re.search(r"dropped (\d+)", line[-1]) if line else None
check("exit line", bool(line), line[-1] if line else "no 'cuptitrace: wrote' line on stderr")
check("ranges counted", nvtx is not None and int(nvtx.group(1)) == ranges,
      f"expected {ranges}, exit line says {nvtx.group(1) if nvtx else None}")
check("dropped", dropped is not None and int(dropped.group(1)) == 0, f"{dropped.group(1) if dropped else None}")
check("no failure", "failed:" not in (line[-1] if line else ""), "no fault boundary tripped")

# Every range once, with its own message (the sample's format).
seen = bytearray(ranges)
rows = wrong = 0
pattern = re.compile(r"aten::linear step=(\d+) input=\[(\d+), 4096\] weight=\[4096, 4096\]")
try:
    with open(out + "/csv.nvtx.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["type"] != "PushPop":
                continue
            rows += 1
            m = pattern.fullmatch(row["message"])
            step = int(m.group(1)) if m else -1
            if not m or step >= ranges or int(m.group(2)) != step % 512 + 1 or seen[step]:
                wrong += 1
                if wrong <= 3:
                    print("   unexpected message:", row["message"][:120])
                continue
            seen[step] = 1
except OSError as e:
    check("CSV readable", False, repr(e))
check("ranges in the trace", rows == ranges, f"expected {ranges}, CSV has {rows}")
check("messages", wrong == 0 and all(seen), f"{wrong} wrong, {ranges - sum(seen)} missing")
sys.exit(1 if fails else 0)
PY
