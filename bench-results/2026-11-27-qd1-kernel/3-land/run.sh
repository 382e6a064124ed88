#!/bin/sh
# call 3: the tree that lands (land: 2-fold's new, with the rule moved to
# aes_gpu.h, gpu_aes_gcm_warp_power()): scripts/gpu-check (20 rounds,
# compute-sanitizer) first; then against base (0bd2088), three rounds
# alternated: raw-qd1 (-zc, -word) and raw-gpu at 4 KiB, QD1 at 4 KiB,
# 16 threads at 4 KiB; the null backend at QD1 each round; OpenSSL once
# (as the host runs it, and with AES-NI and VAES masked).
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/land ROUNDS=20 timeout 330 scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check (land) rc=$?"
for r in 1 2 3; do
	order="base land"
	[ $((r % 2)) = 0 ] && order="land base"
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
B openssl land "cpu" --cpu --req-sizes 4096:4096 --seconds 0.5
export OPENSSL_ia32cap='~0x200000200000000'
B openssl land "cpu-noaes" --cpu --req-sizes 4096:4096 --seconds 0.5
unset OPENSSL_ia32cap
