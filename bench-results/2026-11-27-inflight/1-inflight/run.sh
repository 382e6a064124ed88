#!/bin/sh
# call 1: how many batches the helper core keeps in the backend.  base
# (c9df21a: DEFAULT_INFLIGHT 4, the cuda backend's 8 slots), x8 (the same
# with the cap read from X_INFLIGHT, a scratch patch), s16 (x8 with 16
# slots and completion threads).  16 threads at 4 KiB, three rounds
# alternated; 16 KiB-1 MiB twice; QD1 and 4 synchronous consumers once;
# the null backend once; gpu-check of base without the sanitizers.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# file tree inflight tag args...
	f=$1 v=$2 n=$3 tag=$4
	shift 4
	echo "### $v inflight=$n $tag" >> $O/$f.txt
	X_INFLIGHT=$n GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 90 \
		$P/$v/gpu-aes-bench "$@" --seconds 0.5 --json /tmp/j.json \
		> /tmp/b.txt 2>&1
	rc=$?
	sed -n '/^# summary/q;p' /tmp/b.txt >> $O/$f.txt
	log "$f $v $n $tag rc=$rc"
}
for r in 1 2 3; do
	B deep base 4 "$r" --helper --no-qd1 --req-sizes 4096:4096
	B deep x8 8 "$r" --helper --no-qd1 --req-sizes 4096:4096
	B deep x8 16 "$r" --helper --no-qd1 --req-sizes 4096:4096
	B deep s16 16 "$r" --helper --no-qd1 --req-sizes 4096:4096
	B deep s16 32 "$r" --helper --no-qd1 --req-sizes 4096:4096
done
export GPU_AES_BENCH_BACKEND=null
B deep x8 8 "null" --helper --no-qd1 --req-sizes 4096:4096
unset GPU_AES_BENCH_BACKEND
for r in 1 2; do
	B bulk base 4 "$r" --helper --no-qd1 --req-sizes 16384:1048576
	B bulk x8 8 "$r" --helper --no-qd1 --req-sizes 16384:1048576
	B bulk s16 16 "$r" --helper --no-qd1 --req-sizes 16384:1048576
done
for v in "base 4" "x8 8" "s16 16"; do
	set -- $v
	B sync $1 $2 qd1 --helper --req-sizes 4096:4096 --threads 1 --window 1
	B sync $1 $2 t4 --helper --no-qd1 --req-sizes 4096:4096 --threads 4 --window 1
done
left=$(( 570 - ($(date +%s) - t0) ))
BIN=$P/base ROUNDS=10 SANITIZE=0 timeout $left scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check (base c9df21a, no sanitizers) rc=$? (limit $left)"
