#!/bin/sh
# call 2: the same builds as call 1.  The whole scripts/gpu-check of
# `new` (200 rounds of check_backend, compute-sanitizer memcheck,
# racecheck and synccheck), since `new` changes what the cuda backend's
# host code keeps between batches; then four more rounds of 16 threads
# of 4 KiB, both trees alternated (rounds 5-8 after call 1's 1-4), for
# the gcm rate that rose in call 1's four pairs.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/new timeout 420 scripts/gpu-check /tmp/chk > "$O/gpu-check.txt" 2>&1
log "gpu-check rc=$?"
for r in 5 6 7 8; do
	order="main new"
	[ $((r % 2)) = 0 ] && order="new main"
	for v in $order; do
		B deep "$v" "$r t16" --helper --no-qd1 --req-sizes 4096:4096 \
			--seconds 0.5
	done
done
