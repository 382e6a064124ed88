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
#     long-lived disks), plain mode, 256-bit key, on a brd ramdisk with
#     ext4: 16 MiB in 4 files, unmounted, closed, caches dropped, reopened,
#     every sha256 matches; the essiv instance is built on cbc-aes-gpu and
#     its sectors went through the ring (ring_cbc_requests >= 2 x 16 MiB /
#     4096 with the helper; the fallback without).
#  4. IPsec: an ESP tunnel with authenc(hmac(sha256),cbc(aes)) between two
#     network namespaces (veth): 20 pings of 1000 bytes all answered, and
#     each of the 4 ESP packets per ping (out and back, encrypted and
#     decrypted) ran on the CPU at once: the xfrm stack's AEAD requests
#     carry no CRYPTO_TFM_REQ_MAY_BACKLOG, the documented rule
#     (fallback_no_backlog +80, ring_cbc_requests +0).
. "$(dirname "$0")/lib.sh"

d=$TMP/cbc
vol=gpuaes-cbc
mkdir -p "$d"
cleanup() {
	umount "$d/mnt" 2>/dev/null
	cryptsetup close "$vol" 2>/dev/null
	rmmod brd 2>/dev/null
	ip netns del cbc-a 2>/dev/null
	ip netns del cbc-b 2>/dev/null
	restore_deadline
	rm -rf "$d"
}
trap cleanup EXIT
patient_deadline
# Busybox's sh runs its own applet for a bare name that is one, whatever
# PATH says; its ip has no netns or xfrm, so the image's iproute2 by path.
ip() { /usr/sbin/ip "$@"; }
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

# ---- 3. dm-crypt aes-cbc-essiv:sha256 on ext4 ----
dm_cbc() {
	/sbin/modprobe brd rd_nr=1 rd_size=32768 || { fail "modprobe brd"; return 1; }
	randfile "$d/dmkey" 32
	cryptsetup open --type plain --cipher aes-cbc-essiv:sha256 --key-size 256 \
		--key-file "$d/dmkey" /dev/ram0 "$vol" ||
		{ fail "cryptsetup open --cipher aes-cbc-essiv:sha256"; return 1; }
	drv=$(dmsetup table --showkeys "$vol" | awk '{ print $4 }')
	note "dm-crypt cipher: $drv; essiv instance: $(best_driver 'essiv(cbc(aes),sha256)')"
	case $(best_driver 'essiv(cbc(aes),sha256)') in
	*cbc-aes-gpu*) pass "essiv(cbc(aes),sha256) is built on cbc-aes-gpu" ;;
	*) fail "essiv(cbc(aes),sha256) is $(best_driver 'essiv(cbc(aes),sha256)')" ;;
	esac
	mkfs.ext4 -q -F "/dev/mapper/$vol" || { fail "mkfs.ext4"; return 1; }
	mkdir -p "$d/mnt"
	mount -t ext4 "/dev/mapper/$vol" "$d/mnt" || { fail "mount"; return 1; }
	snap dm
	for i in 1 2 3 4; do
		randfile "$d/f$i" 4194304
		cp "$d/f$i" "$d/mnt/f$i"
	done
	umount "$d/mnt" && cryptsetup close "$vol" || { fail "umount/close"; return 1; }
	echo 3 >/proc/sys/vm/drop_caches
	cryptsetup open --type plain --cipher aes-cbc-essiv:sha256 --key-size 256 \
		--key-file "$d/dmkey" /dev/ram0 "$vol" || { fail "reopen"; return 1; }
	mount -t ext4 "/dev/mapper/$vol" "$d/mnt" || { fail "remount"; return 1; }
	ok=1
	for i in 1 2 3 4; do
		[ "$(sha256sum <"$d/f$i")" = "$(sha256sum <"$d/mnt/f$i")" ] ||
			{ ok=0; note "f$i differs after reopen"; }
	done
	umount "$d/mnt"
	cryptsetup close "$vol"
	[ $ok = 1 ] || { fail "aes-cbc-essiv:sha256: 16 MiB on ext4 read back"; return 1; }
	# 16 MiB written and read back, in sectors of at most 4096 bytes.
	if with_helper; then
		expect_min dm ring_cbc_requests 8192 "16 MiB both ways" ||
			{ fail "aes-cbc-essiv:sha256: the sectors on the ring"; return 1; }
		delta dm ring_cbc_requests
		pass "aes-cbc-essiv:sha256: 16 MiB on ext4 read back after reopen, sha256 match, ring_cbc_requests +$D"
	else
		expect_min dm fallback_no_helper 8192 "16 MiB both ways" ||
			{ fail "aes-cbc-essiv:sha256: the sectors on the CPU"; return 1; }
		pass "aes-cbc-essiv:sha256: 16 MiB on ext4 read back after reopen, sha256 match, all on the CPU"
	fi
	rmmod brd
}
dm_cbc

# ---- 4. IPsec ESP, authenc(hmac(sha256),cbc(aes)), two namespaces ----
ipsec() {
	# echainiv takes its salt from the default crypto RNG, drbg: built in
	# on Debian's 6.12, a module on 6.1, where its self-test of
	# hmac(sha512) needs sha512 loaded first or warns.
	for m in veth esp4 xfrm_user xfrm4_tunnel echainiv sha512_generic drbg; do /sbin/modprobe $m 2>/dev/null; done
	ip netns add cbc-a && ip netns add cbc-b || { fail "ip netns add"; return 1; }
	ip link add va netns cbc-a type veth peer name vb netns cbc-b ||
		{ fail "veth pair"; return 1; }
	ip -n cbc-a addr add 10.77.0.1/24 dev va
	ip -n cbc-b addr add 10.77.0.2/24 dev vb
	for ns in cbc-a cbc-b; do
		ip -n $ns link set lo up
	done
	ip -n cbc-a link set va up
	ip -n cbc-b link set vb up
	ke=0x$(head -c 16 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
	ka=0x$(head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
	for ns in cbc-a cbc-b; do
		ip -n $ns xfrm state add src 10.77.0.1 dst 10.77.0.2 proto esp \
			spi 0x1001 mode tunnel enc 'cbc(aes)' $ke \
			auth-trunc 'hmac(sha256)' $ka 128 || { fail "xfrm state ($ns)"; return 1; }
		ip -n $ns xfrm state add src 10.77.0.2 dst 10.77.0.1 proto esp \
			spi 0x1002 mode tunnel enc 'cbc(aes)' $ke \
			auth-trunc 'hmac(sha256)' $ka 128 || { fail "xfrm state ($ns)"; return 1; }
	done
	ip -n cbc-a xfrm policy add src 10.77.0.1 dst 10.77.0.2 dir out \
		tmpl src 10.77.0.1 dst 10.77.0.2 proto esp mode tunnel
	ip -n cbc-a xfrm policy add src 10.77.0.2 dst 10.77.0.1 dir in \
		tmpl src 10.77.0.2 dst 10.77.0.1 proto esp mode tunnel
	ip -n cbc-b xfrm policy add src 10.77.0.2 dst 10.77.0.1 dir out \
		tmpl src 10.77.0.2 dst 10.77.0.1 proto esp mode tunnel
	ip -n cbc-b xfrm policy add src 10.77.0.1 dst 10.77.0.2 dir in \
		tmpl src 10.77.0.1 dst 10.77.0.2 proto esp mode tunnel
	# The first packet resolves the neighbour; count from then on.
	ip netns exec cbc-a ping -c 1 -W 5 10.77.0.2 >/dev/null 2>&1
	snap ip
	ip netns exec cbc-a ping -c 20 -i 0.2 -s 1000 -W 5 10.77.0.2 >"$d/ping" 2>&1
	got=$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' "$d/ping")
	[ "$got" = 20 ] || { sed 's/^/    /' "$d/ping"; fail "IPsec ESP tunnel: $got of 20 pings answered"; return 1; }
	ad=$(best_driver 'authenc(hmac(sha256),cbc(aes))')
	note "the ESP AEAD: $ad"
	ok=1
	case $ad in *cbc-aes-gpu*) ;; *) ok=0; note "authenc is not built on cbc-aes-gpu" ;; esac
	expect_delta ip fallback_no_backlog 80 || ok=0
	expect_delta ip ring_cbc_requests 0 || ok=0
	[ $ok = 1 ] && pass "IPsec ESP tunnel, authenc(hmac(sha256),cbc(aes)) on cbc-aes-gpu: 20 pings answered, the 80 ESP requests on the CPU at once (no MAY_BACKLOG), none on the ring" ||
		fail "IPsec ESP tunnel: where its requests ran"
}
ipsec

no_splat && pass "no kernel warning"
finish
