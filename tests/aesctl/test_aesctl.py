#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""gpu-aesctl against a fake root (--root): sysfs, /proc/crypto,
/proc/uptime and the helper's status file laid out as gpu_aes and
gpu-aes-helper write them, so every case is exact and needs no module.

usage: test_aesctl.py PATH/TO/gpu-aesctl

Checks: status and status --json report every counter, status file,
per-queue file and parameter exactly, the helper, its queues, GPUs (each
one's compute capability and code path, those it cannot use and why, its
fallback to the cpu backend; and a helper's older file, without them),
dispatch mode and estimates and lookups, fallback reasons that add up
(their parts apart), and the problems in plain words (helper not attached,
stalled on some queues, dispatch=cpu, status file missing / stale /
garbage, cpu backend, a lookup lost, a failed self-test); no module, bad input
(exit 2) and their one-line messages; metrics parsed by prometheus_client's
parser (and `promtool check metrics` when installed) with values equal to
the files; metrics --output atomic; top --batch and --json frames whose
rates are their deltas over the interval while counters move; top on a
pseudo-terminal quits on q and on Ctrl-C and restores the terminal.
Prints one "ok"/"FAIL" line per check and "N passed, M failed".
"""
import json
import os
import pty
import re
import select
import shutil
import signal
import fcntl
import stat
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("FAIL: python3-prometheus-client is missing (sudo scripts/install-deps)")
    sys.exit(1)

CTL = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "helper/build/gpu-aesctl"
passed = failed = 0


def check(what, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok:", what)
    else:
        failed += 1
        print("FAIL:", what)
        if detail:
            for line in str(detail).splitlines()[:40]:
                print("   ", line)


# As kmod/stats.c names them (ABI v3): the top-level fallback reasons add
# up to fallback_requests, fallback_policy_* to fallback_policy.
COUNTERS = {
    "ring_requests": 1000, "ring_bytes": 4096000,
    "ring_ecb_requests": 100, "ring_ctr_requests": 200,
    "ring_xts_requests": 300, "ring_gcm_requests": 400,
    "fallback_requests": 74, "fallback_bytes": 9000,
    "fallback_no_helper": 40, "fallback_small": 20, "fallback_large": 1,
    "fallback_full": 2, "fallback_stalled": 0, "fallback_no_backlog": 1,
    "fallback_no_key": 0, "fallback_policy": 10,
    "fallback_policy_cost": 3, "fallback_policy_lone": 7,
    "fallback_policy_forced": 0, "fallback_policy_explore": 0,
    "policy_ring_cost": 900, "policy_ring_load": 60,
    "policy_ring_forced": 0, "policy_ring_explore": 40,
    "backlogged": 5, "timeouts": 0, "rejected_completions": 0,
    "late_completions": 0, "helper_errors": 0, "helper_attaches": 1,
    "recomputed": 0, "auth_failures": 3, "key_reclaims": 7,
}
PARAMS = {"priority": "1500", "ring_min_bytes": "256",
          "ring_max_bytes": "1048576", "timeout_ms": "1000", "dispatch": "auto"}
UPTIME = 1000.0


STATUS_NAMES = ("attached", "helper_pid", "attached_since", "queues",
                "queue_entries", "queue_data_bytes", "entries", "data_bytes",
                "keys", "keys_used", "in_flight", "backlog", "data_used",
                "stalled", "stalled_since")


def status_files(attached=True, stalled=False):
    """/sys/class/misc/gpu_aes/status/ of 4 queues, as kmod/status.c has
    them; with stalled, queue 2 is (since boottime 990)."""
    if not attached:
        return {k: 0 for k in STATUS_NAMES}
    return {"attached": 1, "helper_pid": 4242, "attached_since": 400,
            "queues": 4, "queue_entries": 256, "queue_data_bytes": 16777216,
            "entries": 1024, "data_bytes": 67108864,
            "keys": 1024, "keys_used": 3,
            "in_flight": 2, "backlog": 0, "data_used": 8192,
            "stalled": int(stalled), "stalled_since": 990 if stalled else 0}


def queue_files(attached=True, stalled=False):
    """/sys/class/misc/gpu_aes/queues/: one value per queue."""
    if not attached:
        return {k: [] for k in ("in_flight", "backlog", "data_used",
                                "stalled", "stalled_since")}
    return {"in_flight": [1, 0, 1, 0], "backlog": [0, 0, 0, 0],
            "data_used": [4096, 0, 4096, 0],
            "stalled": [0, 0, int(stalled), 0],
            "stalled_since": [0, 0, 990 if stalled else 0, 0]}


ESTIMATES = [
    {"alg": "ecb", "bytes": 256, "cpu_ns_per_kib": 120, "ring_ns_per_kib": None, "auto": "cpu"},
    {"alg": "xts", "bytes": 65536, "cpu_ns_per_kib": 300, "ring_ns_per_kib": 90, "auto": "ring"},
]


def helper_doc(backend="cpu", pid=4242, updated=None, gpus=None,
               unusable=None, fallback=None):
    """The helper's status file; unusable and fallback as a helper since
    issue 52 writes them (an older one has neither)."""
    doc = {
        "schema": 2, "pid": pid, "version": "0.1.0", "abi": 3,
        "backend": backend, "device": "/dev/gpu_aes",
        "started": int(time.time()) - 700,
        "updated": int(time.time()) if updated is None else updated,
        "interval_s": 2, "threads": 1, "spin_us": 50,
        "ring": {"queues": 4, "queue_entries": 256, "keys": 1024,
                 "queue_data_bytes": 16777216, "data_bytes": 67108864,
                 "region_bytes": 68308992, "pages": "transparent huge pages"},
        "gpus": gpus or [],
        "dispatch": {"mode": "auto", "helper_cpu_ns_per_kib": 812,
                     "helper_mib_per_s": 2400, "estimates": ESTIMATES},
        "counters": {"batches": 10, "requests": 1000, "bytes": 4096000,
                     "invalid": 0, "sleeps": 12},
    }
    if unusable is not None or fallback is not None:
        doc["gpus_unusable"] = unusable or []
        doc["fallback"] = fallback
    return doc


H200 = [{"id": 0, "name": "NVIDIA H200", "memory_bytes": 150754820096,
         "pci": "0000:65:00.0",
         "pcie": {"gen": 5, "width": 16, "max_gen": 5, "max_width": 16,
                  "speed": "32.0 GT/s PCIe"}},
        {"id": 1, "name": "NVIDIA H200", "memory_bytes": 150754820096,
         "pci": "0000:66:00.0",
         "pcie": {"gen": 1, "width": 8, "max_gen": 5, "max_width": 16,
                  "speed": "2.5 GT/s PCIe"}}]

# As a helper since issue 52 writes its GPUs: compute capability, code
# path, code; the ones it cannot use apart, each with its reason.
GPU = dict(memory_bytes=85899345920, pcie=None)
PATHS = [
    dict(GPU, id=0, name="NVIDIA H100 80GB HBM3", cc="9.0", pci="0000:19:00.0",
         path="tma", code="sm_90", ptx="compute_90", jit=False),
    dict(GPU, id=1, name="NVIDIA L4", cc="8.9", pci="0000:3b:00.0",
         path="portable", code="sm_89", ptx="compute_75", jit=False),
    dict(GPU, id=2, name="NVIDIA H200", cc="9.0", pci="0000:5d:00.0",
         path="portable", code="sm_90", ptx="compute_75", jit=True)]
K80 = dict(GPU, id=3, name="Tesla K80", cc="3.7", pci="0000:86:00.0",
           reason="compute capability 3.7 is older than 7.5, the oldest CUDA 13 builds code for")
NO_CODE = dict(GPU, id=0, name="NVIDIA L4", cc="8.9", pci="0000:3b:00.0",
               reason="no code for compute capability 8.9 in this build (it carries sm_90 compute_90)")


def crypto_entry(name, driver, module, prio, typ="skcipher",
                 selftest="passed", internal="no", refcnt=1):
    return (f"name         : {name}\ndriver       : {driver}\n"
            f"module       : {module}\npriority     : {prio}\n"
            f"refcnt       : {refcnt}\nselftest     : {selftest}\n"
            f"internal     : {internal}\ntype         : {typ}\n"
            f"async        : yes\nblocksize    : 16\n\n")


def proc_crypto(xts_rival=0, gcm_selftest="passed"):
    e = [crypto_entry("gcm(aes)", "gcm-aes-gpu", "gpu_aes", 1500, "aead",
                      selftest=gcm_selftest, refcnt=2),
         crypto_entry("xts(aes)", "xts-aes-gpu", "gpu_aes", 1500, refcnt=3),
         crypto_entry("ctr(aes)", "ctr-aes-gpu", "gpu_aes", 1500),
         crypto_entry("ecb(aes)", "ecb-aes-gpu", "gpu_aes", 1500),
         crypto_entry("gcm(aes)", "generic-gcm-aesni", "aesni_intel", 400, "aead"),
         crypto_entry("__gcm(aes)", "__generic-gcm-aesni", "aesni_intel", 400,
                      "aead", internal="yes"),
         crypto_entry("xts(aes)", "xts-aes-aesni", "aesni_intel", 401),
         crypto_entry("xts(aes)", "xts-aes-vaes-avx10_512", "aesni_intel", 800),
         # Built over ours: never what gpu_aes displaced.
         crypto_entry("xts(aes)", "xts(ecb-aes-gpu)", "kernel", 1500),
         crypto_entry("ctr(aes)", "ctr-aes-aesni", "aesni_intel", 400),
         crypto_entry("ecb(aes)", "ecb-aes-aesni", "aesni_intel", 401),
         crypto_entry("aes", "aes-generic", "kernel", 100, "cipher")]
    if xts_rival:
        e.insert(0, crypto_entry("xts(aes)", "xts-aes-vaes-avx512",
                                 "aesni_intel", xts_rival))
    return "".join(e)


# /sys/class/misc/gpu_aes/dispatch/, as kmod/dispatch.c writes it.
DISPATCH_FILES = {
    "estimates": "alg bytes cpu_ns_per_kib ring_ns_per_kib ring_lone_us auto auto_lone\n"
                 "xts 1024 - - - cpu cpu\n"
                 "xts 4096 300 614 45 cpu cpu\n"
                 "xts 65536 3000 400 60 ring ring\n"
                 "gcm 4096 - - - cpu cpu\n",
    "cpu_drivers": "ecb -\nctr -\nxts xts-aes-vaes-avx10_512\ngcm generic-gcm-aesni\n",
}


def make_root(attached=True, stalled=False, helper=True, doc=None,
              crypto=None, counters=None, module=True, params=None,
              dispatch=None):
    root = tempfile.mkdtemp(prefix="aesctl-root.")
    if module:
        os.makedirs(f"{root}/sys/module/gpu_aes/parameters")
        with open(f"{root}/sys/module/gpu_aes/version", "w") as f:
            f.write("0.1.0\n")
        for k, v in (params or PARAMS).items():
            with open(f"{root}/sys/module/gpu_aes/parameters/{k}", "w") as f:
                f.write(v + "\n")
        for d, vals in (("stats", counters or COUNTERS),
                        ("status", status_files(attached, stalled)),
                        ("queues", queue_files(attached, stalled))):
            os.makedirs(f"{root}/sys/class/misc/gpu_aes/{d}")
            for k, v in vals.items():
                if isinstance(v, list):
                    v = " ".join(str(x) for x in v)
                with open(f"{root}/sys/class/misc/gpu_aes/{d}/{k}", "w") as f:
                    f.write(f"{v}\n")
        os.makedirs(f"{root}/sys/class/misc/gpu_aes/dispatch")
        for k, v in (dispatch or DISPATCH_FILES).items():
            with open(f"{root}/sys/class/misc/gpu_aes/dispatch/{k}", "w") as f:
                f.write(v)
    os.makedirs(f"{root}/proc")
    with open(f"{root}/proc/crypto", "w") as f:
        f.write(crypto if crypto is not None else proc_crypto())
    with open(f"{root}/proc/uptime", "w") as f:
        f.write(f"{UPTIME:.2f} 1500.00\n")
    if helper:
        os.makedirs(f"{root}/run/gpu-aes")
        with open(f"{root}/run/gpu-aes/helper.json", "w") as f:
            if isinstance(doc, (bytes, str)):
                f.write(doc if isinstance(doc, str) else doc.decode("latin-1"))
            else:
                json.dump(doc or helper_doc(), f)
    return root


def run(*args, root=None, timeout=30):
    cmd = [CTL] + (["--root", root] if root else []) + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def files_of(root, d):
    """A sysfs directory's files: integers, or lists of them (queues/)."""
    out = {}
    for n in os.listdir(f"{root}/sys/class/misc/gpu_aes/{d}"):
        with open(f"{root}/sys/class/misc/gpu_aes/{d}/{n}") as f:
            v = f.read().strip()
        out[n] = [int(x) for x in v.split()] if d == "queues" else int(v)
    return out


def problems_text(out):
    return out.split("\nProblems:", 1)[1] if "\nProblems:" in out else ""


# ---- status ---------------------------------------------------------------

def test_status():
    root = make_root()
    rc, out, err = run("status", root=root)
    check("status: exit 0, nothing on stderr", rc == 0 and err == "", f"{rc} {err}")
    check("status: module and version", "Module:      gpu_aes 0.1.0" in out, out)
    check("status: every parameter, dispatch=auto (non-numeric) too",
          all(f" {k}={v}" in out for k, v in PARAMS.items()), out)
    m = re.search(r"\nCounters \(/sys/class/misc/gpu_aes/stats/\):\n((?:  .*\n)+)", out)
    got = dict(l.split() for l in m.group(1).splitlines()) if m else {}
    check("status: the Counters section is every file with its value",
          {k: int(v) for k, v in got.items()} == files_of(root, "stats"), got)
    check("status: helper attached, pid, since (boottime 400 = 600 s ago)",
          re.search(r"Helper: +attached, pid 4242, since \S+ \S+ \(10 min 0 s ago\)", out), out)
    check("status: helper version, backend, threads",
          "gpu-aes-helper 0.1.0 (ABI 3), backend cpu, 1 thread, spin 50 us" in out, out)
    check("status: GPUs none (cpu backend)", "GPUs:        none (cpu backend)" in out, out)
    check("status: queues, their geometry and the key slots",
          "Ring:        4 queues of 256 entries and 16 MiB data, 1024 key slots (3 used)" in out, out)
    check("status: occupancy in all",
          "in all: 2 in flight, 0 backlogged, 8.0 KiB of 64 MiB data in use, no queue stalled" in out, out)
    check("status: one line per queue",
          "  queue 0     1 in flight, 0 backlogged, 4.0 KiB data in use\n"
          "  queue 1     0 in flight, 0 backlogged, 0 B data in use\n"
          "  queue 2     1 in flight, 0 backlogged, 4.0 KiB data in use\n"
          "  queue 3     0 in flight, 0 backlogged, 0 B data in use\n" in out, out)
    check("status: dispatch mode and the helper's published cost",
          "Dispatch:    auto; the helper says it costs 812 ns of CPU per KiB, at 2400 MiB/s" in out, out)
    check("status: auto's share of decisions, from the policy counters",
          "  auto sent 1000 of its 1010 decisions to the ring (99.0%), 10 to the CPU\n" in out, out)
    check("status: why, per algorithm and size, from dispatch/estimates and cpu_drivers",
          "  xts:\n"
          "    4 KiB requests: the CPU driver xts-aes-vaes-avx10_512 costs 0.29 s/GB, the ring 0.60: "
          "they stay on the CPU; one alone stays on the CPU (1.2 us on the CPU, 45 on the ring)\n"
          "    64 KiB requests: the CPU driver xts-aes-vaes-avx10_512 costs 2.93 s/GB, the ring 0.39: "
          "they go to the ring; one alone goes to the ring (192.0 us on the CPU, 60 on the ring)\n"
          "  gcm: CPU driver generic-gcm-aesni; nothing measured on both paths yet\n" in out, out)
    check("status: the estimates table, columns as the module names them",
          re.search(r"    alg +bytes +cpu_ns_per_kib +ring_ns_per_kib +auto\n"
                    r" +ecb +256 +120 +- +cpu\n +xts +65536 +300 +90 +ring\n", out), out)
    check("status: totals", re.search(r"  requests +1000 +74 +1074\n", out)
          and re.search(r"  bytes +4096000 +9000 +4105000\n", out), out)
    check("status: ring by algorithm in ecb, ctr, xts, gcm order",
          "ring by algorithm:   ctr 200 ecb 100 gcm 400 xts 300" in out or
          "ring by algorithm:   ecb 100 ctr 200 xts 300 gcm 400" in out, out)
    m = re.search(r"  cpu by reason: +(.*)\n", out)
    got = dict(zip(*[iter(m.group(1).split())] * 2)) if m else {}
    check("status: cpu by reason: the reasons that add up to fallback_requests, in routing order",
          list(got) == ["no_helper", "small", "large", "no_backlog", "policy",
                        "stalled", "no_key", "full"] and
          sum(int(v) for v in got.values()) == COUNTERS["fallback_requests"], out)
    check("status: the policy's parts apart, and the ring by policy",
          re.search(r"    of which: +policy_cost 3 policy_explore 0 policy_forced 0 policy_lone 7\n", out)
          and "  ring by policy:      cost 900 load 60 forced 0 explore 40\n" in out, out)
    for alg, drv, nxt in (("ecb(aes)", "ecb-aes-gpu", "ecb-aes-aesni, 401"),
                          ("gcm(aes)", "gcm-aes-gpu", "generic-gcm-aesni, 400")):
        check(f"status: {alg} is ours, next {nxt}",
              re.search(rf"  {re.escape(alg)} +{drv} +1500  passed +\d+  ours \(next: {re.escape(nxt)}\)", out), out)
    check("status: algorithms in ecb, ctr, xts, gcm order",
          [l.split()[0] for l in out.splitlines() if re.match(r"  \w+\(aes\) ", l)] ==
          ["ecb(aes)", "ctr(aes)", "xts(aes)", "gcm(aes)"], out)
    check("status: the CPU path of each algorithm, and whether it is the displaced driver",
          "    ecb(aes)   -                        unknown (no request yet)\n"
          "    ctr(aes)   -                        unknown (no request yet)\n"
          "    xts(aes)   xts-aes-vaes-avx10_512   yes, the same\n"
          "    gcm(aes)   generic-gcm-aesni        yes, the same\n" in out, out)
    p = problems_text(out)
    check("status: problem 'no GPU' for the cpu backend", "warning: no GPU: the helper runs the cpu backend" in p, p)
    check("status: no other problem", len([l for l in p.splitlines() if l.strip()]) == 1, p)
    shutil.rmtree(root)


def test_status_json():
    root = make_root(doc=helper_doc("cuda", gpus=H200))
    rc, out, err = run("status", "--json", root=root)
    check("status --json: exit 0", rc == 0 and err == "", err)
    try:
        j = json.loads(out)
    except ValueError as e:
        check("status --json parses", False, f"{e}\n{out}")
        return
    check("status --json: counters equal the files exactly",
          j["counters"] == files_of(root, "stats"), j["counters"])
    check("status --json: status equals the files exactly",
          j["status"] == files_of(root, "status"), j["status"])
    check("status --json: queues: each per-queue file as a list",
          j["queues"] == files_of(root, "queues"), j["queues"])
    check("status --json: parameters (numbers, and strings where not)",
          j["module"]["parameters"] == {k: (int(v) if v.isdigit() else v)
                                        for k, v in PARAMS.items()}, j["module"])
    check("status --json: module loaded, version", j["module"]["loaded"] is True
          and j["module"]["version"] == "0.1.0")
    h = j["helper"]
    check("status --json: helper attached, pid, since",
          h["attached"] is True and h["pid"] == 4242 and h["attached_since"] == 400
          and abs(h["attached_at"] - (time.time() - 600)) < 5, h)
    check("status --json: the helper's document, as written",
          h["status_file"]["present"] is True and h["status_file"]["error"] is None
          and h["status_file"]["content"]["gpus"] == H200, h["status_file"])
    algs = {a["name"]: a for a in j["algorithms"]}
    check("status --json: four algorithms, all selected",
          sorted(algs) == ["ctr(aes)", "ecb(aes)", "gcm(aes)", "xts(aes)"]
          and all(a["selected"] for a in algs.values()), j["algorithms"])
    check("status --json: best other of xts(aes) is xts-aes-vaes-avx10_512 800, not one over ours",
          algs["xts(aes)"]["best_other"] == {"driver": "xts-aes-vaes-avx10_512",
                                             "module": "aesni_intel", "priority": 800})
    check("status --json: the CPU drivers, and whether each is the displaced one",
          [(algs[n]["cpu_driver"], algs[n]["cpu_driver_displaced"])
           for n in ("ecb(aes)", "ctr(aes)", "xts(aes)", "gcm(aes)")] ==
          [(None, None), (None, None), ("xts-aes-vaes-avx10_512", True),
           ("generic-gcm-aesni", True)], j["algorithms"])
    t = j["totals"]
    check("status --json: totals", t["requests"] == {"ring": 1000, "cpu": 74, "total": 1074}
          and t["ring_by_algorithm"] == {"ctr": 200, "ecb": 100, "gcm": 400, "xts": 300}
          and t["cpu_by_reason"]["no_backlog"] == 1
          and sum(t["cpu_by_reason"].values()) == t["requests"]["cpu"], t)
    check("status --json: the policy's parts, and the ring by policy",
          t["cpu_by_reason_part"] == {"policy": {"cost": 3, "explore": 0, "forced": 0, "lone": 7}}
          and t["ring_by_policy"] == {"cost": 900, "load": 60, "forced": 0, "explore": 40}, t)
    check("status --json: the helper's dispatch section as written",
          h["status_file"]["content"]["dispatch"]["estimates"] == ESTIMATES)
    msgs = [p["message"] for p in j["problems"]]
    check("status --json: GPU 1's narrow link is a problem, gen downtraining is not",
          any("GPU 1 (0000:66:00.0): PCIe link x8, narrower than its x16" in m for m in msgs)
          and not any("GPU 0" in m for m in msgs) and not any("no GPU" in m for m in msgs), msgs)
    rc, text, _ = run("status", root=root)
    check("status: two GPUs with name, memory, PCIe link",
          "GPU 0       NVIDIA H200, 140 GiB, PCI 0000:65:00.0, PCIe gen 5 x16 (max gen 5 x16)" in text
          and "GPU 1       NVIDIA H200, 140 GiB, PCI 0000:66:00.0, PCIe gen 1 x8 (max gen 5 x16)" in text, text)
    rc2, out2, _ = run("--json", root=root)
    check("gpu-aesctl --json (no command) is status --json",
          rc2 == 0 and json.loads(out2)["counters"] == j["counters"])
    shutil.rmtree(root)



def test_status_gpu_paths():
    """Each GPU's compute capability, code path and code; a GPU the helper
    cannot use, named with why; the fallback to the cpu backend."""
    root = make_root(doc=helper_doc("cuda", gpus=PATHS, unusable=[K80]))
    rc, out, err = run("status", root=root)
    check("status: each GPU's compute capability, path and code",
          rc == 0 and
          "  GPU 0       NVIDIA H100 80GB HBM3, compute capability 9.0, tma path (sm_90), 80 GiB, PCI 0000:19:00.0\n" in out and
          "  GPU 1       NVIDIA L4, compute capability 8.9, portable path (sm_89), 80 GiB, PCI 0000:3b:00.0\n" in out and
          "  GPU 2       NVIDIA H200, compute capability 9.0, portable path (sm_90 from compute_75 PTX, JIT-compiled), 80 GiB, PCI 0000:5d:00.0\n" in out, out)
    check("status: a GPU not used, and why",
          "GPUs:        3\n" in out and
          "  GPU 3       Tesla K80, compute capability 3.7: not used: compute capability 3.7 is older than 7.5, the oldest CUDA 13 builds code for\n" in out, out)
    p = problems_text(out)
    check("status: the GPU not used is a problem, and nothing else is",
          "warning: GPU 3 (Tesla K80) not used: compute capability 3.7 is older than 7.5" in p and
          len([l for l in p.splitlines() if l.strip()]) == 1 and "fell back" not in out, p)
    rc, js, _ = run("status", "--json", root=root)
    c = json.loads(js)["helper"]["status_file"]["content"]
    check("status --json: the GPUs and the unusable one, as written",
          c["gpus"] == PATHS and c["gpus_unusable"] == [K80] and c["fallback"] is None, c)
    rc, text, _ = run("metrics", root=root)
    s = metrics_ok(text, root, "metrics with code paths")
    check("metrics: GPUs in use and not, each one's code path",
          s is not None and s[("gpu_aes_gpus", ())] == 3 and
          s[("gpu_aes_gpus_unusable", ())] == 1 and
          s.get(("gpu_aes_gpu_code_info", (("cc", "9.0"), ("code", "sm_90"), ("gpu", "0"), ("path", "tma")))) == 1 and
          s.get(("gpu_aes_gpu_code_info", (("cc", "9.0"), ("code", "sm_90"), ("gpu", "2"), ("path", "portable")))) == 1,
          text)
    shutil.rmtree(root)

    root = make_root(doc=helper_doc("cpu", unusable=[NO_CODE],
                                    fallback="cuda backend: no usable GPU"))
    rc, out, err = run("status", root=root)
    check("status: the fallback and its reason, no GPU used, the one found and why",
          rc == 0 and
          "             fell back to the cpu backend: cuda backend: no usable GPU\n" in out and
          "GPUs:        none used (cpu backend)\n" in out and
          "  GPU 0       NVIDIA L4, compute capability 8.9: not used: no code for compute capability 8.9 in this build (it carries sm_90 compute_90)\n" in out, out)
    p = problems_text(out)
    check("status: the fallback is the problem, said once, with the GPU's own",
          "warning: no usable GPU: the helper fell back to the cpu backend (cuda backend: no usable GPU)" in p and
          "warning: GPU 0 (NVIDIA L4) not used: no code for compute capability 8.9" in p and
          "no GPU: the helper runs the cpu backend" not in p, p)
    rc, text, _ = run("metrics", root=root)
    s = metrics_ok(text, root, "metrics after a fallback")
    check("metrics: no GPU used, one not usable",
          s is not None and s[("gpu_aes_gpus", ())] == 0 and
          s[("gpu_aes_gpus_unusable", ())] == 1, text)
    shutil.rmtree(root)


def test_problems():
    cases = [
        ("not attached", dict(attached=False, helper=False),
         ["helper not attached: every request runs on the CPU"], "Helper:      not attached"),
        ("stale file, not attached", dict(attached=False),
         ["helper not attached", "stale helper status file"], None),
        ("stalled", dict(stalled=True),
         ["error: helper stalled on 1 of 4 queues since", "(10 s ago): a request timed out"],
         "1 of 4 queues STALLED"),
        ("dispatch=cpu", dict(params=dict(PARAMS, dispatch="cpu")),
         ["warning: dispatch=cpu: every request runs on the CPU, the helper gets none"], None),
        ("status file missing", dict(helper=False),
         ["helper status file missing (", "backend and GPUs unknown"], None),
        ("status file from another pid", dict(doc=helper_doc(pid=99)),
         ["is from pid 99, but the attached helper is pid 4242"], None),
        ("status file not updated", dict(doc=helper_doc(updated=int(time.time()) - 60)),
         ["helper status file not updated for 1 min ", "is the helper hung?"], None),
        ("cuda without GPUs", dict(doc=helper_doc("cuda")),
         ["no GPU: the helper (backend cuda) reports none"], None),
        ("xts lookup lost", dict(crypto=proc_crypto(xts_rival=2000)),
         ["xts(aes): lookups get xts-aes-vaes-avx512 (priority 2000), not xts-aes-gpu (priority 1500)"],
         "xts-aes-vaes-avx512 (priority 2000), not ours"),
        ("CPU driver not the displaced one",
         dict(dispatch=dict(DISPATCH_FILES, cpu_drivers="ecb -\nctr -\nxts xts(ecb(aes-aesni))\n"
                            "gcm gcm_base(ctr(aes-aesni),ghash-generic)\n")),
         ["warning: xts(aes): requests gpu_aes keeps on the CPU run on xts(ecb(aes-aesni)), "
          "but without gpu_aes a lookup gets xts-aes-vaes-avx10_512 (priority 800): "
          "they cost more than before it was installed",
          "warning: gcm(aes): requests gpu_aes keeps on the CPU run on "
          "gcm_base(ctr(aes-aesni),ghash-generic), but without gpu_aes a lookup gets "
          "generic-gcm-aesni (priority 400)"],
         "    xts(aes)   xts(ecb(aes-aesni))      NO: xts-aes-vaes-avx10_512 (priority 800)"),
        ("gcm self-test failed", dict(crypto=proc_crypto(gcm_selftest="unknown")),
         ["error: gcm-aes-gpu: self-test unknown"], None),
        ("counters", dict(counters=dict(COUNTERS, rejected_completions=5, timeouts=2, helper_errors=1)),
         ["error: 5 completions from the helper failed validation",
          "2 requests timed out and were", "1 request failed in the helper and was recomputed"], None),
    ]
    for name, kw, want, want_text in cases:
        root = make_root(**kw)
        rc, out, err = run("status", root=root)
        p = problems_text(out)
        check(f"problems: {name}: " + "; ".join(want),
              rc == 0 and all(w in p for w in want) and
              (want_text is None or want_text in out), out + err)
        rc, out, err = run("status", "--json", root=root)
        msgs = " | ".join(f'{x["level"]}: {x["message"]}' for x in json.loads(out)["problems"])
        check(f"problems --json: {name}", all(w in msgs for w in want), msgs)
        shutil.rmtree(root)


GARBAGE = [
    b"", b"{", b"[]", b"null", b'{"schema": 1}', b'{"pid": 5}',
    b'{"schema": 1, "pid": 4242, "gpus": {"a": 1}, "ring": 3, "counters": "x"}',
    b'{"schema": 1, "pid": 4242, "gpus": [1, "x", {"pcie": 7}]}',
    b"[" * 100000, b'{"a": "\\ud800\\u0000\\x"}', b'{"a": 1e999}',
    bytes(range(256)), b'{"schema": 1, "pid": 4242} trailing',
    b'{"schema": 1, "pid": 4242, "name": "' + b"A" * 200000 + b'"}',
    # What json-c takes unless told to be strict, or even then.
    b'{"schema": 1, "pid": 4242, /* comment */ "x": 1}',
    b'{"schema": 1, "pid": 4242} // comment',
    b"{'schema': 1, 'pid': 4242}",
    b'{"schema": 1, "pid": 4242, "x": [1, 2,]}',
    b'{"schema": 1, "pid": 4242, "x": TRUE}',
    b'{"schema": 1, "pid": 4242, "x": NaN}',
    b'{"schema": 1, "pid": 4242, "x": [Infinity, -Infinity]}',
    b'{"schema": 1, "pid": 4242, "x": -1e999}',
    b'{"schema": 1, "pid": 4242, "name": "a\x01b"}',
    b'{"schema": 1, "pid": 4242, "name": "\xff\xfe"}',
    b'{"schema": 1, "pid": 4242, "name": "\xc0\xaf"}',
    b'{"schema": 1, "pid": 4242}\x00',
    b'{"schema": 1, "pid": 4242, "x": ' + b"[" * 40 + b"]" * 40 + b'}',
]


def test_garbage():
    for i, g in enumerate(GARBAGE):
        root = make_root()
        with open(f"{root}/run/gpu-aes/helper.json", "wb") as f:
            f.write(g)
        rc, out, err = run("status", root=root)
        rcj, outj, errj = run("status", "--json", root=root)
        ok = rc == 0 and rcj == 0 and "Counters" in out
        try:
            j = json.loads(outj)
        except ValueError:
            ok = False
            j = {}
        try:
            d = json.loads(g)
            usable = isinstance(d, dict) and isinstance(d.get("schema"), int) \
                and isinstance(d.get("pid"), int)
        except (ValueError, UnicodeDecodeError, RecursionError):
            usable = False
        if ok and not usable:
            ok = "unusable" in problems_text(out) and j["helper"]["status_file"]["error"]
        check(f"garbage status file #{i} ({len(g)} bytes): no crash, said so",
              ok, out + err + outj[:300] + errj)
        shutil.rmtree(root)
    root = make_root()
    os.remove(f"{root}/run/gpu-aes/helper.json")
    os.mkdir(f"{root}/run/gpu-aes/helper.json")
    rc, out, err = run("status", root=root)
    check("status file is a directory: said so", rc == 0 and "not a regular file" in out, out + err)
    shutil.rmtree(root)


def test_status_file_strings():
    """Escapes in the status file, surrogate pairs included, come back as
    the same text in status and --json."""
    name = 'NVIDIA "H200" \\ / \u00e9 \U0001F600'
    gpus = [dict(H200[0], name=name)]
    root = make_root(doc=json.dumps(helper_doc(backend="cuda", gpus=gpus),
                                    ensure_ascii=True))
    rc, out, err = run("status", root=root)
    rcj, outj, errj = run("status", "--json", root=root)
    try:
        got = json.loads(outj)["helper"]["status_file"]["content"]["gpus"][0]["name"]
    except (ValueError, KeyError, IndexError, TypeError):
        got = None
    check("status file: escaped strings read back exactly",
          rc == 0 and rcj == 0 and f"GPU 0       {name}, " in out and got == name,
          out + err + outj[:600] + errj)
    shutil.rmtree(root)


def test_no_module_and_bad_input():
    root = make_root(module=False)
    for args in (["status"], ["status", "--json"], ["top", "-n", "1"], ["bench"], []):
        rc, out, err = run(*args, root=root)
        check(f"no module: {' '.join(args) or '(none)'}: exit 3, one line, nothing on stdout",
              rc == 3 and out == "" and len(err.splitlines()) == 1
              and "gpu_aes is not loaded" in err and "modprobe gpu_aes" in err, f"{rc}\n{out}\n{err}")
    rc, out, err = run("metrics", root=root)
    check("no module: metrics says gpu_aes_module_loaded 0, exit 3, one line",
          rc == 3 and "gpu_aes_module_loaded 0" in out and len(err.splitlines()) == 1, f"{rc}{out}{err}")
    shutil.rmtree(root)
    root = make_root()
    bad = [["frob"], ["status", "--frob"], ["status", "extra"], ["top", "-d", "0"],
           ["top", "-d", "x"], ["top", "-n", "0"], ["top", "-n"], ["top", "-q"],
           ["bench", "--sizes", "17"], ["bench", "--sizes", "1048576"],
           ["bench", "--algs", "cbc"], ["bench", "--time", "-1"],
           ["metrics", "--output", ""], ["--frob"], ["metrics", "--output"]]
    for args in bad:
        rc, out, err = run(*args, root=root)
        check(f"bad input {' '.join(args)}: exit 2, one line", rc == 2 and out == ""
              and len(err.splitlines()) == 1 and err.startswith("gpu-aesctl: "), f"{rc}\n{out}\n{err}")
    for args in (["--help"], ["help"], ["status", "--help"], ["top", "--help"],
                 ["metrics", "--help"], ["bench", "--help"]):
        rc, out, err = run(*args, root=root)
        # A command's --help is that command's usage, not the program's.
        want = "Usage: gpu-aesctl " + (args[0] + " " if args[0] not in ("--help", "help") else "")
        check(f"{' '.join(args)}: usage on stdout, exit 0", rc == 0 and out.startswith(want) and err == "", out[:80])
    rc, out, _ = run("--version")
    check("--version", rc == 0 and re.fullmatch(r"gpu-aesctl \S+\n", out), out)
    shutil.rmtree(root)


# ---- metrics --------------------------------------------------------------

def metrics_ok(text, root, what):
    try:
        fams = list(text_string_to_metric_families(text))
    except Exception as e:  # noqa: BLE001 - any parser error is the finding
        check(f"{what}: prometheus_client parses it", False, f"{e}\n{text}")
        return None
    check(f"{what}: prometheus_client parses it ({len(fams)} families)", len(fams) > 10)
    names = re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M)
    helps = re.findall(r"^# HELP (\S+) .+$", text, re.M)
    check(f"{what}: HELP and TYPE for every family, once each",
          [n for n, _ in names] == helps and len(set(helps)) == len(helps))
    check(f"{what}: counter families end in _total",
          all(n.endswith("_total") for n, t in names if t == "counter"), names)
    if shutil.which("promtool"):
        p = subprocess.run(["promtool", "check", "metrics"], input=text,
                           capture_output=True, text=True)
        check(f"{what}: promtool check metrics", p.returncode == 0, p.stdout + p.stderr)
    samples = {}
    for fam in fams:
        for s in fam.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def test_metrics():
    root = make_root(doc=helper_doc("cuda", gpus=H200))
    rc, text, err = run("metrics", root=root)
    check("metrics: exit 0", rc == 0 and err == "", err)
    s = metrics_ok(text, root, "metrics")
    if s is None:
        return
    files = files_of(root, "stats")
    want = {}
    for k, v in files.items():
        m = re.fullmatch(r"ring_(\w+)_requests", k)
        if k in ("ring_requests", "fallback_requests"):
            key = ("gpu_aes_requests_total", (("path", "ring" if k[0] == "r" else "cpu"),))
        elif k in ("ring_bytes", "fallback_bytes"):
            key = ("gpu_aes_bytes_total", (("path", "ring" if k[0] == "r" else "cpu"),))
        elif m:
            key = ("gpu_aes_ring_requests_total", (("alg", m.group(1)),))
        elif k.startswith("fallback_policy_"):
            key = ("gpu_aes_fallback_policy_requests_total", (("reason", k[16:]),))
        elif k.startswith("fallback_"):
            key = ("gpu_aes_fallback_requests_total", (("reason", k[9:]),))
        elif k.startswith("policy_ring_"):
            key = ("gpu_aes_policy_ring_requests_total", (("reason", k[12:]),))
        else:
            key = (f"gpu_aes_{k}_total", ())
        want[key] = v
    got = {k: s.get(k) for k in want}
    check("metrics: every counter file, each value equal to the file",
          got == {k: float(v) for k, v in want.items()},
          "\n".join(f"{k}: want {want[k]} got {got[k]}" for k in want if got[k] != want[k]))
    check("metrics: the fallback reasons add up to the cpu path's requests",
          sum(v for (n, _), v in s.items() if n == "gpu_aes_fallback_requests_total")
          == s[("gpu_aes_requests_total", (("path", "cpu"),))])
    st = files_of(root, "status")
    check("metrics: status gauges equal the files",
          s[("gpu_aes_helper_attached", ())] == st["attached"] and
          s[("gpu_aes_ring_in_flight_requests", ())] == st["in_flight"] and
          s[("gpu_aes_ring_key_slots_used", ())] == st["keys_used"] and
          s[("gpu_aes_ring_data_bytes", ())] == st["data_bytes"] and
          s[("gpu_aes_ring_queues", ())] == st["queues"] and
          s[("gpu_aes_ring_queue_entries", ())] == st["queue_entries"] and
          s[("gpu_aes_ring_stalled_queues", ())] == st["stalled"])
    qf = files_of(root, "queues")
    check("metrics: one sample per queue and per-queue file, labelled queue",
          all(s[(m, (("queue", str(q)),))] == qf[f][q]
              for f, m in (("in_flight", "gpu_aes_queue_in_flight_requests"),
                           ("backlog", "gpu_aes_queue_backlog_requests"),
                           ("data_used", "gpu_aes_queue_data_used_bytes"),
                           ("stalled", "gpu_aes_queue_stalled"))
              for q in range(4)) and
          not any(k[0] == "gpu_aes_queue_stall_time_seconds" for k in s), qf)
    check("metrics: dispatch mode, the helper's cost, the estimates",
          s[("gpu_aes_parameter_info", (("name", "dispatch"), ("value", "auto")))] == 1 and
          s[("gpu_aes_helper_cpu_ns_per_kib", ())] == 812 and
          s[("gpu_aes_dispatch_cost_ns_per_kib", (("alg", "xts"), ("bytes", "65536"), ("path", "ring")))] == 90 and
          s[("gpu_aes_dispatch_cost_ns_per_kib", (("alg", "ecb"), ("bytes", "256"), ("path", "cpu")))] == 120 and
          ("gpu_aes_dispatch_cost_ns_per_kib", (("alg", "ecb"), ("bytes", "256"), ("path", "ring"))) not in s and
          s[("gpu_aes_dispatch_auto_ring", (("alg", "xts"), ("bytes", "65536")))] == 1 and
          s[("gpu_aes_dispatch_auto_ring", (("alg", "ecb"), ("bytes", "256")))] == 0)
    check("metrics: attach time as Unix time",
          abs(s[("gpu_aes_helper_attach_time_seconds", ())] - (time.time() - 600)) < 5)
    check("metrics: parameters (numeric only)",
          s[("gpu_aes_parameter", (("name", "ring_min_bytes"),))] == 256 and
          not any(k[0] == "gpu_aes_parameter" and ("name", "dispatch") in k[1] for k in s))
    check("metrics: GPUs and their PCIe links",
          s[("gpu_aes_gpus", ())] == 2 and
          s[("gpu_aes_gpu_pcie_link_width", (("gpu", "1"),))] == 8 and
          s[("gpu_aes_gpu_info", (("gpu", "0"), ("name", "NVIDIA H200"), ("pci", "0000:65:00.0")))] == 1)
    check("metrics: algorithm selected per alg label",
          all(s[("gpu_aes_algorithm_selected", (("alg", a), ("driver", f"{a}-aes-gpu")))] == 1
              for a in ("ecb", "ctr", "xts", "gcm")))
    check("metrics: helper counters from its status file",
          s[("gpu_aes_helper_requests_total", ())] == 1000)
    rc, js, _ = run("metrics", "--json", root=root)
    jm = {m["name"]: m for m in json.loads(js)["metrics"]}
    check("metrics --json: the same families and values",
          rc == 0 and sorted(jm["gpu_aes_requests_total"]["samples"], key=str) ==
          sorted([{"labels": {"path": "ring"}, "value": 1000},
                  {"labels": {"path": "cpu"}, "value": 74}], key=str),
          jm.get("gpu_aes_requests_total"))
    shutil.rmtree(root)
    # A stalled queue: its stall as Unix time.
    root = make_root(stalled=True)
    rc, text, _ = run("metrics", root=root)
    s = metrics_ok(text, root, "metrics, queue 2 stalled")
    check("metrics: queue 2's stall time, and 1 stalled queue",
          s is not None and s[("gpu_aes_ring_stalled_queues", ())] == 1 and
          s[("gpu_aes_queue_stalled", (("queue", "2"),))] == 1 and
          abs(s[("gpu_aes_queue_stall_time_seconds", (("queue", "2"),))] - (time.time() - 10)) < 5 and
          [k for k in s if k[0] == "gpu_aes_queue_stall_time_seconds"] ==
          [("gpu_aes_queue_stall_time_seconds", (("queue", "2"),))])
    shutil.rmtree(root)
    # Awkward label values are escaped.
    doc = helper_doc("cuda", gpus=[dict(H200[0], name='Odd "GPU"\\ \n name')])
    root = make_root(doc=doc)
    rc, text, _ = run("metrics", root=root)
    s = metrics_ok(text, root, "metrics with a quote, backslash and newline in a label")
    check("metrics: label escaping round-trips",
          s is not None and s.get(("gpu_aes_gpu_info", (("gpu", "0"), ("name", 'Odd "GPU"\\ \n name'),
                                                         ("pci", "0000:65:00.0")))) == 1)
    # Not attached, no status file.
    shutil.rmtree(root)
    root = make_root(attached=False, helper=False)
    rc, text, _ = run("metrics", root=root)
    s = metrics_ok(text, root, "metrics, helper not attached")
    check("metrics: not attached is 0, no status file is 0",
          s is not None and s[("gpu_aes_helper_attached", ())] == 0 and
          s[("gpu_aes_helper_status_file_present", ())] == 0 and
          ("gpu_aes_helper_attach_time_seconds", ()) not in s)
    # --output: atomic, 0644, nothing else left behind.
    out = tempfile.mkdtemp(prefix="aesctl-out.")
    path = f"{out}/gpu_aes.prom"
    with open(path, "w") as f:
        f.write("old\n")
    rc, so, se = run("metrics", "--output", path, root=root)
    with open(path) as f:
        body = f.read()
    check("metrics --output: replaced, mode 0644, no temporary left",
          rc == 0 and so == "" and body == text and
          stat.S_IMODE(os.stat(path).st_mode) == 0o644 and os.listdir(out) == ["gpu_aes.prom"],
          f"{rc} {se} {os.listdir(out)}")
    rc, so, se = run("metrics", "--output", f"{out}/nodir/x.prom", root=root)
    check("metrics --output into a missing directory: exit 1, one line",
          rc == 1 and len(se.splitlines()) == 1 and "cannot write" in se, se)
    shutil.rmtree(out)
    shutil.rmtree(root)


# ---- top ------------------------------------------------------------------

def bump(root, stop, per_tick):
    """Moves counters as traffic would, every 50 ms, until stop is set."""
    d = f"{root}/sys/class/misc/gpu_aes/stats"
    vals = dict(COUNTERS)
    while not stop.is_set():
        for k, inc in per_tick.items():
            vals[k] += inc
            tmp = f"{d}/.{k}"
            with open(tmp, "w") as f:
                f.write(f"{vals[k]}\n")
            os.rename(tmp, f"{d}/{k}")
        time.sleep(0.05)


TICK = {"ring_requests": 10, "ring_ctr_requests": 10, "ring_bytes": 40960,
        "fallback_requests": 2, "fallback_small": 2, "fallback_bytes": 200,
        "timeouts": 1, "key_reclaims": 3}


def test_top_batch():
    root = make_root()
    stop = threading.Event()
    th = threading.Thread(target=bump, args=(root, stop, TICK))
    th.start()
    try:
        rc, out, err = run("top", "-n", "3", "-d", "0.5", "--batch", root=root)
        rcj, outj, errj = run("top", "-n", "3", "-d", "0.5", "--json", root=root)
        rcp, outp, _ = run("top", "-n", "2", "-d", "0.2", root=root)  # a pipe: batch
    finally:
        stop.set()
        th.join()
    frames = [f for f in out.split("\n\n") if f.strip()]
    check("top --batch -n 3: exit 0, three frames", rc == 0 and err == "" and len(frames) == 3
          and all(f.startswith("gpu-aesctl top ") for f in frames), out + err)
    check("top, stdout a pipe: batch frames", rcp == 0 and outp.count("gpu-aesctl top ") == 2
          and "\033[" not in outp, outp)
    okr = True
    detail = ""
    for f in frames:
        iv = float(re.search(r"interval ([\d.]+) s", f).group(1))
        for label in ("ring", "  ctr", "cpu \\(fallback\\)", "  small", "  timeouts", "  key_reclaims"):
            m = re.search(rf"^{label} +(\d+) +([\d.]+)", f, re.M)
            if not m:
                okr = False
                detail += f"no row {label}\n{f}\n"
                continue
            n, r = int(m.group(1)), float(m.group(2))
            # The rate is shown to 0.1, the interval to 1 ms.
            if abs(r - n / iv) > 0.051 + n * 0.0005 / iv ** 2:
                okr = False
                detail += f"{label}: {n} in {iv} s shown as {r}/s\n"
    check("top --batch: every rate is its count over the interval", okr, detail)
    check("top --batch: a frame shows the helper line", "helper: pid 4242, backend cpu, 4 queues" in out, out)
    check("top --batch: and how full the ring is, from the status files",
          "ring: 2/1024 (0.2%) in flight, data 8.0 KiB/64 MiB (0.0%), 0 backlogged, keys 3/1024 (0.3%)"
          in out, out)
    check("top --batch: the policy's parts under their reason",
          re.search(r"^  policy +\d+ .*\n    policy_cost +\d+ ", out, re.M), out)
    lines = outj.splitlines()
    try:
        js = [json.loads(l) for l in lines]
    except ValueError as e:
        js = []
        check("top --json parses", False, f"{e}\n{outj}")
    check("top --json -n 3: three one-line frames", rcj == 0 and len(js) == 3 and errj == "", outj + errj)
    # Scripts (tests/vm/aesctl.sh) find a frame by grepping its line.
    check('top --json: each line says "frame": N as it is',
          all(f'"frame": {i + 1},' in l for i, l in enumerate(lines)), outj)
    bad = []
    for i, j in enumerate(js):
        for k, d in j["deltas"].items():
            if abs(j["rates"][k] - d / j["interval_s"]) > 0.0006:
                bad.append(f"frame {i + 1} {k}: rate {j['rates'][k]} != {d} / {j['interval_s']}")
        if i:
            bad += [f"frame {i + 1} {k}: delta {j['deltas'][k]} != counter difference"
                    for k in j["counters"]
                    if j["counters"][k] - js[i - 1]["counters"][k] != j["deltas"][k]]
    check("top --json: deltas are counter differences, rates deltas per second", not bad,
          "\n".join(bad))
    check("top --json: counters moved (ring, ctr, key_reclaims)",
          js and sum(j["deltas"]["ring_ctr_requests"] for j in js) > 0 and
          sum(j["deltas"]["key_reclaims"] for j in js) > 0)
    check("top --json: each per-queue file as a list",
          js and all(j["queues"] == files_of(root, "queues") for j in js), outj)
    shutil.rmtree(root)


def test_top_fill_tolerant():
    """A module whose status files differ (a field gone, new ones): the
    fill line shows what there is, the new fields reach --json."""
    root = make_root()
    d = f"{root}/sys/class/misc/gpu_aes/status"
    os.remove(f"{d}/entries")
    for k, v in (("queues_new", 4), ("queue0_in_flight", 2)):
        with open(f"{d}/{k}", "w") as f:
            f.write(f"{v}\n")
    rc, out, err = run("top", "-n", "1", "-d", "0.1", "--batch", root=root)
    check("top, no 'entries' status file: in flight as a bare count",
          rc == 0 and err == "" and "ring: 2 in flight, data 8.0 KiB/64 MiB (0.0%)" in out, out + err)
    rc, out, err = run("top", "-n", "1", "-d", "0.1", "--json", root=root)
    st = json.loads(out)["status"] if rc == 0 and out else {}
    check("top --json: status files it does not know are in 'status'",
          st.get("queues_new") == 4 and st.get("queue0_in_flight") == 2 and "entries" not in st, out + err)
    shutil.rmtree(root)


def pty_top(keys, rows=40, cols=100):
    """Runs top on a pseudo-terminal of rows x cols, sends keys after the
    first frame; returns (rc, output, termios before/after)."""
    root = make_root()
    # The modes a pseudo-terminal starts with, read from one of our own:
    # the child's may be in top's modes before this process reads it.
    ref_master, ref_slave = os.openpty()
    before = termios.tcgetattr(ref_slave)
    os.close(ref_master)
    os.close(ref_slave)
    pid, fd = pty.fork()
    if pid == 0:
        # The child must never return into the test (it would run the
        # rest of the suite on the pseudo-terminal): exit if exec fails.
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.execv(CTL, [CTL, "--root", root, "top", "-d", "0.2"])
        finally:
            os._exit(127)
    out = b""
    t0 = time.time()
    sent = False
    while time.time() - t0 < 10:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        # The first frame (not the "first rates in" screen) is out.
        if not sent and b"gpu-aesctl top  " in out and b"req/s" in out:
            os.write(fd, keys)
            sent = True
    if not sent or time.time() - t0 >= 10:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    try:
        after = termios.tcgetattr(fd)
    except termios.error:
        after = None
    os.close(fd)
    shutil.rmtree(root)
    return os.waitstatus_to_exitcode(status), out, before, after


def test_top_tty():
    rc, out, _, _ = pty_top(b"q", rows=12, cols=60)
    frame = out.rsplit(b"\033[H", 1)[-1]
    lines = frame.split(b"\r\n")
    check("top on a 60x12 terminal: a frame fills 12 rows at most, lines cut at 60, q quits last",
          rc == 0 and len(lines) <= 12 and b"q quits" in lines[-1] and
          all(len(re.sub(rb"\033\[[0-9;?]*[A-Za-z]", b"", l)) <= 60 for l in lines),
          repr(frame))
    for name, keys in (("q", b"q"), ("Ctrl-C", b"\x03")):
        rc, out, before, after = pty_top(keys)
        check(f"top on a terminal, {name}: exit 0", rc == 0, f"rc {rc}\n{out[-500:]!r}")
        check(f"top on a terminal, {name}: alternate screen and hidden cursor on, then off",
              out.startswith(b"\033[?1049h\033[?25l") and out.endswith(b"\033[?25h\033[?1049l"),
              repr(out[:40]) + " ... " + repr(out[-40:]))
        check(f"top on a terminal, {name}: a screen with the header and the rates",
              b"gpu-aesctl top " in out and b"req/s" in out and b"q quits" in out, repr(out[-800:]))
        check(f"top on a terminal, {name}: terminal modes restored",
              after is None or after[3] == before[3], f"{before[3]} -> {after and after[3]}")


def test_why_directions():
    """A module that keeps estimates per direction (the dir column):
    each direction's rows say which requests they are."""
    est = ("alg bytes cpu_ns_per_kib ring_ns_per_kib ring_lone_us auto auto_lone dir\n"
           "cbc 4096 740 460 - ring cpu enc\n"
           "cbc 4096 140 460 - cpu cpu dec\n")
    root = make_root(dispatch=dict(DISPATCH_FILES, estimates=est,
                                   cpu_drivers="cbc cbc-aes-aesni\n"))
    rc, out, err = run("status", root=root)
    check("status: why, per direction: encryptions to the ring, decryptions on the CPU",
          rc == 0 and
          "  cbc:\n"
          "    4 KiB encryptions: the CPU driver cbc-aes-aesni costs 0.72 s/GB, the ring 0.45: "
          "they go to the ring\n"
          "    4 KiB decryptions: the CPU driver cbc-aes-aesni costs 0.14 s/GB, the ring 0.45: "
          "they stay on the CPU\n" in out, out)
    shutil.rmtree(root)


def test_module_order():
    """The algorithm list and its order are the module's (the first
    column of dispatch/cpu_drivers), not gpu-aesctl's own."""
    root = make_root()
    with open(f"{root}/sys/class/misc/gpu_aes/dispatch/cpu_drivers", "w") as f:
        f.write("gcm -\nxts -\nctr -\necb -\n")
    rc, out, err = run("status", root=root)
    check("status: algorithms in the module's order (gcm, xts, ctr, ecb here)",
          rc == 0 and [l.split()[0] for l in out.splitlines()
                       if re.match(r"  \w+\(aes\) ", l)] ==
          ["gcm(aes)", "xts(aes)", "ctr(aes)", "ecb(aes)"], out)
    rc, out, err = run("bench", "--algs", "cbc", root=root)
    check("bench --algs: an algorithm the module lacks is refused, exit 2, naming the module's",
          rc == 2 and "unknown algorithm 'cbc' (the module has: gcm, xts, ctr, ecb)" in err,
          f"{rc} {err}")
    shutil.rmtree(root)


def main():
    if not os.access(CTL, os.X_OK):
        print(f"FAIL: no gpu-aesctl at {CTL}")
        return 1
    for t in (test_status, test_status_json, test_status_gpu_paths,
              test_problems, test_garbage,
              test_status_file_strings,
              test_no_module_and_bad_input, test_why_directions,
              test_module_order, test_metrics,
              test_top_batch,
              test_top_fill_tolerant, test_top_tty):
        t()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
