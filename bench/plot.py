#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Plot gpu-aes-bench JSON: AES-128-CTR throughput vs request size, one
line per path.  Usage: plot.py bench.json out.png [title]"""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LINES = [
    ("raw-gpu", "aes-128-ctr", None, "GPU kernel, data in HBM"),
    ("helper", "aes-128-ctr", None,
     "helper path, deep queue, producer copies in+out (cuda)"),
    ("helper-zc", "aes-128-ctr", None,
     "helper path, deep queue, producer copies in only (cuda)"),
    ("helper-nocopy", "aes-128-ctr", None,
     "helper path, deep queue, no host copies (cuda)"),
    ("helper-qd1", "aes-128-ctr", "gpu", "helper path, QD1 (cuda)"),
    ("cpu-1", "aes-128-ctr", None, "OpenSSL, 1 core"),
    ("cpu-all", "aes-128-ctr", None, "OpenSSL, all cores"),
]


def main():
    res = json.load(open(sys.argv[1]))["results"]
    title = sys.argv[3] if len(sys.argv) > 3 else "AES-128-CTR throughput"
    fig, ax = plt.subplots(figsize=(10, 6.5))
    for path, alg, note, label in LINES:
        pts = sorted((r["size"], r["gbps"]) for r in res
                     if r["path"] == path and r["alg"] == alg
                     and (note is None or r["note"].startswith(note)))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    label=label)
    both = [r["gbps"] for r in res
            if r["path"] == "pcie" and r["alg"] == "h2d+d2h"]
    if both:
        ax.axhline(both[0] / 2, color="grey", linestyle="--",
                   label="PCIe bound: (H2D+D2H at once) / 2 = %.0f GB/s"
                   % (both[0] / 2))
    copy = [r["gbps"] for r in res if r["path"] == "host-memcpy"]
    if copy:
        ax.axhline(max(copy) / 2, color="brown", linestyle=":",
                   label="host copy bound: memcpy on all cores / 2 "
                   "(in + out) = %.0f GB/s" % (max(copy) / 2))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("request / launch size (bytes)")
    ax.set_ylabel("GB/s (1e9 bytes/s of payload)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
