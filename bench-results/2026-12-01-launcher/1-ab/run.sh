#!/bin/sh
# call 1: a launcher thread per GPU against the landed tree.  The core
# (the one thread every batch passes) was a whole CPU on the second host
# of 2026-12-01-core, where the ring moved 3.7-4.5 M requests/s of 4 KiB
# against copy-dma's 5.7-6.2; about half of its time per request is a
# batch's tables, copies and launch (stage table: chunking 0.036, copy_runs
# 0.031, the launch 0.014 of 0.188 us).  `new` hands a batch of 16 or
# more requests (or any while the launcher is busy) to the launcher,
# which queues it while the core takes the next; `off` is `new` with
# GPU_AES_CUDA_LAUNCH_MIN=0 (no launcher).  Prediction: where the core
# bounds the rate, 16 threads of 4 KiB up to copy-dma's rate (+10-40 %);
# where copy-dma bounds it (this call's host, if like the first), within
# the spread; CPU per request within +0.05 us (the work moves, a wake-up
# per batch the launcher sleeps through is added); QD1 and small batches
# unchanged (queued by the core as before).  A quick gpu-check of `new`
# (its phase 5 replaces a key under batches the launcher holds), the
# same check_backend with key_ensure() not waiting for the launcher
# (`mut`, which phase 5 must fail), four rounds of main and new, 16
# threads at window 4 and 4 threads, `off` at 16 threads, where the core
# and the launcher go (stages), bulk, OpenSSL.
# Trees: main b323351, new 91906e4, off = new with GPU_AES_CUDA_LAUNCH_MIN=0
# (a wrapper), mut = new with launcher_flush() returning at once.
# (stage_table and bulk_rows were written out here when it ran; the
# functions are the same lines.)
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
quick_check new
timeout 100 "$P/mut/cuda/check-backend" 4 > "$O/mutant.txt" 2>&1
log "mutant check_backend rc=$? (phase 5 must fail)"
rounds 4 main new
for r in 1 2 3 4; do
	order="main new off"
	[ $((r % 2)) = 0 ] && order="off new main"
	for v in $order; do
		if [ "$v" = off ]; then
			B deep off "$r t16" --helper --no-qd1 \
				--req-sizes 4096:4096 --seconds 0.5
			continue
		fi
		B mid "$v" "$r t16w4" --helper --no-qd1 --req-sizes 4096:4096 \
			--window 4 --seconds 0.5
		[ "$r" -le 2 ] && B mid "$v" "$r t4" --helper --no-qd1 \
			--req-sizes 4096:4096 --threads 4 --seconds 0.5
	done
done
stage_table new
bulk_rows main new
openssl_rows main
