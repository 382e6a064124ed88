#!/bin/sh
# call 8: land against lifo again where call 7 was mixed, five rounds
# alternated (the order flipped every round): 2 and 4 synchronous 4 KiB
# consumers, and QD1 at 4 KiB; then scripts/gpu-check of lifo (20
# rounds, compute-sanitizer).
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
for r in 1 2 3 4 5; do
	order="land lifo"
	[ $((r % 2)) = 0 ] && order="lifo land"
	for v in $order; do
		for t in 2 4; do
			B $v "$r t$t" --helper --no-qd1 --req-sizes 4096:4096 \
				--threads $t --window 1
		done
		[ $r -le 2 ] && B $v "$r qd1" --helper --req-sizes 4096:4096 \
			--threads 1 --window 1
	done
done
left=$(( 580 - ($(date +%s) - t0) ))
BIN=$P/lifo ROUNDS=20 timeout $left scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check rc=$? (limit $left)"
