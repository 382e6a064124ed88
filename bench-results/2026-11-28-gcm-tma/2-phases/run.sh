#!/bin/sh
# call 2: where a lone launch's time goes with the TMA's copy (phT: tma
# with the phases of 2026-11-27-gcm-spread/1-ab/phases-gcm.patch, as
# re-applied to 94d8edf in phases-jt.patch) and without it (ph: base with
# them), four rounds alternated; then scripts/gpu-check of base (94d8edf,
# the landed tree, whose sanitizer runs the last session did not finish).
# Packed by helper/bench/device-pack.sh after it.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
for r in 1 2 3 4; do
	order="ph phT"
	[ $((r % 2)) = 0 ] && order="phT ph"
	for v in $order; do
		B phases $v "$r phases" --raw --raw-sizes 4096:4096 --seconds 0.3
	done
done
BIN=$P/base timeout 330 scripts/gpu-check /tmp/chk \
	> "$O/gpu-check.txt" 2>&1
log "gpu-check (base) rc=$?"
