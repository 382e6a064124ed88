#!/bin/sh
# call 4: in run_gcm each lane copies its first text block to shared memory
# (cp.async) before its round keys and keystream, and waits for the copy
# only where it uses the text (gs, on 39f0767), against base (39f0767).
# Call 3's phases: a CTA's read of host memory issued at its entry was
# back only ~3.5 us later, after the tables, so staging before the tables
# gained nothing; but GCM issued its read later still, after a 1.8 us
# keystream, and had it 1.1 us after that.  Quick scripts/gpu-check of gs
# first; the phases of gph and gphG (gs with phases.patch and the gcm
# points); four rounds alternated of raw-qd1 (-zc, -word) and raw-gpu at
# 4 KiB, QD1 at 4 KiB, 16 threads at 4 KiB, the null backend at QD1 once
# a round; OpenSSL beside them; raw-gpu at 1-16 MiB once each; then the
# full scripts/gpu-check (20 rounds, sanitizers) of gs.  Packed by
# helper/bench/device-pack.sh after it.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/gs ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
	> $O/gpu-check-quick.txt 2>&1
rc=$?
log "gpu-check quick (gs) rc=$rc"
[ $rc = 0 ] || exit 1
for v in gph gphG; do
	B phases $v "phases" --raw --raw-sizes 4096:4096 --seconds 0.3
done
for r in 1 2 3 4; do
	order="base gs"
	[ $((r % 2)) = 0 ] && order="gs base"
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
for v in base gs; do
	B bulk $v "bulk" --raw --raw-sizes 1048576:16777216 --seconds 0.3
done
BIN=$P/gs ROUNDS=20 timeout 300 scripts/gpu-check /tmp/chk \
	> $O/gpu-check.txt 2>&1
log "gpu-check (gs) rc=$?"
