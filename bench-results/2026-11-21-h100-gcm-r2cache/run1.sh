#!/bin/sh
# call 1: GCM round-2 counter cache and 1 MiB GCM chunks, A/B on one GPU.
#   A = before (f30322f kernel, 16384-block GCM chunks)
#   B = round-2 cache, 16384-block chunks
#   C = round-2 cache, 65536-block chunks (this commit)
#   D = f30322f kernel, 65536-block chunks
# Binaries: .devbin/gcm/{bench-A,bench-B,bench-C,bench-D,kernel-check,
# check-backend}.gz, built as in docs/benchmarks.md "Commands".
set -u
B=$PWD/.devbin/gcm
O=${OUT:-out}
mkdir -p "$O" /tmp/gb
for f in "$B"/*.gz; do n=$(basename "$f" .gz); gzip -dc "$f" > /tmp/gb/$n; chmod +x /tmp/gb/$n; done
cd /tmp/gb
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== kernel_check 12"; ./kernel-check 12 > "$O/kernel-check.log" 2>&1; tail -1 "$O/kernel-check.log"
echo "== check_backend 20"; ./check-backend 20 > "$O/check-backend.log" 2>&1; tail -1 "$O/check-backend.log"
G=1073741824
for v in A C B D A C; do
	for sh in "1 512 2 1"; do
		tag=$v-$(echo "$sh" | tr ' ' _)
		./bench-$v --raw --shape "$sh" --raw-sizes $G:$G --json "$O/raw-$tag.json" > "$O/raw-$tag.log" 2>&1 || echo "bench-$v failed"
		echo "== $v shape $sh"; grep -E "raw-gpu +(aes-...-(gcm|ctr|xts)|ghash)" "$O/raw-$tag.log" | awk '{print $2, $4}' | tr '\n' ' '; echo
	done
done
for v in A C; do
	sh="0 256 4 2"; tag=$v-$(echo "$sh" | tr ' ' _)
	./bench-$v --raw --shape "$sh" --raw-sizes $G:$G --json "$O/raw-$tag.json" > "$O/raw-$tag.log" 2>&1 || echo "bench-$v failed"
	echo "== $v shape $sh"; grep -E "raw-gpu +(aes-...-gcm|ghash)" "$O/raw-$tag.log" | awk '{print $2, $4}' | tr '\n' ' '; echo
done
