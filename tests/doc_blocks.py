#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doc_blocks.py: the command blocks of README.md and docs/*.md, for
tests/e2e/docs.bats. A fenced block whose info string is empty or a shell
(sh, bash, shell, console) is one a user may copy, and the line right above
its opening fence must say what becomes of it:

    <!-- doc-test: NAME -->      run by docs.bats' test "doc block NAME"
    <!-- doc-skip: REASON -->    not run, and why (needs Slurm, a hardware
                                 PMU, is sample output, ...)

Blocks in other languages (c, json, python, cmake ...) are code or data to
read, not commands: they need no mark.

    doc_blocks.py check FILE...        each unmarked block as FILE:LINE; exit 1 if any
    doc_blocks.py list FILE...         every mark: "test NAME FILE:LINE" or "skip FILE:LINE: REASON"
    doc_blocks.py script NAME FILE...  the block NAME as a shell script (below)

The script: in a block written as a session ("$ command" lines, the others
its output) the commands only, with their continuation lines (after a
trailing backslash, or while a quote is open); else the
block whole. Installed paths become the build's: /usr/local/lib/ and
/usr/local/bin/ the directory in $DOC_BUILD, /usr/local/include the
one in $DOC_SRC; the rest of the block runs as written, in a
directory docs.bats makes to look like the source tree (build/, include/,
examples/ and tests/ linked to the real ones), where the doc's ./app is a
program the test chooses.
"""
import re
import shlex
import sys

COMMAND_INFO = {"", "sh", "bash", "shell", "console"}
FENCE = re.compile(r"^\s*```\s*(\S*)")
MARK = re.compile(r"^<!-- doc-(test|skip): (.+?) -->$")
INSTALLED = [
    ("/usr/local/lib/", "$DOC_BUILD/"),
    ("/usr/local/bin/", "$DOC_BUILD/"),
    ("/usr/local/include", "$DOC_SRC/include"),
]


def blocks(path):
    """(line of the opening fence, info string, mark or None, body lines) of each block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, info = i, m.group(1)
        i += 1
        body = []
        while i < len(lines) and not FENCE.match(lines[i]):
            body.append(lines[i])
            i += 1
        mark = MARK.match(lines[start - 1].strip()) if start > 0 else None
        yield start + 1, info, mark, body
        i += 1


def command_blocks(paths):
    for path in paths:
        for line, info, mark, body in blocks(path):
            if info in COMMAND_INFO:
                yield path, line, mark, body


def complete(command):
    """False while a quote of @command is still open (a jq program over lines)."""
    try:
        shlex.split(command, comments=True)
        return True
    except ValueError:
        return False


def script(body):
    if not any(l.startswith("$ ") for l in body):
        text = "\n".join(body)
    else:
        out, more = [], False
        for l in body:
            if l.startswith("$ ") or more:
                out.append(l[2:] if l.startswith("$ ") and not more else l)
                more = l.endswith("\\") or not complete("\n".join(out))
        text = "\n".join(out)
    for installed, built in INSTALLED:
        text = text.replace(installed, built)
    return text + "\n"


def main(argv):
    if len(argv) < 3 or argv[1] not in ("check", "list", "script"):
        sys.stderr.write(__doc__)
        return 2
    if argv[1] == "script":
        name, paths = argv[2], argv[3:]
        found = [b for p, l, m, b in command_blocks(paths)
                 if m and m.group(1) == "test" and m.group(2).split()[0] == name]
        if len(found) != 1:
            sys.stderr.write("doc_blocks.py: %d blocks named %s\n" % (len(found), name))
            return 1
        sys.stdout.write(script(found[0]))
        return 0
    unmarked = 0
    for path, line, mark, body in command_blocks(argv[2:]):
        if argv[1] == "check" and not mark:
            print("%s:%d: a command block with no doc-test or doc-skip mark" % (path, line))
            unmarked += 1
        elif argv[1] == "list" and mark and mark.group(1) == "test":
            print("test %s %s:%d" % (mark.group(2).split()[0], path, line))
        elif argv[1] == "list" and mark:
            print("skip %s:%d: %s" % (path, line, mark.group(2)))
    return 1 if unmarked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
