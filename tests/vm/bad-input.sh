#!/bin/sh
# bad-input.sh - bad and odd requests from an AF_ALG consumer
# (tests/vm/alg_input.c): invalid key lengths and ECB lengths fail with
# EINVAL, zero-length and IV-less requests and scatterlists with empty or
# split entries give aes-generic's bytes, and a request too large for the
# ring (above ring_max_bytes) takes the CPU fallback -- never rejected for
# its size.  The other size limit, a quarter of the data area, is at least
# 256 KiB (the smallest area is 1 MiB), and AF_ALG never builds a request
# that large (measured: a 256 KiB sendmsg blocks even with SO_SNDBUFFORCE),
# so no consumer in the guest can reach it: tests/kunit/ring_test.c
# covers that branch (fallback_large for a quarter of the area + 16).
. "$(dirname "$0")/lib.sh"

/sbin/modprobe algif_skcipher
/sbin/modprobe aes_generic 2>/dev/null
run_c alg_input basic

# alg_input large LEN WANT: one LEN-byte request, right bytes, routed
# WANT (ring, large: fallback_large, fallback: any fallback).
large() {
	run_c alg_input large "$1" || return
	_s=$(sed -n 's/^stat large //p' "$TMP/run_c.out")
	eval "$_s"
	case $2 in
	ring) [ "$ring_requests" = 1 ] && [ "$fallback_requests" = 0 ] ;;
	large) [ "$fallback_large" = 1 ] && [ "$fallback_requests" = 1 ] &&
		[ "$fallback_bytes" = "$1" ] && [ "$ring_requests" = 0 ] ;;
	fallback) [ "$fallback_requests" = 1 ] && [ "$ring_requests" = 0 ] ;;
	esac && pass "one $1-byte request went to the $2 path" ||
		fail "$1 bytes: want the $2 path, got $_s"
}

max=$(param ring_max_bytes)
echo 4096 >"$PARAMS/ring_max_bytes"
large 65536 "$(with_helper && echo large || echo fallback)"
echo "$max" >"$PARAMS/ring_max_bytes"

finish
