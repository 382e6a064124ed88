#!/bin/sh
# call 2: the kernel's stores to host memory only for copied-in batches
# of up to 1 MiB (GPU_AES_CUDA_OUT_HOST_MAX, its default in `new`).  In
# call 1 (1-ab/) storing every copied-in batch's results from the SMs lost
# at 16 threads of 4 KiB (batches of ~2 MiB: -4 to -24 % requests/s in
# 12 of 12 pairs, the core asleep 2-3 x as often: the GPU side, not the
# core, held the rate) and in bulk, and won at 4 threads (batches of
# 0.3-0.8 MiB: +3 to +17 % in 6 of 6, CPU per request -0.1 to -0.3 us for
# ctr and xts).  Prediction: 4 threads as call 1's `new`; 16 threads and
# bulk within the spread of `main` (their batches are copied back, as
# before); 8 threads (batches about 1 MiB, either side of the limit) in
# between; QD1 unchanged.  First a quick gpu-check of `new`, and the same
# check_backend of `mut` (`new` with the kernel storing in GPU memory
# while nothing copies the results back), which must fail: it shows the
# checks reach the batches that take the path.
# Trees: main f3956cb, new f0a1fee, mut = f0a1fee with l.out = nullptr
# in enqueue() (the kernel stores in GPU memory; nothing copies back).
# (The loop below wrote out order and load's lines when it ran.)
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
quick_check new
timeout 100 "$P/mut/cuda/check-backend" 3 > "$O/mutant.txt" 2>&1
log "mutant check_backend rc=$? (must fail)"
"$P/perf/perf-wrap" version > "$O/perf-version.txt" 2>&1
log "perf version rc=$?"
rounds 3 main new
for r in 1 2 3; do
	for v in $(order "$r" main new); do
		load "$r" t4 "$v"
		load "$r" t8 "$v"
	done
done
bulk_rows main new
openssl_rows main
stage_table new
