#!/bin/sh
# call 7: scripts/gpu-check on the tree that lands (cc6ccdc), 20 rounds
# of check_backend and the compute-sanitizer runs.
set -u
O=${OUT:-out}
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
BIN=$P/land ROUNDS=20 timeout 330 scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
echo "gpu-check rc=$? $(( $(date +%s) - t0 )) s" > $O/log.txt
