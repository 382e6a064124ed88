#!/bin/sh
# withhold.sh - a helper that never answers one request costs one deadline,
# once, and blocks only the queue the request is on.  fake_helper withhold
# (tests/vm/fake_helper.c) serves 2 queues of 16 entries correctly but for
# the 5th request it reads, while dm-crypt writes and reads 2 MiB (4096
# sector requests, MAY_BACKLOG) and AF_ALG runs 40 ctr(aes) requests.  The
# withheld request times out once and is recomputed; then its queue sends
# requests to the CPU at once: while it is stalled, and once it has filled
# up behind the withheld request (fallback_full).  Then, per queue (CPU c
# submits to queue c % 2): AF_ALG pinned to the other queue's CPU is all on
# the ring, pinned to the withheld queue's CPU all on the CPU at once.
# Exactly one timeout in all, every byte right.  Only without the real
# helper (the fake takes the device).
. "$(dirname "$0")/lib.sh"

with_helper && { note "the helper holds the device: run without it"; exit 0; }

d=$TMP/withhold
mkdir -p "$d"
name=gpuaes-withhold
queues=2
fh=
cleanup() {
	[ -n "$fh" ] && kill "$fh" 2>/dev/null
	restore_deadline
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT
/sbin/modprobe algif_skcipher
cs() { read -r _u _ </proc/uptime; echo "${_u%.*}${_u#*.}" | sed 's/^0*//;s/^$/0/'; }

set_deadline 200
fake_helper withhold $queues 16 5 300 "$d/ready" >"$d/fh.out" 2>&1 &
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
delta w ring_requests
note "ring $D, fallback_full $(delta w fallback_full; echo "$D"), fallback_stalled $(delta w fallback_stalled; echo "$D"), backlogged $(delta w backlogged; echo "$D")"
[ $ok = 1 ] && pass "one withheld completion: exactly one timeout, the rest never waited, every byte right" ||
	fail "one withheld completion"

# Per queue.  The withheld request's queue, from the fake helper.
wq=
[ -s "$d/ready.q" ] && read -r wq <"$d/ready.q"
ncpu=$(nr_cpus)
if [ -z "$wq" ]; then
	fail "the fake helper withheld nothing"
elif [ "$ncpu" -lt $queues ]; then
	note "$ncpu CPU(s): no CPU for every one of the $queues queues, per-queue checks skipped"
else
	# CPU q submits to queue q (q < queues <= CPUs).
	q=0
	while [ $q -lt $queues ]; do
		snap p
		ok=1
		t0=$(cs)
		taskset -c $q af_alg_aio --sync --seed $((q + 40)) skcipher 'ctr(aes)' \
			'ctr(aes-generic)' 4 16384 >"$d/pin.$q" 2>&1 ||
			{ sed 's/^/    /' "$d/pin.$q"; ok=0; }
		t1=$(cs)
		expect_delta p timeouts 0 || ok=0
		expect_delta p backlogged 0 || ok=0
		if [ $q = "$wq" ]; then
			delta p fallback_full
			nf=$D
			delta p fallback_stalled
			ns=$D
			[ $((nf + ns)) = 4 ] ||
				{ note "fallback_full +$nf, fallback_stalled +$ns: want 4 in all"; ok=0; }
			expect_delta p ring_requests 0 || ok=0
			[ $ok = 1 ] &&
				pass "queue $q (the withheld request's): 4 requests from CPU $q went to the CPU at once (full $nf, stalled $ns, $(( (t1 - t0) * 10 )) ms)" ||
				fail "queue $q (the withheld request's): requests from CPU $q"
		else
			expect_delta p ring_ctr_requests 4 || ok=0
			expect_delta p fallback_requests 0 || ok=0
			[ $ok = 1 ] &&
				pass "queue $q (not the withheld request's): 4 requests from CPU $q all on the ring ($(( (t1 - t0) * 10 )) ms)" ||
				fail "queue $q (not the withheld request's): requests from CPU $q"
		fi
		q=$((q + 1))
	done
fi

kill -TERM "$fh"
wait "$fh"
fh=
run_c cat "$d/fh.out"
finish
