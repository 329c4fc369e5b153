#!/usr/bin/env bash
# Writes docs/configuration.md from the configuration table in the code
# (core/config.cpp), through `cuptitrace --env-markdown`. A unit test fails when
# the page and the table differ: run this after changing a variable.
#   scripts/gen-config-doc.sh [CUPTITRACE]   default: build/cli/cuptitrace
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/cli/cuptitrace}
{
  cat <<'HEAD'
# Configuration reference

*Which variables and flags does cuptitrace take, what do they default to, and what values do
they accept?*

Every setting is an environment variable `CUPTITRACE_*`, read by the library in the traced
process; the `cuptitrace` command's flags only set those variables, so the two never disagree.
A bad value is never fatal to the program: one line names the variable, the value and what is
accepted, and the default is used. An unknown `CUPTITRACE_*` variable gets a warning (a typo).
The effective configuration is written into the trace's metadata.

This page is generated from the configuration table in the code (`core/config.cpp`) by
`scripts/gen-config-doc.sh` (`cuptitrace --env-markdown`); a unit test fails when they differ.

HEAD
  "$cli" --env-markdown
} >docs/configuration.md
echo "gen-config-doc: wrote docs/configuration.md"
