#!/bin/sh
# hostile.sh - a hostile helper (tests/vm/fake_helper.c "hostile") serves
# real completions to byte-checking AF_ALG consumers and wraps them in at
# least 10^6 garbage completion entries, cq_tail overruns and scribbles
# over the kernel's header fields.  Every consumer byte must be right,
# rejected_completions must count exactly the garbage, the kernel log must
# stay clean.
. "$(dirname "$0")/lib.sh"

with_helper && { note "the helper holds the device: run without it"; exit 0; }
/sbin/modprobe algif_skcipher
/sbin/modprobe aes_generic 2>/dev/null
run_c fake_helper hostile ${HOSTILE_SECS:-8} ${HOSTILE_GARBAGE:-1000000} 3
no_splat && pass "no BUG/WARNING/Oops in the kernel log after the hostile helper" ||
	fail "kernel log has warnings (above)"
finish
