#!/bin/sh
# aead.sh - xts-aes-gpu and gcm-aes-gpu through AF_ALG, byte-exact against
# the kernel's generic implementations instantiated by name
# (xts(ecb(aes-generic)), gcm_base(ctr(aes-generic),ghash-generic)), which
# never touch gpu_aes:
#   - kcapi-enc (libkcapi 1.4.0) with xts(aes) (64- and 32-byte keys) and
#     gcm(aes) (16/24/32-byte keys, AAD, every tag length it takes), the
#     reference through kcapi-enc too, a wrong tag refused;
#   - tests/vm/xts_gcm.c for what kcapi-enc cannot send: XTS lengths that
#     are not block multiples (ciphertext stealing), GCM with empty text or
#     AAD, tampered tags, ciphertexts and AAD (EBADMSG, nothing released
#     from the ring), bad key and tag sizes.
# The counters must move by exactly the number of requests: kcapi-enc sends
# one request per operation for inputs up to 64 KiB (measured: see
# kcapi.sh), xts_gcm says how many it sent on each side of ring_min_bytes.
. "$(dirname "$0")/lib.sh"

min=$(param ring_min_bytes)
d=$TMP/aead
mkdir -p "$d"
trap 'restore_deadline; rm -rf "$d"' EXIT
patient_deadline
if with_helper; then ring=1; else ring=0; fi
xts_ref='xts(ecb(aes-generic))'
gcm_ref='gcm_base(ctr(aes-generic),ghash-generic)'

# exact_path SNAP ALG RING SMALL BADMSG: RING requests of ALG (xts, gcm) at
# or above ring_min_bytes and SMALL below it since SNAP, BADMSG of the first
# kind tampered.  With the helper the first go to the ring, the second to
# the fallback; without it all go to the fallback.  auth_failures counts the
# tags the ring (or a replay of a ring request) refused; a request that
# never reached the ring is decided by the fallback tfm, uncounted.
exact_path() {
	_ok=0
	if with_helper; then
		expect_delta "$1" "ring_$2_requests" "$3" || _ok=1
		expect_delta "$1" ring_requests "$3" || _ok=1
		expect_delta "$1" fallback_requests "$4" || _ok=1
		expect_delta "$1" fallback_small "$4" || _ok=1
		expect_delta "$1" auth_failures "$5" || _ok=1
	else
		expect_delta "$1" fallback_requests $(($3 + $4)) || _ok=1
		expect_delta "$1" ring_requests 0 || _ok=1
		expect_delta "$1" "ring_$2_requests" 0 || _ok=1
		expect_delta "$1" auth_failures 0 || _ok=1
	fi
	return $_ok
}

# c_prog ALG: xts_gcm ALG, then its request counts against the counters.
c_prog() {
	snap c
	run_c xts_gcm "$1" "$min" "$ring"
	st=$(sed -n 's/^stat //p' "$TMP/run_c.out")
	r=$(echo "$st" | sed -n 's/^ring=\([0-9]*\).*/\1/p')
	s=$(echo "$st" | sed -n 's/.*small=\([0-9]*\).*/\1/p')
	b=$(echo "$st" | sed -n 's/.*badmsg_ring=\([0-9]*\).*/\1/p')
	if [ -z "$r" ] || [ -z "$s" ]; then
		fail "xts_gcm $1: no request counts"
		return
	fi
	exact_path c "$1" "$r" "$s" "${b:-0}" &&
		pass "xts_gcm $1: counters exact ($r requests >= $min B, $s below, $b tampered on the ring)" ||
		fail "xts_gcm $1: counters"
}

# XTS with kcapi-enc: block-multiple sizes (kcapi-enc pads the others).
kcapi_xts() {
	klen=$1
	randfile "$d/key" "$klen"
	ok=1
	n_ops=0
	snap x
	for n in 512 4096 65536; do
		iv=$(head -c 16 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
		randfile "$d/pt" "$n"
		rm -f "$d/ct" "$d/ref" "$d/back"
		kcapi-enc -q -e -c 'xts(aes)' --iv "$iv" --keyfd 3 3<"$d/key" \
			-i "$d/pt" -o "$d/ct" &&
			kcapi-enc -q -e -c "$xts_ref" --iv "$iv" --keyfd 3 3<"$d/key" \
				-i "$d/pt" -o "$d/ref" &&
			kcapi-enc -q -d -c 'xts(aes)' --iv "$iv" --nounpad --keyfd 3 3<"$d/key" \
				-i "$d/ct" -o "$d/back" ||
			{ note "$n B: kcapi-enc failed"; ok=0; continue; }
		n_ops=$((n_ops + 2))
		cmp -s "$d/ct" "$d/ref" || { note "$n B: ciphertext differs from $xts_ref"; ok=0; }
		cmp -s "$d/back" "$d/pt" || { note "$n B: decryption differs"; ok=0; }
	done
	exact_path x xts "$n_ops" 0 0 || ok=0
	[ $ok = 1 ] &&
		pass "kcapi-enc xts(aes) $klen-byte key: 512/4096/65536 B = $xts_ref, $n_ops requests counted exactly" ||
		fail "kcapi-enc xts(aes) $klen-byte key"
}

# GCM with kcapi-enc: output is AAD, ciphertext, tag (libkcapi 1.4.0 on
# kernels >= 4.9); decryption takes the ciphertext and --tag.
kcapi_gcm() {
	klen=$1
	randfile "$d/key" "$klen"
	n=4096
	aadlen=13
	ok=1
	n_ops=0
	n_bad=0
	snap g
	for tl in 4 8 12 13 14 15 16; do
		iv=$(head -c 12 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
		aad=$(head -c $aadlen /dev/urandom | od -An -v -tx1 | tr -d ' \n')
		randfile "$d/pt" "$n"
		rm -f "$d/ct" "$d/ref" "$d/back" "$d/body"
		kcapi-enc -q -e -c 'gcm(aes)' --iv "$iv" --aad "$aad" --taglen "$tl" \
			--keyfd 3 3<"$d/key" -i "$d/pt" -o "$d/ct" &&
			kcapi-enc -q -e -c "$gcm_ref" --iv "$iv" --aad "$aad" --taglen "$tl" \
				--keyfd 3 3<"$d/key" -i "$d/pt" -o "$d/ref" ||
			{ note "tag $tl: kcapi-enc -e failed"; ok=0; continue; }
		n_ops=$((n_ops + 1))
		cmp -s "$d/ct" "$d/ref" || { note "tag $tl: output differs from $gcm_ref"; ok=0; continue; }
		[ "$(wc -c <"$d/ct")" = $((aadlen + n + tl)) ] ||
			{ note "tag $tl: output is $(wc -c <"$d/ct") bytes, want AAD+text+tag $((aadlen + n + tl))"; ok=0; continue; }
		tag=$(tail -c "$tl" "$d/ct" | od -An -v -tx1 | tr -d ' \n')
		dd if="$d/ct" of="$d/body" iflag=skip_bytes,count_bytes skip=$aadlen \
			count=$n 2>/dev/null
		kcapi-enc -q -d -c 'gcm(aes)' --iv "$iv" --aad "$aad" --tag "$tag" \
			--keyfd 3 3<"$d/key" -i "$d/body" -o "$d/back" ||
			{ note "tag $tl: kcapi-enc -d failed"; ok=0; continue; }
		n_ops=$((n_ops + 1))
		tail -c "$n" "$d/back" | cmp -s - "$d/pt" ||
			{ note "tag $tl: decryption differs"; ok=0; }
		# A tag with its first byte flipped must be refused.
		first=$(printf '%02x' $(( 0x${tag%"${tag#??}"} ^ 1 )))
		rm -f "$d/back"
		if kcapi-enc -q -d -c 'gcm(aes)' --iv "$iv" --aad "$aad" \
			--tag "$first${tag#??}" --keyfd 3 3<"$d/key" -i "$d/body" \
			-o "$d/back" 2>/dev/null; then
			note "tag $tl: a wrong tag was accepted"
			ok=0
		fi
		n_ops=$((n_ops + 1))
		n_bad=$((n_bad + 1))
	done
	exact_path g gcm "$n_ops" 0 "$n_bad" || ok=0
	[ $ok = 1 ] &&
		pass "kcapi-enc gcm(aes) $klen-byte key: tags 4/8/12..16, 13 B AAD, $n B = $gcm_ref, wrong tag refused, $n_ops requests counted exactly" ||
		fail "kcapi-enc gcm(aes) $klen-byte key"
}

for c in 'xts(aes)' 'gcm(aes)'; do
	best=$(best_driver "$c")
	want=${c%%(*}-aes-gpu
	[ "$best" = "$want" ] && pass "$c resolves to $want" ||
		fail "$c resolves to '$best', not $want"
done
kcapi_xts 64
kcapi_xts 32
for k in 16 24 32; do
	kcapi_gcm $k
done
c_prog xts
c_prog gcm
finish
