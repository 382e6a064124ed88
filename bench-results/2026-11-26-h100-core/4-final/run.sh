#!/bin/sh
# call 4: the tree that lands (new) against base, 4 and 64 KiB next to
# OpenSSL, two rounds alternated; QD1 of new
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
BIN=$P/new timeout 150 scripts/gpu-bench-qd1 /tmp/qd1 > $O/qd1.txt 2>&1
log "qd1 rc=$?"
for r in 1 2; do
	for v in base new; do
		echo "### $v $r" >> $O/ab.txt
		GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 120 $P/$v/gpu-aes-bench --helper --cpu \
			--req-sizes 4096:65536 --no-qd1 --seconds 0.5 --json /tmp/j.json >> $O/ab.txt 2>&1
		log "ab $v $r rc=$?"
	done
done
