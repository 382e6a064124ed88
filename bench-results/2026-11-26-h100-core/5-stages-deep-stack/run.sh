#!/bin/sh
# call 5: the stage table of the tree that lands with perf copying 32 KiB
# of stack per sample, so that samples inside libcuda reach our frames
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
GPU_AES_CUDA_SHAPE="1 512 4 1" STACK=32768 FREQ=149 BIN=$P/new \
	PERF=$P/perf/perf-wrap BACKENDS=cuda timeout 400 scripts/gpu-bench-stages /tmp/st > $O/stages.txt 2>&1
echo "stages rc=$?" >> $O/stages.txt
cat /tmp/st/stages-cuda-bench.txt >> $O/stages.txt 2>/dev/null
