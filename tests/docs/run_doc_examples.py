"""Runs every command the docs show, and checks the output they show.

A runnable example is a fenced block whose info string is `console doc-test`
(runs without a GPU) or `console doc-test-gpu` (on a GPU machine). Each line
starting with `$ ` is a command (a trailing backslash continues it); the lines
after it, up to the next command, are its expected output: each must appear in
the actual output (stdout and stderr together), in order, where whitespace
matches any whitespace and every number any number; `...` may stand anywhere.
Every command must exit 0.

    run_doc_examples.py --cli CUPTITRACE --fixtures DIR [--gpu] FILE.md...

--fixtures: a directory whose contents are copied into each block's fresh
working directory (train.native, ranks/... for doc-test; train.py for
doc-test-gpu). Exits 0 when every example passed, 1 otherwise, 77 when the
files hold no example of the kind asked for.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*(\S*)\s*(.*)$")
NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*")


class Example:
    def __init__(self, path, line, kind):
        self.path, self.line, self.kind = path, line, kind
        self.steps = []  # [command, [expected lines]]


def parse(path):
    """Every example block of one Markdown file, in order."""
    examples, current, fence = [], None, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(2)
            words = (m.group(3) + " " + m.group(4)).split()
            if words[:1] == ["console"] and len(words) > 1 and words[1] in ("doc-test", "doc-test-gpu"):
                current = Example(path, i + 1, words[1])
        elif fence is not None and line.strip().startswith(fence[0] * len(fence)) and line.strip().strip(fence[0]) == "":
            if current is not None:
                examples.append(current)
            current, fence = None, None
        elif current is not None:
            if line.startswith("$ "):
                command = line[2:]
                while command.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    command = command[:-1] + "\n" + lines[i]
                current.steps.append([command, []])
            elif current.steps and line.strip():
                current.steps[-1][1].append(line)
        i += 1
    return examples


def pattern(shown):
    """A shown output line as a regular expression: numbers and spacing free."""
    parts, last = [], 0
    text = shown.strip()
    for m in NUMBER.finditer(text):
        parts.append(re.escape(text[last:m.start()]))
        parts.append(r"[-+]?\d+(?:[.,]\d+)*")
        last = m.end()
    parts.append(re.escape(text[last:]))
    regex = "".join(parts)
    regex = re.sub(r"(\\\s)+|\s+", r"\\s+", regex)
    return re.compile(regex)


def check_output(expected, actual):
    """None when every expected line appears in order; else the first that does not."""
    lines = actual.split("\n")
    at = 0
    for shown in expected:
        if shown.strip() == "...":
            continue
        p = pattern(shown)
        while at < len(lines) and not p.search(lines[at]):
            at += 1
        if at == len(lines):
            return shown
        at += 1
    return None


def run(example, cli_dir, fixtures, timeout):
    work = tempfile.mkdtemp(prefix="doc-example-")
    try:
        if fixtures:
            for name in os.listdir(fixtures):
                src = os.path.join(fixtures, name)
                (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, os.path.join(work, name))
        env = dict(os.environ, PATH=cli_dir + os.pathsep + os.environ.get("PATH", ""))
        for command, expected in example.steps:
            try:
                done = subprocess.run(["bash", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, timeout=timeout)
            except subprocess.TimeoutExpired:
                return f"`{command}` ran past {timeout} s"
            output = done.stdout.decode("utf-8", "replace")
            if done.returncode != 0:
                return f"`{command}` exited {done.returncode}:\n" + indent(output)
            missing = check_output(expected, output)
            if missing is not None:
                return f"`{command}`: shown output line not found in order:\n    {missing.strip()}\n  actual output:\n" + indent(output)
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def indent(text, limit=40):
    lines = text.rstrip("\n").split("\n")
    cut = lines[:limit] + (["    ..."] if len(lines) > limit else [])
    return "\n".join("    " + l for l in cut)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", required=True, help="the cuptitrace command")
    p.add_argument("--fixtures", default="")
    p.add_argument("--gpu", action="store_true", help="run the doc-test-gpu examples instead")
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    kind = "doc-test-gpu" if a.gpu else "doc-test"
    cli_dir = os.path.dirname(os.path.abspath(a.cli))
    examples = [e for f in a.files for e in parse(f) if e.kind == kind]
    if not examples:
        print(f"doc examples: no {kind} block in {len(a.files)} files")
        return 77
    failed = 0
    for e in examples:
        where = f"{os.path.relpath(e.path)}:{e.line}"
        if not e.steps:
            print(f"FAIL {where}: a {kind} block with no `$ ` command")
            failed += 1
            continue
        error = run(e, cli_dir, a.fixtures, a.timeout)
        if error is None:
            print(f"ok   {where}: {len(e.steps)} command(s)")
        else:
            print(f"FAIL {where}: {error}")
            failed += 1
    print(f"doc examples: {len(examples) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
