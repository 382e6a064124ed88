#!/bin/bash
# GCM's sums handed over by the kernel: correctness, then QD1
nvidia-smi --query-gpu=name --format=csv,noheader
BIN=scratch/E timeout 400 scripts/gpu-check $OUT/check > $OUT/gpu-check.txt 2>&1
echo "gpu-check rc=$?"
grep -E "passed|FAIL|ERROR SUMMARY|RACECHECK|gpu-check:" $OUT/gpu-check.txt | grep -v "^<6>" | head -20
BIN=scratch/E timeout 170 scripts/gpu-bench-qd1 $OUT/qd1 > $OUT/qd1.log 2>&1
cat $OUT/qd1.log
rm -rf $OUT/check $OUT/qd1
