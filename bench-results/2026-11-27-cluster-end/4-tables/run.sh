#!/bin/sh
# call 4: fill_tables() loads a warp's entries at once, one or two to a
# lane, and broadcasts each with a shuffle: one L2 round trip per CTA
# instead of one per 8 entries a warp (call 3: the tables took 3.5-4.2 of
# a lone launch's 7-12 us).  ft against base (598250f).  Quick
# scripts/gpu-check (no sanitizers) of ft; four rounds alternated:
# raw-qd1 (-zc, -word) and raw-gpu at 4 KiB, QD1 at 4 KiB, 16 threads at
# 4 KiB, the null backend at QD1; the phases of both (ph: base with
# phases.patch, ftph: ft with it); raw-gpu at 1-16 MiB and the ring at
# 16 KiB-1 MiB once each.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/ft ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk > $O/gpu-check-quick.txt 2>&1
rc=$?
log "gpu-check quick (ft) rc=$rc"
[ $rc = 0 ] || exit 1
for r in 1 2 3 4; do
	order="base ft"
	[ $((r % 2)) = 0 ] && order="ft base"
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
for v in ph ftph; do
	B phases $v "phases" --raw --raw-sizes 4096:4096 --seconds 0.3
done
for v in base ft; do
	B bulk $v "bulk" --raw --raw-sizes 1048576:16777216 --seconds 0.3
	B bulk $v "ring-bulk" --helper --no-qd1 --req-sizes 16384:1048576 \
		--seconds 0.5
done
