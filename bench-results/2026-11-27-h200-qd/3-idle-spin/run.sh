#!/bin/sh
# call 3: cur (the lone-request breakdown, completion threads as they
# are) against spin (one idle completion thread polls 50 us for the next
# slot, and the core wakes no one while it does), two rounds alternated:
# one request in flight (the breakdown and QD1), 2, 4 and 8 synchronous
# consumers, 16 threads at the default window; 64 KiB-1 MiB once; a
# short gpu-check of spin.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# tree file tag args...
	v=$1 f=$2 tag=$3
	shift 3
	echo "### $v $tag" >> $O/$f
	GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 60 $P/$v/gpu-aes-bench "$@" \
		--seconds 0.5 --json /tmp/j.json >> $O/$f 2>&1
	log "$v $tag rc=$?"
}
for r in 1 2; do
	for v in cur spin; do
		B $v qd1.txt "$r" --helper --req-sizes 4096:4096 --threads 1 --window 1
		for t in 2 4 8; do
			B $v sync.txt "$r t$t" --helper --no-qd1 --req-sizes 4096:4096 \
				--threads $t --window 1
		done
		B $v deep.txt "$r" --helper --no-qd1 --req-sizes 4096:4096
	done
done
for v in cur spin; do
	B $v bulk.txt "1" --helper --no-qd1 --req-sizes 65536:1048576
done
echo "### spin" >> $O/gpu-check.txt
BIN=$P/spin ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk >> $O/gpu-check.txt 2>&1
log "gpu-check spin rc=$?"
