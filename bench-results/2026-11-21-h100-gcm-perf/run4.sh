#!/bin/sh
# call 4: final tree: correctness (gpu-check's steps) and figures
cd "$(dirname "$0")"
O=$OUT
mkdir -p out
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== kernel_check 24"; ./kernel-check 24 > $O/final-kernel-check.log 2>&1; tail -1 $O/final-kernel-check.log
echo "== check_backend 60"; ./check-backend 60 > $O/final-check-backend.log 2>&1; tail -1 $O/final-check-backend.log
for t in memcheck racecheck; do echo "== sanitizer $t"; compute-sanitizer --tool $t --error-exitcode 3 ./kernel-check 1 8192 2>&1 | tail -2; done
echo "== sanitizer memcheck check_backend 3"; compute-sanitizer --tool memcheck --error-exitcode 3 ./check-backend 3 2>&1 | tail -2
echo "== raw default shape"
./gpu-aes-bench --raw --raw-sizes 268435456:1073741824 --json $O/raw.json > $O/raw.log 2>&1; grep raw-gpu $O/raw.log | head -40
echo "== raw sweep"
./gpu-aes-bench --raw --sweep --raw-sizes 1073741824:1073741824 --json $O/raw-sweep.json > $O/raw-sweep.log 2>&1; grep -E "best|raw-gpu" $O/raw-sweep.log | head -20
