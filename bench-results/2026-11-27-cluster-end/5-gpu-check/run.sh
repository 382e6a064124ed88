#!/bin/sh
# call 5: the full scripts/gpu-check (20 rounds, compute-sanitizer) of
# land, the tree that lands: ft (call 4) with kernel_check's new check
# that a launch of fewer than 128 threads a CTA is refused.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/land ROUNDS=20 timeout 420 scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check (land) rc=$?"
