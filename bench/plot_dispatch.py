#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Plot the dispatch policies side by side, from gpu-aes-bench JSON
(--dispatch): throughput and host CPU per GB against the number of
submitting threads, dispatch=cpu, ring and auto, one panel pair per
algorithm.  Each point is the run of median throughput of its repeats,
with that run's CPU figure, as gpu-aes-bench itself chooses.

Usage: plot_dispatch.py bench.json out.png [title]"""
import json
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODES = [
    ("dispatch-cpu", "C0", "s", "dispatch=cpu (the CPU driver)"),
    ("dispatch-ring", "C1", "o", "dispatch=ring (the GPU path)"),
    ("dispatch-auto", "C2", "^", "dispatch=auto"),
]


def threads(note):
    m = re.match(r"(\d+) thr", note)
    return int(m.group(1)) if m else 0


def medians(res, path, alg):
    """{threads: the run of median GB/s} for one mode and algorithm."""
    runs = {}
    for r in res:
        if r["path"] == path and r["alg"] == alg:
            runs.setdefault(threads(r["note"]), []).append(r)
    return {n: sorted(rs, key=lambda r: r["gbps"])[len(rs) // 2]
            for n, rs in runs.items() if n}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    res = json.load(open(sys.argv[1]))["results"]
    title = sys.argv[3] if len(sys.argv) > 3 else "dispatch policies"
    algs = sorted({r["alg"] for r in res if r["path"] == "dispatch-auto"})
    if not algs:
        sys.exit("plot_dispatch: no dispatch rows in %s (run --dispatch)"
                 % sys.argv[1])
    fig, axes = plt.subplots(len(algs), 2, figsize=(11, 4.2 * len(algs)),
                             squeeze=False)
    for row, alg in enumerate(algs):
        for path, colour, marker, label in MODES:
            pts = sorted(medians(res, path, alg).items())
            xs = [n for n, _ in pts]
            axes[row][0].plot(xs, [r["gbps"] for _, r in pts], color=colour,
                              marker=marker, label=label)
            axes[row][1].plot(xs, [r["cpu_s_per_gb"] for _, r in pts],
                              color=colour, marker=marker, label=label)
        for col, what in enumerate(("GB/s", "host CPU s per GB (all threads)")):
            ax = axes[row][col]
            ax.set_xscale("log", base=2)
            ax.set_xlabel("threads submitting (mixed 1-64 KiB requests)")
            ax.set_ylabel(what)
            ax.set_title("%s: %s" % (alg, what))
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
        axes[row][0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
