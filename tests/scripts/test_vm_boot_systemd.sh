#!/usr/bin/env bash
# scripts/vm-boot-systemd's rule for booting again, against a stand-in
# qemu on PATH that prints one scripted console per boot: only a panic
# before the guest test's first result, with no gpu_aes frame, boots again,
# and at most three boots are made.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
cat >"$tmp/bin/qemu-system-x86_64" <<'QEMU'
#!/bin/sh
# Boot N prints $CONSOLES/N, or the last one there is.
n=$(($(cat "$CONSOLES/boots" 2>/dev/null || echo 0) + 1))
echo "$n" >"$CONSOLES/boots"
f=$CONSOLES/$n
[ -e "$f" ] || f=$(ls "$CONSOLES"/[0-9]* | sort -n | tail -n 1)
# A console "exit N" is a qemu that fails with N.
first=$(head -n 1 "$f" | tr -d '\r')
case $first in exit*) exit "${first#exit}" ;; esac
cat "$f"
QEMU
chmod +x "$tmp/bin/qemu-system-x86_64"

flake='Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
RIP: 0010:sched_clock_cpu+0x10/0x1a0
Kernel panic - not syncing: Fatal exception in interrupt'
ours='BUG: kernel NULL pointer dereference, address: 0000000000000008
RIP: 0010:gpu_aes_ring_post+0x2a/0x90 [gpu_aes]
Kernel panic - not syncing: Fatal exception'
good='VM-X ok: one
VM-X done'
late='VM-X ok: one
Kernel panic - not syncing: Fatal exception'

pass=0 fail=0
# case NAME WANT_BOOTS WANT_RC CONSOLE...
case_() {
	local name=$1 want_boots=$2 want_rc=$3 i=1 rc=0
	shift 3
	rm -rf "$tmp/c" && mkdir "$tmp/c"
	for c in "$@"; do printf '%s\r\n' "$c" >"$tmp/c/$i"; i=$((i + 1)); done
	CONSOLES=$tmp/c PATH=$tmp/bin:$PATH "$repo/scripts/vm-boot-systemd" \
		--kernel k --initrd i --log "$tmp/log" --marker VM-X --timeout 20 \
		>"$tmp/out" 2>&1 || rc=$?
	local boots
	boots=$(cat "$tmp/c/boots")
	if [ "$boots" = "$want_boots" ] && [ "$rc" = "$want_rc" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL: $name: $boots boots, exit $rc (want $want_boots, $want_rc)"
		cat "$tmp/out"
		fail=$((fail + 1))
	fi
}
case_ "a clean boot is booted once" 1 0 "$good"
case_ "an early panic outside gpu_aes is booted again" 2 0 "$flake" "$good"
case_ "three early panics make three boots" 3 0 "$flake" "$flake" "$flake" "$good"
case_ "a panic with a gpu_aes frame is the result" 1 0 "$ours" "$good"
case_ "a panic after the test started is the result" 1 0 "$late" "$good"
case_ "qemu's status of the last boot is the exit status" 1 3 "exit3"
grep -q 'did not print "VM-X done"' "$tmp/out" && pass=$((pass + 1)) ||
	{ echo "FAIL: an unfinished guest's log tail is not printed"; fail=$((fail + 1)); }
if CONSOLES=$tmp/c PATH=$tmp/bin:$PATH "$repo/scripts/vm-boot-systemd" \
	--kernel k --log l --marker M >/dev/null 2>&1; then
	echo "FAIL: a missing --initrd is accepted"; fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
echo "vm-boot-systemd: $pass passed, $fail failed"
[ "$fail" = 0 ]
