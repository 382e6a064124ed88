#!/bin/sh
# helper-restart.sh - the helper dies (SIGKILL) while dm-crypt is writing
# through the ring: the write still completes with the right bytes (what was
# in flight is recomputed on the CPU, the rest takes the fallback), nothing
# hangs, and a new helper can attach and serve the ring again.  Only with
# the helper; without it there is nothing to kill.
. "$(dirname "$0")/lib.sh"

with_helper || { note "no helper: nothing to test"; exit 0; }

d=$TMP/restart
mkdir -p "$d"
name=gpuaes-restart
mib=8
cleanup() {
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
	restore_deadline
}
trap cleanup EXIT
# What the kill leaves in flight is recomputed at the detach, not at a
# deadline; the new helper's reads below must see none.
patient_deadline

ctr_volume "$name" $((mib * 1024)) "$d" || { finish; exit; }
randfile "$d/data" $((mib * 1024 * 1024))
dev=/dev/mapper/$name

pid=$(pidof gpu-aes-helper)
[ -n "$pid" ] || { fail "no helper running"; finish; exit; }
attaches=$(counter helper_attaches)
snap k
dd if="$d/data" of="$dev" bs=64k oflag=direct 2>"$d/dd.err" &
ddpid=$!
# Kill once the ring has served part of the write (whenever that is).
i=0
while [ "$(counter ring_requests)" -le "$_snap_k_ring_requests" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -KILL "$pid"
wait "$ddpid" && pass "dd completes after the helper is killed mid-write" ||
	{ cat "$d/dd.err"; fail "dd after the helper was killed"; }
# Each sector request is counted once: on the ring (those in flight at the
# kill are also counted in "recomputed") or, once the helper is gone, in the
# fallback.
delta k ring_requests
r=$D
delta k fallback_requests
f=$D
delta k recomputed
note "ring $r (recomputed $D), fallback $f"
[ $((r + f)) = $((mib * 2048)) ] && [ "$r" -gt 0 ] &&
	pass "each of the $((mib * 2048)) sectors went once to the ring or, after the kill, the fallback" ||
	fail "ring $r + fallback $f != $((mib * 2048)) sectors (or ring 0)"

echo 3 >/proc/sys/vm/drop_caches
want=$(sha256sum <"$d/data" | cut -d' ' -f1)
got=$(dd if="$dev" bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
[ "$want" = "$got" ] && pass "data written across the helper's death reads back intact" ||
	fail "read back $got, wrote $want"

# A new helper attaches and the ring works again.
"$GPU_AES_HELPER_BIN" --backend cpu --device /dev/gpu_aes \
	2>>"$GPU_AES_HELPER_LOG" &
i=0
while [ "$(counter helper_attaches)" -le "$attaches" ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(counter helper_attaches)" = $((attaches + 1)) ] &&
	pass "a new helper attaches (helper_attaches $((attaches + 1)))" ||
	fail "no new helper attached"
# A read of 1 MiB is 2048 sector requests at once, more than a queue
# holds: one that finds it full while the oldest request is still being
# copied in runs on the CPU at once (fallback_full, the safe side of
# gpu_aes_queue_space_returns()) instead of waiting.  Any other fallback
# would mean the ring does not serve.
snap n
got=$(dd if="$dev" bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
ok=1
[ "$want" = "$got" ] || { note "read back $got, wrote $want"; ok=0; }
delta n ring_requests; r=$D
delta n fallback_requests; f=$D
delta n fallback_full; ff=$D
delta n timeouts; to=$D
note "ring $r, fallback $f (queue full $ff), timeouts $to"
[ $((r + f)) = $((mib * 2048)) ] && [ "$f" = "$ff" ] && [ "$r" -gt 0 ] && [ "$to" = 0 ] ||
	{ fallback_reasons n; ok=0; }
[ $ok = 1 ] && pass "the new helper serves the $((mib * 2048)) sector reads: $r on the ring, $ff to the CPU for a full queue and none for another reason" ||
	fail "reads after the restart"
finish
