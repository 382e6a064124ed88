#!/bin/sh
# call 1: a CTA's first GCM chunk's text copied into shared memory by the
# TMA (one cp.async.bulk at the CTA's entry, an mbarrier) in small
# batches (tma), against base (94d8edf).  The eleventh pass: a lone GCM
# launch's text came back 1.1 us after its keystream, and reads issued
# earlier by the lanes held up their shared-memory work.
# Quick scripts/gpu-check of tma first (stops the call if it fails);
# three rounds alternated (helper/bench/device-call.sh's rounds);
# OpenSSL beside them; raw-gpu and the ring at 16 KiB-16 MiB once each
# (the EXT kernel spills 88-96 B, not 64-72); scripts/gpu-check of tma
# with the sanitizers.  Packed by helper/bench/device-pack.sh after it.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/tma ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
	> "$O/gpu-check-quick.txt" 2>&1
rc=$?
log "gpu-check quick (tma) rc=$rc"
[ $rc = 0 ] || exit 1
rounds 3 base tma
B openssl base "cpu" --cpu --req-sizes 4096:4096 --seconds 0.5
export OPENSSL_ia32cap='~0x200000200000000'
B openssl base "cpu-noaes" --cpu --req-sizes 4096:4096 --seconds 0.5
unset OPENSSL_ia32cap
for v in base tma; do
	B bulk $v "raw" --raw --raw-sizes 1048576:16777216 --seconds 0.3
	B bulk $v "ring" --helper --no-qd1 --req-sizes 16384:1048576 \
		--seconds 0.5
done
BIN=$P/tma timeout 300 scripts/gpu-check /tmp/chk \
	> "$O/gpu-check.txt" 2>&1
log "gpu-check (tma) rc=$?"
