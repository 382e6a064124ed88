#!/bin/sh
# call 1: the kernel of a copied-in batch stores its results straight into
# the region in host memory (GPU_AES_CUDA_OUT_HOST=1, the default of
# `new`) instead of in GPU memory for a copy back.  The fourteenth and
# fifteenth passes left the core, the one thread every batch passes, at
# 0.17-0.22 us per 4 KiB request and 80-100 % of a CPU at 16 threads,
# its CUDA calls 0.04-0.05 of that (copy_runs 0.031 for both ways, the
# event record in enqueue's 0.011).  `new` queues one batched copy and no
# event per copied-in batch, and the batch ends by the kernel's
# completion word, as a zero-copy batch does.  Prediction: the core
# -0.015 to -0.02 us per request; 16 threads of 4 KiB +5-10 % requests/s
# where the core bounds them; host CPU per request within the spread
# (-0.02); QD1 unchanged (a lone 4 KiB batch is zero-copy); bulk within
# the spread (batches of 256 KiB-8 MiB now write over PCIe from the SMs,
# where the copy engines wrote before).  `off` is `new` with
# GPU_AES_CUDA_OUT_HOST=0 (a wrapper): the kernel's new parameter alone.
# Trees: main f3956cb; new f0a1fee as it was first written, with a
# boolean GPU_AES_CUDA_OUT_HOST (default 1): every copied-in batch of up
# to 8 MiB, the same as f0a1fee with GPU_AES_CUDA_OUT_HOST_MAX=8388608;
# off = new with GPU_AES_CUDA_OUT_HOST=0.
# (The loop below wrote out order and load's lines when it ran.)
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
quick_check new
rounds 4 main new
for r in 1 2 3 4; do
	for v in $(order "$r" main new off); do
		if [ "$v" = off ]; then load "$r" t16 off
		elif [ "$r" -le 2 ]; then load "$r" t4 "$v"; fi
	done
done
stage_table new
bulk_rows main new off
openssl_rows main
