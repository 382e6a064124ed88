#!/bin/sh
# call 2: the tree after the launcher's revert, with check_backend's
# phase 5 kept as a check of what the landed code does when a key is
# replaced under batches in flight (key_ensure() waits for them with
# cudaDeviceSynchronize() before it overwrites the device copy).  `mut`
# is that check_backend with the wait taken out, which phase 5 must
# fail; then the whole scripts/gpu-check of `fin` (200 rounds,
# compute-sanitizer memcheck, racecheck, synccheck).
# Trees: fin = 2de7fcb with phase 5 at 8 KiB (31b3e6e's test before its
# sizes grew), mut = fin without key_ensure()'s cudaDeviceSynchronize().
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
timeout 100 "$P/mut/cuda/check-backend" 4 > "$O/mutant.txt" 2>&1
log "mutant check_backend rc=$? (phase 5 must fail)"
BIN=$P/fin timeout 450 scripts/gpu-check /tmp/chk > "$O/gpu-check.txt" 2>&1
log "gpu-check rc=$?"
