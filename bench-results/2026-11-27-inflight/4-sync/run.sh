#!/bin/sh
# call 4: 2 and 4 synchronous consumers (window 1), where at most 2 or
# 4 batches are ever in flight, so the cap cannot bind: base against new,
# and one binary (x8: c9df21a with the cap read from X_INFLIGHT) at 4
# and at 8, five rounds, the order rotated every round.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# tree inflight tag args...
	v=$1 n=$2 tag=$3
	shift 3
	echo "### $v inflight=$n $tag" >> $O/sync.txt
	X_INFLIGHT=$n GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 90 \
		$P/$v/gpu-aes-bench "$@" --seconds 0.5 --json /tmp/j.json \
		> /tmp/b.txt 2>&1
	rc=$?
	sed -n '/^# summary/q;p' /tmp/b.txt >> $O/sync.txt
	log "$v $n $tag rc=$rc"
}
set -- "base 0" "new 0" "x8 4" "x8 8"
for r in 1 2 3 4 5; do
	for i in 1 2 3 4; do
		eval "vn=\${$i}"
		for t in 2 4; do
			B $vn "$r t$t" --helper --no-qd1 --req-sizes 4096:4096 \
				--threads $t --window 1
		done
	done
	set -- "$2" "$3" "$4" "$1"
done
