#!/bin/sh
# call 2: compute-sanitizer on the new kernel (C), and C's raw logs again
# (call 1 returned only 8 files).
set -u
B=$PWD/.devbin/gcm
O=${OUT:-out}
mkdir -p "$O" /tmp/gb
for n in bench-C kernel-check; do gzip -dc "$B/$n.gz" > /tmp/gb/$n; chmod +x /tmp/gb/$n; done
cd /tmp/gb
for t in memcheck racecheck; do
	echo "== sanitizer $t kernel_check 1"
	compute-sanitizer --tool $t --error-exitcode 3 ./kernel-check 1 8192 > "$O/sanitizer-$t.log" 2>&1; echo "rc=$?"; tail -2 "$O/sanitizer-$t.log"
done
G=1073741824
./bench-C --raw --shape "1 512 2 1" --raw-sizes $G:$G --json "$O/raw-C-1_512_2_1.json" > "$O/raw-C-1_512_2_1.log" 2>&1
grep -E "raw-gpu +(aes-...-gcm|ghash)" "$O/raw-C-1_512_2_1.log"
