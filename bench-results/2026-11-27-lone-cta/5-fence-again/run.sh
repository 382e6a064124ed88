#!/bin/sh
# call 5: the binaries of call 4 again.  scripts/gpu-check of gf (20
# rounds, compute-sanitizer); then gf against new, four rounds
# alternated, the order the reverse of call 4's: 16 threads at 4 KiB, QD1
# at 16 KiB (four CTAs).
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/gf ROUNDS=20 timeout 400 scripts/gpu-check /tmp/chk > "$O/gpu-check.txt" 2>&1
log "gpu-check (gf) rc=$?"
for r in 1 2 3 4; do
	order="gf new"
	[ $((r % 2)) = 0 ] && order="new gf"
	for v in $order; do
		B deep "$v" "$r t16" --helper --no-qd1 --req-sizes 4096:4096 \
			--seconds 0.5
		B qd1 "$v" "$r qd1-16k" --helper --req-sizes 16384:16384 \
			--threads 1 --window 1 --seconds 0.5
	done
done
