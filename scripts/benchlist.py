#!/usr/bin/env python3
"""The in-guest benchmarks and what they declare, read from their own files.

Adding a benchmark is one file, bench/b_<name>.c or bench/b_<name>.sh, whose
header comment declares its run and its metrics:

    vds-bench: timeout SECONDS
    vds-metric: RESULT KEY higher|lower|info

RESULT and KEY are shell-style patterns matched against the "bench" name and
the keys of the JSON line the benchmark prints; the first declaration that
matches a key decides its direction ("info": reported, never judged better
or worse). A key no declaration matches is reported as undeclared.

    benchlist.py plan [ONLY]   the plan of a bench boot (the share's plan
                               file): "name timeout" a line, by name; ONLY
                               (comma-separated) keeps only those
    benchlist.py check         every benchmark declares a timeout; exit 1
                               and name the ones that do not
"""
import fnmatch
import glob
import os
import re
import sys

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench")
DECL = re.compile(r"vds-(bench|metric):\s*(.*?)\s*(?:\*/)?$")
DIRS = {"higher": 1, "lower": -1, "info": 0}


def benchmarks(bench=BENCH):
    """{name: {"timeout": int or None, "metrics": [(result, key, dir)], "errors": [..]}}"""
    out = {}
    for path in sorted(glob.glob(os.path.join(bench, "b_*.c")) +
                       glob.glob(os.path.join(bench, "b_*.sh"))):
        name = os.path.basename(path)
        if name.endswith(".c"):
            name = name[:-2]
        b = {"timeout": None, "metrics": [], "errors": []}
        for line in open(path, errors="replace"):
            m = DECL.search(line)
            if not m:
                continue
            f = m.group(2).split()
            if m.group(1) == "bench":
                if len(f) == 2 and f[0] == "timeout" and f[1].isdigit() and int(f[1]) > 0:
                    b["timeout"] = int(f[1])
                else:
                    b["errors"].append(f"bad vds-bench line: {line.strip()}")
            elif len(f) == 3 and f[2] in DIRS:
                b["metrics"].append((f[0], f[1], DIRS[f[2]]))
            else:
                b["errors"].append(f"bad vds-metric line: {line.strip()}")
        if b["timeout"] is None:
            b["errors"].append("no \"vds-bench: timeout SECONDS\" line")
        out[name] = b
    return out


def direction(result, key, benches=None):
    """+1 higher is better, -1 lower is better, 0 informational, None undeclared."""
    for b in (benches or benchmarks()).values():
        for r, k, d in b["metrics"]:
            if fnmatch.fnmatchcase(result, r) and fnmatch.fnmatchcase(key, k):
                return d
    return None


def main():
    a = sys.argv[1:]
    if a and a[0] == "plan" and len(a) <= 2:
        only = [x for x in (a[1] if len(a) == 2 else "").split(",") if x]
        bs = benchmarks()
        unknown = [x for x in only if x not in bs]
        if unknown:
            sys.exit(f"benchlist.py: no benchmark named {', '.join(unknown)} "
                     f"(there are: {', '.join(bs)})")
        for name, b in bs.items():
            if (not only or name in only) and b["timeout"]:
                print(name, b["timeout"])
    elif a == ["check"]:
        bad = [f"{n}: {e}" for n, b in benchmarks().items() for e in b["errors"]]
        for e in bad:
            print(e)
        sys.exit(1 if bad else 0)
    else:
        print(__doc__.split("\n\n", 1)[1], file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
