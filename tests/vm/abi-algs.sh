#!/bin/sh
# abi-algs.sh - the algorithms module and helper agree on
# (GPU_AES_FEAT_ALGS, docs/design.md "Which algorithms a helper gets").
# For each algorithm the module registers (dispatch/cpu_drivers), 4 AF_ALG
# requests of 4 KiB by driver name, MAY_BACKLOG, against the generic
# instance, byte for byte.
#
# With the work tree's helper: it logs that it serves every one of them,
# and every one runs on the ring (ring_<alg>_requests +4, none counted
# fallback_unsupported).
#
# With a helper of the previous release (scripts/vm-test --mode old-helper:
# scripts/helper-at builds it, vm-run --helper-bin runs it), which predates
# the feature: the module takes it to serve ABI version 3's algorithms
# (GPU_AES_ALGS_V3), so ecb, ctr, xts and gcm run on the ring as above and
# any other runs on the CPU at once (fallback_unsupported +4,
# ring_<alg>_requests +0), the bytes still right.
#
# An algorithm with no case here fails: a new one must say how to test it.
#
# A mode registers only where the kernel has its CPU driver.  xctr(aes) is
# one only with the xctr template (CONFIG_CRYPTO_XCTR, which HCTR2
# selects: Debian's 6.1 and 6.12 have neither) or an architecture's own
# driver (x86 AES-NI with AVX: xctr-aes-aesni; arm64: xctr-aes-ce).  With
# none, the module must leave it out of everything: no xctr-aes-gpu in
# /proc/crypto, no line in dispatch/cpu_drivers, no ring_xctr_requests,
# and INFO does not offer it (the helper does not serve it).  Where it is
# there, its reference is that CPU driver, as no xctr(aes-generic) exists
# without the template.
. "$(dirname "$0")/lib.sh"

with_helper || { note "no helper: nothing is negotiated"; exit 0; }
old=${GPU_AES_VM_HELPER_GIVEN:-0}

d=$TMP/abi-algs
mkdir -p "$d"
trap 'rm -rf "$d"' EXIT
/sbin/modprobe algif_skcipher
/sbin/modprobe algif_aead

hv=$("$GPU_AES_HELPER_BIN" --version 2>&1 | head -n 1)
algs=$(awk '{ print $1 }' /sys/class/misc/gpu_aes/dispatch/cpu_drivers)
[ -n "$algs" ] || fail "dispatch/cpu_drivers lists no algorithm"
served=$(sed -n 's/.*algorithms served: \([a-z0-9 ]*\).*/\1/p' "$GPU_AES_HELPER_LOG" | tail -n 1)
if [ "$old" = 1 ]; then
	[ -z "$served" ] && pass "$hv attached without negotiating algorithms" ||
		fail "$hv logged 'algorithms served: $served': not an older helper"
else
	want=$(echo $algs | tr ' ' '\n' | sort | tr '\n' ' ')
	got=$(echo $served | tr ' ' '\n' | sort | tr '\n' ' ')
	[ "$got" = "$want" ] && pass "$hv serves every algorithm of the module: $served" ||
		fail "$hv serves '$served', the module has '$algs'"
fi

# The kernel's own xctr(aes) drivers, gpu_aes's aside.
kernel_xctr=$(proc_crypto | awk '/^name/ { n = $3 } /^driver/ {
	if (n == "xctr(aes)" && $3 != "xctr-aes-gpu") print $3 }' | tr '\n' ' ')
# $algs is a word a line: no " xctr " in it to match.
if echo "$algs" | grep -qx xctr; then
	[ -n "$kernel_xctr" ] &&
		pass "xctr: registered, the kernel has xctr(aes): $kernel_xctr" ||
		fail "xctr: registered, but the kernel has no xctr(aes) of its own"
else
	ok=1
	[ -z "$kernel_xctr" ] ||
		{ note "the kernel has xctr(aes): $kernel_xctr"; ok=0; }
	! grep -q '^driver *: xctr-aes-gpu$' /proc/crypto ||
		{ note "xctr-aes-gpu is in /proc/crypto"; ok=0; }
	[ ! -e "$STATS/ring_xctr_requests" ] ||
		{ note "stats/ring_xctr_requests exists"; ok=0; }
	! echo "$served" | tr ' ' '\n' | grep -qx xctr ||
		{ note "the helper serves xctr: INFO offered it"; ok=0; }
	[ $ok = 1 ] &&
		pass "xctr: the kernel has no xctr(aes), and the module leaves it out (/proc/crypto, cpu_drivers, stats, INFO)" ||
		fail "xctr: absent from dispatch/cpu_drivers, but not everywhere or not rightly"
fi

gcm_ref='gcm_base(ctr(aes-generic),ghash-generic)'
for a in $algs; do
	case $a in
	ecb) set -- --ivlen 0 skcipher ecb-aes-gpu 'ecb(aes-generic)' ;;
	ctr) set -- skcipher ctr-aes-gpu 'ctr(aes-generic)' ;;
	xts) set -- --klen 64 skcipher xts-aes-gpu 'xts(ecb(aes-generic))' ;;
	gcm) set -- --ivlen 12 --aad 16 aead gcm-aes-gpu "$gcm_ref" ;;
	cbc) set -- skcipher cbc-aes-gpu 'cbc(aes-generic)' ;;
	xctr) set -- skcipher xctr-aes-gpu "${kernel_xctr%% *}" ;;
	*) fail "$a: no case in abi-algs.sh"; continue ;;
	esac
	case $old:$a in
	0:* | 1:ecb | 1:ctr | 1:xts | 1:gcm) ring=4 unsupported=0 where="on the ring" ;;
	*) ring=0 unsupported=4 where="on the CPU (fallback_unsupported)" ;;
	esac
	snap a
	if ! af_alg_aio --sync --seed 3 "$@" 4 4096 >"$d/$a" 2>&1; then
		sed 's/^/    /' "$d/$a"
		fail "$a: 4 requests of 4 KiB against the generic instance"
		continue
	fi
	ok=1
	expect_delta a "ring_${a}_requests" $ring || ok=0
	expect_delta a fallback_unsupported $unsupported || ok=0
	[ $ok = 1 ] && pass "$a: 4 requests of 4 KiB $where, bytes as the generic instance's" ||
		fail "$a: 4 requests of 4 KiB $where"
done
pidof gpu-aes-helper >/dev/null && pass "$hv is still attached" ||
	fail "$hv exited: $(tail -n 3 "$GPU_AES_HELPER_LOG")"
finish
