#!/bin/sh
# call 3: where a lone 4 KiB launch's GPU time goes.  ph is 598250f with
# phases.patch built with -DGPU_AES_PHASES: thread 0 of CTAs 0 and 1 reads
# %globaltimer at the launch's phases, and raw-qd1-word then runs 2000
# more launches and prints the phases' means (stderr, in raw.txt).  The
# instrumented build adds one __syncthreads() before launch_end()'s fence;
# base runs alongside so its cost shows.  Three rounds alternated.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
for r in 1 2 3; do
	order="base ph"
	[ $((r % 2)) = 0 ] && order="ph base"
	for v in $order; do
		B raw $v "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
	done
done
