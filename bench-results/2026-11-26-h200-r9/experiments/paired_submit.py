#!/usr/bin/env python3
"""The submitting threads' host CPU per request, auto over dispatch=cpu
(or BASE=ring), paired by round, per point, from gpu-aes-bench --dispatch
text output (the rounds' runs are consecutive: the bench turns the order
of the modes each round).  Usage: paired_submit.py FILE.txt..."""
import os
import re
import statistics as st
import sys

BASE = os.environ.get("BASE", "cpu")
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    points = {}
    for i, line in enumerate(lines[:-1]):
        m = re.match(r"^dispatch-(cpu|auto|ring) +(\S+) .* (\d+) thr/queues",
                     line)
        s = re.search(r"submit ([\d.]+)", lines[i + 1]) if m else None
        if m and s:
            points.setdefault((m.group(2), int(m.group(3))), []).append(
                (m.group(1), float(s.group(1))))
    print("==", path)
    every = []
    for (alg, threads), runs in points.items():
        ratios = []
        for k in range(0, len(runs) - 2, 3):
            r = dict(runs[k:k + 3])
            if r.get("auto") and r.get(BASE):
                ratios.append(r["auto"] / r[BASE])
        every += ratios
        print(f"{alg} {threads:2d} thr: submit auto/{BASE} paired median "
              f"{st.median(ratios):.3f}, above 1 in "
              f"{sum(x > 1 for x in ratios)}/{len(ratios)} rounds")
    print(f"all points: median {st.median(every):.3f}, above 1 in "
          f"{sum(x > 1 for x in every)}/{len(every)} rounds")
