#!/bin/sh
# call 2, second command (the machine still warm): scripts/gpu-check
# (20 rounds, compute-sanitizer) of gcm1, into gpu-check-full.txt.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/gcm1 ROUNDS=20 timeout 400 scripts/gpu-check /tmp/chk > "$O/gpu-check.txt" 2>&1
echo rc=$?
