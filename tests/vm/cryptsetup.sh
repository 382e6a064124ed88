#!/bin/sh
# cryptsetup.sh - dm-crypt (cryptsetup --type plain, aes-ctr-plain64) on a
# brd ramdisk: 8 MiB written with O_DIRECT, caches dropped, read back; the
# data round-trips, the sectors on the ramdisk are the ciphertext OpenSSL
# computes, and the counters show one request per 512-byte sector (measured:
# dm-crypt issues exactly one skcipher request per sector, with
# CRYPTO_TFM_REQ_MAY_BACKLOG, so none of them may take the fallback while the
# helper runs).
. "$(dirname "$0")/lib.sh"

d=$TMP/dmcrypt
mkdir -p "$d"
name=gpuaes-test
mib=8
sectors=$((mib * 2048))
min=$(param ring_min_bytes)

cleanup() {
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
	restore_deadline
}
trap cleanup EXIT
patient_deadline

# iv_plain64 SECTOR: dm-crypt's plain64 IV, the sector as little-endian u64.
iv_plain64() {
	printf '%016x' "$1" | sed 's/../& /g' |
		awk '{ for (i = NF; i >= 1; i--) printf "%s", $i; print "0000000000000000" }'
}

ctr_volume "$name" $((mib * 2 * 1024)) "$d" || { finish; exit; }
randfile "$d/data" $((mib * 1024 * 1024))
dev=/dev/mapper/$name
[ -b "$dev" ] || { fail "$dev missing"; finish; exit; }
pass "cryptsetup open --type plain --cipher aes-ctr-plain64 on brd"

# sector_path SNAP DIR: every sector of the transfer took the expected path.
sector_path() {
	_ok=0
	if [ 512 -lt "$min" ] || ! with_helper; then
		expect_delta "$1" fallback_requests "$sectors" || _ok=1
		expect_delta "$1" fallback_bytes $((sectors * 512)) || _ok=1
		expect_delta "$1" ring_requests 0 || _ok=1
	else
		expect_delta "$1" ring_requests "$sectors" || _ok=1
		expect_delta "$1" ring_bytes $((sectors * 512)) || _ok=1
		expect_delta "$1" fallback_requests 0 || _ok=1
	fi
	delta "$1" backlogged
	note "$2: backlogged moved by $D"
	return $_ok
}

snap w
if dd if="$d/data" of="$dev" bs=1M count=$mib oflag=direct 2>"$d/dd.err"; then
	sector_path w write && pass "write $mib MiB O_DIRECT: $sectors sector requests" ||
		fail "write $mib MiB: counters"
else
	cat "$d/dd.err"
	fail "write $mib MiB O_DIRECT"
fi

echo 3 >/proc/sys/vm/drop_caches
snap r
if dd if="$dev" bs=1M count=$mib iflag=direct 2>"$d/dd.err" >"$d/back"; then
	sector_path r read && pass "read $mib MiB O_DIRECT: $sectors sector requests" ||
		fail "read $mib MiB: counters"
else
	cat "$d/dd.err"
	fail "read $mib MiB O_DIRECT"
fi
want=$(sha256sum <"$d/data" | cut -d' ' -f1)
got=$(sha256sum <"$d/back" | cut -d' ' -f1)
[ "$want" = "$got" ] && pass "read back sha256 = written ($want)" ||
	fail "read back sha256 $got, wrote $want"

# The ramdisk holds AES-256-CTR with plain64 IVs, sector by sector.
ok=1
for s in 0 1 255 4097 $((sectors - 1)); do
	dd if=/dev/ram0 bs=512 skip="$s" count=1 2>/dev/null >"$d/raw"
	dd if="$d/data" bs=512 skip="$s" count=1 2>/dev/null |
		openssl enc -aes-256-ctr -K "$(hex "$d/key")" -iv "$(iv_plain64 "$s")" \
			>"$d/ref"
	cmp -s "$d/raw" "$d/ref" || { note "sector $s differs from openssl"; ok=0; }
done
[ $ok = 1 ] && pass "ciphertext on the ramdisk = openssl aes-256-ctr, plain64 IVs" ||
	fail "ciphertext on the ramdisk"

# Close, reopen, read again: the data is on the disk, not in a cache.
cryptsetup close "$name" &&
	cryptsetup open --type plain --cipher aes-ctr-plain64 --key-size 256 \
		--key-file "$d/key" /dev/ram0 "$name" &&
	got=$(dd if="$dev" bs=1M count=$mib iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
[ "$want" = "${got:-}" ] && pass "reopened volume reads back the same sha256" ||
	fail "reopened volume: sha256 ${got:-none}, expected $want"
finish
