#!/bin/bash
# profile auto against the path it takes, 1 thread, one round of 3 s slices
P=scratch/perf/perf-wrap
$P version || exit 1
for kind in c asis; do
	case $kind in c) cap='~0x200020200000000' ;; asis) cap='' ;; esac
	env -u OPENSSL_ia32cap ${cap:+OPENSSL_ia32cap=$cap} GPU_AES_BENCH_TRACE_DISPATCH=1 \
		$P record -q -k CLOCK_MONOTONIC -F 1999 -e cpu-clock -o /tmp/p-$kind.data -- \
		python3 scratch/stamp.py stdbuf -oL scratch/C/gpu-aes-bench --dispatch --threads 1 --repeat 1 --seconds 3 --json /tmp/p-$kind.json > $OUT/stamped-$kind.txt 2>&1
	$P script -i /tmp/p-$kind.data -F comm,tid,time,ip,sym,dso > /tmp/p-$kind.script 2>/dev/null
	python3 scratch/split.py $OUT/stamped-$kind.txt /tmp/p-$kind.script > $OUT/split-$kind.txt
	grep -E "^[0-9.]+ dispatch-|^== " $OUT/stamped-$kind.txt $OUT/split-$kind.txt | cut -c1-200
done
