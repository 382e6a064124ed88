#!/bin/sh
# call 1: A/B/C at 4 KiB (base, new without batched copies, new), gpu-check on new, bulk A/B
# (as run; scratch/base and scratch/new held the binaries; a bug in run()
# reused $r, so the round labels in bench.txt read "abab1" and the like,
# and --json had no out/ to write to, hence rc=1: the figures are whole)
set -u
O=${OUT:-out}
export LC_ALL=C
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
nproc >> $O/device.txt
run() { # variant round args...
	v=$1; r=$2; shift 2
	case $v in base) B=scratch/base; E=1;; new0) B=scratch/new; E=0;; new1) B=scratch/new; E=1;; esac
	echo "### $v $r" >> $O/bench.txt
	GPU_AES_CUDA_BATCH_COPY=$E timeout 90 $B/gpu-aes-bench "$@" >> $O/bench.txt 2>&1
	echo "$v $r rc=$?" >> $O/log.txt
}
t0=$(date +%s)
for r in 1 2 3; do
	for v in base new0 new1; do
		run $v ab$r --helper --req-sizes 4096:4096 --no-qd1 --seconds 1
	done
done
echo "abc done $(( $(date +%s) - t0 )) s" >> $O/log.txt
BIN=scratch/new ROUNDS=100 timeout 240 scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
echo "gpu-check rc=$? $(( $(date +%s) - t0 )) s" >> $O/log.txt
for r in 1 2; do
	for v in base new1; do
		run $v bulk$r --helper --req-sizes 16384:1048576 --no-qd1 --seconds 0.5
	done
done
echo "all done $(( $(date +%s) - t0 )) s" >> $O/log.txt
