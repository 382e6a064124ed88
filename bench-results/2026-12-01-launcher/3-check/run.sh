#!/bin/sh
# call 3: call 2's `mut` passed phase 5: its batches were too short for
# the next batch's key upload to land before their kernels read the key.
# Phase 5's copy-engine rounds now carry 60 KiB requests (3.75 MiB a
# batch, uploaded before its kernel starts).  `mut` (no wait before the
# device copy is replaced) must now fail phase 5 and `fin` pass it: a
# scripts/gpu-check of `fin` with 40 rounds and no sanitizers, `mut`
# twice, then compute-sanitizer memcheck on `fin`'s check_backend.
# Trees: fin = 31b3e6e's check_backend.c without CHECK_BACKEND_PHASES,
# mut = fin without key_ensure()'s cudaDeviceSynchronize().
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
for i in 1 2; do
	timeout 100 "$P/mut/cuda/check-backend" 4 > "$O/mutant-$i.txt" 2>&1
	log "mutant check_backend rc=$? (phase 5 must fail)"
done
BIN=$P/fin ROUNDS=40 SANITIZE=0 timeout 150 scripts/gpu-check /tmp/chk \
	> "$O/gpu-check.txt" 2>&1
log "gpu-check rc=$?"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 \
	"$P/fin/cuda/check-backend" 3 > "$O/memcheck.txt" 2>&1
log "memcheck check_backend rc=$?"
