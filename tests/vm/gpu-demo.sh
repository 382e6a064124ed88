#!/bin/sh
# gpu-demo.sh - what scripts/gpu-vm-demo runs in its guest besides the
# vectors, kTLS and host-ring suites: a LUKS2 volume (cryptsetup's
# defaults, aes-xts-plain64) written through the ring and again through
# the CPU driver, and the two ciphertexts on the disk compared byte for
# byte; then the volume's throughput with dispatch=ring and dispatch=cpu
# (dd, O_DIRECT: fio is not in the image) and gpu-aesctl status.  Under
# TCG the guest's CPU is emulated: the figures show the path works and
# what it costs here, not what a host gets.
. "$(dirname "$0")/lib.sh"

d=$TMP/gpu-demo
name=gpuaes-demo
mib=32
mkdir -p "$d"
old_dispatch=$(param dispatch)
cleanup() {
	echo "$old_dispatch" >"$PARAMS/dispatch"
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	restore_deadline
	rm -rf "$d"
}
trap cleanup EXIT
patient_deadline

luks_volume "$name" $((mib * 1024)) "$d" || { finish; exit; }
dev=/dev/mapper/$name
off=$(cryptsetup luksDump /dev/ram0 | sed -n 's/^[[:space:]]*offset: \([0-9]*\) \[bytes\]$/\1/p' | head -n 1)
ss=$(cryptsetup luksDump /dev/ram0 | sed -n 's/^[[:space:]]*sector: \([0-9]*\) \[bytes\]$/\1/p' | head -n 1)
[ -n "$off" ] && [ -n "$ss" ] || { fail "luksDump: no data segment offset"; finish; exit; }
randfile "$d/data" $((mib * 1024 * 1024))
want=$(sha256sum <"$d/data" | cut -d' ' -f1)

# ms: a clock in milliseconds (busybox date has no %N everywhere).
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# rate MIB MS: MiB/s.
rate() { echo "$1 $2" | awk '{ printf "%.1f", $2 ? $1 * 1000 / $2 : 0 }'; }

# pass_with DISPATCH: write the data through the volume, read it back
# (O_DIRECT, caches dropped), hash the ciphertext on the disk.  Sets
# ct (its sha256), back (the read's), w_ms and r_ms.
pass_with() {
	echo "$1" >"$PARAMS/dispatch"
	snap p
	t0=$(ms)
	dd if="$d/data" of="$dev" bs=1M oflag=direct conv=fsync 2>"$d/dd.err" ||
		{ cat "$d/dd.err"; return 1; }
	t1=$(ms)
	echo 3 >/proc/sys/vm/drop_caches
	back=$(dd if="$dev" bs=1M count=$mib iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	t2=$(ms)
	w_ms=$((t1 - t0))
	r_ms=$((t2 - t1))
	ct=$(dd if=/dev/ram0 bs=1M skip=$((off / 1048576)) count=$mib iflag=direct 2>/dev/null |
		sha256sum | cut -d' ' -f1)
}

sectors=$((2 * mib * 1024 * 1024 / ss))
pass_with ring || { fail "write/read with dispatch=ring"; finish; exit; }
ct_ring=$ct
delta p ring_xts_requests; xr=$D
delta p fallback_requests; xf=$D
[ "$back" = "$want" ] && [ "$xr" -ge "$sectors" ] && [ "$xf" = 0 ] &&
	pass "LUKS2 aes-xts-plain64 (sector $ss): $mib MiB written and read back through the ring, sha256 match (xts ring +$xr, fallback +$xf)" ||
	fail "LUKS2 through the ring: read back $back (want $want), xts ring +$xr (want >= $sectors), fallback +$xf"
wr=$(rate $mib $w_ms) rr=$(rate $mib $r_ms)
pass_with cpu || { fail "write/read with dispatch=cpu"; finish; exit; }
delta p ring_requests; cr=$D
[ "$back" = "$want" ] && [ "$cr" = 0 ] &&
	pass "the same $mib MiB through the CPU driver (dispatch=cpu): sha256 match, ring +0" ||
	fail "LUKS2 through the CPU: read back $back, ring +$cr"
[ "$ct" = "$ct_ring" ] &&
	pass "the ciphertext on the disk: the ring's = the CPU driver's, byte for byte (sha256 $ct)" ||
	fail "the ciphertext on the disk differs: ring $ct_ring, CPU $ct"
note "dd O_DIRECT 1 MiB blocks, $mib MiB, sector $ss (TCG: figures of this guest only):"
note "  dispatch=ring: write $wr MiB/s, read $rr MiB/s"
note "  dispatch=cpu:  write $(rate $mib $w_ms) MiB/s, read $(rate $mib $r_ms) MiB/s"
echo "$old_dispatch" >"$PARAMS/dispatch"

# The helper's status file is the host's, shared into the guest.
gpu-aesctl --status-file "$GPU_AES_HOST_STATUS" status >"$d/status" 2>&1 &&
	pass "gpu-aesctl status (the module here, the helper's file from the host)" ||
	fail "gpu-aesctl status exited with $?"
sed 's/^/  /' "$d/status"
finish
