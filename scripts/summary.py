#!/usr/bin/env python3
"""The summary of a run: one JSON file ($RUNDIR/summary.json) with a part
for each thing judged (the host self-tests, deb-check, each guest boot) and
its passed, failed and skipped counts. check.sh and bench.sh add the parts
as the run goes; check.sh prints its last line from it and .ci/run adds up
each pass from it.

    summary.py add SUMMARY NAME PASSED FAILED [SKIPPED]   a named part
    summary.py boot SUMMARY BOOT.json   a boot as verdict.py --json wrote it
    summary.py log SUMMARY BOOT.json    only the boot's guest log point (bench);
                                        prints "clean" or what was wrong
    summary.py total SUMMARY            the skips (points, and tests that skipped
                                        themselves where allowed), if any, then
                                        "N passed, N failed";
                                        exits 1 if anything failed
    summary.py counts SUMMARY           "passed failed skipped", for a script

A part added again replaces the first one. A boot whose JSON is missing or
unreadable counts as one failure. A summary that is missing or not a summary
is an error: one line on stderr and exit 2.
"""
import json
import os
import sys


def fail(msg):
    print(f"summary.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path, missing_ok=False):
    try:
        with open(path) as f:
            s = json.load(f)
    except FileNotFoundError:
        if missing_ok:
            return {"parts": {}}
        fail(f"no summary at {path} (the run stopped before its first result?)")
    except (OSError, ValueError) as e:
        fail(f"{path} is not a readable summary ({e})")
    if not isinstance(s, dict) or not isinstance(s.get("parts"), dict):
        fail(f"{path} is not a summary (no \"parts\")")
    for name, p in s["parts"].items():
        if not all(isinstance(p.get(k), int) for k in ("passed", "failed", "skipped")):
            fail(f"{path}: part {name!r} has no passed/failed/skipped counts")
    return s


def totals(s):
    return [sum(p[k] for p in s["parts"].values()) for k in ("passed", "failed", "skipped")]


def skipped_tests(s):
    """The tests that skipped themselves where the boot allowed it."""
    return [f"{name}:{t['name']}" for name, p in s["parts"].items()
            for t in p.get("tests", []) if isinstance(t, dict) and t.get("status") == "skip"]


def save(path, s, name, part):
    s["parts"][name] = part
    s["passed"], s["failed"], s["skipped"] = totals(s)
    s["skipped_tests"] = len(skipped_tests(s))
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(s, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def read_boot(path):
    """A boot's verdict, or None if verdict.py left none."""
    try:
        with open(path) as f:
            b = json.load(f)
        if all(isinstance(b.get(k), int) for k in ("passed", "failed", "skipped")) and \
                isinstance(b.get("guest_log"), dict):
            return b
    except (OSError, ValueError, AttributeError):
        pass
    return None


def log_said(b):
    """The guest log point in one line: "clean", the first quoted line, or why not."""
    g = b["guest_log"]
    if g.get("clean"):
        return "clean"
    if g.get("quoted"):
        return g["quoted"][0]
    return f"FAIL guest log of {b.get('name', '?')}: {g.get('reason', 'not clean')}"


def main():
    a = sys.argv[1:]
    cmd = a[0] if a else ""
    if cmd == "add" and len(a) in (5, 6):
        path, name = a[1], a[2]
        try:
            n = [int(x) for x in a[3:]] + [0] * (6 - len(a))
        except ValueError:
            n = [-1]
        if min(n) < 0:
            fail(f"add {name}: the counts must be numbers >= 0 (got {' '.join(a[3:])!r})")
        s = load(path, missing_ok=True)
        save(path, s, name, {"passed": n[0], "failed": n[1], "skipped": n[2]})
    elif cmd in ("boot", "log") and len(a) == 3:
        path, bpath = a[1], a[2]
        s = load(path, missing_ok=True)
        b = read_boot(bpath)
        name = b["name"] if b and b.get("name") else os.path.basename(bpath).rsplit(".", 1)[0]
        if b is None:
            part = {"passed": 0, "failed": 1, "skipped": 0,
                    "reason": f"no verdict ({bpath} is missing or unreadable)"}
            said = f"FAIL {name}: {part['reason']}"
        elif cmd == "boot":
            part = b
            said = None
        else:
            clean = bool(b["guest_log"].get("clean"))
            said = log_said(b)
            part = {"passed": int(clean), "failed": int(not clean), "skipped": 0,
                    "guest_log": b["guest_log"], "said": said}
            # bench boots again after a bad log: keep what the first try said.
            old = s["parts"].get(name)
            if old and old.get("said"):
                part["retried"] = old["said"]
        save(path, s, name, part)
        if said:
            print(said)
        if b is None:
            sys.exit(1)
    elif cmd in ("total", "counts") and len(a) == 2:
        s = load(a[1])
        p, f, sk = totals(s)
        if cmd == "counts":
            print(p, f, sk)
            return
        if sk:
            print(f"{sk} point(s) skipped, counted neither passed nor failed")
        st = skipped_tests(s)
        if st:
            print(f"{len(st)} test(s) skipped themselves where they do not apply "
                  f"(counted neither way): {', '.join(st[:6])}{' ...' if len(st) > 6 else ''}")
        print(f"{p} passed, {f} failed")
        sys.exit(1 if f else 0)
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
