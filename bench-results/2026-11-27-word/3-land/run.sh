#!/bin/sh
# call 3: the tree that lands (land: the completion word, the lock left
# during queuing, raw-qd1-word) against base (685b803), three rounds
# alternated: QD1 and its breakdown, 2, 4 and 8 synchronous consumers;
# two rounds of 16 threads 4 KiB-1 MiB; raw (with raw-qd1-word) and the
# null backend twice; 16 KiB-1 MiB with every batch zero-copy
# (GPU_AES_CUDA_ZC_MAX=64 MiB) twice.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# backend tree file tag args...
	be=$1 v=$2 f=$3 tag=$4
	shift 4
	echo "### $v $tag" >> $O/$f
	GPU_AES_BENCH_BACKEND=$be GPU_AES_CUDA_SHAPE="1 512 4 1" \
		timeout 60 $P/$v/gpu-aes-bench "$@" \
		--seconds 0.5 --json /tmp/j.json >> $O/$f 2>&1
	log "$v $tag rc=$?"
}
for r in 1 2; do
	echo "### land $r" >> $O/raw.txt
	timeout 60 $P/land/gpu-aes-bench --raw --raw-sizes 16384:16384 \
		--seconds 0.3 --json /tmp/j.json > /tmp/raw.txt 2>&1
	log "raw $r rc=$?"
	sed -n '/^# summary/q;p' /tmp/raw.txt | grep -E '^raw-qd1' >> $O/raw.txt
	B null land null.txt $r --helper --req-sizes 4096:4096 --threads 1 --window 1
done
for r in 1 2 3; do
	for v in base land; do
		B cuda $v qd1.txt "$r" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1
		for t in 2 4 8; do
			B cuda $v sync.txt "$r t$t" --helper --no-qd1 \
				--req-sizes 4096:4096 --threads $t --window 1
		done
		[ $r = 3 ] && continue
		B cuda $v deep.txt "$r" --helper --no-qd1 --req-sizes 4096:1048576
	done
	[ $r = 3 ] && continue
	export GPU_AES_CUDA_ZC_MAX=67108864
	B cuda land zc.txt "$r" --helper --no-qd1 --req-sizes 16384:1048576
	unset GPU_AES_CUDA_ZC_MAX
done
BIN=$P/land ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check (land, no sanitizers) rc=$?"
