#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Plot the path a consumer gets against the CPU driver it displaces, from
gpu-aes-bench JSON (--helper --cpu): throughput and host CPU per byte
against request size, one line per algorithm and path.

Usage: plot_host.py bench.json out.png [title]"""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PATHS = [
    ("helper", "-", "o", "GPU path (kernel ring code, copies in+out)"),
    ("cpu-1", ":", "s", "OpenSSL, 1 core"),
    ("cpu-all", "--", "^", "OpenSSL, all cores"),
]
ALGS = {"aes-128-ctr": "C0", "aes-256-xts": "C1", "aes-128-gcm": "C2"}


def series(res, path, alg, key):
    return sorted((r["size"], r[key]) for r in res
                  if r["path"] == path and r["alg"] == alg and r["size"])


def main():
    res = json.load(open(sys.argv[1]))["results"]
    title = sys.argv[3] if len(sys.argv) > 3 else "host path vs CPU driver"
    fig, (tput, cost) = plt.subplots(1, 2, figsize=(13, 5.5))
    for path, style, marker, label in PATHS:
        for alg, color in ALGS.items():
            for ax, key in ((tput, "gbps"), (cost, "cpu_s_per_gb")):
                pts = series(res, path, alg, key)
                if path == "cpu-all" and key == "cpu_s_per_gb":
                    continue
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            linestyle=style, marker=marker, color=color,
                            label="%s, %s" % (alg, label))
    floor = series(res, "copy-floor", "2x memcpy", "cpu_s_per_gb")
    if floor:
        cost.plot([p[0] for p in floor], [p[1] for p in floor], color="k",
                  linestyle="-.", label="two memcpy per byte, 1 thread")
    bound = [r["gbps"] for r in res if r["path"] == "copy-all"]
    if bound:
        tput.axhline(max(bound), color="k", linestyle="-.",
                     label="two memcpy per byte, all threads: %.0f GB/s"
                     % max(bound))
    for ax in (tput, cost):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("request size (bytes)")
        ax.grid(True, which="both", alpha=0.3)
    tput.set_yscale("log")
    tput.set_ylabel("GB/s (1e9 bytes/s of payload)")
    tput.set_title("throughput")
    cost.set_ylabel("host CPU seconds per GB, all threads")
    cost.set_title("CPU per byte")
    cost.set_ylim(bottom=0)
    tput.legend(fontsize=6, loc="lower right")
    cost.legend(fontsize=6, loc="upper right")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
