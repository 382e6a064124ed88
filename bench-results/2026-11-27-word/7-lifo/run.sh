#!/bin/sh
# call 7: land (2dae805) against lifo (a queued batch wakes one
# completion thread, the one idle the shortest time, not all eight:
# lifo.patch), three rounds alternated: QD1 at 4 KiB and 64 KiB, 2, 4
# and 8 synchronous consumers, 16 threads, all 4 KiB; then gpu-check of
# lifo without the sanitizers.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# tree tag args...
	v=$1 tag=$2
	shift 2
	echo "### $v $tag" >> $O/ab.txt
	GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 90 $P/$v/gpu-aes-bench "$@" \
		--seconds 0.5 --json /tmp/j.json > /tmp/b.txt 2>&1
	rc=$?
	sed -n '/^# summary/q;p' /tmp/b.txt >> $O/ab.txt
	log "$v $tag rc=$rc"
}
for r in 1 2 3; do
	for v in land lifo; do
		B $v "$r qd1" --helper --req-sizes 4096:4096 --threads 1 --window 1
		B $v "$r qd1-64k" --helper --req-sizes 65536:65536 --threads 1 \
			--window 1
		for t in 2 4 8; do
			B $v "$r t$t" --helper --no-qd1 --req-sizes 4096:4096 \
				--threads $t --window 1
		done
		B $v "$r t16" --helper --no-qd1 --req-sizes 4096:4096
	done
done
BIN=$P/lifo ROUNDS=10 SANITIZE=0 timeout 120 scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check (lifo, no sanitizers) rc=$?"
