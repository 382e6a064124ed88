#!/usr/bin/env python3
"""pair.py - the tree that lands against the one before, round by round.

Reads the bench outputs of this folder's calls ("### <variant> <round>"
then gpu-aes-bench's table), pairs each variant's row with base's of the
same round, size and algorithm, and prints per call and size: requests
per second and host CPU per request (all threads) as ratios to base
(median and range over the rounds and algorithms), the core thread's CPU
per request, and the copy bounds of the same rounds.

usage: pair.py [FOLDER]   (default: this script's folder)
"""
import os
import re
import statistics
import sys
from collections import defaultdict

FILES = ["1-abc/bench.txt", "2-openssl-stages/ab.txt", "3-copy-out-nt/ab.txt",
         "3-copy-out-nt/bulk.txt", "4-final/ab.txt"]
ROW = re.compile(r"^(helper|copy-floor|copy-all)\s+(\S+(?: memcpy)?)\s+(\d+)"
                 r"\s+([\d.]+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)")
CORE = re.compile(r"^\s+helper (\S+) (\d+): host CPU per request by thread "
                  r"\(us\): submit ([\d.]+) core ([\d.]+)")


def parse(path):
    """{(variant, round): {(path, alg, size): (gbps, rps, us, s_gb, core)}}"""
    runs = defaultdict(dict)
    key = None
    summary = False
    for line in open(path):
        if line.startswith("### "):
            v, r = line.split()[1:3]
            key = (v, re.sub(r"^\D*", "", r) or r)
            summary = False
            continue
        if line.startswith("# summary"):
            summary = True
            continue
        m = CORE.match(line)
        if m and key and not summary:
            k = ("helper", m.group(1), int(m.group(2)))
            if k in runs[key]:
                runs[key][k] = runs[key][k][:4] + (float(m.group(4)),)
            continue
        m = ROW.match(line)
        if m and key and not summary:
            k = (m.group(1), m.group(2), int(m.group(3)))
            runs[key][k] = (float(m.group(4)), float(m.group(5)),
                            float(m.group(6)), float(m.group(7)), None)
    return runs


def rng(xs):
    return "%.3f (%.3f-%.3f)" % (statistics.median(xs), min(xs), max(xs))


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    for f in FILES:
        runs = parse(os.path.join(here, f))
        variants = sorted({v for v, _ in runs} - {"base"})
        sizes = sorted({k[2] for r in runs.values() for k in r
                        if k[0] == "helper"})
        print("## %s" % f)
        for size in sizes:
            for v in variants:
                rps, us, core_b, core_v = [], [], [], []
                for (vv, rnd), rows in runs.items():
                    if vv != v or ("base", rnd) not in runs:
                        continue
                    base = runs[("base", rnd)]
                    for k, x in rows.items():
                        if k[0] != "helper" or k[2] != size or k not in base:
                            continue
                        b = base[k]
                        rps.append(x[1] / b[1])
                        us.append(x[2] / b[2])
                        if x[4] is not None and b[4] is not None:
                            core_v.append(x[4])
                            core_b.append(b[4])
                if not rps:
                    continue
                print("%7d %-5s / base, %d pairs: req/s %s, host CPU/req %s"
                      % (size, v, len(rps), rng(rps), rng(us)))
                if core_v:
                    print("%7s core thread us/req: base %.3f-%.3f, %s %.3f-%.3f"
                          % ("", min(core_b), max(core_b), v, min(core_v),
                             max(core_v)))
            for p in ("copy-floor", "copy-all"):
                xs = [rows[k][2] for rows in runs.values() for k in rows
                      if k[0] == p and k[2] == size]
                if xs:
                    print("%7s %s us/req: %.2f-%.2f" % ("", p, min(xs),
                                                         max(xs)))
            ring = [rows[k][2] for (v, _), rows in runs.items()
                    for k in rows if k[0] == "helper" and k[2] == size and
                    v in ("new", "new1")]
            gbps = [rows[k][0] for (v, _), rows in runs.items()
                    for k in rows if k[0] == "helper" and k[2] == size and
                    v in ("new", "new1")]
            if ring:
                print("%7s the tree that lands: %.2f-%.2f us/req, %.1f-%.1f GB/s"
                      % ("", min(ring), max(ring), min(gbps), max(gbps)))
        print()


if __name__ == "__main__":
    main()
