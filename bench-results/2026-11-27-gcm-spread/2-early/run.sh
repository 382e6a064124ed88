#!/bin/sh
# call 2: call 1's g128 (a small GCM batch's chunks 128 blocks, not 256)
# again, and g128e (g128 with the text read before the keystream, NOTES.md
# row 19's early-read.patch, asked again with the phases to show when the
# text arrives) against base (39f0767).  Phases of gph128 and gph128e
# (phases.patch and gcm-phases.patch on each); a quick scripts/gpu-check
# of g128e; three rounds in rotating order of raw-qd1 (-zc, -word) and
# raw-gpu at 4 KiB, QD1 at 4 KiB, 16 threads at 4 KiB, the null backend at
# QD1 once a round; OpenSSL beside them; then the full scripts/gpu-check
# (20 rounds, sanitizers) of g128.  The device tool brings back 8 files:
# everything is packed into results.tar.xz after the run.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
trees="base g128"
BIN=$P/g128e ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
	> $O/gpu-check-quick-g128e.txt 2>&1
rc=$?
log "gpu-check quick (g128e) rc=$rc"
[ $rc = 0 ] && trees="$trees g128e"
for v in gph128 gph128e; do
	B phases $v "phases" --raw --raw-sizes 4096:4096 --seconds 0.3
done
for r in 1 2 3; do
	order=$trees
	for i in $(seq 2 $r); do
		order="$(echo $order | cut -d' ' -f2-) $(echo $order | cut -d' ' -f1)"
	done
	for v in $order; do
		B raw $v "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
		B qd1 $v "$r qd1" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1 --seconds 0.5
		B deep $v "$r t16" --helper --no-qd1 --req-sizes 4096:4096 \
			--seconds 0.5
	done
	export GPU_AES_BENCH_BACKEND=null
	B qd1 base "$r null" --helper --req-sizes 4096:4096 --threads 1 \
		--window 1 --seconds 0.5
	unset GPU_AES_BENCH_BACKEND
done
B openssl base "cpu" --cpu --req-sizes 4096:4096 --seconds 0.5
export OPENSSL_ia32cap='~0x200000200000000'
B openssl base "cpu-noaes" --cpu --req-sizes 4096:4096 --seconds 0.5
unset OPENSSL_ia32cap
BIN=$P/g128 ROUNDS=20 timeout 330 scripts/gpu-check /tmp/chk \
	> $O/gpu-check.txt 2>&1
log "gpu-check (g128) rc=$?"
