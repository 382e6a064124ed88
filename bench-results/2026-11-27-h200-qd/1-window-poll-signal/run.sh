#!/bin/sh
# call 1: three trees alternated, two rounds, 4 KiB: base (bbd932f), poll
# (the oldest batch's waiter queries its event every 4 pauses, not 64),
# both (poll, and a batch queued behind others signals one completion
# thread instead of waking all).  Each: deep queue at the default window
# (256 per thread) and QD1; 2 and 4 synchronous consumers (--window 1);
# 16 threads at --window 1024.  raw-qd1 and raw-qd1-zc, the null
# backend's QD1 and window 1024; a short gpu-check of poll and both.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
lscpu | grep -E 'Model name|^CPU\(s\)|MHz' >> $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# backend tree file tag args...
	be=$1 v=$2 f=$3 tag=$4
	shift 4
	echo "### $v $tag" >> $O/$f
	GPU_AES_BENCH_BACKEND=$be GPU_AES_CUDA_SHAPE="1 512 4 1" \
		timeout 60 $P/$v/gpu-aes-bench "$@" \
		--req-sizes 4096:4096 --seconds 0.5 --json /tmp/j.json >> $O/$f 2>&1
	log "$v $tag rc=$?"
}
for r in 1 2; do
	echo "### raw $r" >> $O/raw.txt
	timeout 60 $P/base/gpu-aes-bench --raw --raw-sizes 16384:16384 \
		--seconds 0.2 --json /tmp/j.json > /tmp/raw.txt 2>&1
	log "raw $r rc=$?"
	sed -n '/^# summary/q;p' /tmp/raw.txt | grep -E '^raw-qd1' >> $O/raw.txt
	for v in base poll both; do
		B cuda $v qd1.txt "$r" --helper
		B cuda $v sync.txt "$r t2" --helper --no-qd1 --threads 2 --window 1
		B cuda $v sync.txt "$r t4" --helper --no-qd1 --threads 4 --window 1
		B cuda $v window.txt "$r w1024" --helper --no-qd1 --window 1024
	done
	B null base null.txt "$r" --helper
	B null base null.txt "$r w1024" --helper --no-qd1 --window 1024
done
for v in poll both; do
	echo "### $v" >> $O/gpu-check.txt
	BIN=$P/$v ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk-$v >> $O/gpu-check.txt 2>&1
	log "gpu-check $v rc=$?"
done
