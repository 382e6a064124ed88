#!/bin/sh
# call 6: where the tables' remaining ~3.1 us go.  ph2 is 903e2b5 with
# phases2.patch (phases.patch and one more phase: thread 0 of CTA 0 reads
# %globaltimer once its first table load is back), built with
# -DGPU_AES_PHASES.  Two rounds of raw-qd1 at 4 KiB.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
for r in 1 2; do
	B raw ph2 "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
done
