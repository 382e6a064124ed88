#!/bin/sh
# call 1: new (xts and gcm read a lane's text before its round keys,
# tweak and keystream: a lone request's zero-copy read crosses PCIe)
# against base (0bd2088), four rounds, the order flipped every round:
# raw-qd1 (-zc, -word) at 4-16 KiB, QD1 at 4 KiB, 16 threads at 4 KiB;
# the null backend at QD1 each round (the host's part of the bound);
# OpenSSL once (as the host runs it, and with AES-NI and VAES masked).
# First a quick scripts/gpu-check of new (no sanitizers) as the gate,
# last the full one (20 rounds, compute-sanitizer) in the time left.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/new ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk0 > $O/gpu-check-quick.txt 2>&1
rc=$?
log "gpu-check quick (new) rc=$rc"
[ $rc = 0 ] || exit 1
for r in 1 2 3 4; do
	order="base new"
	[ $((r % 2)) = 0 ] && order="new base"
	for v in $order; do
		B raw $v "$r raw" --raw --raw-sizes 4096:16384 --seconds 0.3
		B qd1 $v "$r qd1" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1 --seconds 0.5
		B deep $v "$r t16" --helper --no-qd1 --req-sizes 4096:4096 \
			--seconds 0.5
	done
	export GPU_AES_BENCH_BACKEND=null
	B qd1 new "$r null" --helper --req-sizes 4096:4096 --threads 1 \
		--window 1 --seconds 0.5
	unset GPU_AES_BENCH_BACKEND
done
B openssl new "cpu" --cpu --req-sizes 4096:4096 --seconds 0.5
export OPENSSL_ia32cap='~0x200000200000000'
B openssl new "cpu-noaes" --cpu --req-sizes 4096:4096 --seconds 0.5
unset OPENSSL_ia32cap
left=$(( 580 - ($(date +%s) - t0) ))
BIN=$P/new ROUNDS=20 timeout $left scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check (new) rc=$? (limit $left)"
