#!/bin/sh
# call 9: the tree that lands (lifo, bd547e5) against land (2dae805) and
# base (685b803) next to OpenSSL in the same run, two rounds alternated:
# QD1, 4 and 8 synchronous consumers, 16 threads, all 4 KiB; OpenSSL rows
# (--cpu: 1 thread and all) after each, as this host runs it and with
# AES-NI and VAES masked (OPENSSL_ia32cap), a host whose CPU AES is slow.
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
for r in 1 2; do
	for v in base land lifo; do
		B $v "$r qd1" --helper --req-sizes 4096:4096 --threads 1 --window 1
		for t in 4 8; do
			B $v "$r t$t" --helper --no-qd1 --req-sizes 4096:4096 \
				--threads $t --window 1
		done
		B $v "$r t16" --helper --no-qd1 --req-sizes 4096:4096
	done
	B lifo "$r openssl" --cpu --req-sizes 4096:4096
	export OPENSSL_ia32cap='~0x200000200000000'
	B lifo "$r openssl-no-aesni" --cpu --req-sizes 4096:4096
	unset OPENSSL_ia32cap
done
