#!/bin/sh
# cbc.sh - cbc(aes) (cbc-aes-gpu) and the consumers that use it:
#
#  1. AF_ALG against the kernel's cbc(aes-generic), byte for byte: by
#     driver name and by cra_name (ours by priority), 128/192/256-bit keys,
#     both directions, 16 B, 4 KiB and 16 KiB (af_alg_aio sends all 8
#     before it reads: they must fit the socket's buffer); each run is 8 requests read
#     one after the other on one socket whose IV is set once, so requests
#     2-8 start from the IV the one before left (the output IV: the last
#     ciphertext block).  With the helper every one is on the ring
#     (ring_cbc_requests +8, or fallback_small for the ones under
#     ring_min_bytes); without, on the CPU (fallback_no_helper +8, or
#     fallback_small: size is routing's first test).
#  2. kcapi-enc -c 'cbc(aes)' = `openssl enc -aes-N-cbc -nopad`, the CPU
#     reference: 3 key sizes, 5 sizes up to 1 MiB (kcapi-enc sends more
#     than 64 KiB as several requests, chained by the output IV), both
#     directions.
#  3. dm-crypt with aes-cbc-essiv:sha256 (LUKS1's default cipher, still on
#     long-lived disks), 256-bit key, as a plain mapping and as a LUKS1
#     volume, on a brd ramdisk with ext4: 16 MiB in 4 files, unmounted,
#     closed, caches dropped, reopened, every sha256 matches; the essiv
#     instance is built on cbc-aes-gpu and its sectors went through the
#     ring (ring_cbc_requests >= 2 x 16 MiB / 4096 with the helper; the
#     fallback without).
# IPsec ESP with authenc(hmac(sha256),cbc(aes)) is ipsec.sh's.
. "$(dirname "$0")/lib.sh"

d=$TMP/cbc
vol=gpuaes-cbc
mkdir -p "$d"
cleanup() {
	umount "$d/mnt" 2>/dev/null
	cryptsetup close "$vol" 2>/dev/null
	rmmod brd 2>/dev/null
	restore_deadline
	rm -rf "$d"
}
trap cleanup EXIT
patient_deadline
/sbin/modprobe algif_skcipher

min=$(param ring_min_bytes)

# ---- 1. AF_ALG against cbc(aes-generic), the IV chained ----
for name in cbc-aes-gpu 'cbc(aes)'; do
	for k in 16 24 32; do
		for len in 16 4096 16384; do
			for dir in enc dec; do
				what="AF_ALG $name aes-$((k * 8)) $dir 8 x $len"
				snap af
				if ! af_alg_aio --sync --seed $((k + len)) \
					$([ $dir = dec ] && echo --dec) --klen $k \
					skcipher "$name" 'cbc(aes-generic)' 8 $len \
					>"$d/aio" 2>&1; then
					sed 's/^/    /' "$d/aio"
					fail "$what: not as cbc(aes-generic)"
					continue
				fi
				ok=1
				# The size is the first thing routing looks at.
				if [ $len -lt "$min" ]; then
					expect_delta af fallback_small 8 || ok=0
				elif ! with_helper; then
					expect_delta af fallback_no_helper 8 || ok=0
				else
					expect_delta af ring_cbc_requests 8 || ok=0
					expect_delta af fallback_requests 0 || ok=0
				fi
				[ $ok = 1 ] || { fail "$what: counters"; continue; }
				echo "$what" >>"$d/af-ok"
			done
		done
	done
done
n=$(wc -l <"$d/af-ok" 2>/dev/null || echo 0)
[ "$n" = 36 ] && pass "AF_ALG cbc-aes-gpu and cbc(aes): 36 runs of 8 chained requests = cbc(aes-generic), output IVs included, counters exact"

# ---- 2. kcapi-enc against OpenSSL ----
bad=0
for k in 16 24 32; do
	randfile "$d/key" $k
	randfile "$d/iv" 16
	for len in 16 4080 4096 65536 1048576; do
		randfile "$d/pt" $len
		snap kc
		kcapi-enc -q -e -c 'cbc(aes)' --nounpad --keyfd 3 --iv "$(hex "$d/iv")" \
			-i "$d/pt" -o "$d/ct" 3<"$d/key" 2>"$d/err" || { bad=1; cat "$d/err"; }
		openssl enc -aes-$((k * 8))-cbc -nopad -K "$(hex "$d/key")" \
			-iv "$(hex "$d/iv")" -in "$d/pt" -out "$d/ref" || bad=1
		cmp -s "$d/ct" "$d/ref" || { bad=1; note "aes-$((k * 8)) $len: ciphertext differs from openssl"; }
		kcapi-enc -q -d -c 'cbc(aes)' --nounpad --keyfd 3 --iv "$(hex "$d/iv")" \
			-i "$d/ct" -o "$d/back" 3<"$d/key" 2>"$d/err" || { bad=1; cat "$d/err"; }
		cmp -s "$d/back" "$d/pt" || { bad=1; note "aes-$((k * 8)) $len: decryption differs"; }
		if [ $len -ge "$min" ]; then
			expect_path kc $((2 * len)) || bad=1
		fi
	done
done
[ $bad = 0 ] && pass "kcapi-enc cbc(aes) = openssl enc -aes-N-cbc -nopad: 3 key sizes x 5 sizes, both directions, counters on the expected path" ||
	fail "kcapi-enc cbc(aes) against openssl"

# ---- 3. dm-crypt aes-cbc-essiv:sha256 on ext4, plain and LUKS1 ----
# cbc_open MODE: /dev/ram0 opened as $vol, plain or LUKS1 (formatted
# first with FORMAT set; the PBKDF's cost is the only departure from
# cryptsetup's defaults, which take minutes under TCG).
cbc_open() {
	case $1 in
	plain)
		cryptsetup open --type plain --cipher aes-cbc-essiv:sha256 \
			--key-size 256 --key-file "$d/dmkey" /dev/ram0 "$vol" ;;
	luks1)
		if [ -n "${FORMAT:-}" ]; then
			cryptsetup luksFormat -q --type luks1 \
				--cipher aes-cbc-essiv:sha256 --key-size 256 \
				--pbkdf-force-iterations 1000 --key-file "$d/dmkey" \
				/dev/ram0 || return 1
		fi
		cryptsetup open --key-file "$d/dmkey" /dev/ram0 "$vol" ;;
	esac
}

dm_cbc() {
	/sbin/modprobe brd rd_nr=1 rd_size=32768 || { fail "modprobe brd"; return 1; }
	randfile "$d/dmkey" 32
	FORMAT=1 cbc_open "$1" ||
		{ fail "$1: cryptsetup (aes-cbc-essiv:sha256)"; rmmod brd; return 1; }
	drv=$(dmsetup table --showkeys "$vol" | awk '{ print $4 }')
	note "$1: dm-crypt cipher: $drv; essiv instance: $(best_driver 'essiv(cbc(aes),sha256)')"
	case $(best_driver 'essiv(cbc(aes),sha256)') in
	*cbc-aes-gpu*) pass "$1: essiv(cbc(aes),sha256) is built on cbc-aes-gpu" ;;
	*) fail "$1: essiv(cbc(aes),sha256) is $(best_driver 'essiv(cbc(aes),sha256)')" ;;
	esac
	mkfs.ext4 -q -F "/dev/mapper/$vol" || { fail "$1: mkfs.ext4"; return 1; }
	mkdir -p "$d/mnt"
	mount -t ext4 "/dev/mapper/$vol" "$d/mnt" || { fail "$1: mount"; return 1; }
	snap dm
	for i in 1 2 3 4; do
		randfile "$d/f$i" 4194304
		cp "$d/f$i" "$d/mnt/f$i"
	done
	umount "$d/mnt" && cryptsetup close "$vol" || { fail "$1: umount/close"; return 1; }
	echo 3 >/proc/sys/vm/drop_caches
	cbc_open "$1" || { fail "$1: reopen"; return 1; }
	mount -t ext4 "/dev/mapper/$vol" "$d/mnt" || { fail "$1: remount"; return 1; }
	ok=1
	for i in 1 2 3 4; do
		[ "$(sha256sum <"$d/f$i")" = "$(sha256sum <"$d/mnt/f$i")" ] ||
			{ ok=0; note "$1: f$i differs after reopen"; }
	done
	umount "$d/mnt"
	cryptsetup close "$vol"
	rmmod brd
	[ $ok = 1 ] || { fail "$1 aes-cbc-essiv:sha256: 16 MiB on ext4 read back"; return 1; }
	# 16 MiB written and read back, in sectors of at most 4096 bytes.
	if with_helper; then
		expect_min dm ring_cbc_requests 8192 "16 MiB both ways" ||
			{ fail "$1 aes-cbc-essiv:sha256: the sectors on the ring"; return 1; }
		delta dm ring_cbc_requests
		pass "$1 aes-cbc-essiv:sha256: 16 MiB on ext4 read back after reopen, sha256 match, ring_cbc_requests +$D"
	else
		expect_min dm fallback_no_helper 8192 "16 MiB both ways" ||
			{ fail "$1 aes-cbc-essiv:sha256: the sectors on the CPU"; return 1; }
		pass "$1 aes-cbc-essiv:sha256: 16 MiB on ext4 read back after reopen, sha256 match, all on the CPU"
	fi
}
dm_cbc plain
dm_cbc luks1

no_splat && pass "no kernel warning"
finish
