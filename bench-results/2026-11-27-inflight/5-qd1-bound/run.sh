#!/bin/sh
# call 5: issue 23's QD1 bound in one call with the tree that lands:
# raw-qd1 (the GPU's part alone), new at QD1 (4 KiB, one thread, window
# 1) and the null backend at QD1 (the host's part alone), three rounds.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
for r in 1 2 3; do
	echo "### new $r raw" >> $O/qd1.txt
	timeout 60 $P/new/gpu-aes-bench --raw --raw-sizes 16384:16384 \
		--seconds 0.3 --json /tmp/j.json > /tmp/b.txt 2>&1
	log "raw $r rc=$?"
	sed -n '/^# summary/q;p' /tmp/b.txt | grep -E '^raw-qd1' >> $O/qd1.txt
	for be in cuda null; do
		echo "### new $r $be" >> $O/qd1.txt
		GPU_AES_BENCH_BACKEND=$be GPU_AES_CUDA_SHAPE="1 512 4 1" \
			timeout 90 $P/new/gpu-aes-bench --helper \
			--req-sizes 4096:4096 --threads 1 --window 1 \
			--seconds 0.5 --json /tmp/j.json > /tmp/b.txt 2>&1
		log "$be $r rc=$?"
		sed -n '/^# summary/q;p' /tmp/b.txt >> $O/qd1.txt
	done
done
