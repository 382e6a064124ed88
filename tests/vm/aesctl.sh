#!/bin/sh
# aesctl.sh - gpu-aesctl on the real module and helper (docs/gpu-aesctl.8):
#
#  * status and status --json report exactly what sysfs holds (every
#    counter, status file, per-queue file and parameter), the helper (pid,
#    backend, queues, dispatch) and the lookups, and say what is wrong in
#    plain words; the helper's status file is there, whole and current,
#    with the helper, its queues those of the module and its dispatch
#    section the module's;
#  * top --batch -n 3 and top --json -n 3 under a known load (1 MiB of
#    dm-crypt writes through aes-ctr-plain64: 2048 sector requests, on the
#    ring with the helper, on the CPU without): three frames, the load in
#    them exactly, every rate its count over the interval;
#  * top on a terminal, as a person uses it: under tmux, the screen shows
#    the header and non-zero rates under load; q (and Ctrl-C) quit with
#    status 0 and the terminal is as it was (main screen, cursor, stty);
#  * bench prints its table: every driver measured, our requests on the
#    path the mode says, exactly;
#  * metrics: Prometheus's own text parser (prometheus_client) accepts it,
#    every line is HELP, TYPE or a sample, every counter's sample equals
#    its file;
#  * bad command lines: exit 2 with one line on stderr, nothing sent.
#
# python3 (the host's, its library mounted read-only by vm-run) parses the
# JSON.  Runs in both modes.
. "$(dirname "$0")/lib.sh"

d=$TMP/aesctl
mkdir -p "$d"
name=gpuaes-aesctl
dev=/dev/mapper/$name
cleanup() {
	tmux -L aesctl kill-server 2>/dev/null
	[ -n "${loadpid:-}" ] && kill "$loadpid" 2>/dev/null
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT

command -v python3 >/dev/null && python3 -c 'import json' ||
	{ fail "python3 with its library in the guest (vm-run mounts it)"; finish; exit; }

# ---- status and status --json agree with sysfs --------------------------

# Reads until sysfs is the same before and after the two reports (nothing
# else runs, but a self-test or the helper's first batch could).
i=0
while :; do
	grep -r . "$STATS" "$(dirname "$STATS")/status" "$(dirname "$STATS")/queues" \
		/sys/module/gpu_aes/parameters >"$d/sys.before" 2>/dev/null
	gpu-aesctl status >"$d/status.txt" 2>"$d/status.err"
	rc=$?
	gpu-aesctl status --json >"$d/status.json" 2>>"$d/status.err"
	rcj=$?
	grep -r . "$STATS" "$(dirname "$STATS")/status" "$(dirname "$STATS")/queues" \
		/sys/module/gpu_aes/parameters >"$d/sys.after" 2>/dev/null
	cmp -s "$d/sys.before" "$d/sys.after" && break
	i=$((i + 1))
	[ $i -lt 5 ] || { note "sysfs kept changing"; break; }
	sleep 1
done
[ $rc = 0 ] && [ $rcj = 0 ] && [ ! -s "$d/status.err" ] &&
	pass "status and status --json: exit 0, nothing on stderr" ||
	{ cat "$d/status.err"; fail "status: exit $rc, --json: exit $rcj"; }

cat >"$d/status_check.py" <<'EOF'
import json, os, re, sys

d, helper = sys.argv[1], sys.argv[2] == "1"
base = "/sys/class/misc/gpu_aes"
ok = True


def say(good, what, detail=""):
    global ok
    if not good:
        ok = False
        for line in str(detail).splitlines()[:20]:
            print("  " + line)
    print(("PASS " if good else "FAIL ") + what)


def files(path, lists=False):
    out = {}
    for n in sorted(os.listdir(path)):
        with open(os.path.join(path, n)) as f:
            v = f.read().strip()
        if lists:
            out[n] = [int(x) for x in v.split()]
        else:
            out[n] = int(v) if re.fullmatch(r"-?\d+", v) else v
    return out


stats, status = files(base + "/stats"), files(base + "/status")
queues = files(base + "/queues", lists=True)
params = files("/sys/module/gpu_aes/parameters")
j = json.load(open(d + "/status.json"))
text = open(d + "/status.txt").read()
say(j["counters"] == stats, f"status --json: all {len(stats)} counters equal their files exactly",
    "\n".join(f"{k}: file {stats.get(k)} json {j['counters'].get(k)}"
              for k in set(stats) | set(j["counters"]) if stats.get(k) != j["counters"].get(k)))
say(j["status"] == status, f"status --json: all {len(status)} status files equal",
    f"{j['status']}\n{status}")
say(j["queues"] == queues and
    all(len(v) == status["queues"] for v in queues.values()),
    f"status --json: all {len(queues)} per-queue files equal, one value per queue "
    f"({status['queues']})", f"{j['queues']}\n{queues}")
say(status["entries"] == status["queues"] * status["queue_entries"] and
    status["data_bytes"] == status["queues"] * status["queue_data_bytes"] and
    all(status[k] == sum(queues[k]) for k in ("in_flight", "backlog", "data_used")) and
    status["stalled"] == sum(queues["stalled"]),
    "status files: the totals are the sums over the queues", f"{status}\n{queues}")
say(j["module"]["parameters"] == params and
    j["module"]["version"] == open("/sys/module/gpu_aes/version").read().strip(),
    "status --json: version and every parameter", j["module"])
m = re.search(r"\nCounters \(/sys/class/misc/gpu_aes/stats/\):\n((?:  .*\n)+)", text)
tc = {k: int(v) for k, v in (l.split() for l in m.group(1).splitlines())} if m else {}
say(tc == stats, "status: the Counters section is every counter file, same values", tc)
say(f"Module:      gpu_aes {j['module']['version']}" in text and
    all(f" {k}={v}" in text for k, v in params.items()),
    "status: module version and parameters in the text")
t = j["totals"]
say(t["requests"]["ring"] == stats["ring_requests"] and
    t["requests"]["cpu"] == stats["fallback_requests"] and
    t["bytes"]["total"] == stats["ring_bytes"] + stats["fallback_bytes"] and
    sum(t["ring_by_algorithm"].values()) == stats["ring_requests"] and
    sum(t["cpu_by_reason"].values()) == stats["fallback_requests"] and
    all(sum(p.values()) == stats["fallback_" + r]
        for r, p in t["cpu_by_reason_part"].items()),
    "status --json: totals per path add up (by algorithm, by reason and by part of a reason)", t)
re_req = re.search(r"\n  requests +(\d+) +(\d+) +(\d+)\n", text)
say(re_req and [int(x) for x in re_req.groups()] ==
    [stats["ring_requests"], stats["fallback_requests"],
     stats["ring_requests"] + stats["fallback_requests"]],
    "status: request totals in the text")

# Algorithms: ours, passed, at the priority parameter (xts and gcm one
# above, the mode table's PRIO), and winning; one for each mode the module
# registered (dispatch/cpu_drivers: xctr only where the kernel has it).
algs = {a["driver"]: a for a in j["algorithms"]}
with open(base + "/dispatch/cpu_drivers") as f:
    modes = [l.split()[0] for l in f if l.strip()]
above = {m + "-aes-gpu": 1 if m in ("xts", "gcm") else 0 for m in modes}
say(sorted(algs) == sorted(above) and
    all(a["selftest"] == "passed" and a["priority"] == params["priority"] + above[d] and
        a["selected"] and a["best_other"] and a["best_other"]["priority"] < a["priority"]
        for d, a in algs.items()),
    f"status --json: {len(above)} drivers ({' '.join(modes)}), self-tests passed, at their "
    "priorities, each wins its lookup (aesni next)", j["algorithms"])
for drv, a in algs.items():
    say(re.search(rf"\(aes\) +{drv} +{a['priority']}  passed +\d+  ours \(next: ", text),
        f"status: {drv} is ours in the table")

problems = [p["message"] for p in j["problems"]]
h = j["helper"]
if helper:
    pid = status["helper_pid"]
    exe = os.readlink(f"/proc/{pid}/exe") if os.path.exists(f"/proc/{pid}/exe") else ""
    say(h["attached"] is True and h["pid"] == pid and exe.endswith("gpu-aes-helper"),
        f"status --json: helper attached, pid {pid} is gpu-aes-helper", f"{h} {exe}")
    sf = h["status_file"]
    c = sf["content"] or {}
    ring = c.get("ring") or {}
    say(sf["present"] and sf["error"] is None and c.get("pid") == pid and
        c.get("abi") == 3 and c.get("backend") == "cpu" and c.get("gpus") == [] and
        all(ring.get(k) == status[k] for k in ("queues", "queue_entries", "keys",
                                                "queue_data_bytes", "data_bytes")),
        "status --json: the helper's status file: its pid, ABI 3, cpu backend, no GPU, "
        "the queues' geometry the module's", sf)
    disp = c.get("dispatch") or {}
    est = disp.get("estimates") or []
    say(disp.get("mode") == params["dispatch"] and len(est) > 0 and
        {e.get("auto") for e in est} <= {"ring", "cpu"} and
        all(set(e) >= {"alg", "bytes", "cpu_ns_per_kib", "ring_ns_per_kib"} for e in est),
        f"status --json: the helper's copy of the dispatch mode ({params['dispatch']}) and "
        f"of the {len(est)} estimates rows", disp)
    nq = status["queues"]
    say(f"Helper:      attached, pid {pid}, since " in text and "backend cpu" in text and
        "GPUs:        none (cpu backend)" in text and
        f"Ring:        {nq} queue{'s' if nq != 1 else ''} of {status['queue_entries']} entries" in text and
        f"{status['keys']} key slots" in text and
        all(f"  queue {q:<5d} {queues['in_flight'][q]} in flight" in text for q in range(nq)) and
        f"Dispatch:    {params['dispatch']}" in text,
        "status: helper, backend, GPUs, queues (one line each) and dispatch in the text")
    say(any(p.startswith("no GPU: the helper runs the cpu backend") for p in problems) and
        not any("not attached" in p or "missing" in p or "stalled" in p for p in problems),
        "status: the problem is 'no GPU' (cpu backend), nothing else about the helper", problems)
else:
    say(h["attached"] is False and h["pid"] is None and all(v == 0 for v in status.values())
        and all(v == [] for v in queues.values()),
        "status --json: no helper attached, every status file 0, every per-queue file empty", h)
    say(h["status_file"]["present"] is False and h["status_file"]["content"] is None,
        "status --json: no helper status file", h["status_file"])
    say("Helper:      not attached: every request runs on the CPU" in text and
        "warning: helper not attached: every request runs on the CPU" in text,
        "status: 'helper not attached: every request runs on the CPU'")
sys.exit(0 if ok else 1)
EOF
python3 "$d/status_check.py" "$d" "${GPU_AES_VM_HELPER:-0}" || nfail=$((nfail + 1))

# The helper's status file itself: whole, readable by all, current.
if with_helper; then
	f=/run/gpu-aes/helper.json
	perm=$(stat -c %a "$f" 2>/dev/null)
	cat >"$d/helper_file.py" <<'EOF'
import json, sys, time
j = json.load(open(sys.argv[1]))
age = time.time() - j["updated"]
print(f"  schema {j['schema']}, updated {age:.1f} s ago, every {j['interval_s']} s")
sys.exit(0 if j["schema"] == 2 and 0 <= age <= 2 * j["interval_s"] + 2 else 1)
EOF
	if python3 "$d/helper_file.py" "$f" && [ "$perm" = 644 ]; then
		pass "helper status file $f: mode 644, schema 2, rewritten every interval"
	else
		fail "helper status file $f (mode $perm)"
	fi
	if ls /run/gpu-aes | grep -qv '^helper.json$'; then
		fail "a temporary file is left in /run/gpu-aes: $(ls /run/gpu-aes)"
	else
		pass "no temporary file left next to it"
	fi
fi

# ---- top under a known load ------------------------------------------------

ctr_volume "$name" 4096 "$d" || { finish; exit; }
randfile "$d/data" 1048576
sectors=2048

if with_helper; then path=ring; other=cpu; else path=cpu; other=ring; fi

# top_load MODE: top -n 3 -d 2 in MODE (--batch or --json) into $d/top.MODE;
# the 1 MiB write starts once frame 1 is out and must end before frame 3.
top_load() {
	snap t
	gpu-aesctl top -n 3 -d 2 "$1" >"$d/top$1" 2>"$d/top$1.err" &
	tpid=$!
	i=0
	until [ "$(grep -c 'frame 1\|"frame": 1' "$d/top$1")" -ge 1 ] || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	dd if="$d/data" of="$dev" bs=64k oflag=direct 2>"$d/dd.err" || fail "dd $1"
	frames_at_end=$(grep -c 'frame 3\|"frame": 3' "$d/top$1")
	wait $tpid
	trc=$?
	[ "$frames_at_end" = 0 ] ||
		note "the write outlasted frame 3: the check below cannot be exact"
	[ $trc = 0 ] && [ ! -s "$d/top$1.err" ] || {
		cat "$d/top$1.err"
		fail "top $1 exited with $trc"
	}
}

top_load --batch
cat >"$d/top_check.py" <<'EOF'
import re, sys

text, path, want, mode_ok = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3]), True
frames = [f for f in text.split("\n\n") if f.strip()]
bad = []


def row(frame, label):
    m = re.search(rf"^{label} +(\d+) +([\d.]+)(?: +(\d+) +([\d.]+) (\S+))?$", frame, re.M)
    return m


if len(frames) != 3 or not all(f.startswith("gpu-aesctl top ") for f in frames):
    print(text)
    print("FAIL top --batch -n 3: three frames")
    sys.exit(1)
print("PASS top --batch -n 3: three frames")
count = {"ring": 0, "cpu": 0, "bytes": 0, "ctr": 0}
for n, f in enumerate(frames, 1):
    iv = float(re.search(r"interval ([\d.]+) s  frame %d/3" % n, f).group(1))
    for label in ("ring", "cpu \\(fallback\\)", "  ctr", "  no_helper", "  small", "total",
                  "  timeouts", "  rejected_completions"):
        m = row(f, label)
        if not m:
            bad.append(f"frame {n}: no row '{label}'")
            continue
        c, r = int(m.group(1)), float(m.group(2))
        if abs(r - c / iv) > 0.051 + c * 0.0005 / iv ** 2:
            bad.append(f"frame {n} {label}: {c} in {iv} s shown as {r}/s")
    ring, cpu = row(f, "ring"), row(f, "cpu \\(fallback\\)")
    if n == 1 and (int(ring.group(1)) or int(cpu.group(1))):
        bad.append(f"frame 1 (before the load) has requests: {ring.group(0)} / {cpu.group(0)}")
    count["ring"] += int(ring.group(1))
    count["cpu"] += int(cpu.group(1))
    count["bytes"] += int((ring if path == "ring" else cpu).group(3))
    count["ctr"] += int(row(f, "  ctr").group(1))
other = "cpu" if path == "ring" else "ring"
exact = (count[path] == want and count[other] == 0 and count["bytes"] == want * 512 and
         count["ctr"] == (want if path == "ring" else 0))
print(("PASS" if exact else "FAIL") +
      f" top frames 2-3 hold the load exactly: {count[path]} {path} requests"
      f" ({count['bytes']} bytes, ctr {count['ctr']}), {count[other]} on {other}")
if bad:
    print("\n".join("  " + b for b in bad))
print(("FAIL" if bad else "PASS") + " top --batch: every rate is its count over the measured interval")
peak = max(float(row(f, "ring" if path == "ring" else "cpu \\(fallback\\)").group(2)) for f in frames)
print(("PASS" if peak > 0 else "FAIL") + f" top --batch: {path} requests/s peaks at {peak}")
# How full the ring is: with the helper a line per frame, its sizes those of
# the status files (in flight, data area, key slots); without, no such line.
st = {n: open(f"/sys/class/misc/gpu_aes/status/{n}").read().strip()
      for n in ("entries", "keys")}
fills = [re.search(r"^ring: (\d+)/(\d+) \([\d.]+%\) in flight, data \S+ \S+/(\S+ \S+) "
                   r"\([\d.]+%\), (\d+) backlogged, keys (\d+)/(\d+) \([\d.]+%\)$", f, re.M)
         for f in frames]
if path == "ring":
    fill_ok = all(m and m.group(2) == st["entries"] and m.group(6) == st["keys"] and
                  int(m.group(1)) <= int(st["entries"]) for m in fills)
    print(("PASS" if fill_ok else "FAIL") +
          f" top --batch: each frame says how full the ring is, of {st['entries']} entries"
          f" and {st['keys']} key slots")
else:
    fill_ok = not any(fills) and all("helper: NOT ATTACHED" in f for f in frames)
    print(("PASS" if fill_ok else "FAIL") + " top --batch: 'helper: NOT ATTACHED', no ring fill line")
sys.exit(0 if exact and not bad and peak > 0 and fill_ok else 1)
EOF
python3 "$d/top_check.py" "$d/top--batch" "$path" "$sectors" >"$d/top_check.out"
cat "$d/top_check.out"
nfail=$((nfail + $(grep -c '^FAIL' "$d/top_check.out")))
expect_delta t "$( [ $path = ring ] && echo ring_requests || echo fallback_requests)" "$sectors" &&
	pass "sysfs agrees: $sectors $path requests during top --batch" ||
	fail "sysfs during top --batch"

top_load --json
python3 - "$d/top--json" "$path" "$sectors" <<'EOF' >"$d/top_json.out"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
path, want = sys.argv[2], int(sys.argv[3])
js = [json.loads(l) for l in lines]
req = "ring_requests" if path == "ring" else "fallback_requests"
ok = len(js) == 3 and [j["frame"] for j in js] == [1, 2, 3]
print(("PASS" if ok else "FAIL") + " top --json -n 3: three one-line frames")
bad = []
for i, j in enumerate(js):
    for k, dl in j["deltas"].items():
        if abs(j["rates"][k] - dl / j["interval_s"]) > 0.0006:
            bad.append(f"frame {i + 1} {k}: {j['rates'][k]} != {dl}/{j['interval_s']}")
    if i and any(j["counters"][k] - js[i - 1]["counters"][k] != j["deltas"][k] for k in j["counters"]):
        bad.append(f"frame {i + 1}: deltas are not the counter differences")
if bad:
    print("\n".join("  " + b for b in bad))
print(("FAIL" if bad else "PASS") + " top --json: deltas are counter differences, rates deltas/interval")
total = sum(j["deltas"][req] for j in js)
ok2 = js[0]["deltas"][req] == 0 and total == want and \
    sum(j["deltas"]["ring_bytes" if path == "ring" else "fallback_bytes"] for j in js) == want * 512
print(("PASS" if ok2 else "FAIL") + f" top --json: {total} {req} in frames 2-3, {want} written")
sys.exit(0 if ok and ok2 and not bad else 1)
EOF
cat "$d/top_json.out"
nfail=$((nfail + $(grep -c '^FAIL' "$d/top_json.out")))

# ---- top on a terminal (tmux) ----------------------------------------------

# A shell in a detached 120x45 tmux pane; the load runs outside it.
tm() { tmux -L aesctl "$@"; }
screen() { tm capture-pane -p -t t; }
# wait_screen PATTERN SECONDS: until the pane shows PATTERN (grep -E).
wait_screen() {
	_i=0
	until screen | grep -qE "$1"; do
		_i=$((_i + 1))
		[ $_i -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}
tm new-session -d -s t -x 120 -y 45 "env PS1='aesctl-test\$ ' sh" ||
	{ fail "tmux new-session"; finish; exit; }
wait_screen 'aesctl-test\$' 10 || fail "tmux: no shell prompt"
tm send-keys -t t "stty -g >$d/stty.before; clear" Enter
sleep 0.5
( while :; do dd if="$d/data" of="$dev" bs=64k oflag=direct 2>/dev/null; done ) &
loadpid=$!

# tty_top KEY WHAT: top on the pane, under load, then KEY.
tty_top() {
	tm send-keys -t t "gpu-aesctl top -d 1; echo top-exit=\$?" Enter
	if ! wait_screen 'frame [2-9]' 30; then
		screen | sed 's/^/  | /'
		fail "$2: top did not draw two frames in 30 s"
		return
	fi
	screen >"$d/screen.top"
	alt=$(tm display -p -t t '#{alternate_on}')
	cur=$(tm display -p -t t '#{cursor_flag}')
	rate=$(awk -v p="$([ $path = ring ] && echo ring || echo 'cpu (fallback)')" \
		'index($0, p " ") == 1 { split(substr($0, length(p) + 1), a, " ");
			print a[2]; exit }' "$d/screen.top")
	if grep -q '^gpu-aesctl top ' "$d/screen.top" &&
	   grep -q '^path / algorithm  *requests  *req/s' "$d/screen.top" &&
	   grep -q '^q quits' "$d/screen.top" &&
	   [ "$alt" = 1 ] && [ "$cur" = 0 ] &&
	   awk -v r="$rate" 'BEGIN { exit !(r + 0 > 0) }'; then
		pass "$2: the screen shows the header, the table and $path at $rate req/s (alternate screen, cursor hidden)"
	else
		sed 's/^/  | /' "$d/screen.top"
		fail "$2: screen (alternate $alt, cursor $cur, $path rate '$rate')"
	fi
	tm send-keys -t t "$1"
	if ! wait_screen 'top-exit=' 10; then
		screen | sed 's/^/  | /'
		fail "$2: top did not quit"
		return
	fi
	sleep 0.3
	tm send-keys -t t "stty -g >$d/stty.after" Enter
	sleep 0.5
	screen >"$d/screen.after"
	alt=$(tm display -p -t t '#{alternate_on}')
	cur=$(tm display -p -t t '#{cursor_flag}')
	if grep -q 'top-exit=0$' "$d/screen.after" && [ "$alt" = 0 ] && [ "$cur" = 1 ] &&
	   ! grep -q '^q quits' "$d/screen.after" &&
	   grep -q 'aesctl-test\$ gpu-aesctl top -d 1' "$d/screen.after" &&
	   cmp -s "$d/stty.before" "$d/stty.after"; then
		pass "$2: exit 0; main screen back with the shell's lines, cursor shown, stty as before"
	else
		sed 's/^/  | /' "$d/screen.after"
		note "alternate $alt, cursor $cur, stty $(cat "$d/stty.before") -> $(cat "$d/stty.after")"
		fail "$2: terminal after top"
	fi
	tm send-keys -t t "clear" Enter
	sleep 0.3
}
tty_top q "top under tmux, q"
tty_top C-c "top under tmux, Ctrl-C"
kill "$loadpid" 2>/dev/null
wait "$loadpid" 2>/dev/null
loadpid=
tm kill-server

# ---- bench -------------------------------------------------------------------

# Every algorithm the module registered (xctr only where the kernel has
# it), three sizes each.
modes=$(awk '{ printf "%s%s", s, $1; s = "|" }' \
	/sys/class/misc/gpu_aes/dispatch/cpu_drivers)
nmodes=$(awk 'END { print NR }' /sys/class/misc/gpu_aes/dispatch/cpu_drivers)
gpu-aesctl bench --time 0.05 >"$d/bench.txt" 2>"$d/bench.err"
rc=$?
rows=$(grep -cE "^($modes)\\(aes\\)|^ {9} +[0-9.]+ KiB" "$d/bench.txt")
if [ $rc = 0 ] && [ "$rows" = $((3 * nmodes)) ] &&
   grep -q 'measures the path a consumer gets' "$d/bench.txt" &&
   [ "$(grep -cE -- '-aes-gpu +[0-9.]+ +[0-9.]+ (ring|cpu:no_helper) ' "$d/bench.txt")" = $((3 * nmodes)) ]; then
	pass "bench: the table, $nmodes algorithms x 3 sizes, every cell measured, our path $( with_helper && echo ring || echo cpu:no_helper)"
else
	sed 's/^/  | /' "$d/bench.txt" "$d/bench.err"
	fail "bench: exit $rc, $rows rows"
fi
sed 's/^/  /' "$d/bench.txt"
gpu-aesctl bench --time 0.05 --sizes 4096 --json >"$d/bench.json" 2>"$d/bench.err"
python3 - "$d/bench.json" "$path" <<'EOF' >"$d/bench_check.out"
import json, sys
j, path = json.load(open(sys.argv[1])), sys.argv[2]
r = j["results"]
with open("/sys/class/misc/gpu_aes/dispatch/cpu_drivers") as f:
    nmodes = sum(1 for l in f if l.strip())
ok = len(r) == nmodes and all(
    x["gpu_aes"]["requests"] > 0 and x["other"]["requests"] > 0 and
    x["gpu_aes"]["path"][path] == x["gpu_aes"]["requests"] and
    x["gpu_aes"]["path"]["cpu" if path == "ring" else "ring"] == 0 and
    not x["other"]["driver"].endswith("-aes-gpu") for x in r)
if not ok:
    print("  " + json.dumps(r))
print(("PASS" if ok else "FAIL") +
      f" bench --json: each of our measured requests counted on the {path} path, exactly;"
      " the other driver is not ours")
sys.exit(0 if ok else 1)
EOF
cat "$d/bench_check.out"
nfail=$((nfail + $(grep -c '^FAIL' "$d/bench_check.out")))

# ---- metrics ---------------------------------------------------------------

grep -r . "$STATS" >"$d/m.before"
gpu-aesctl metrics >"$d/metrics.prom" 2>"$d/metrics.err"
rc=$?
grep -r . "$STATS" >"$d/m.after"
cmp -s "$d/m.before" "$d/m.after" || note "counters moved while metrics ran"
python3 - "$d/metrics.prom" "$STATS" <<'EOF' >"$d/metrics_check.out"
import os, re, sys
from prometheus_client.parser import text_string_to_metric_families
text, stats = open(sys.argv[1]).read(), sys.argv[2]
# Prometheus's own parser first (vm-run puts prometheus_client in the
# image): the exposition must parse, and its samples are the ones checked.
try:
    fams = list(text_string_to_metric_families(text))
except Exception as e:  # any parser error is the finding
    print(f"  {e}")
    print("FAIL metrics: prometheus_client's text parser rejects it")
    sys.exit(1)
parsed = {(s.name, tuple(sorted(s.labels.items()))): s.value
          for f in fams for s in f.samples}
print(f"PASS metrics: prometheus_client's text parser accepts it ({len(fams)} families, {len(parsed)} samples)")
# Then line by line: nothing but HELP, TYPE and samples, each sample the
# same as the parser's.
samples, types, helps = {}, {}, set()
for line in text.splitlines():
    m = re.fullmatch(r"# TYPE (\w+) (counter|gauge)", line)
    if m:
        types[m.group(1)] = m.group(2)
        continue
    m = re.fullmatch(r"# HELP (\w+) .+", line)
    if m:
        helps.add(m.group(1))
        continue
    m = re.fullmatch(r'(\w+)(?:\{(.*)\})? (\S+)', line)
    if not m:
        print(f"FAIL metrics: not a sample line: {line!r}")
        sys.exit(1)
    labels = tuple(sorted((k, re.sub(r"\\(.)", lambda e: "\n" if e.group(1) == "n" else e.group(1), v))
                          for k, v in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or "")))
    samples[(m.group(1), labels)] = float(m.group(3))
print(("PASS" if samples == parsed else "FAIL") +
      f" metrics: every line is HELP, TYPE or a sample, the same {len(samples)} samples as the parser's")
bad = []
for n in sorted(os.listdir(stats)):
    v = int(open(os.path.join(stats, n)).read())
    a = re.fullmatch(r"ring_(\w+)_requests", n)
    if n in ("ring_requests", "fallback_requests"):
        key = ("gpu_aes_requests_total", (("path", "ring" if n[0] == "r" else "cpu"),))
    elif n in ("ring_bytes", "fallback_bytes"):
        key = ("gpu_aes_bytes_total", (("path", "ring" if n[0] == "r" else "cpu"),))
    elif a:
        key = ("gpu_aes_ring_requests_total", (("alg", a.group(1)),))
    elif n.startswith("fallback_policy_"):
        key = ("gpu_aes_fallback_policy_requests_total", (("reason", n[16:]),))
    elif n.startswith("fallback_"):
        key = ("gpu_aes_fallback_requests_total", (("reason", n[9:]),))
    elif n.startswith("policy_ring_"):
        key = ("gpu_aes_policy_ring_requests_total", (("reason", n[12:]),))
    else:
        key = (f"gpu_aes_{n}_total", ())
    if parsed.get(key) != v:
        bad.append(f"{n} = {v}, metrics {key}: {parsed.get(key)}")
if bad:
    print("\n".join("  " + b for b in bad))
print(("FAIL" if bad else "PASS") + f" metrics: every counter file's sample equals it ({len(os.listdir(stats))} files)")
# The queues: one sample per queue of each per-queue file.
qdir = os.path.join(os.path.dirname(stats), "queues")
qbad = []
for n, metric in (("in_flight", "gpu_aes_queue_in_flight_requests"),
                  ("backlog", "gpu_aes_queue_backlog_requests"),
                  ("data_used", "gpu_aes_queue_data_used_bytes"),
                  ("stalled", "gpu_aes_queue_stalled")):
    vals = [int(x) for x in open(os.path.join(qdir, n)).read().split()]
    got = [parsed.get((metric, (("queue", str(q)),))) for q in range(len(vals))]
    if got != [float(v) for v in vals] or (metric, (("queue", str(len(vals))),)) in parsed:
        qbad.append(f"{n}: {vals} vs {got}")
if qbad:
    print("\n".join("  " + b for b in qbad))
print(("FAIL" if qbad else "PASS") + " metrics: each queue's figures, labelled by queue, as its files")
bad += qbad
fams = {k[0] for k in samples}
ok = all(f in types and f in helps for f in fams) and \
    all(f.endswith("_total") for f, t in types.items() if t == "counter")
print(("PASS" if ok else "FAIL") + f" metrics: HELP and TYPE for all {len(fams)} families, counters end in _total")
sys.exit(0 if ok and not bad and samples == parsed else 1)
EOF
cat "$d/metrics_check.out"
nfail=$((nfail + $(grep -c '^FAIL' "$d/metrics_check.out")))
[ $rc = 0 ] || fail "metrics exited with $rc: $(cat "$d/metrics.err")"
a=$(grep -c '^gpu_aes_helper_attached 1$' "$d/metrics.prom")
[ "$a" = "${GPU_AES_VM_HELPER:-0}" ] && pass "metrics: gpu_aes_helper_attached ${GPU_AES_VM_HELPER:-0}" ||
	fail "metrics: gpu_aes_helper_attached"

# ---- bad input ---------------------------------------------------------------

# Each: exit status 2, nothing on stdout, one line on stderr that names
# the tool; and nothing sent through the driver (bench's bad sizes too).
snap b
nbad=0
for args in "frob" "status --frob" "status extra" "top -d 0" "top -n x" \
	"top -n" "bench --sizes 17" "bench --algs ofb" "bench --time -1" \
	"metrics --output" "--frob"; do
	# shellcheck disable=SC2086 # split on purpose
	gpu-aesctl $args >"$d/bad.out" 2>"$d/bad.err" </dev/null
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$d/bad.out" ] && [ "$(wc -l <"$d/bad.err")" = 1 ] &&
	   grep -q '^gpu-aesctl: ' "$d/bad.err"; then
		nbad=$((nbad + 1))
	else
		note "gpu-aesctl $args: exit $rc, stdout $(wc -c <"$d/bad.out") bytes, stderr: $(cat "$d/bad.err")"
	fi
done
expect_delta b ring_requests 0 && expect_delta b fallback_requests 0 &&
	[ $nbad = 11 ] &&
	pass "bad input: $nbad command lines, each exit 2 with one line on stderr, no request sent" ||
	fail "bad input: $nbad of 11 right"
gpu-aesctl top --help >"$d/help.out" 2>&1 && grep -q '^Usage: gpu-aesctl top' "$d/help.out" &&
	pass "top --help: usage, exit 0" || fail "top --help"
finish
