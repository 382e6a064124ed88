#!/bin/sh
# call 2: GCM's tail products.  fold (a lane 0 multiplies its warp's sum
# by one power of H^32, the warp's place and the chunk's together, where
# it used two products) and new (fold, and no Horner product before a
# warp's first group, where the sum is still zero) against base
# (0bd2088), four rounds, the order rotated every round: raw-qd1 (-zc,
# -word) and raw-gpu at 4 KiB, QD1 at 4 KiB, 16 threads at 4 KiB; the
# null backend at QD1 each round; raw-gpu at 1-16 MiB once each.  First
# a quick scripts/gpu-check (no sanitizers) of fold and of new.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
for v in fold new; do
	BIN=$P/$v ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk-$v > $O/gpu-check-$v.txt 2>&1
	rc=$?
	log "gpu-check quick ($v) rc=$rc"
	[ $rc = 0 ] || exit 1
done
for r in 1 2 3 4; do
	case $r in
	1) order="base fold new" ;;
	2) order="new base fold" ;;
	3) order="fold new base" ;;
	*) order="new fold base" ;;
	esac
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
for v in base fold new; do
	B bulk $v "bulk" --raw --raw-sizes 1048576:16777216 --seconds 0.3
done
