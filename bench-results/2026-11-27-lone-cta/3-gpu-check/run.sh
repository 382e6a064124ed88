#!/bin/sh
# call 3: scripts/gpu-check (20 rounds, compute-sanitizer) of the tree
# that lands (new: a launch of one CTA ends without the ticket).
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/new ROUNDS=20 timeout 400 scripts/gpu-check /tmp/chk > "$O/gpu-check.txt" 2>&1
log "gpu-check (new) rc=$?"
