#!/bin/sh
# call 3: each CTA of a zero-copy launch copies its first chunk's text
# blocks to shared memory (cp.async) before it fills its tables, and its
# threads read them there (st, on 39f0767), against base (39f0767).
# Call 2's phases showed why a register load issued early did not help:
# the keystream then waited for the text.  Quick scripts/gpu-check of st
# first; the phases of gph (base with phases.patch and the gcm points) and
# gphS (st with both); four rounds alternated of raw-qd1 (-zc, -word) and
# raw-gpu at 4 KiB, QD1 at 4 KiB, 16 threads at 4 KiB, the null backend at
# QD1 once a round; OpenSSL beside them; raw-gpu at 1-16 MiB once each;
# then the full scripts/gpu-check (20 rounds, sanitizers) of st.  The
# device tool brings back 8 files: run with pack.sh after it.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/st ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
	> $O/gpu-check-quick.txt 2>&1
rc=$?
log "gpu-check quick (st) rc=$rc"
[ $rc = 0 ] || exit 1
for v in gph gphS; do
	B phases $v "phases" --raw --raw-sizes 4096:4096 --seconds 0.3
done
for r in 1 2 3 4; do
	order="base st"
	[ $((r % 2)) = 0 ] && order="st base"
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
for v in base st; do
	B bulk $v "bulk" --raw --raw-sizes 1048576:16777216 --seconds 0.3
done
BIN=$P/st ROUNDS=20 timeout 330 scripts/gpu-check /tmp/chk \
	> $O/gpu-check.txt 2>&1
log "gpu-check (st) rc=$?"
