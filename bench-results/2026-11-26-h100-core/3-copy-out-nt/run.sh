#!/bin/sh
# call 3: base / new (core) / new2 (core + copy out around the cache,
# copy-out-nt.patch): 4 KiB x3 rounds, bulk x2 rounds; stages and QD1 of
# new2; gpu-check new2
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
export GPU_AES_CUDA_SHAPE="1 512 4 1"
for r in 1 2 3; do
	for v in base new new2; do
		echo "### $v $r" >> $O/ab.txt
		timeout 60 $P/$v/gpu-aes-bench --helper --req-sizes 4096:4096 \
			--no-qd1 --seconds 1 --json /tmp/j.json >> $O/ab.txt 2>&1
		log "ab $v $r rc=$?"
	done
done
for r in 1 2; do
	for v in base new new2; do
		echo "### $v $r" >> $O/bulk.txt
		timeout 90 $P/$v/gpu-aes-bench --helper --req-sizes 16384:1048576 \
			--no-qd1 --seconds 0.5 --json /tmp/j.json >> $O/bulk.txt 2>&1
		log "bulk $v $r rc=$?"
	done
done
BIN=$P/new2 PERF=$P/perf/perf-wrap BACKENDS=cuda \
	timeout 120 scripts/gpu-bench-stages /tmp/st > $O/stages.txt 2>&1
log "stages rc=$?"
cat /tmp/st/stages-cuda-bench.txt >> $O/stages.txt 2>/dev/null
unset GPU_AES_CUDA_SHAPE
BIN=$P/new2 timeout 120 scripts/gpu-bench-qd1 /tmp/qd1 > $O/qd1.txt 2>&1
log "qd1 rc=$?"
left=$(( 585 - ($(date +%s) - t0) ))
BIN=$P/new2 ROUNDS=30 timeout $left scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check rc=$? (limit $left)"
