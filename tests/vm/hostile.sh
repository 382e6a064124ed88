#!/bin/sh
# hostile.sh - a hostile helper (tests/vm/fake_helper.c "hostile") on 2
# queues (HOSTILE_QUEUES) serves real completions to 3 byte-checking AF_ALG
# consumers, pinned round robin to the CPUs (the guest's 2 vCPUs: both
# queues live), and wraps them in at least 10^6 garbage completion entries
# (live completions of one queue posted on the other among them), cq_tail
# overruns on every queue and scribbles over the kernel's header and queue
# header fields.  Every consumer byte must be right, rejected_completions
# must count exactly the garbage, every queue a consumer's CPU maps to
# must have carried requests, the kernel log must stay clean.
. "$(dirname "$0")/lib.sh"

with_helper && { note "the helper holds the device: run without it"; exit 0; }
/sbin/modprobe algif_skcipher
/sbin/modprobe aes_generic 2>/dev/null
run_c fake_helper hostile ${HOSTILE_SECS:-8} ${HOSTILE_GARBAGE:-1000000} 3 ${HOSTILE_QUEUES:-2}
no_splat && pass "no BUG/WARNING/Oops in the kernel log after the hostile helper" ||
	fail "kernel log has warnings (above)"
finish
