#!/bin/sh
# call 4: gf (new, and in a launch of more CTAs each CTA fences at device
# scope before its ticket; the last one's system fence before the word
# still orders everything it saw) against new (0c72ff0), four rounds
# alternated: raw-qd1 (-zc, -word) and raw-gpu at 4 KiB, QD1 at 4 KiB
# and at 16 KiB (four CTAs), 16 threads at 4 KiB; the null backend at
# QD1 each round.  First a quick scripts/gpu-check (no sanitizers) of gf.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/gf ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk > "$O/gpu-check-quick.txt" 2>&1
rc=$?
log "gpu-check quick (gf) rc=$rc"
[ $rc = 0 ] || exit 1
for r in 1 2 3 4; do
	order="new gf"
	[ $((r % 2)) = 0 ] && order="gf new"
	for v in $order; do
		B raw "$v" "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
		B qd1 "$v" "$r qd1" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1 --seconds 0.5
		B qd1 "$v" "$r qd1-16k" --helper --req-sizes 16384:16384 \
			--threads 1 --window 1 --seconds 0.5
		B deep "$v" "$r t16" --helper --no-qd1 --req-sizes 4096:4096 \
			--seconds 0.5
	done
	export GPU_AES_BENCH_BACKEND=null
	B qd1 gf "$r null" --helper --req-sizes 4096:4096 --threads 1 \
		--window 1 --seconds 0.5
	unset GPU_AES_BENCH_BACKEND
done
