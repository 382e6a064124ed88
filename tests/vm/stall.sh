#!/bin/sh
# stall.sh - the helper stops (SIGSTOP) for longer than the deadline while
# dm-crypt writes: the write finishes while the helper is still stopped
# (the timed-out requests are recomputed on the CPU, the rest bypass the
# stalled ring), and after SIGCONT the helper's late completions are
# counted and dropped, never applied twice.  Only with the helper.
. "$(dirname "$0")/lib.sh"

with_helper || { note "no helper: nothing to stop"; exit 0; }

mib=4
sectors=$((mib * 2048))
d=$TMP/stall
mkdir -p "$d"
name=gpuaes-stall
old_timeout=$(param timeout_ms)
cleanup() {
	[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null
	echo "$old_timeout" >"$PARAMS/timeout_ms"
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT

ctr_volume "$name" $((mib * 1024)) "$d" || { finish; exit; }
randfile "$d/data" $((mib * 1024 * 1024))
dev=/dev/mapper/$name
pid=$(pidof gpu-aes-helper)
[ -n "$pid" ] || { fail "no helper running"; finish; exit; }

echo 200 >"$PARAMS/timeout_ms"
snap s
kill -STOP "$pid"
dd if="$d/data" of="$dev" bs=64k oflag=direct 2>"$d/dd.err" &&
	pass "dd of $mib MiB completes while the helper is stopped (timeout_ms 200)" ||
	{ cat "$d/dd.err"; fail "dd with the helper stopped"; }
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
