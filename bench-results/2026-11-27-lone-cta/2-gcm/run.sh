#!/bin/sh
# call 2: gcm1 (new, and a GCM batch's chunks at least 288 blocks, so a
# lone 4 KiB GCM request with its AAD and lengths is one chunk, one CTA)
# against new (a launch of one CTA ends without the ticket) and base
# (f16962f), four rounds, the order rotated every round: raw-qd1 (-zc,
# -word) and raw-gpu at 4 KiB, QD1 at 4 KiB, 16 threads at 4 KiB; the
# null backend at QD1 each round; then the ring at 16 KiB-1 MiB and
# raw-gpu at 64 KiB-1 MiB for new and gcm1.  First a quick
# scripts/gpu-check (no sanitizers) of gcm1.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/gcm1 ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk > "$O/gpu-check-quick.txt" 2>&1
rc=$?
log "gpu-check quick (gcm1) rc=$rc"
[ $rc = 0 ] || exit 1
for r in 1 2 3 4; do
	case $r in
	1) order="base new gcm1" ;;
	2) order="gcm1 base new" ;;
	3) order="new gcm1 base" ;;
	*) order="gcm1 new base" ;;
	esac
	for v in $order; do
		B raw "$v" "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
		B qd1 "$v" "$r qd1" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1 --seconds 0.5
		B deep "$v" "$r t16" --helper --no-qd1 --req-sizes 4096:4096 \
			--seconds 0.5
	done
	export GPU_AES_BENCH_BACKEND=null
	B qd1 gcm1 "$r null" --helper --req-sizes 4096:4096 --threads 1 \
		--window 1 --seconds 0.5
	unset GPU_AES_BENCH_BACKEND
done
for v in new gcm1; do
	B bulk "$v" "ring-bulk" --helper --no-qd1 --req-sizes 16384:1048576 \
		--seconds 0.5
	B bulk "$v" "bulk" --raw --raw-sizes 65536:1048576 --seconds 0.3
done
