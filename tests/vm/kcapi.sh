#!/bin/sh
# kcapi.sh - kcapi-enc (libkcapi, AF_ALG) encrypts and decrypts with ecb(aes)
# and ctr(aes), by generic name and by our driver name, with every key size;
# the bytes must equal `openssl enc` and the driver's counters must show
# which path each request took.
#
# What the counters must say (measured with kprobes on libkcapi 1.4.0):
# with -i/-o files, kcapi-enc sends one AF_ALG request per operation up to
# 65537 bytes, and larger inputs in several requests of at least 32 KiB, so
#   - size < ring_min_bytes: fallback, exactly one request per operation;
#   - ring_min_bytes <= size <= 65537: with the helper exactly one ring
#     request per operation, without it exactly one fallback request;
#   - larger: every byte on the ring (helper) or the fallback (no helper),
#     nothing on the other path.
. "$(dirname "$0")/lib.sh"

trap restore_deadline EXIT
patient_deadline
min=$(param ring_min_bytes)
ctr_sizes="1 15 16 17 255 256 257 1000 4095 4096 4097 65535 65536 65537 1000000 1048576"
ecb_sizes="16 32 240 256 4096 65536 1048576"
# By driver name: the lookup differs, the data path does not; fewer sizes.
ctr_name_sizes="1 17 4097 65537 1000000"
ecb_name_sizes="16 4096 1048576"
# kcapi-enc 1.4.0 (Debian 12) splices 16 pages at a time: with 64K pages
# that is 1 MiB, more than the socket's default send buffer (wmem_default,
# 208 KiB), and it blocks for good before a single request is made, on any
# driver (ctr-aes-ce without gpu_aes too).  There the sizes stop at one
# request; the ring's large requests are dm-crypt's and kTLS's there.
page_kib=$(awk '/^KernelPageSize:/ {print $2; exit}' /proc/self/smaps)
if [ "${page_kib:-4}" -gt 4 ]; then
	note "${page_kib} KiB pages: kcapi-enc sizes up to 65537 bytes only"
	ctr_sizes="1 15 16 17 255 256 257 1000 4095 4096 4097 65535 65536 65537"
	ecb_sizes="16 32 240 256 4096 65536"
	ctr_name_sizes="1 17 4097 65537"
	ecb_name_sizes="16 4096 65536"
fi
# Low 64 bits about to wrap: inputs over 4 KiB carry into the high half.
carry_iv=0123456789abcdefffffffffffffff00
d=$TMP/kcapi
mkdir -p "$d"

# check_counters SNAP SIZE: after one encryption and one decryption.
check_counters() {
	_ok=0
	if [ "$2" -lt "$min" ]; then
		expect_delta "$1" fallback_requests 2 || _ok=1
		expect_delta "$1" fallback_bytes $(($2 * 2)) || _ok=1
		expect_delta "$1" ring_requests 0 || _ok=1
	elif [ "$2" -le 65537 ]; then
		if with_helper; then
			expect_delta "$1" ring_requests 2 || _ok=1
			expect_delta "$1" ring_bytes $(($2 * 2)) || _ok=1
			expect_delta "$1" fallback_requests 0 || _ok=1
		else
			expect_delta "$1" fallback_requests 2 || _ok=1
			expect_delta "$1" fallback_bytes $(($2 * 2)) || _ok=1
			expect_delta "$1" ring_requests 0 || _ok=1
		fi
	else
		expect_path "$1" $(($2 * 2)) || _ok=1
	fi
	return $_ok
}

# differ GOT WANT: where two files part and how long each is, so a
# truncated output reads differently from a wrong one.
differ() {
	echo "$(cmp "$1" "$2" 2>&1 | head -n 1); $(wc -c <"$1") vs $(wc -c <"$2") bytes"
}

# run_case MODE CIPHER BITS SIZE IV: one size, encrypt + decrypt.
run_case() {
	mode=$1 cipher=$2 bits=$3 n=$4 iv=$5
	randfile "$d/pt" "$n"
	# kcapi-enc 1.4.0 (Debian 12) reads far past a 1-byte input whose byte
	# is 0x00 and dies with SIGSEGV (its padding warning counts down from
	# st_size - 2 in a uint32_t; fixed upstream in libkcapi e8396c2, in no
	# release yet): 1 run in 256 of each 1-byte case failed for no fault
	# of ours.  Any other byte exercises the same driver path.
	while [ "$n" = 1 ] && [ "$(hex "$d/pt")" = 00 ]; do
		randfile "$d/pt" 1
	done
	if [ "$mode" = ctr ]; then
		openssl enc -aes-"$bits"-ctr -K "$K" -iv "$iv" -in "$d/pt" \
			-out "$d/ref" || { note "openssl failed"; return 1; }
		set -- --iv "$iv"
	else
		openssl enc -aes-"$bits"-ecb -nopad -K "$K" -in "$d/pt" \
			-out "$d/ref" || { note "openssl failed"; return 1; }
		set -- --nounpad
	fi
	rm -f "$d/ct" "$d/back"
	snap k
	# --nounpad only matters when decrypting; kcapi-enc ignores it otherwise.
	kcapi-enc -q -e -c "$cipher" "$@" --keyfd 3 3<"$d/key" \
		-i "$d/pt" -o "$d/ct" ||
		{ note "$n B: kcapi-enc -e failed ($?)"; return 1; }
	kcapi-enc -q -d -c "$cipher" "$@" --keyfd 3 3<"$d/key" \
		-i "$d/ct" -o "$d/back" ||
		{ note "$n B: kcapi-enc -d failed ($?)"; return 1; }
	cmp -s "$d/ct" "$d/ref" ||
		{ note "$n B: ciphertext differs from openssl: $(differ "$d/ct" "$d/ref")"; return 1; }
	cmp -s "$d/back" "$d/pt" ||
		{ note "$n B: decryption differs from the plaintext: $(differ "$d/back" "$d/pt")"; return 1; }
	check_counters k "$n" || { note "$n B: counters wrong (above)"; return 1; }
}

for bits in 128 192 256; do
	randfile "$d/key" $((bits / 8))
	K=$(hex "$d/key")
	for cipher in 'ctr(aes)' ctr-aes-gpu 'ecb(aes)' ecb-aes-gpu; do
		case $cipher in
		'ctr(aes)') mode=ctr sizes=$ctr_sizes ;;
		ctr-aes-gpu) mode=ctr sizes=$ctr_name_sizes ;;
		'ecb(aes)') mode=ecb sizes=$ecb_sizes ;;
		ecb-aes-gpu) mode=ecb sizes=$ecb_name_sizes ;;
		esac
		ok=1
		for n in $sizes; do
			if [ "$cipher" = ctr-aes-gpu ]; then
				iv=$carry_iv
			else
				iv=$(head -c 16 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
			fi
			run_case "$mode" "$cipher" "$bits" "$n" "$iv" || ok=0
		done
		count=$(echo $sizes | wc -w)
		if [ $ok = 1 ]; then
			pass "kcapi-enc $cipher aes-$bits: $count sizes = openssl, counters exact"
		else
			fail "kcapi-enc $cipher aes-$bits"
		fi
	done
done
rm -rf "$d"
finish
