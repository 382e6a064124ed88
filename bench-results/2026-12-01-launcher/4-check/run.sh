#!/bin/sh
# call 4: the whole scripts/gpu-check of the tree as it lands (`fin`:
# phase 5 with call 3's sizes, memcheck of check_backend on phases 1-4,
# since call 3's memcheck run with phase 5 was still going after 200 s).
# Trees: fin = 31b3e6e.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/fin timeout 370 scripts/gpu-check /tmp/chk > "$O/gpu-check.txt" 2>&1
log "gpu-check rc=$?"
