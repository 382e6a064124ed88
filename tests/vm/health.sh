#!/bin/sh
# health.sh - runs last: the helper is still attached and never sent a bad
# completion, the kernel log has no splat, and the module unloads cleanly
# once the helper has stopped.
. "$(dirname "$0")/lib.sh"

for c in "$STATS"/*; do note "$(basename "$c") = $(cat "$c")"; done

# Served from the host (vm-run --host-helper): the agent here stands for
# the helper.
helper_name=gpu-aes-helper
[ "${GPU_AES_VM_HOST_HELPER:-0}" != 1 ] || helper_name=gpu-aes-guest-agent
if with_helper; then
	pid=$(pidof $helper_name)
	[ -n "$pid" ] && pass "helper still running (pid $pid)" || fail "helper is gone"
	expect_zero() { [ "$(counter "$1")" = 0 ] && pass "$1 = 0" || fail "$1 = $(counter "$1")"; }
	expect_zero rejected_completions
	expect_zero helper_errors
	if [ -n "$pid" ]; then
		kill -TERM $pid
		i=0
		while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		kill -0 $pid 2>/dev/null && fail "helper ignores SIGTERM" ||
			pass "helper stops on SIGTERM"
	fi
fi

if /sbin/modprobe -r gpu_aes; then
	pass "modprobe -r gpu_aes"
else
	fail "modprobe -r gpu_aes"
fi

splat='BUG:|WARNING:|Oops|Call Trace|general protection|UBSAN|KASAN|list_(add|del) corruption|refcount_t:|alg: .*(fail|error)'
if dmesg | grep -E "$splat"; then
	fail "kernel log has warnings (above)"
else
	pass "kernel log has no BUG/WARNING/Oops/testmgr failure"
fi
finish
