#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""One GPU against several, from scripts/gpu-bench-gpus' JSON files.

usage: compare_gpus.py OUTDIR

Reads OUTDIR/gpus-1-*.json (gpu-aes-bench --gpus 0) and gpus-N-*.json
(--gpus 0,1,...), alternated runs of the same binary in the same call, and
OUTDIR/host-only.json (the null backend: the host path with no GPU) when
present.  Prints Markdown tables: the helper path per algorithm and size
with each run's figures and the ratio of the means, OpenSSL on the same
host where a run measured it (--cpu), then the bounds next to it (each link alone and all at once, the host's copy bandwidth, the host
path alone).
"""
import glob
import json
import os
import re
import sys


def load(path):
    with open(path) as f:
        return json.load(f)["results"]


def runs(outdir):
    """{gpu count: [results of each run]}, runs in file-name order."""
    by = {}
    for path in sorted(glob.glob(os.path.join(outdir, "gpus-*-*.json"))):
        m = re.match(r"gpus-(\d+)-", os.path.basename(path))
        if m:
            by.setdefault(int(m.group(1)), []).append(load(path))
    return by


def rows(results, path):
    return {(r["alg"], r["size"]): r for r in results if r["path"] == path}


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def size_name(n):
    return "%d MiB" % (n >> 20) if n >= 1 << 20 else "%d KiB" % (n >> 10)


def helper_table(by, one, many):
    print("| alg | size | %d GPU GB/s | %d GPUs GB/s | ratio | "
          "CPU/req %d GPU | CPU/req %d GPUs | CPU s/GB %d / %d |"
          % (one, many, one, many, one, many))
    print("|---|---|---|---|---|---|---|---|")
    keys = sorted(rows(by[one][0], "helper"),
                  key=lambda k: (k[0].split("-")[2], k[0], k[1]))
    for key in keys:
        a = [rows(r, "helper").get(key) for r in by[one]]
        b = [rows(r, "helper").get(key) for r in by[many]]
        a, b = [r for r in a if r], [r for r in b if r]
        if not a or not b:
            continue
        ga, gb = [r["gbps"] for r in a], [r["gbps"] for r in b]
        print("| %s | %s | %s | %s | **%.2f×** | %.2f µs | %.2f µs | "
              "%.2f / %.2f |"
              % (key[0], size_name(key[1]),
                 " / ".join("%.2f" % g for g in ga),
                 " / ".join("%.2f" % g for g in gb),
                 mean(gb) / mean(ga) if mean(ga) else 0.0,
                 mean([r["cpu_us_per_req"] for r in a]),
                 mean([r["cpu_us_per_req"] for r in b]),
                 mean([r["cpu_s_per_gb"] for r in a]),
                 mean([r["cpu_s_per_gb"] for r in b])))


def openssl_table(by):
    """OpenSSL EVP rows of any run (gpu-aes-bench --cpu), same host."""
    every = [r for runs_ in by.values() for results in runs_ for r in results
             if r["path"] in ("cpu-1", "cpu-all")]
    if not every:
        return
    print()
    print("| OpenSSL, same host | size | GB/s | CPU per request | s/GB |")
    print("|---|---|---|---|---|")
    for r in sorted(every, key=lambda r: (r["alg"], r["size"], r["path"])):
        print("| %s %s | %s | %.2f | %.2f µs | %.3f |"
              % (r["alg"], r["note"], size_name(r["size"]), r["gbps"],
                 r["cpu_us_per_req"], r["cpu_s_per_gb"]))


def bounds_table(by, many, host_only):
    print()
    print("| bound | GB/s (each run) | note |")
    print("|---|---|---|")
    every = [r for results in by[many] for r in results]
    for path, alg in (("pcie", "h2d"), ("pcie", "d2h"), ("pcie", "h2d+d2h"),
                      ("pcie-all", "h2d"), ("pcie-all", "d2h"),
                      ("pcie-all", "h2d+d2h")):
        notes = sorted({r["note"] for r in every
                        if r["path"] == path and r["alg"] == alg})
        for note in notes:
            g = [r["gbps"] for r in every if r["path"] == path and
                 r["alg"] == alg and r["note"] == note]
            print("| %s %s | %s | %s |" % (path, alg,
                                          " / ".join("%.1f" % x for x in g),
                                          note))
    for r in every:
        if r["path"] == "copy-all":
            print("| copy-all %s (2 memcpy per byte, every thread) | %.1f | "
                  "%.3f s/GB, %.2f µs/req, %s |"
                  % (size_name(r["size"]), r["gbps"], r["cpu_s_per_gb"],
                     r["cpu_us_per_req"], r["note"]))
    for r in host_only:
        if r["path"] == "helper":
            print("| host path alone, %s %s | %.1f | %.2f µs/req, "
                  "%.3f s/GB (null backend) |"
                  % (r["alg"], size_name(r["size"]), r["gbps"],
                     r["cpu_us_per_req"], r["cpu_s_per_gb"]))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2])
    by = runs(sys.argv[1])
    counts = sorted(by)
    if len(counts) < 2:
        sys.exit("compare_gpus: need gpus-1-*.json and gpus-N-*.json "
                 "in %s" % sys.argv[1])
    one, many = counts[0], counts[-1]
    host = os.path.join(sys.argv[1], "host-only.json")
    helper_table(by, one, many)
    openssl_table(by)
    bounds_table(by, many, load(host) if os.path.exists(host) else [])


if __name__ == "__main__":
    main()
