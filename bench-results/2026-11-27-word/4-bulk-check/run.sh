#!/bin/sh
# call 4: the tree that lands, with copy-dma (the copy-engine path's
# bytes without the path) beside its 16 KiB-1 MiB rows, twice; the same
# sizes with every batch zero-copy (GPU_AES_CUDA_ZC_MAX=64 MiB), twice,
# alternated; then scripts/gpu-check (20 rounds, compute-sanitizer).
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# file tag args...
	f=$1 tag=$2
	shift 2
	echo "### land $tag" >> $O/$f
	GPU_AES_BENCH_BACKEND=cuda GPU_AES_CUDA_SHAPE="1 512 4 1" \
		timeout 90 $P/land/gpu-aes-bench "$@" \
		--seconds 0.5 --json /tmp/j.json > /tmp/b.txt 2>&1
	rc=$?
	sed -n '/^# summary/q;p' /tmp/b.txt >> $O/$f
	log "$tag rc=$rc"
}
for r in 1 2; do
	B bulk.txt "$r" --helper --no-qd1 --req-sizes 16384:1048576
	export GPU_AES_CUDA_ZC_MAX=67108864
	B bulk-zero-copy.txt "$r" --helper --no-qd1 --req-sizes 16384:1048576
	unset GPU_AES_CUDA_ZC_MAX
done
left=$(( 575 - ($(date +%s) - t0) ))
BIN=$P/land ROUNDS=20 timeout $left scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check rc=$? (limit $left)"
