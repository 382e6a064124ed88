#!/bin/sh
# The tree that lands for issue 23 (fin = e9712d4), one call: the whole
# scripts/gpu-check (sanitizers included), then issue 23's four targets:
# three rounds of raw-qd1 and raw-gpu at 4 KiB, the ring's QD1 at 4 KiB,
# 16 threads of 4 KiB with the copy bounds, the null backend's QD1
# (device-call.sh's rounds); bulk; OpenSSL; the stage table.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/fin timeout 340 scripts/gpu-check /tmp/chk > "$O/gpu-check.txt" 2>&1
log "gpu-check rc=$?"
rounds 3 fin
bulk_rows fin
openssl_rows fin
stage_table fin
