#!/bin/sh
# call 6: 16 threads of 4 KiB requests, three rounds alternated: base
# (685b803), word (f5fb605: the completion word, the lock still held
# while queuing) and land (the lock left); land's run carries copy-dma
# at 4 KiB (the same bytes through pinned memory and the copy engines,
# no ring) and the null backend once a round.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# backend tree tag args...
	be=$1 v=$2 tag=$3
	shift 3
	echo "### $v $tag" >> $O/deep.txt
	GPU_AES_BENCH_BACKEND=$be GPU_AES_CUDA_SHAPE="1 512 4 1" \
		timeout 90 $P/$v/gpu-aes-bench "$@" \
		--seconds 0.5 --json /tmp/j.json > /tmp/b.txt 2>&1
	rc=$?
	sed -n '/^# summary/q;p' /tmp/b.txt >> $O/deep.txt
	log "$v $tag rc=$rc"
}
for r in 1 2 3; do
	for v in base word land; do
		B cuda $v "$r" --helper --no-qd1 --req-sizes 4096:4096
	done
	B null land "$r null" --helper --no-qd1 --req-sizes 4096:4096
done
