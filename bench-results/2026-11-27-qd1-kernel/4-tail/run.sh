#!/bin/sh
# call 4: the lane factors of GCM's tail, for a warp of one group (every
# warp of a 4 KiB segment) whose factor hp32[] holds: hoist (each lane
# loads H^(32 - l) and its warp's H^(32 e) before its text, so neither
# load waits at the end) and early (each lane also multiplies the two
# before its text, so its sum needs one product at the end and lane 0
# none), against land (6419a1f), four rounds rotated: raw-gpu and
# raw-qd1 (-zc, -word) at 4 KiB, QD1 at 4 KiB; 16 threads at 4 KiB and
# raw-gpu at 1-16 MiB once each.  First a quick scripts/gpu-check (no
# sanitizers) of hoist and early.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
for v in hoist early; do
	BIN=$P/$v ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk-$v > $O/gpu-check-$v.txt 2>&1
	rc=$?
	log "gpu-check quick ($v) rc=$rc"
	[ $rc = 0 ] || exit 1
done
for r in 1 2 3 4; do
	case $r in
	1) order="land hoist early" ;;
	2) order="early land hoist" ;;
	3) order="hoist early land" ;;
	*) order="early hoist land" ;;
	esac
	for v in $order; do
		B raw $v "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
		B qd1 $v "$r qd1" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1 --seconds 0.5
	done
done
for v in land hoist early; do
	B deep $v "1 t16" --helper --no-qd1 --req-sizes 4096:4096 --seconds 0.5
	B bulk $v "bulk" --raw --raw-sizes 1048576:16777216 --seconds 0.3
done
