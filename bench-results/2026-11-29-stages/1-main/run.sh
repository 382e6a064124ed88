#!/bin/sh
# call 1: the landed tree (1fdc30b; its device code is 07a4137's, whose
# PTX is 5cef75f's).  A quick scripts/gpu-check first (stops the call if
# it fails); then where a 4 KiB request's host CPU goes now, stage by
# stage, on 16 threads, cuda and null backends (scripts/gpu-bench-stages,
# perf copying 16 KiB of stack per sample); three rounds of raw-qd1, QD1
# and 16 threads of 4 KiB (device-call.sh's rounds); the bulk sizes with
# copy-dma beside them; OpenSSL on the same host, AES-NI and VAES on and
# masked.  Packed by helper/bench/device-pack.sh after it.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/main ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
	> "$O/gpu-check-quick.txt" 2>&1
rc=$?
log "gpu-check quick rc=$rc"
[ $rc = 0 ] || exit 1
GPU_AES_CUDA_SHAPE="1 512 4 1" STACK=16384 FREQ=99 BIN=$P/main \
	PERF=$P/perf/perf-wrap timeout 240 scripts/gpu-bench-stages /tmp/st \
	> "$O/stages.txt" 2>&1
log "stages rc=$?"
cp /tmp/st/stages-*-bench.txt "$O/" 2>/dev/null
rounds 3 main
B bulk main "bulk" --helper --no-qd1 --req-sizes 16384:1048576 --seconds 0.5
B openssl main "cpu" --cpu --req-sizes 4096:4096 --seconds 0.5
export OPENSSL_ia32cap='~0x200000200000000'
B openssl main "cpu-noaes" --cpu --req-sizes 4096:4096 --seconds 0.5
unset OPENSSL_ia32cap
