#!/bin/sh
# call 1: a small GCM batch cut into shorter chunks, so that a lone 4 KiB
# GCM request's warps spread over more SMs (g128, g64, g32: the smallest
# GCM chunk 128, 64 or 32 blocks; base 256) against base (39f0767); the
# phases inside run_gcm (gph: base with phases.patch and gcm-phases.patch;
# gph128: g128 with both); OpenSSL on the same host, with AES-NI and VAES
# and with both masked, twice, between the rounds.  Quick scripts/gpu-check
# (no sanitizers) of each g tree first; three rounds in rotating order of
# raw-qd1 (-zc, -word) and raw-gpu at 4 KiB, QD1 at 4 KiB, 16 threads at
# 4 KiB; the null backend at QD1 once a round.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
trees=base
for v in g128 g64 g32; do
	BIN=$P/$v ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
		> $O/gpu-check-quick-$v.txt 2>&1
	rc=$?
	log "gpu-check quick ($v) rc=$rc"
	[ $rc = 0 ] && trees="$trees $v"
done
for v in gph gph128; do
	[ -d $P/$v ] && B phases $v "phases" --raw --raw-sizes 4096:4096 --seconds 0.3
done
openssl() {
	B openssl base "cpu $1" --cpu --req-sizes 4096:4096 --seconds 0.5
	export OPENSSL_ia32cap='~0x200000200000000'
	B openssl base "cpu-noaes $1" --cpu --req-sizes 4096:4096 --seconds 0.5
	unset OPENSSL_ia32cap
}
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
	[ $r = 2 ] || openssl $r
done
