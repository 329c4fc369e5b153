#!/usr/bin/env bash
# The HTML page of a launch loop of N records (kernels and their launches),
# built in memory: it must be at most 5 MB, and written in at most LIMIT
# seconds. Usage: loop_size.sh HTML_FIXTURES N PAGE LIMIT_SECONDS
set -euo pipefail
fixtures=$1 records=$2 page=$3 limit=$4
out=$("$fixtures" launch-loop "$records" "$page")
echo "launch loop: $out"
set -- $out
bytes=$4 seconds=$6
[ "$bytes" -le 5242880 ] || { echo "FAIL: the page is $bytes bytes, more than 5 MB"; exit 1; }
awk -v s="$seconds" -v l="$limit" 'BEGIN { exit !(s <= l) }' || { echo "FAIL: written in $seconds s, more than $limit s"; exit 1; }
grep -q '"kind":"trace"' "$page" || { echo "FAIL: no data in the page"; exit 1; }
echo "ok: $bytes bytes (at most 5242880), $seconds s (at most $limit s)"
