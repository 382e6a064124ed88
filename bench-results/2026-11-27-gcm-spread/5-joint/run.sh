#!/bin/sh
# call 5: a GCM lane's factor and its warp's in one power of H, read from
# hp1[] (now H^0..H^288), where the warp has fewer than 9 groups after it,
# so lane 0 places the warp's sum with no product of its own (jt, on
# 39f0767), against base (39f0767).  Calls 1-4's phases: that product
# ended a lone GCM launch's lanes, 1.1 us after the warp's shuffles.
# Quick scripts/gpu-check of jt first; the phases of gph and gphJ (jt
# with phases.patch and the gcm points); three rounds alternated of
# raw-qd1 (-zc, -word) and raw-gpu at 4 KiB, QD1 at 4 KiB, 16 threads at
# 4 KiB, the null backend at QD1 once a round; OpenSSL beside them; then
# scripts/gpu-check of jt with the sanitizers, as far as the device time
# left allows.  Packed by helper/bench/device-pack.sh after it.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/jt ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
	> $O/gpu-check-quick.txt 2>&1
rc=$?
log "gpu-check quick (jt) rc=$rc"
[ $rc = 0 ] || exit 1
for v in gph gphJ; do
	B phases $v "phases" --raw --raw-sizes 4096:4096 --seconds 0.3
done
for r in 1 2 3; do
	order="base jt"
	[ $((r % 2)) = 0 ] && order="jt base"
	for v in $order; do
		B raw $v "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
		B qd1 $v "$r qd1" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1 --seconds 0.5
		B deep $v "$r t16" --helper --no-qd1 --req-sizes 4096:4096 \
			--seconds 0.5
	done
	export GPU_AES_BENCH_BACKEND=null
	B qd1 base "$r null" --helper --req-sizes 4096:4096 --threads 1 \
		--window 1 --seconds 0.5
	unset GPU_AES_BENCH_BACKEND
done
B openssl base "cpu" --cpu --req-sizes 4096:4096 --seconds 0.5
export OPENSSL_ia32cap='~0x200000200000000'
B openssl base "cpu-noaes" --cpu --req-sizes 4096:4096 --seconds 0.5
unset OPENSSL_ia32cap
BIN=$P/jt ROUNDS=10 timeout 150 scripts/gpu-check /tmp/chk \
	> $O/gpu-check.txt 2>&1
log "gpu-check (jt) rc=$?"
