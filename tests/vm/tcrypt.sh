#!/bin/sh
# tcrypt.sh - the kernel's own test vectors (testmgr, through tcrypt mode=10)
# against whatever ecb(aes)/ctr(aes) resolve to, with ring_min_bytes lowered
# to 1 so every non-empty vector goes through the ring when the helper runs.
# testmgr already ran at modprobe, but then no helper was attached: this is
# the run that checks the ring path (and the templates built on our drivers:
# lrw(ecb(aes)), rfc3686(ctr(aes))) against the kernel's vectors.
. "$(dirname "$0")/lib.sh"

old_min=$(param ring_min_bytes)
echo 1 >"$PARAMS/ring_min_bytes" || { fail "cannot set ring_min_bytes"; finish; exit; }
lines=$(dmesg | wc -l)
snap t
# tcrypt never stays loaded: it returns -EAGAIN when every test passed.
/sbin/modprobe tcrypt mode=10 2>/dev/null
echo "$old_min" >"$PARAMS/ring_min_bytes"
new=$(dmesg | tail -n +$((lines + 1)))

ok=1
if echo "$new" | grep -E 'tcrypt: one or more tests failed|alg: .*(fail|error)|No test for'; then
	ok=0
fi
if with_helper; then
	delta t ring_requests
	[ "$D" -gt 0 ] || { note "ring_requests did not move"; ok=0; }
	expect_delta t fallback_small 0 || ok=0
else
	expect_delta t ring_requests 0 || ok=0
	delta t fallback_requests
	[ "$D" -gt 0 ] || { note "fallback_requests did not move"; ok=0; }
fi
delta t ring_requests
r=$D
delta t fallback_requests
note "ring_requests +$r, fallback_requests +$D"
[ $ok = 1 ] && pass "tcrypt mode=10 (testmgr vectors) with ring_min_bytes=1" ||
	fail "tcrypt mode=10 (testmgr vectors) with ring_min_bytes=1"
finish
