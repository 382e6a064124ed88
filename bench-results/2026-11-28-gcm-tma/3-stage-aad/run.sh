#!/bin/sh
# call 3: tma2, on 94d8edf: the TMA stages a CTA's first GCM chunk's text
# and its associated data (call 2: CTA 0 still waited on its AAD block,
# read byte by byte over PCIe), in a kernel of its own taken by GCM
# batches of up to 64 KiB, so no other launch carries its registers.
# Quick scripts/gpu-check of tma2 (stops the call if it fails); the
# phases of ph (base) and phT2 (tma2 with phases-jt.patch), two rounds
# alternated; three rounds of base and tma2 (device-call.sh's rounds);
# OpenSSL beside them; scripts/gpu-check of tma2 with the sanitizers.
# Packed by helper/bench/device-pack.sh after it.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
BIN=$P/tma2 ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
	> "$O/gpu-check-quick.txt" 2>&1
rc=$?
log "gpu-check quick (tma2) rc=$rc"
[ $rc = 0 ] || exit 1
for r in 1 2; do
	order="ph phT2"
	[ $((r % 2)) = 0 ] && order="phT2 ph"
	for v in $order; do
		B phases $v "$r phases" --raw --raw-sizes 4096:4096 --seconds 0.3
	done
done
rounds 3 base tma2
B openssl base "cpu" --cpu --req-sizes 4096:4096 --seconds 0.5
export OPENSSL_ia32cap='~0x200000200000000'
B openssl base "cpu-noaes" --cpu --req-sizes 4096:4096 --seconds 0.5
unset OPENSSL_ia32cap
BIN=$P/tma2 timeout 330 scripts/gpu-check /tmp/chk \
	> "$O/gpu-check.txt" 2>&1
log "gpu-check (tma2) rc=$?"
