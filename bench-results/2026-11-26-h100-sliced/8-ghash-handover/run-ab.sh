#!/bin/bash
# QD1 A/B on one host: D = 2ad2ca1 (GHASH memset + copy), E = the hand-over
nvidia-smi --query-gpu=name --format=csv,noheader
for t in D E D E; do
	echo "== $t $(date +%T)"
	BIN=scratch/$t timeout 120 scripts/gpu-bench-qd1 $OUT/q > $OUT/q.log 2>&1
	grep -E "cuda-[ab]:|raw-[ab]:|null-[ab]:" $OUT/q.log | grep -v spin
	rm -rf $OUT/q
done
