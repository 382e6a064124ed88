#!/bin/sh
# af-alg.sh - an ECB request whose length is not a multiple of 16, sent
# through AF_ALG by hand (tests/vm/af_alg_ecb.c), fails with EINVAL before
# it reaches the ring or the fallback; a 16-byte multiple still gives the
# FIPS-197 ciphertext.
. "$(dirname "$0")/lib.sh"

min=$(param ring_min_bytes)

for alg in ecb-aes-gpu 'ecb(aes)'; do
	for len in 17 31 4097; do
		snap a
		out=$(af_alg_ecb "$alg" "$len" 2>&1)
		ok=1
		[ "$out" = "errno 22" ] || { note "got: $out"; ok=0; }
		expect_delta a ring_requests 0 || ok=0
		expect_delta a fallback_requests 0 || ok=0
		[ $ok = 1 ] && pass "af_alg $alg $len B -> EINVAL" ||
			fail "af_alg $alg $len B -> EINVAL"
	done
	# Positive controls: one below ring_min_bytes, one at or above it.
	for len in 16 4096; do
		snap a
		out=$(af_alg_ecb "$alg" "$len" 2>&1)
		ok=1
		[ "$out" = ok ] || { note "got: $out"; ok=0; }
		if [ "$len" -lt "$min" ] || ! with_helper; then
			expect_delta a fallback_requests 1 || ok=0
			expect_delta a fallback_bytes "$len" || ok=0
			expect_delta a ring_requests 0 || ok=0
		else
			expect_delta a ring_requests 1 || ok=0
			expect_delta a ring_bytes "$len" || ok=0
			expect_delta a fallback_requests 0 || ok=0
		fi
		[ $ok = 1 ] && pass "af_alg $alg $len B = FIPS-197 C.1" ||
			fail "af_alg $alg $len B = FIPS-197 C.1"
	done
done
finish
