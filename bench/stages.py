#!/usr/bin/env python3
"""stages.py PERF_SCRIPT BENCH_TXT - one request's host CPU, stage by stage.

Folds `perf script` output (a `perf record --call-graph dwarf` of
`gpu-aes-bench --helper`: DWARF, because libc's memcpy and mutex code keep
no frame pointer, so a frame-pointer walk loses their callers, and because
it names inlined functions) into the stages a request passes through, per
thread role, and scales each role's share by the bench's own figure for
that role ("host CPU per request by thread", averaged over the algorithms
the run measured), so the table adds up to the bench's host CPU per
request.  A sample belongs to the innermost frame of our own code on its
stack (kmod/ through kring, the helper, the bench); what it was doing
there is its own column: copying (memcpy), taking or dropping a lock
(pthread mutex code), in the kernel (futex sleeps and wakes, page
faults), reading the clock, in OpenSSL or CUDA, or in the code itself.  Frames the table does not name are listed
by function, never dropped.
"""
import collections
import re
import sys

# Thread name (as perf truncates it to 15 characters) -> role in the
# bench's per-thread split.
ROLES = {
    "bench-submit": "submit",
    "gpuaes-core": "core",
    "gpuaes-cudadone": "gpu-done",
    "gpuaes-reap": "reap",
    "kworker": "kworker",
}

# Innermost own function -> stage.  Order of the table is the order of a
# request's journey, which is how the output is sorted.
STAGES = [
    ("dispatch", ["gpu_aes_route", "gpu_aes_decide", "gpu_aes_dispatch_",
                  "gpu_aes_cpu_saturated", "gpu_aes_machine_spare",
                  "gpu_aes_borrow", "gpu_aes_explore_", "gpu_aes_ring_queue",
                  "gpu_aes_stat_fallback", "gpu_aes_sample",
                  "gpu_aes_ring_headroom"]),
    ("submit: lock and checks", ["gpu_aes_ring_submit"]),
    ("submit: reserve (tag, data, key)", ["gpu_aes_queue_reserve",
                                          "gpu_aes_key_prepare",
                                          "gpu_aes_key_bind"]),
    ("submit: copy in", ["gpu_aes_queue_copy_in", "gpu_aes_sk_copy_in",
                         "gpu_aes_aead_copy_in", "gpu_aes_sg_to_slot"]),
    ("submit: post (sqe, publish)", ["gpu_aes_queue_post",
                                     "gpu_aes_queue_arm_timeout",
                                     "mod_delayed_work",
                                     "kshim_mod_delayed_work"]),
    ("submit: drop queue reference", ["kshim_wake_up_var",
                                      "gpu_aes_queue_put"]),
    ("submit: ring the helper", ["gpu_aes_ring_wake", "kring_doorbell",
                                 "host_doorbell", "gpu_aes_transport_inproc"]),
    ("helper: take batch, check sqes", ["gpu_aes_core_run", "take_batch",
                                        "gpu_aes_core_check_sqe",
                                        "gpu_aes_sqe_span",
                                        "gpu_aes_alg_len_valid",
                                        "core_main", "host_main"]),
    ("helper: backend launch and wait", ["cuda_", "gpu_aes_cuda",
                                         "backend_", "null_submit"]),
    ("helper: post completions", ["batch_done", "post_queue", "post",
                                  "reap_later", "notify", "reaper_main",
                                  "host_reap"]),
    ("reap: claim, release tags", ["gpu_aes_queue_reap", "gpu_aes_ring_reap",
                                   "kring_reap", "gpu_aes_queue_claim_one",
                                   "gpu_aes_tag_release",
                                   "gpu_aes_queue_admit",
                                   "gpu_aes_queue_unlock_post_admitted",
                                   "gpu_aes_ring_helper_figures",
                                   "gpu_aes_status_valid"]),
    ("reap: copy out", ["gpu_aes_queue_copy_out", "gpu_aes_sk_copy_out",
                        "gpu_aes_aead_copy_out", "gpu_aes_out_iv",
                        "gpu_aes_ctr_advance"]),
    ("consumer: callback", ["gpu_aes_job_finish", "kring_job_complete",
                            "dq_done"]),
    ("consumer: waits for room", ["dq_wait"]),
    ("consumer: its own loop", ["dq_main", "kring_submit", "kring_req_set",
                                "gpu_aes_job_init"]),
]

# kshim's scatterlist walks (sg_*) copy both ways: their caller decides.
OWN = re.compile(r"^(gpu_aes_|kring_|kshim_|dq_|host_|reaper_main$|"
                 r"batch_done$|post_queue$|post$|notify$|take_batch$|"
                 r"reap_later$|null_|cuda_|backend_|core_)")


def stage_of(func):
    for stage, names in STAGES:
        for n in names:
            if func == n or (n.endswith("_") and func.startswith(n)):
                return stage
    return None


def what(sym, dso):
    """What a leaf frame was doing, by its object and, for code perf
    shows inlined (glibc's own inlining), by its name."""
    if "kernel" in dso:
        return "kernel"
    if "vdso" in dso or "clock_gettime" in sym:
        return "clock"
    if re.search(r"mem(cpy|move|set)", sym):
        return "memcpy"
    if re.search(r"pthread_|lll_|futex", sym):
        return "lock"
    if "libcrypto" in dso:
        return "openssl"
    if "libcuda" in dso or "libcudart" in dso or "nvidia" in dso:
        return "cuda"
    if "libc" in dso or "ld-linux" in dso:
        return "libc"
    return "code"


def own(sym, dso):
    return ("kernel" not in dso and "lib" not in dso.rsplit("/", 1)[-1]
            and OWN.match(sym) is not None)


# "   ip sym+off (dso)": a demangled C++ name has spaces and parentheses
# of its own ("ns::(anonymous namespace)::f(int, char*)"); the dso is the
# last parenthesised word.
FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.+?)(?:\+0x[0-9a-f]+)?\s+\((\S*)\)\s*$")


def short(sym):
    """A C++ name without its anonymous namespaces and arguments."""
    sym = sym.replace("(anonymous namespace)::", "")
    return sym.split("(", 1)[0] if "(" in sym else sym


def samples(path):
    """Yields (comm, period, [(sym, dso), ...] leaf first)."""
    comm, period, frames = None, 0, []
    with open(path, errors="replace") as f:
        for line in f:
            if not line.strip():
                if comm is not None:
                    yield comm, period, frames
                comm, period, frames = None, 0, []
                continue
            if not line[0].isspace():
                # "comm tid period" (perf script -F comm,tid,period,ip,sym,dso)
                parts = line.split()
                nums = [p for p in parts if p.isdigit()]
                period = int(nums[-1]) if nums else 1
                comm = " ".join(p for p in parts if not p.isdigit()) or "?"
                continue
            m = FRAME.match(line)
            if m:
                frames.append((short(m.group(1)), m.group(2)))
    if comm is not None:
        yield comm, period, frames


def role_of(comm):
    for prefix, role in ROLES.items():
        if comm.startswith(prefix):
            return role
    return None


def bench_roles(path):
    """Mean host CPU per request (us) of each role over the algorithms."""
    per = collections.defaultdict(list)
    pat = re.compile(r"host CPU per request by thread \(us\): (.*)$")
    with open(path) as f:
        for line in f:
            m = pat.search(line)
            if not m:
                continue
            toks = m.group(1).split()
            for name, val in zip(toks[::2], toks[1::2]):
                per[name].append(float(val))
    return {k: sum(v) / len(v) for k, v in per.items() if v}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[0])
    us = bench_roles(sys.argv[2])
    if not us:
        sys.exit("stages.py: no per-thread figures in " + sys.argv[2])
    cost = collections.defaultdict(lambda: collections.Counter())
    total = collections.Counter()
    for comm, period, frames in samples(sys.argv[1]):
        role = role_of(comm)
        if role is None:
            continue
        mine = next((s for s, d in frames if own(s, d)), None)
        leaf = what(*frames[0]) if frames else "code"
        stage = stage_of(mine) if mine else None
        if stage is None:
            stage = "other: " + (mine or "(no frame of ours)")
        cost[role][(stage, leaf)] += period
        total[role] += period
    order = {s: i for i, (s, _) in enumerate(STAGES)}
    print("%-8s %-36s %-8s %7s %9s" %
          ("thread", "stage", "doing", "share", "us/req"))
    grand = 0.0
    for role in ["submit", "core", "gpu-done", "reap", "kworker"]:
        if not total[role] or role not in us:
            continue
        rows = sorted(cost[role].items(),
                      key=lambda kv: (order.get(kv[0][0], 99), -kv[1]))
        for (stage, leaf), p in rows:
            share = p / total[role]
            if share < 0.002:
                continue
            print("%-8s %-36s %-8s %6.1f%% %9.3f" %
                  (role, stage, leaf, 100 * share, share * us[role]))
        print("%-8s %-36s %-8s %6.1f%% %9.3f" %
              (role, "(all)", "", 100.0, us[role]))
        grand += us[role]
    print("%-8s %-36s %-8s %7s %9.3f" % ("all", "", "", "", grand))


if __name__ == "__main__":
    main()
