#!/bin/sh
# call 1: a launch of one CTA (a lone request of one chunk: 4 KiB of ctr
# or xts) ends without the ticket (launch_end()).  new against base
# (f16962f), six rounds alternated: raw-qd1 (-zc, -word) and raw-gpu at
# 4 KiB, QD1 at 4 KiB, 16 threads at 4 KiB; the null backend at QD1 each
# round; then raw-gpu at 1-16 MiB and the ring at 16 KiB-1 MiB once each;
# OpenSSL once (as the host runs it, and with AES-NI and VAES masked).
# First a quick scripts/gpu-check (no sanitizers) of new.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/new ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk > $O/gpu-check-quick.txt 2>&1
rc=$?
log "gpu-check quick (new) rc=$rc"
[ $rc = 0 ] || exit 1
for r in 1 2 3 4 5 6; do
	order="base new"
	[ $((r % 2)) = 0 ] && order="new base"
	for v in $order; do
		B raw $v "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
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
for v in base new; do
	B bulk $v "bulk" --raw --raw-sizes 1048576:16777216 --seconds 0.3
	B bulk $v "ring-bulk" --helper --no-qd1 --req-sizes 16384:1048576 \
		--seconds 0.5
done
B openssl new "cpu" --cpu --req-sizes 4096:4096 --seconds 0.5
export OPENSSL_ia32cap='~0x200000200000000'
B openssl new "cpu-noaes" --cpu --req-sizes 4096:4096 --seconds 0.5
unset OPENSSL_ia32cap
