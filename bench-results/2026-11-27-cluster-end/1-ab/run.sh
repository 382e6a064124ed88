#!/bin/sh
# call 1: a grid of 2-8 CTAs that ends in launch_end() is launched as one
# cluster and meets at the cluster's barrier instead of the ticket (a lone
# 4 KiB GCM request is two CTAs).  clu against base (598250f), six rounds
# alternated: raw-qd1 (-zc, -word) and raw-gpu at 4-64 KiB, QD1 at 4-64
# KiB, 16 threads at 4 KiB; the null backend at QD1 each round.  First a
# quick scripts/gpu-check (no sanitizers) of clu.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/clu ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk > $O/gpu-check-quick.txt 2>&1
rc=$?
log "gpu-check quick (clu) rc=$rc"
[ $rc = 0 ] || exit 1
for r in 1 2 3 4 5 6; do
	order="base clu"
	[ $((r % 2)) = 0 ] && order="clu base"
	for v in $order; do
		B raw $v "$r raw" --raw --raw-sizes 4096:65536 --seconds 0.3
		B qd1 $v "$r qd1" --helper --req-sizes 4096:65536 --threads 1 \
			--window 1 --seconds 0.5
		B deep $v "$r t16" --helper --no-qd1 --req-sizes 4096:4096 \
			--seconds 0.5
	done
	export GPU_AES_BENCH_BACKEND=null
	B qd1 clu "$r null" --helper --req-sizes 4096:65536 --threads 1 \
		--window 1 --seconds 0.5
	unset GPU_AES_BENCH_BACKEND
done
