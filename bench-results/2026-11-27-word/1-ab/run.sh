#!/bin/sh
# call 1: the completion word (new) against base (685b803: the event
# recorded after each launch and polled), two rounds alternated: one
# request in flight (QD1 and its breakdown), 2 and 4 synchronous
# consumers, 16 threads 4 KiB-1 MiB; raw-qd1 and the null backend once;
# then scripts/gpu-check of new.
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
timeout 60 $P/new/gpu-aes-bench --raw --raw-sizes 16384:16384 --seconds 0.3 \
	--json /tmp/j.json > /tmp/raw.txt 2>&1
log "raw rc=$?"
sed -n '/^# summary/q;p' /tmp/raw.txt | grep -E '^raw-qd1' > $O/raw.txt
B null new null.txt 1 --helper --req-sizes 4096:4096 --threads 1 --window 1
for r in 1 2; do
	for v in base new; do
		B cuda $v qd1.txt "$r" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1
		for t in 2 4; do
			B cuda $v sync.txt "$r t$t" --helper --no-qd1 \
				--req-sizes 4096:4096 --threads $t --window 1
		done
		B cuda $v deep.txt "$r" --helper --no-qd1 --req-sizes 4096:1048576
	done
done
left=$(( 570 - ($(date +%s) - t0) ))
BIN=$P/new ROUNDS=20 timeout $left scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check rc=$? (limit $left)"
