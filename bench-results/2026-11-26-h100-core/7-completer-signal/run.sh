#!/bin/sh
# call 7: new (the tree before) against wake (a batch queued behind
# others signals one completion thread instead of waking all): 4 KiB,
# three rounds, the per-thread split; QD1 and a short gpu-check of wake
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
for r in 1 2 3; do
	for v in new wake; do
		echo "### $v $r" >> $O/ab.txt
		GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 60 $P/$v/gpu-aes-bench --helper \
			--req-sizes 4096:4096 --no-qd1 --seconds 1 --json /tmp/j.json >> $O/ab.txt 2>&1
		log "ab $v $r rc=$?"
	done
done
BIN=$P/wake timeout 150 scripts/gpu-bench-qd1 /tmp/qd1 > $O/qd1.txt 2>&1
log "qd1 rc=$?"
BIN=$P/wake ROUNDS=20 SANITIZE=0 timeout 200 scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check rc=$?"
