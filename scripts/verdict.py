#!/usr/bin/env python3
"""Read back one guest boot: the TAP results /init wrote to the second serial
port, and the kernel log of the first. Prints a line per test and, last,
"passed failed" for the caller to add up.

    verdict.py [--may-skip] [--json FILE] NAME RESULTS CONSOLE EXPECTED_TESTS(comma separated, may be empty)

--json FILE also writes the boot's result there, for scripts/summary.py: the
boot's name, each test (passed, failed, skipped points, status, and the
reasons when it failed), the guest log point (clean or not, the quoted
lines) and the boot's totals. Skipped points count neither way; when there
are any, a line before the last says how many.

A test that never reported, exited non-zero, or reported fewer points than
it planned counts as failed. A test that skipped itself as a whole (exit 4
after "1..0 # SKIP why", tap.h's tap_skip_all()) is a skipped test on a boot
given --may-skip (vds=off, where VDS's own tests do not apply) and a
failure elsewhere: on a VDS boot every planned test applies. Any kernel warning, BUG, Oops, lockdep, KASAN or
UBSAN report, RCU stall, lockup or hung task in the console log fails the
"guest log clean" point, quoting the line; a KCSAN report fails it only if
it names VDS code (see kcsan_split()).

A test the guest killed at its timeout left a hang record in the boot's
share ("@@VDS-HANG name record=hang-name.txt" in the results; the share is
RESULTS' folder, NAME.share, next to NAME.results): its failure names the
record's path, and its JSON entry has it as "hang_record".
"""
import argparse
import json
import os
import re
import sys

BAD = re.compile(
    r"WARNING:|BUG:|BUG |Oops|Kernel panic|kernel BUG at|general protection fault|"
    r"UBSAN:|KASAN:|detected stall|self-detected stall|rcu_.*stall|soft lockup|"
    r"hard LOCKUP|blocked for more than|scheduling while atomic|"
    r"Unable to handle|list_add corruption|list_del corruption|"
    r"INFO: possible|INFO: trying to register|invalid opcode|"
    r"segfault at|Call Trace:"
)
# Boot messages that contain a trigger word but are not problems, each with
# its reason. Keep this list short.
ALLOW = [
    # CPU-vulnerability notices printed for QEMU's emulated CPU model.
    re.compile(r"(RETBleed|Spectre|MDS|MMIO Stale|TAA|SRBDS|GDS|RFDS|ITS|BHI|VMSCAPE).*WARNING"),
]


# KCSAN (make check KCSAN=1) reports data races anywhere in the kernel. A
# report whose racing functions are VDS code (a vds_ or _vds function, or
# vds.c, in its title or as the first frame of either access) fails the log
# like any other; one that is not is mainline's business, even when VDS
# code called into it: it is counted and its title printed, and its lines
# do not fail the log.
VDS_CODE = re.compile(r"\bvds_|_vds\b|/vds\.c")
ACCESS = re.compile(r"\b(read|write)\b.* by (task|interrupt)")


def kcsan_split(con):
    """The console without mainline's KCSAN reports, and their titles."""
    keep, other, block = [], [], None
    for l in con:
        if block is None and "BUG: KCSAN:" in l:
            block = [l]
            continue
        if block is not None:
            block.append(l)
            if "=========" in l:
                racers = [block[0]] + [block[i + 1] for i in range(len(block) - 1)
                                       if ACCESS.search(block[i])]
                if any(VDS_CODE.search(b) for b in racers):
                    keep.extend(block)
                else:
                    other.append(block[0].split("BUG: ", 1)[1].strip())
                block = None
            continue
        keep.append(l)
    if block is not None:
        keep.extend(block)
    return keep, other


# What guest-init.sh's run_test names a hang record.
RECORD = re.compile(r"^hang-[A-Za-z0-9._-]+\.txt$")


def share_dir(results, name):
    """The boot's 9p share: NAME.share beside NAME.results."""
    if results.endswith(".results"):
        return results[:-len(".results")] + ".share"
    return os.path.join(os.path.dirname(results), name + ".share")


def hang_note(path, what="killed at its timeout"):
    """A failure reason naming a hang record."""
    return f"{what}; hang record: {path}" + ("" if os.path.exists(path) else " (not found)")


def main():
    ap = argparse.ArgumentParser(description="Read back one guest boot.")
    ap.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    ap.add_argument("--may-skip", action="store_true",
                    help="a test may skip itself as a whole on this boot (exit 4)")
    ap.add_argument("name")
    ap.add_argument("results")
    ap.add_argument("console")
    ap.add_argument("expected", help="the tests the boot must run, comma separated")
    args = ap.parse_args()
    name, results, console = args.name, args.results, args.console
    expected = [t for t in args.expected.split(",") if t]
    passed = failed = skipped = skipped_tests = 0
    out = {"name": name, "boot": None, "tests": [], "done": False}
    try:
        lines = open(results, errors="replace").read().splitlines()
    except OSError:
        lines = []
    boot = [l for l in lines if l.startswith("@@VDS-BOOT")]
    if boot:
        print(f"  {name}: {boot[0][11:]}")
        out["boot"] = boot[0][11:].strip()
    tests = {}
    order = []
    cur = None
    done = False
    for l in lines:
        if l.startswith("@@VDS-TEST-BEGIN "):
            cur = l.split()[1]
            order.append(cur)
            tests[cur] = {"pass": 0, "fail": 0, "skip": 0, "plan": None,
                          "rc": None, "secs": "?", "bad": [], "diag": []}
        elif l.startswith("@@VDS-HANG ") and cur:
            # The guest's watchdog wrote a hang record before the kill.
            f = l.split()
            rec = f[2].partition("=")[2] if len(f) > 2 and f[2].startswith("record=") else ""
            if f[1] == cur and RECORD.match(rec):
                tests[cur]["hang"] = os.path.join(share_dir(results, name), rec)
        elif l.startswith("@@VDS-TEST-RETRY ") and cur:
            # A "retry" test failed once: its second attempt counts.
            first = tests[cur]["bad"] or [f"exited with {l.split()[-1]}"]
            if tests[cur].get("hang"):
                first = [hang_note(tests[cur]["hang"])] + tests[cur]["bad"]
            tests[cur] = {"pass": 0, "fail": 0, "skip": 0, "plan": None,
                          "rc": None, "secs": "?", "bad": [], "diag": [],
                          "retried": first}
        elif l.startswith("@@VDS-TEST-END "):
            f = l.split()
            t = tests.get(f[1])
            if t is not None:
                for kv in f[2:]:
                    k, _, v = kv.partition("=")
                    t[k] = v
            cur = None
        elif l.startswith("@@VDS-DONE"):
            done = True
        elif cur:
            t = tests[cur]
            m = re.match(r"^1\.\.(\d+)", l)
            if m:
                t["plan"] = int(m.group(1))
                w = re.match(r"^1\.\.0\s*#\s*SKIP\s*(.*)", l)
                if w:
                    t["why_skip"] = w.group(1).strip() or None
            elif re.match(r"^ok \d+", l):
                if "# SKIP" in l:
                    t["skip"] += 1
                else:
                    t["pass"] += 1
            elif re.match(r"^not ok \d+", l):
                t["fail"] += 1
                t["bad"].append(l)
            elif l.startswith("#"):
                t["diag"].append(l)
    for name_t in expected:
        if name_t not in tests:
            order.append(name_t)
            tests[name_t] = None
    for tn in order:
        t = tests[tn]
        if t is None:
            failed += 1
            print(f"  FAIL {tn}: never ran (guest stopped before it)")
            out["tests"].append({"name": tn, "passed": 0, "failed": 1, "skipped": 0,
                                 "status": "FAIL", "reason": ["never ran (guest stopped before it)"]})
            continue
        if t["rc"] == "4" and not t["fail"] and not t["pass"]:
            # The test said it does not apply to this boot.
            why = t.get("why_skip")
            if why and args.may_skip:
                skipped_tests += 1
                out["tests"].append({"name": tn, "passed": 0, "failed": 0, "skipped": 0,
                                     "status": "skip", "secs": t["secs"], "why": why})
                print(f"  skip {tn}: {why}")
                continue
            failed += 1
            reason = (f"skipped itself on a boot where every test applies: {why}" if why else
                      "exited 4 (skip) without saying why (no \"1..0 # SKIP why\" line)")
            out["tests"].append({"name": tn, "passed": 0, "failed": 1, "skipped": 0,
                                 "status": "FAIL", "secs": t["secs"], "reason": [reason]})
            print(f"  FAIL {tn}: {reason}")
            continue
        problems = list(t["bad"])
        hang = t.get("hang")
        if t["rc"] is None:
            problems.append("did not finish (guest hung or timed out)")
        elif t["rc"] != "0" and not t["fail"]:
            problems.append(hang_note(hang) if hang and t["rc"] == "137" else
                            f"exited with status {t['rc']}" +
                            (" (killed by the test timeout)" if t["rc"] == "137" else ""))
        elif hang and not t["fail"]:
            # It ended on its own while the guest wrote its record: past
            # its timeout all the same.
            problems.append(hang_note(hang, "ran past its timeout (ended while its record was written)"))
        n = t["pass"] + t["fail"] + t["skip"]
        if t["plan"] is not None and n < t["plan"] and t["rc"] is not None:
            problems.append(f"planned {t['plan']} checks, reported {n}")
        if t["plan"] is None and n == 0:
            problems.append("reported no TAP results")
        # A test whose every point skipped asserted nothing: that is not a
        # pass (it ran where it cannot apply, e.g. an smp8 test below 8
        # vCPUs). A test that does not apply says so as a whole (exit 4).
        if t["skip"] and not t["pass"] and not t["fail"]:
            problems.append(f"every point skipped ({t['skip']}): nothing was asserted")
        extra = len(problems) - len(t["bad"])
        if hang and not any(hang in p for p in problems):
            # Named beside the failures already counted, not counted again.
            problems.append(hang_note(hang))
        passed += t["pass"]
        failed += t["fail"] + (1 if extra > 0 else 0)
        skipped += t["skip"]
        rec = {"name": tn, "passed": t["pass"], "failed": t["fail"] + (1 if extra > 0 else 0),
               "skipped": t["skip"], "status": "FAIL" if problems else "ok", "secs": t["secs"]}
        if problems:
            rec["reason"] = problems
        if t.get("retried"):
            rec["retried"] = t["retried"][:3]
        if t.get("hang"):
            rec["hang_record"] = t["hang"]
        out["tests"].append(rec)
        status = "FAIL" if problems else "ok  "
        skip = f", {t['skip']} skipped" if t["skip"] else ""
        print(f"  {status} {tn}: {t['pass']} passed, {t['fail']} failed{skip} ({t['secs']} s)")
        for r in t.get("retried", [])[:3]:
            print(f"       retried, the first attempt failed: {r}")
        for p in problems:
            print(f"       {p}")
        if problems:
            for d in t["diag"][-6:]:
                print(f"       {d}")
    out["done"] = done
    if not done:
        failed += 1
        print(f"  FAIL {name}: the guest did not finish the run (no @@VDS-DONE)")
    if skipped:
        print(f"  {skipped} point(s) skipped (counted neither passed nor failed)")
    if skipped_tests:
        print(f"  {skipped_tests} test(s) skipped themselves: they do not apply to this boot")
    # The guest log verdict.
    try:
        con = open(console, errors="replace").read().splitlines()
    except OSError:
        con = []
    con, mainline_races = kcsan_split(con)
    if mainline_races:
        print(f"  note: {len(mainline_races)} KCSAN report(s) outside VDS code (not failed), first:")
        for t in mainline_races[:5]:
            print(f"       {t}")
    hits = [l for l in con if BAD.search(l) and not any(a.search(l) for a in ALLOW)]
    glog = {"clean": False, "lines": len(con), "quoted": [h.strip() for h in hits[:5]],
            "bad_lines": len(hits), "kcsan_outside_vds": mainline_races}
    if not con:
        failed += 1
        glog["reason"] = "empty (the kernel did not boot?)"
        print(f"  FAIL guest log of {name}: {glog['reason']}")
    elif hits:
        failed += 1
        glog["reason"] = f"{len(hits)} bad line(s)"
        print(f"  FAIL guest log of {name}: {len(hits)} bad line(s), first:")
        for h in hits[:5]:
            print(f"       {h.strip()}")
    else:
        passed += 1
        glog["clean"] = True
        print(f"  ok   guest log of {name} is clean ({len(con)} lines)")
    print(f"{passed} {failed}")
    if args.json:
        out.update(guest_log=glog, passed=passed, failed=failed, skipped=skipped,
                   skipped_tests=skipped_tests)
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
