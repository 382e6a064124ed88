#!/bin/sh
# key-hygiene.sh - a freed tfm leaves no key behind in the shared region:
# tests/vm/fake_helper.c "keys" attaches as the helper (2 queues), serves
# one request of a consumer pinned to CPU 0 (ctr-aes-gpu) and one pinned to
# CPU 1 (xts-aes-gpu), each on its CPU's queue, and dumps the key table
# (128-byte slots of raw keys) while the tfm lives and after it is freed.  The helper's own copies: tests/unit/test_ring.c
# ring_wiped_key_leaves_no_host_copy (host) and docs/security.md (GPU).
. "$(dirname "$0")/lib.sh"

with_helper && { note "the helper holds the device: run without it"; exit 0; }
/sbin/modprobe algif_skcipher
/sbin/modprobe aes_generic 2>/dev/null
run_c fake_helper keys 2
finish
