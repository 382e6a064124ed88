#!/bin/sh
# withhold.sh - a helper that never answers one request costs one deadline,
# once.  fake_helper withhold (tests/vm/fake_helper.c) serves a 16-entry
# ring correctly but for its 5th request, while dm-crypt writes and reads
# 2 MiB (4096 sector requests, MAY_BACKLOG) and AF_ALG runs 40 ctr(aes)
# requests.  The withheld request times out once and is recomputed; then
# the stalled queue sends requests to the CPU at once until the helper
# answers another, and after that the ring fills up behind the withheld
# request and every request that finds it full goes to the CPU at once
# (fallback_full): exactly one timeout in all, every byte right.  Only without the real helper (the fake takes the device).
. "$(dirname "$0")/lib.sh"

with_helper && { note "the helper holds the device: run without it"; exit 0; }

d=$TMP/withhold
mkdir -p "$d"
name=gpuaes-withhold
old_timeout=$(param timeout_ms)
fh=
cleanup() {
	[ -n "$fh" ] && kill "$fh" 2>/dev/null
	echo "$old_timeout" >"$PARAMS/timeout_ms"
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT
/sbin/modprobe algif_skcipher
cs() { read -r _u _ </proc/uptime; echo "${_u%.*}${_u#*.}" | sed 's/^0*//;s/^$/0/'; }

echo 200 >"$PARAMS/timeout_ms"
fake_helper withhold 16 5 300 "$d/ready" >"$d/fh.out" 2>&1 &
fh=$!
i=0
until [ -e "$d/ready" ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || break
	sleep 0.1
done
[ -e "$d/ready" ] || { cat "$d/fh.out"; fail "the fake helper did not attach"; finish; exit; }

ctr_volume "$name" 2048 "$d" || { finish; exit; }
randfile "$d/data" $((2 << 20))
want=$(sha256sum <"$d/data" | cut -d' ' -f1)
snap w
ok=1
t0=$(cs)
dd if="$d/data" of=/dev/mapper/$name bs=16k oflag=direct 2>/dev/null || ok=0
t1=$(cs)
i=0
while [ $i -lt 10 ]; do
	af_alg_aio --sync --seed $((i + 3)) skcipher 'ctr(aes)' 'ctr(aes-generic)' \
		4 16384 >"$d/op.$i" 2>&1 || { sed 's/^/    /' "$d/op.$i"; ok=0; }
	i=$((i + 1))
done
echo 3 >/proc/sys/vm/drop_caches
got=$(dd if=/dev/mapper/$name bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
t2=$(cs)
[ "$got" = "$want" ] || { note "volume reads back $got, wrote $want"; ok=0; }
note "2 MiB dm-crypt write $(( (t1 - t0) * 10 )) ms; 40 AF_ALG requests and the read-back $(( (t2 - t1) * 10 )) ms"
expect_delta w timeouts 1 || ok=0
# After the timeout: the stalled queue sends everything to the CPU until
# the helper answers something, and once it does, the ring fills behind
# the withheld request and what finds it full goes to the CPU
# (fallback_full).  Which of the two, timing decides; neither waits.
delta w fallback_full
nf=$D
delta w fallback_stalled
[ $((nf + D)) -ge 1 ] ||
	{ note "nothing went to the CPU after the timeout (fallback_full $nf, fallback_stalled $D)"; ok=0; }
delta w ring_requests
note "ring $D, fallback_full $(delta w fallback_full; echo "$D"), fallback_stalled $(delta w fallback_stalled; echo "$D"), backlogged $(delta w backlogged; echo "$D")"
[ $ok = 1 ] && pass "one withheld completion: exactly one timeout, the rest never waited, every byte right" ||
	fail "one withheld completion"

kill -TERM "$fh"
wait "$fh"
fh=
run_c cat "$d/fh.out"
finish
