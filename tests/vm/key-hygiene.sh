#!/bin/sh
# key-hygiene.sh - a freed tfm leaves no key behind in the shared region:
# tests/vm/fake_helper.c "keys" attaches as the helper, serves one request
# of a consumer and dumps the key table while the tfm lives and after it is
# freed.  The helper's own copies: tests/unit/test_ring.c
# ring_wiped_key_leaves_no_host_copy (host) and docs/security.md (GPU).
. "$(dirname "$0")/lib.sh"

with_helper && { note "the helper holds the device: run without it"; exit 0; }
/sbin/modprobe algif_skcipher
/sbin/modprobe aes_generic 2>/dev/null
run_c fake_helper keys
finish
