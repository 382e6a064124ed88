#!/bin/sh
# call 6: pf (new, and each CTA prefetches its first chunk's text into
# L2 before it fills its tables: a lone zero-copy request reads host
# memory over PCIe, which the fill could overlap; prefetch.patch)
# against new, three rounds alternated: raw-qd1 (-zc, -word) and QD1 at
# 4 KiB; 16 threads at 4 KiB once each; then kernel_check and
# check_backend of pf.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p $P && tar -C $P -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/device.txt 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> $O/log.txt; }
for r in 1 2 3; do
	order="new pf"
	[ $((r % 2)) = 0 ] && order="pf new"
	for v in $order; do
		echo "### $v $r raw" >> $O/qd1.txt
		timeout 60 $P/$v/gpu-aes-bench --raw --raw-sizes 16384:16384 \
			--seconds 0.3 --json /tmp/j.json > /tmp/b.txt 2>&1
		log "$v raw $r rc=$?"
		sed -n '/^# summary/q;p' /tmp/b.txt | grep -E '^raw-qd1' >> $O/qd1.txt
		echo "### $v $r qd1" >> $O/qd1.txt
		GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 90 $P/$v/gpu-aes-bench \
			--helper --req-sizes 4096:4096 --threads 1 --window 1 \
			--seconds 0.5 --json /tmp/j.json > /tmp/b.txt 2>&1
		log "$v qd1 $r rc=$?"
		sed -n '/^# summary/q;p' /tmp/b.txt >> $O/qd1.txt
		if [ $r = 1 ]; then
			echo "### $v $r t16" >> $O/deep.txt
			GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 90 \
				$P/$v/gpu-aes-bench --helper --no-qd1 \
				--req-sizes 4096:4096 --seconds 0.5 \
				--json /tmp/j.json > /tmp/b.txt 2>&1
			log "$v t16 rc=$?"
			sed -n '/^# summary/q;p' /tmp/b.txt >> $O/deep.txt
		fi
	done
done
BIN=$P/pf ROUNDS=10 SANITIZE=0 timeout 200 scripts/gpu-check /tmp/chk > $O/gpu-check.txt 2>&1
log "gpu-check (pf, no sanitizers) rc=$?"
for v in new pf; do
	echo "$v: $(cuobjdump -sass $P/$v/cuda/kernel-check 2>/dev/null | grep -c CCTL) CCTL" >> $O/sass.txt
done
