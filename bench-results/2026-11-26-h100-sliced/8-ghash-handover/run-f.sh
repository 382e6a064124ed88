#!/bin/bash
# D = 2ad2ca1 (GHASH memset + copy), R = the head (hand-over) + review mends:
# helper path (deep queue and QD1) next to OpenSSL in the same run, twice
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 scratch/R/gpu-aes-bench --raw --raw-sizes 16384:16384 --seconds 0.2 --json /tmp/r.json > $OUT/raw-R.txt 2>&1
grep "^raw-qd1" $OUT/raw-R.txt
for t in D R D R; do
	echo "== $t $(date +%T)"
	timeout 150 scratch/$t/gpu-aes-bench --helper --cpu --req-sizes 4096:65536 --seconds 0.5 --json /tmp/x.json > /tmp/h.txt 2>&1
	sed -n '/# summary/,$p' /tmp/h.txt | grep -E "^(helper|helper-qd1|copy-floor|openssl|cpu)" | grep -v "cbc" | sed "s/^/$t: /"
done
