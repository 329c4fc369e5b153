#!/usr/bin/env bash
# The doc example runner itself: a shown line with other numbers and spacing
# matches; a shown line that is not in the output, a command that fails, and
# lines out of order each fail the example.
set -u
runner=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fence='```'
cat >"$dir/good.md" <<MD
${fence}console doc-test
\$ printf 'kernel   12.5 us\nsummary: 3 of 4\n'
kernel 7 us
...
summary: 9 of 9
\$ true
${fence}
MD
printf '%s\n' "${fence}console doc-test" '$ echo hello' 'goodbye' "$fence" >"$dir/missing.md"
printf '%s\n' "${fence}console doc-test" '$ false' "$fence" >"$dir/fails.md"
printf '%s\n' "${fence}console doc-test" '$ printf "b\na\n"' 'a' 'b' "$fence" >"$dir/order.md"
printf '%s\n' "${fence}sh" '$ false' "$fence" >"$dir/plain.md"
failures=0
expect() {  # expect RC FILE
  python3 "$runner" --cli /bin/true "$dir/$2" >"$dir/$2.out" 2>&1
  local rc=$?
  if [ "$rc" -eq "$1" ]; then echo "ok   $2: exit $rc"; else echo "FAIL $2: exit $rc, want $1"; cat "$dir/$2.out"; failures=$((failures + 1)); fi
}
expect 0 good.md
expect 1 missing.md
expect 1 fails.md
expect 1 order.md
expect 77 plain.md
echo "runner self-test: $failures failed"
[ "$failures" -eq 0 ]
