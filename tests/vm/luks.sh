#!/bin/sh
# luks.sh - LUKS2 with cryptsetup's defaults (type luks2, aes-xts-plain64,
# 512-bit key) on a brd ramdisk, once with every default (cryptsetup 2.6
# picks 4096-byte sectors on brd) and once with the other sector size
# (--sector-size 512 or 4096), so both are covered: mkfs.ext4, 32 MiB of random files copied in, unmounted, volume
# closed, caches dropped, reopened, remounted; every file's sha256 must
# match, and the sectors must have gone through xts-aes-gpu (with the
# helper on the ring, without it on the fallback, never the other way).
#
# The only option that departs from the defaults is the PBKDF cost
# (--pbkdf pbkdf2 --pbkdf-force-iterations 1000): the default argon2id
# benchmark asks for 1 GiB and seconds of CPU, which under TCG means
# minutes; the PBKDF protects the passphrase, not the data path under test.
#
# Counter bounds: dm-crypt sends one skcipher request per sector, so
# writing the files and reading them back after the reopen takes at least
# 2 * 32 MiB / sector-size xts requests (ext4's metadata and the keyslot
# reads through AF_ALG add more).  Every one of them is at least 512 bytes,
# above ring_min_bytes, and dm-crypt sets CRYPTO_TFM_REQ_MAY_BACKLOG, so
# with the helper none may take the fallback.  Under dispatch=auto (run so
# by dispatch.sh) each may also go to the CPU by the policy, and only so.
. "$(dirname "$0")/lib.sh"

d=$TMP/luks
name=gpuaes-luks
mnt=$d/mnt
mib=32
files=8
mkdir -p "$d/src" "$mnt"
cleanup() {
	umount "$mnt" 2>/dev/null
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
	restore_deadline
}
trap cleanup EXIT
patient_deadline

/sbin/modprobe ext4 || { fail "modprobe ext4"; finish; exit; }
# 16 MiB of LUKS2 header + 32 MiB of files + ext4's metadata.
/sbin/modprobe brd rd_nr=1 rd_size=$((80 * 1024)) || { fail "modprobe brd"; finish; exit; }
randfile "$d/pass" 32
i=0
while [ $i -lt $files ]; do
	randfile "$d/src/f$i" $((mib * 1024 * 1024 / files))
	i=$((i + 1))
done
(cd "$d/src" && sha256sum f*) >"$d/sums"

# xts_path SNAP MIN WHAT
xts_path() {
	_ok=0
	if dispatch_auto; then
		expect_routed "$1" ring_xts_requests "$2" "$3" || _ok=1
	elif with_helper; then
		expect_min "$1" ring_xts_requests "$2" "$3" || _ok=1
		expect_delta "$1" fallback_requests 0 || _ok=1
	else
		expect_min "$1" fallback_requests "$2" "$3" || _ok=1
		expect_delta "$1" ring_requests 0 || _ok=1
		expect_delta "$1" ring_xts_requests 0 || _ok=1
	fi
	return $_ok
}

# volume [SECTOR]: one format / fill / reopen / verify round, with
# --sector-size SECTOR or (none given) cryptsetup's choice, left in $ss.
volume() {
	dd if=/dev/zero of=/dev/ram0 bs=1M count=1 2>/dev/null
	snap l
	if ! cryptsetup luksFormat -q --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		${1:+--sector-size "$1"} --key-file "$d/pass" /dev/ram0 >"$d/out" 2>&1; then
		cat "$d/out"
		fail "luksFormat (defaults, sector ${1:-default})"
		return
	fi
	cryptsetup luksDump /dev/ram0 >"$d/dump" 2>&1
	ss=$(sed -n 's/^[[:space:]]*sector: \([0-9]*\) \[bytes\]$/\1/p' "$d/dump")
	case $ss in 512|4096) ;; *) sed 's/^/  /' "$d/dump"; fail "luksDump: sector size '$ss'"; return ;; esac
	ok=1
	grep -q '^Version:[[:space:]]*2$' "$d/dump" || { note "not LUKS2"; ok=0; }
	grep -q '^[[:space:]]*cipher: aes-xts-plain64$' "$d/dump" ||
		{ note "data segment cipher is not aes-xts-plain64"; ok=0; }
	[ -z "$1" ] || [ "$ss" = "$1" ] ||
		{ note "data segment sector is $ss, asked for $1"; ok=0; }
	grep -q '^[[:space:]]*Key:[[:space:]]*512 bits$' "$d/dump" ||
		{ note "volume key is not 512 bits"; ok=0; }
	[ $ok = 1 ] && pass "luksFormat defaults (sector $ss${1:+ by --sector-size}): LUKS2, aes-xts-plain64, 512-bit key" ||
		{ sed 's/^/  /' "$d/dump"; fail "luksDump (sector $ss)"; }

	dev=/dev/mapper/$name
	cryptsetup open --key-file "$d/pass" /dev/ram0 "$name" >"$d/out" 2>&1 &&
		mkfs.ext4 -q -F "$dev" >"$d/out" 2>&1 &&
		mount -t ext4 "$dev" "$mnt" 2>"$d/out" ||
		{ cat "$d/out"; fail "open, mkfs.ext4, mount (sector $ss)"; return; }
	table=$(dmsetup table "$name" | awk '{ print $3, $4 }')
	[ "$table" = "crypt aes-xts-plain64" ] ||
		{ note "dm table: $table"; fail "dm-crypt table is not aes-xts-plain64 (sector $ss)"; }
	cp "$d"/src/f* "$mnt"/ && sync || { fail "copy $mib MiB (sector $ss)"; return; }
	umount "$mnt" && cryptsetup close "$name" || { fail "umount, close (sector $ss)"; return; }
	echo 3 >/proc/sys/vm/drop_caches
	cryptsetup open --key-file "$d/pass" /dev/ram0 "$name" >"$d/out" 2>&1 &&
		mount -t ext4 -o ro "$dev" "$mnt" 2>"$d/out" ||
		{ cat "$d/out"; fail "reopen, remount (sector $ss)"; return; }
	(cd "$mnt" && sha256sum -c "$d/sums") >"$d/check" 2>&1 &&
		pass "$mib MiB in $files files on ext4 read back after reopen: sha256 match (sector $ss)" ||
		{ sed 's/^/  /' "$d/check"; fail "sha256 after reopen (sector $ss)"; }
	umount "$mnt"
	cryptsetup close "$name"
	xts_path l $((2 * mib * 1024 * 1024 / ss)) "sector $ss" && {
		delta l ring_xts_requests; r=$D
		delta l fallback_requests; f=$D
		pass "sector $ss: every sector on xts-aes-gpu (xts ring +$r, fallback +$f)"
	} || fail "sector $ss: counters"
}

best=$(best_driver 'xts(aes)')
[ "$best" = xts-aes-gpu ] && pass "xts(aes) resolves to xts-aes-gpu for dm-crypt" ||
	fail "xts(aes) resolves to '$best', not xts-aes-gpu"
volume
case $ss in
512) volume 4096 ;;
*) volume 512 ;;
esac
no_splat && pass "no kernel warning" || fail "kernel warnings (above)"
finish
