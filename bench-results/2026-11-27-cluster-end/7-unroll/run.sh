#!/bin/sh
# call 7: fill_tables() unrolled, with each side's table count known at
# compile time (fill_side<V, DEC>), so the 32 shuffles of a warp's loads
# do not wait one by one for the stores before them (call 6: the first
# table load was back 0.2 us after a CTA's entry, and the tables done
# 3.1 us after it).  ft2 (ft2.patch on 903e2b5) against land (903e2b5).
# Quick scripts/gpu-check (no sanitizers) of ft2; four rounds alternated:
# raw-qd1 (-zc, -word) and raw-gpu at 4 KiB, QD1 at 4 KiB, 16 threads at
# 4 KiB, the null backend at QD1; the phases of ft2ph (ft2 with
# phases.patch); raw-gpu at 1-16 MiB once each.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/ft2 ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk > $O/gpu-check-quick.txt 2>&1
rc=$?
log "gpu-check quick (ft2) rc=$rc"
[ $rc = 0 ] || exit 1
B phases ft2ph "phases" --raw --raw-sizes 4096:4096 --seconds 0.3
for r in 1 2 3 4; do
	order="land ft2"
	[ $((r % 2)) = 0 ] && order="ft2 land"
	for v in $order; do
		B raw $v "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
		B qd1 $v "$r qd1" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1 --seconds 0.5
		B deep $v "$r t16" --helper --no-qd1 --req-sizes 4096:4096 \
			--seconds 0.5
	done
	export GPU_AES_BENCH_BACKEND=null
	B qd1 land "$r null" --helper --req-sizes 4096:4096 --threads 1 \
		--window 1 --seconds 0.5
	unset GPU_AES_BENCH_BACKEND
done
for v in land ft2; do
	B bulk $v "bulk" --raw --raw-sizes 1048576:16777216 --seconds 0.3
done
