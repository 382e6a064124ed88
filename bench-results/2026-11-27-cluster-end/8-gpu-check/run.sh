#!/bin/sh
# call 8: the full scripts/gpu-check (20 rounds, compute-sanitizer) of
# ft2 (call 7), the fill_tables() that lands.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/ft2 ROUNDS=20 timeout 420 scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check (ft2) rc=$?"
