#!/bin/bash
# deep queue A/B: D = 2ad2ca1, E = 006e3ce (GCM sums handed over)
nvidia-smi --query-gpu=name --format=csv,noheader
for t in D E D E; do
	echo "== $t $(date +%T)"
	timeout 100 scratch/$t/gpu-aes-bench --helper --req-sizes 4096:65536 --no-qd1 --seconds 1 --json /tmp/x.json 2>&1 | grep -E "^helper " | sed "s/^/$t: /"
done
