#!/bin/sh
# call 2: each CTA asks for the bytes of its first chunk before it fills
# its tables (prefetch_chunk()), so that a lone request's read over PCIe
# overlaps fill_tables().  pf2 asks L2 (prefetch.global.L2), pf1 asks the
# SM's L1 (prefetch.global.L1); base is 598250f.  Quick scripts/gpu-check
# (no sanitizers) of both, then five rounds, the order rotated: raw-qd1
# (-zc, -word) and raw-gpu at 4 KiB, QD1 at 4 KiB, 16 threads at 4 KiB;
# the null backend at QD1 each round; raw-gpu at 1-16 MiB once each.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
for v in pf2 pf1; do
	BIN=$P/$v ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk > $O/gpu-check-quick-$v.txt 2>&1
	rc=$?
	log "gpu-check quick ($v) rc=$rc"
	[ $rc = 0 ] || exit 1
done
for r in 1 2 3 4 5; do
	case $((r % 3)) in
	1) order="base pf2 pf1" ;;
	2) order="pf2 pf1 base" ;;
	*) order="pf1 base pf2" ;;
	esac
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
for v in base pf2 pf1; do
	B bulk $v "bulk" --raw --raw-sizes 1048576:16777216 --seconds 0.3
done
