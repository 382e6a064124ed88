#!/bin/sh
# call 2: a lone 4 KiB request's time by stage.  One thread, one request
# in flight (--threads 1 --window 1, then QD1), so every batch is a lone
# request: the cuda backend's log line at close splits its time (enqueue,
# a completion thread holding it, the GPU's end seen, done()); each QD1
# row's note gives the waiter's wake-up after its callback.  cuda and
# null alternated, two rounds; raw-qd1 and raw-qd1-zc once.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
timeout 60 $P/cur/gpu-aes-bench --raw --raw-sizes 16384:16384 --seconds 0.3 \
	--json /tmp/j.json > /tmp/raw.txt 2>&1
log "raw rc=$?"
sed -n '/^# summary/q;p' /tmp/raw.txt | grep -E '^raw-qd1' > $O/raw.txt
for r in 1 2; do
	for be in cuda null; do
		echo "### $be $r" >> $O/qd1.txt
		GPU_AES_BENCH_BACKEND=$be GPU_AES_CUDA_SHAPE="1 512 4 1" \
			timeout 60 $P/cur/gpu-aes-bench --helper --req-sizes 4096:4096 \
			--threads 1 --window 1 --seconds 1 --json /tmp/j.json >> $O/qd1.txt 2>&1
		log "$be $r rc=$?"
	done
done
