#!/bin/sh
# access.sh - who may open /dev/gpu_aes and what a bad caller gets back:
# tests/vm/fake_helper.c "access" on a region of 2 queues (no helper mode:
# it must be the only opener).  The device node itself must be root's,
# mode 0600.
. "$(dirname "$0")/lib.sh"

with_helper && { note "the helper holds the device: run without it"; exit 0; }

mode=$(stat -c '%a %u %g' /dev/gpu_aes)
[ "$mode" = "600 0 0" ] && pass "/dev/gpu_aes is mode 600, owner root:root" ||
	fail "/dev/gpu_aes is $mode, want 600 0 0"
run_c fake_helper access 2
finish
