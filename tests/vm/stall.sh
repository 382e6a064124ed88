#!/bin/sh
# stall.sh - the helper stops (SIGSTOP) for longer than the deadline while
# dm-crypt writes: the write finishes while the helper is still stopped
# (the timed-out requests are recomputed on the CPU, the rest bypass the
# stalled queues), and after SIGCONT the helper's late completions are
# counted and dropped, never applied twice.  With as many queues as CPUs
# (the helper's default; the guest has 2), two writers, pinned to CPU 0
# and CPU 1, on a volume opened with --perf-same_cpu_crypt (dm-crypt
# encrypts on the CPU that submitted the bio), so requests stall on every
# queue; a kprobe on gpu_aes_route shows which queues took requests
# (lib.sh queue_probe_start).  Only with the helper.
. "$(dirname "$0")/lib.sh"

with_helper || { note "no helper: nothing to stop"; exit 0; }

mib=4
sectors=$((mib * 2048))
d=$TMP/stall
mkdir -p "$d"
name=gpuaes-stall
cleanup() {
	[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null
	queue_probe_stop
	restore_deadline
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT

ncpu=$(nr_cpus)
nq=$(helper_queues)
[ "${nq:-0}" -ge 2 ] && [ "$nq" -ge "$ncpu" ] &&
	pass "the helper serves $nq queues, one per CPU ($ncpu)" ||
	fail "the helper serves ${nq:-?} queues on $ncpu CPUs: want one per CPU, at least 2"
ctr_volume "$name" $((mib * 1024)) "$d" --perf-same_cpu_crypt || { finish; exit; }
randfile "$d/data" $((mib * 1024 * 1024))
dev=/dev/mapper/$name
pid=$(pidof gpu-aes-helper)
[ -n "$pid" ] || { fail "no helper running"; finish; exit; }

set_deadline 200
queue_probe_start || fail "kprobes for the per-queue evidence"
snap s
kill -STOP "$pid"
# One writer per CPU (at most 2), each on its own part of the volume.
nw=$ncpu
[ "$nw" -le 2 ] || nw=2
per=$((mib * 16 / nw))		# 64 KiB blocks per writer
w=0
wpids=
while [ $w -lt $nw ]; do
	taskset -c $w dd if="$d/data" of="$dev" bs=64k skip=$((w * per)) seek=$((w * per)) \
		count=$per oflag=direct conv=notrunc 2>"$d/dd.$w.err" &
	wpids="$wpids $!"
	w=$((w + 1))
done
ok=1
for p in $wpids; do wait "$p" || ok=0; done
[ $ok = 1 ] &&
	pass "dd of $mib MiB ($nw writers, pinned to CPUs 0..$((nw - 1))) completes while the helper is stopped (timeout_ms 200)" ||
	{ cat "$d"/dd.*.err; fail "dd with the helper stopped"; }
read -r _l <"/proc/$pid/stat"
case ${_l##*) } in
T\ *) pass "the helper was stopped all along" ;;
*) fail "the helper is not stopped: ${_l##*) }" ;;
esac
delta s timeouts; to=$D
delta s recomputed; rec=$D
delta s ring_requests; rr=$D
delta s fallback_requests; fr=$D
delta s fallback_stalled; fs=$D
note "ring_requests $rr (timeouts $to, recomputed $rec) fallback $fr (stalled $fs)"
[ "$to" -ge 1 ] && [ "$rec" = "$rr" ] &&
	pass "every ring request ($rr) was recomputed on the CPU ($rec), $to timed out" ||
	fail "ring_requests $rr, recomputed $rec, timeouts $to"
[ $((rr + fr)) = $sectors ] && [ "$fs" -ge 1 ] &&
	pass "each of the $sectors sectors counted once: $rr ring + $fr fallback ($fs stalled)" ||
	fail "ring $rr + fallback $fr != $sectors sectors (stalled $fs)"
expect_queues_live "${nq:-1}" "while stopped" &&
	pass "requests stalled on every one of the ${nq:-1} queues" ||
	fail "not every queue took requests while the helper was stopped"
queue_probe_stop

# The helper wakes up and completes what it had been given, too late.
snap c
kill -CONT "$pid"
i=0
while [ "$(counter late_completions)" -lt $((_snap_s_late_completions + rr)) ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
delta s late_completions; late=$D
delta s rejected_completions; rej=$D
delta s helper_errors; herr=$D
[ "$late" = "$rr" ] && [ "$rej" = 0 ] && [ "$herr" = 0 ] &&
	pass "after SIGCONT all $rr late completions were counted and dropped, 0 rejected" ||
	fail "late_completions $late (want $rr), rejected $rej, helper_errors $herr"
expect_delta c recomputed 0 && pass "nothing was completed a second time (recomputed +0)" ||
	fail "recomputed moved after SIGCONT"

echo 3 >/proc/sys/vm/drop_caches
want=$(sha256sum <"$d/data" | cut -d' ' -f1)
snap r
got=$(dd if="$dev" bs=64k iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
[ "$want" = "$got" ] && pass "the $mib MiB written across the stall read back intact" ||
	fail "read back $got, wrote $want"
delta r ring_requests
[ "$D" = $sectors ] && expect_delta r timeouts 0 &&
	pass "the ring serves again: all $sectors sector reads on it, no timeout" ||
	fail "after the stall: ring_requests +$D of $sectors"
no_d_state && pass "no task in D state" || fail "tasks in D state (above)"
finish
