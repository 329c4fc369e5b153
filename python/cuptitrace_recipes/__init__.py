"""cuptitrace's recipes: the reports across ranks, with the traces read by Dask tasks.

`cuptitrace recipe NAME TRACE...` runs this package (python3 -m cuptitrace_recipes).
Each task runs `cuptitrace summarize TRACE` where the trace is and returns the
rank's summary (a few totals and 16 bytes per collective); the driver feeds the
summaries, in the order of the traces, to `cuptitrace stats --summaries -`,
which prints the reports. Both steps are the cuptitrace binary's own C++, so
the output is that of `cuptitrace stats` over the same traces.
"""
