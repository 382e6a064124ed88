#!/bin/sh
# vectors.sh - published known-answer vectors through kcapi-enc (AF_ALG)
# for every algorithm gpu_aes registers, byte for byte, encryption and
# decryption: SP 800-38A F.1 (ECB), F.2 (CBC) and F.5 (CTR) with AES-128,
# -192 and -256; IEEE 1619-2007 XTS vectors 1, 2, 3 (32 bytes) and 4
# (512 bytes); the GCM specification's test cases 4, 10 and 16 (AES-128,
# -192, -256, a 60-byte text with 20 bytes of AAD: kcapi-enc 1.4.0 does
# not send a GCM request without AAD).  tests/unit checks the helper's
# backends with most of them.
#
# Every request is counted: kcapi-enc sends one per operation at these
# sizes, and they are under the default ring_min_bytes, so the suite
# lowers it to 16 for its run: with a helper each request must then be on
# the ring (ring_<alg>_requests, exactly), without one on the fallback.
. "$(dirname "$0")/lib.sh"

d=$TMP/vectors
mkdir -p "$d"
old_min=$(param ring_min_bytes)
cleanup() {
	echo "$old_min" >"$PARAMS/ring_min_bytes"
	restore_deadline
	rm -rf "$d"
}
trap cleanup EXIT
patient_deadline
echo 16 >"$PARAMS/ring_min_bytes" || { fail "cannot set ring_min_bytes"; finish; exit; }

# unhex HEX FILE
unhex() { echo "$1" | xxd -r -p >"$2"; }

# kat NAME CIPHER KEY IV IN OUT [AAD TAG]: encrypt IN (hex) with kcapi-enc
# and compare with OUT; decrypt OUT back to IN.  For gcm(aes) kcapi-enc
# writes AAD, ciphertext and tag, and takes the tag to decrypt.
kat() {
	name=$1 cipher=$2 key=$3 iv=$4 in=$5 out=$6 aad=${7:-} tag=${8:-}
	unhex "$key" "$d/key"
	unhex "$in" "$d/pt"
	set -- --iv "$iv"
	[ -z "$aad$tag" ] || set -- "$@" --taglen $((${#tag} / 2))
	[ -z "$aad" ] || set -- "$@" --aad "$aad"
	rm -f "$d/ct" "$d/back"
	kcapi-enc -q -e -c "$cipher" "$@" --keyfd 3 3<"$d/key" -i "$d/pt" \
		-o "$d/ct" || { note "$name: kcapi-enc -e failed"; return 1; }
	got=$(hex "$d/ct")
	want=$aad$out$tag
	[ "$got" = "$want" ] ||
		{ note "$name: encryption gave $got"; note "$name: the vector says $want"; return 1; }
	if [ -n "$tag" ]; then
		unhex "$out" "$d/ct"
		set -- --iv "$iv" --tag "$tag"
		[ -z "$aad" ] || set -- "$@" --aad "$aad"
	else
		set -- "$@" --nounpad
	fi
	kcapi-enc -q -d -c "$cipher" "$@" --keyfd 3 3<"$d/key" -i "$d/ct" \
		-o "$d/back" || { note "$name: kcapi-enc -d failed"; return 1; }
	got=$(hex "$d/back")
	# kcapi-enc passes the AAD through on decryption too.
	[ "$got" = "$aad$in" ] ||
		{ note "$name: decryption gave $got, want $aad$in"; return 1; }
}

# run ALG NAME CIPHER ...: kat, then the requests' path, exactly 2.
run() {
	alg=$1
	shift
	snap v
	ok=0
	kat "$@" || ok=1
	if with_helper; then
		expect_delta v "ring_${alg}_requests" 2 || ok=1
		expect_delta v fallback_requests 0 || ok=1
	else
		expect_delta v fallback_requests 2 || ok=1
		expect_delta v ring_requests 0 || ok=1
	fi
	[ $ok = 0 ] && pass "$1 ($2): encryption and decryption = the vector, 2 requests on the $(with_helper && echo ring || echo fallback)" ||
		fail "$1 ($2)"
}

# SP 800-38A, Appendix F: one plaintext for every mode and key size.
p=6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51
p=${p}30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710
k128=2b7e151628aed2a6abf7158809cf4f3c
k192=8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b
k256=603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4
zero=00000000000000000000000000000000
cbc_iv=000102030405060708090a0b0c0d0e0f
ctr_iv=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff

run ecb "SP 800-38A F.1.1 ECB-AES128" 'ecb(aes)' $k128 $zero $p \
	3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4
run ecb "SP 800-38A F.1.3 ECB-AES192" 'ecb(aes)' $k192 $zero $p \
	bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eefef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e
run ecb "SP 800-38A F.1.5 ECB-AES256" 'ecb(aes)' $k256 $zero $p \
	f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7
run cbc "SP 800-38A F.2.1 CBC-AES128" 'cbc(aes)' $k128 $cbc_iv $p \
	7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7
run cbc "SP 800-38A F.2.3 CBC-AES192" 'cbc(aes)' $k192 $cbc_iv $p \
	4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd
run cbc "SP 800-38A F.2.5 CBC-AES256" 'cbc(aes)' $k256 $cbc_iv $p \
	f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b
run ctr "SP 800-38A F.5.1 CTR-AES128" 'ctr(aes)' $k128 $ctr_iv $p \
	874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee
run ctr "SP 800-38A F.5.3 CTR-AES192" 'ctr(aes)' $k192 $ctr_iv $p \
	1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e941e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050
run ctr "SP 800-38A F.5.5 CTR-AES256" 'ctr(aes)' $k256 $ctr_iv $p \
	601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6

# IEEE 1619-2007 Annex B: key = Key1 || Key2, IV = the data unit's
# number, little-endian (plain64).  Vector 1's halves are equal, which
# the kernel accepts outside FIPS mode.  Vector 4's text: bytes 0..255
# twice.  kcapi-enc reads at most 32 bytes from --keyfd, so XTS-AES-256
# (64-byte keys) cannot be given to it: LUKS2's default (luks.sh) and
# tests/vm/xts_gcm.c run those.
run xts "IEEE 1619 XTS-AES-128 vector 1" 'xts(aes)' $zero$zero $zero \
	$zero$zero 917cf69ebd68b2ec9b9fe9a3eadda692cd43d2f59598ed858c02c2652fbf922e
run xts "IEEE 1619 XTS-AES-128 vector 2" 'xts(aes)' \
	1111111111111111111111111111111122222222222222222222222222222222 \
	33333333330000000000000000000000 \
	4444444444444444444444444444444444444444444444444444444444444444 \
	c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0
run xts "IEEE 1619 XTS-AES-128 vector 3" 'xts(aes)' \
	fffefdfcfbfaf9f8f7f6f5f4f3f2f1f022222222222222222222222222222222 \
	33333333330000000000000000000000 \
	4444444444444444444444444444444444444444444444444444444444444444 \
	af85336b597afc1a900b2eb21ec949d292df4c047e0b21532186a5971a227a89
x4=$(printf %02x $(seq 0 255) $(seq 0 255))
x4ct=27a7479befa1d476489f308cd4cfa6e2a96e4bbe3208ff25287dd3819616e89cc78cf7f5e543445f8333d8fa7f56000005279fa5d8b5e4ad40e736ddb4d35412
x4ct=${x4ct}328063fd2aab53e5ea1e0a9f332500a5df9487d07a5c92cc512c8866c7e860ce93fdf166a24912b422976146ae20ce846bb7dc9ba94a767aaef20c0d61ad0265
x4ct=${x4ct}5ea92dc4c4e41a8952c651d33174be51a10c421110e6d81588ede82103a252d8a750e8768defffed9122810aaeb99f9172af82b604dc4b8e51bcb08235a6f434
x4ct=${x4ct}1332e4ca60482a4ba1a03b3e65008fc5da76b70bf1690db4eae29c5f1badd03c5ccf2a55d705ddcd86d449511ceb7ec30bf12b1fa35b913f9f747a8afd1b130e
x4ct=${x4ct}94bff94effd01a91735ca1726acd0b197c4e5b03393697e126826fb6bbde8ecc1e08298516e2c9ed03ff3c1b7860f6de76d4cecd94c8119855ef5297ca67e9f3
x4ct=${x4ct}e7ff72b1e99785ca0a7e7720c5b36dc6d72cac9574c8cbbc2f801e23e56fd344b07f22154beba0f08ce8891e643ed995c94d9a69c9f1b5f499027a78572aeebd
x4ct=${x4ct}74d20cc39881c213ee770b1010e4bea718846977ae119f7a023ab58cca0ad752afe656bb3c17256a9f6e9bf19fdd5a38fc82bbe872c5539edb609ef4f79c203e
x4ct=${x4ct}bb140f2e583cb2ad15b4aa5b655016a8449277dbd477ef2c8d6c017db738b18deb4a427d1923ce3ff262735779a418f20a282df920147beabe421ee5319d0568
run xts "IEEE 1619 XTS-AES-128 vector 4 (512 bytes)" 'xts(aes)' \
	2718281828459045235360287471352631415926535897932384626433832795 \
	$zero $x4 $x4ct

# The GCM specification (McGrew, Viega), test cases 4, 10 and 16: 96-bit
# IV, 16-byte tags.
gk=feffe9928665731c6d6a8f9467308308
giv=cafebabefacedbaddecaf888
gp60=d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
ga=feedfacedeadbeeffeedfacedeadbeefabaddad2
run gcm "GCM test case 4 (AES-128, AAD)" 'gcm(aes)' $gk $giv $gp60 \
	42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091 \
	$ga 5bc94fbc3221a5db94fae95ae7121a47
run gcm "GCM test case 10 (AES-192, AAD)" 'gcm(aes)' $gk${gk%????????????????} $giv $gp60 \
	3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710 \
	$ga 2519498e80f1478f37ba55bd6d27618c
run gcm "GCM test case 16 (AES-256, AAD)" 'gcm(aes)' $gk$gk $giv $gp60 \
	522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662 \
	$ga 76fc6ece0f4e1768cddf8853bb2d551b
finish
