#!/bin/sh
# keyslots.sh - an unprivileged user cannot make anyone wait for a key slot.
# keyhog (tests/vm/keyhog.c), as uid 65534, opens as many AF_ALG ecb(aes)
# tfms as the helper has key slots and more, gives each a ring request so
# each takes a slot, and keeps cycling requests through all of them (no
# slot of theirs goes idle) plus one extra tfm.  Meanwhile root, the
# victim, runs AF_ALG ctr(aes) requests on new tfms and writes and reads a
# dm-crypt aes-ctr-plain64 volume.  By the counters: nothing was
# backlogged or timed out, and every byte is right; the victim's requests
# went to the ring (a slot taken over) or to the CPU at once
# (fallback_no_key), never waited.  When keyhog exits its slots are freed
# and the victim's next tfms are on the ring again.  The victim's times
# are notes, not assertions.  Only with the helper (a key table to hog).
. "$(dirname "$0")/lib.sh"

with_helper || { note "no helper: no key table"; exit 0; }

d=$TMP/keyslots
mkdir -p "$d"
chmod 1777 "$d"
name=gpuaes-keyslots
hog=
cleanup() {
	[ -n "$hog" ] && kill "$hog" 2>/dev/null
	restore_deadline
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT
/sbin/modprobe algif_skcipher
# What is tested is who waits for a key slot, not the helper's speed.
patient_deadline

# centiseconds since boot
cs() { read -r _u _ </proc/uptime; echo "${_u%.*}${_u#*.}" | sed 's/^0*//;s/^$/0/'; }

# victim_ops TAG: 10 AF_ALG runs (a new ctr(aes) tfm each, 4 x 16 KiB),
# then a 4 MiB O_DIRECT write and read-back of the volume.
victim_ops() {
	_ok=0
	_t0=$(cs)
	_i=0
	while [ $_i -lt 10 ]; do
		af_alg_aio --sync --seed $((_i + 7)) skcipher 'ctr(aes)' 'ctr(aes-generic)' \
			4 16384 >"$d/op.$_i" 2>&1 || { sed 's/^/    /' "$d/op.$_i"; _ok=1; }
		_i=$((_i + 1))
	done
	_t1=$(cs)
	dd if="$d/data" of=/dev/mapper/$name bs=16k oflag=direct 2>/dev/null || _ok=1
	_t2=$(cs)
	echo 3 >/proc/sys/vm/drop_caches
	# 256 KiB reads: dm-crypt puts all of a bio's 512-byte sectors in
	# flight at once, on the queue of the CPU that decrypts it, and 1 MiB
	# (2048) would fill that queue's 1024 entries and backlog on
	# capacity, which is not what this tests.
	_got=$(dd if=/dev/mapper/$name bs=256k iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	[ "$_got" = "$want" ] || { note "$1: volume reads back $_got, wrote $want"; _ok=1; }
	note "$1: 10 AF_ALG runs in $(( (_t1 - _t0) * 10 )) ms, 4 MiB dm-crypt write in $(( (_t2 - _t1) * 10 )) ms"
	return $_ok
}

ctr_volume "$name" 4096 "$d" || { finish; exit; }
randfile "$d/data" $((4 << 20))
want=$(sha256sum <"$d/data" | cut -d' ' -f1)
snap b
victim_ops "alone" && pass "victim alone: AF_ALG and dm-crypt bytes right" ||
	fail "victim alone"

snap h
keyhog --tfms 1100 --len 4096 120 "$d/ready" >"$d/hog.out" 2>&1 &
hog=$!
wait_ready "$d/ready" "$hog" 1200 && pass "uid 65534 holds $(cat "$d/ready") AF_ALG tfms, each with a ring request" ||
	{ cat "$d/hog.out"; fail "keyhog did not get going"; finish; exit; }
# Every slot is held: keyhog's tfms got them all and keep them busy.  How
# its extra tfms fare is timing (a slot idle for 1 s is taken over, so a
# slow host turns fallback_no_key into key_reclaims): a note only.
delta h fallback_no_key
used=$(cat /sys/class/misc/gpu_aes/status/keys_used)
all=$(cat /sys/class/misc/gpu_aes/status/keys)
note "keyhog's ramp-up: fallback_no_key +$D, key_reclaims $(delta h key_reclaims; echo "+$D")"
[ "$used" = "$all" ] && pass "the key table is full: all $all slots held" ||
	fail "keyhog holds $used of $all key slots"

snap v
ok=1
victim_ops "under keyhog" || ok=0
expect_delta v backlogged 0 || ok=0
expect_delta v timeouts 0 || ok=0
delta v ring_ctr_requests
vr=$D
delta v fallback_no_key
note "while hogged: victim ctr requests on the ring $vr; no-key fallbacks (keyhog's and the victim's) $D; key_reclaims $(delta v key_reclaims; echo "$D")"
[ $ok = 1 ] && pass "under keyhog nothing was backlogged or timed out, and every victim byte is right" ||
	fail "victim under keyhog"

kill "$hog"
wait "$hog"
hog=
sed -n 's/^stat /  keyhog: /p' "$d/hog.out"
snap a
ok=1
af_alg_aio --sync skcipher 'ctr(aes)' 'ctr(aes-generic)' 4 16384 >"$d/after" 2>&1 ||
	{ sed 's/^/    /' "$d/after"; ok=0; }
expect_delta a ring_ctr_requests 4 || ok=0
expect_delta a fallback_requests 0 || ok=0
[ $ok = 1 ] && pass "keyhog gone: its slots are free and a new tfm is on the ring" ||
	fail "after keyhog"
finish
