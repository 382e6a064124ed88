#!/bin/sh
# call 2: new (the core keeps a batch per slot of every GPU in flight:
# the cuda backend's max_batches(), 8 on one GPU) against base (c9df21a:
# four), alternated, the order flipped every round: 16 threads at 4 KiB
# (three rounds), 2 and 4 synchronous consumers (three rounds), QD1
# (two), 16 KiB-1 MiB (one); OpenSSL in the same run (as the host runs
# it, and with AES-NI and VAES masked); then scripts/gpu-check of new
# (20 rounds, compute-sanitizer).
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
B() {	# file tree tag args...
	f=$1 v=$2 tag=$3
	shift 3
	echo "### $v $tag" >> $O/$f.txt
	GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 90 $P/$v/gpu-aes-bench "$@" \
		--seconds 0.5 --json /tmp/j.json > /tmp/b.txt 2>&1
	rc=$?
	sed -n '/^# summary/q;p' /tmp/b.txt >> $O/$f.txt
	log "$f $v $tag rc=$rc"
}
for r in 1 2 3; do
	order="base new"
	[ $((r % 2)) = 0 ] && order="new base"
	for v in $order; do
		B deep $v "$r t16" --helper --no-qd1 --req-sizes 4096:4096
		for t in 2 4; do
			B sync $v "$r t$t" --helper --no-qd1 --req-sizes 4096:4096 \
				--threads $t --window 1
		done
		[ $r -le 2 ] && B sync $v "$r qd1" --helper --req-sizes 4096:4096 \
			--threads 1 --window 1
		[ $r = 1 ] && B bulk $v "$r" --helper --no-qd1 \
			--req-sizes 16384:1048576
	done
done
B openssl new "cpu" --cpu --req-sizes 4096:4096
export OPENSSL_ia32cap='~0x200000200000000'
B openssl new "cpu-noaes" --cpu --req-sizes 4096:4096
unset OPENSSL_ia32cap
left=$(( 575 - ($(date +%s) - t0) ))
BIN=$P/new ROUNDS=20 timeout $left scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check (new) rc=$? (limit $left)"
