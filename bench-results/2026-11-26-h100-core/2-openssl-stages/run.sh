#!/bin/sh
# call 2: base vs new at 4 KiB next to OpenSSL (3 rounds), stages of new
# (perf), check_backend on the per-run fallback, gpu-check on new
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
for r in 1 2 3; do
	for v in base new; do
		echo "### $v $r" >> $O/ab.txt
		GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 90 $P/$v/gpu-aes-bench --helper --cpu \
			--req-sizes 4096:4096 --no-qd1 --seconds 1 --json /tmp/j.json >> $O/ab.txt 2>&1
		log "$v $r rc=$?"
	done
done
GPU_AES_CUDA_SHAPE="1 512 4 1" BIN=$P/new PERF=$P/perf/perf-wrap BACKENDS=cuda \
	timeout 170 scripts/gpu-bench-stages /tmp/st > $O/stages.txt 2>&1
log "stages rc=$?"
cat /tmp/st/stages-cuda-bench.txt >> $O/stages.txt 2>/dev/null
GPU_AES_CUDA_BATCH_COPY=0 timeout 60 $P/new/cuda/check-backend 10 > $O/check-nobatch.txt 2>&1
log "check-nobatch rc=$?"
left=$(( 585 - ($(date +%s) - t0) ))
BIN=$P/new ROUNDS=40 timeout $left scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check rc=$? (limit $left)"
