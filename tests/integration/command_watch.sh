#!/usr/bin/env bash
# A program that never starts CUDA is not traced in silence: the process the
# cuptitrace command started says so in one line at its exit; the processes it
# starts do not (they never load the watch library), and --quiet silences it.
#   command_watch.sh LIBCUPTITRACE_WATCH CUPTITRACE_BIN
set -u
watch=$1 cli=$2
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The library alone, as the command sets it up: its pid, then exec.
# (bash: dash ends with _exit(), which runs no exit handlers at all.)
bash -c 'CUPTITRACE_COMMAND_PID=$$ LD_PRELOAD='"$watch"' exec bash -c "/bin/true; echo children see: \$(env | grep -c -E \"^(LD_PRELOAD|CUPTITRACE_COMMAND_PID)=\")"' \
  >"$out/alone.out" 2>"$out/alone.err"
cat "$out/alone.out" "$out/alone.err"
check "the started process says it never used CUDA" grep -q "^cuptitrace: bash (pid [0-9]*) never used CUDA: nothing to trace$" "$out/alone.err"
check "one line: its child said nothing" [ "$(grep -c 'never used CUDA' "$out/alone.err")" -eq 1 ]
check "the library left LD_PRELOAD and the pid variable: its children see neither" grep -q "^children see: 0$" "$out/alone.out"

# Another process (not the command's pid) stays silent.
CUPTITRACE_COMMAND_PID=1 LD_PRELOAD="$watch" /bin/true 2>"$out/other.err"
check "a process the command did not start says nothing" [ ! -s "$out/other.err" ]

# Through the command: a program that never uses CUDA; and with --quiet.
(cd "$out" && "$cli" -- /bin/true >"$out/cli.out" 2>"$out/cli.err")
rc=$?
cat "$out/cli.err"
check "cuptitrace -- /bin/true: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "cuptitrace -- /bin/true: one line says nothing was traced" grep -q "^cuptitrace: true (pid [0-9]*) never used CUDA: nothing to trace$" "$out/cli.err"
check "cuptitrace -- /bin/true: no trace file" [ -z "$(ls "$out" | grep -v -e '\.out$' -e '\.err$')" ]
"$cli" --quiet -- /bin/true 2>"$out/quiet.err"
check "cuptitrace --quiet -- /bin/true: nothing said" [ ! -s "$out/quiet.err" ]
"$cli" -- sh -c 'exit 7' 2>/dev/null
check "the program's exit code is kept" [ $? -eq 7 ]

echo "command_watch: $failures failed"
[ "$failures" -eq 0 ]
