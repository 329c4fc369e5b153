"""Kernels in a Chrome JSON trace: all of them, and those whose name holds a word.

    count_kernels.py TRACE.json [WORD]   prints "ALL MATCHING", or "-1 -1" when unreadable
"""
import json
import sys

try:
    events = json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
except Exception:
    print("-1 -1")
    sys.exit()
word = sys.argv[2] if len(sys.argv) > 2 else ""
kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
print(len(kernels), sum(1 for e in kernels if word in e.get("name", "")))
