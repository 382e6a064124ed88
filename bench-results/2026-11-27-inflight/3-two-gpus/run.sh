#!/bin/sh
# call 3, a machine with two GPUs: base (c9df21a: the core keeps four
# batches in flight whatever the GPUs), new (a batch per slot of every
# GPU: 8 on one, 16 on two) and n16 (new with 16 slots and completion
# threads per GPU, a scratch build), on GPU 0 alone and on both, every
# core submitting: 4 KiB twice, 16 KiB-1 MiB once, alternated.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
nproc >> $O/device.txt
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# file tree gpus tag args...
	f=$1 v=$2 g=$3 tag=$4
	shift 4
	echo "### $v gpus=$g $tag" >> $O/$f.txt
	GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 120 $P/$v/gpu-aes-bench "$@" \
		--gpus $g --seconds 0.5 --json /tmp/j.json > /tmp/b.txt 2>&1
	rc=$?
	sed -n '/^# summary/q;p' /tmp/b.txt >> $O/$f.txt
	log "$f $v $g $tag rc=$rc"
}
for r in 1 2; do
	for v in base new n16; do
		for g in 0 0,1; do
			B deep $v $g "$r" --helper --no-qd1 --req-sizes 4096:4096
		done
	done
done
for v in base new n16; do
	for g in 0 0,1; do
		B bulk $v $g 1 --helper --no-qd1 --req-sizes 16384:1048576
	done
done
