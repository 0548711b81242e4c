#!/usr/bin/env python3
"""Check that every hunk of the series can land in exactly one place.

patch(1) and quilt apply a hunk wherever its context matches, searching
outward from the line number it names. If the same lines (context plus
removed lines) appear twice in the file, a tree whose line numbers have
moved (another sublevel of the same kernel) can take the hunk at the wrong place without
any fuzz. For each patch, read the file as it was before that patch (quilt
keeps it in .pc/<patch>/<file>) and count where each hunk's old lines occur.

usage: hunk-unique.py TREE PATCHES_DIR PATCH_LIST  (one patch name per line:
       series-check.sh passes lib.sh's series_patches)
"""
import os
import re
import sys


def hunks(path):
    """Yield (file, line, old_lines) for each hunk of a unified diff."""
    cur = None
    old = None
    line = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            s = raw.rstrip("\n")
            if s.startswith("+++ "):
                cur = s[4:].split("\t")[0]
                cur = cur[2:] if cur.startswith("b/") else cur
                continue
            if s.startswith("--- "):
                if old:
                    yield cur, line, old
                old = None
                continue
            m = re.match(r"@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@", s)
            if m:
                if old:
                    yield cur, line, old
                old = []
                line = int(m.group(1))
                continue
            if old is None:
                continue
            if s.startswith(" ") or s.startswith("-"):
                old.append(s[1:])
            elif s.startswith("+") or s.startswith("\\"):
                pass
            else:
                yield cur, line, old
                old = None
    if old:
        yield cur, line, old


def count(lines, needle):
    k = len(needle)
    return sum(1 for i in range(len(lines) - k + 1) if lines[i:i + k] == needle)


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    tree, pdir, series = sys.argv[1:4]
    bad = checked = 0
    for name in open(series):
        name = name.strip()
        if not name:
            continue
        for f, line, old in hunks(os.path.join(pdir, name)):
            before = os.path.join(tree, ".pc", name, f)
            if not old or not os.path.exists(before) or os.path.getsize(before) == 0:
                continue        # a file this patch creates
            with open(before, encoding="utf-8", errors="replace") as fh:
                text = fh.read().split("\n")
            n = count(text, old)
            checked += 1
            if n != 1:
                bad += 1
                print(f"{name}: {f}: the hunk at line {line} matches {n} places")
    print(f"hunk-unique: {checked} hunks checked, {bad} ambiguous")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
