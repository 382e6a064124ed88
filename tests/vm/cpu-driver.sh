#!/bin/sh
# cpu-driver.sh - the CPU path is the driver the consumer would have had
# without gpu_aes (kmod/README.md, "The CPU driver").  For every algorithm
# the module registers (dispatch/cpu_drivers), after a request through our
# driver with dispatch=cpu (a new tfm of ours, so a new fallback):
#
#  1. cpu_drivers names the implementation a lookup of the algorithm
#     would find if gpu_aes were not there: the highest priority tested,
#     non-internal entry of /proc/crypto that is neither ours nor built
#     over ours;
#  2. where the CPU has AES instructions (x86 with aesni_intel loaded,
#     arm64 with aes_ce_blk), that is the architecture's own driver
#     (ecb-aes-*, cbc-aes-*, ctr-aes-*, xts-aes-*, xctr-aes-*, and
#     generic-gcm-* or gcm-aes-ce), never a template built over the
#     one-block cipher (xts(ecb(aes-aesni)),
#     gcm_base(ctr(aes-aesni),ghash-generic));
#  3. the request was served by that driver: the function tracer, limited
#     to the functions of the driver's module, saw them run, and on x86
#     the one-block cipher (aesni_encrypt/aesni_decrypt), which a template
#     over aes-aesni calls once per 16 bytes, ran at most a few times (an
#     XTS driver encrypts its tweak with it).
# The bytes are checked against the generic instance (af_alg_aio); xctr,
# which has none without the xctr template (Debian's kernels register
# xctr(aes) only through the architecture's driver), against that CPU
# driver by name.
. "$(dirname "$0")/lib.sh"

d=$TMP/cpu-driver
mkdir -p "$d"
old_dispatch=$(param dispatch)
cleanup() {
	[ -w "$TRACING/tracing_on" ] && echo 0 >"$TRACING/tracing_on"
	[ -w "$TRACING/current_tracer" ] && echo nop >"$TRACING/current_tracer"
	[ -w "$TRACING/set_ftrace_filter" ] && : >"$TRACING/set_ftrace_filter"
	echo "$old_dispatch" >"$PARAMS/dispatch"
	rm -rf "$d"
}
trap cleanup EXIT
/sbin/modprobe algif_skcipher
/sbin/modprobe algif_aead
echo cpu >"$PARAMS/dispatch"

# best_other NAME: what a lookup of NAME finds among the drivers that are
# neither gpu_aes's nor built over one of them (proc_crypto lists them in
# the order a lookup walks them; the first of the highest priority wins).
best_other() {
	proc_crypto | awk -v name="$1" '
		/^$/ { if (n == name && st == "passed" && in_ == "no" &&
			   m != "gpu_aes" && d !~ /-gpu/ && pr > bp) { bp = pr; bd = d }
			n = d = st = in_ = m = ""; pr = -1 }
		$1 == "name" { n = $3 }
		$1 == "driver" { d = $3 }
		$1 == "module" { m = $3 }
		$1 == "priority" { pr = $3 + 0 }
		$1 == "selftest" { st = $3 }
		$1 == "internal" { in_ = $3 }
		END { print bd }'
}

arch=$(uname -m)
fast=0
case $arch in
x86_64) lsmod | grep -q '^aesni_intel ' && fast=1 ;;
aarch64) lsmod | grep -q '^aes_ce_blk ' && fast=1 ;;
esac
tracer=0
if [ -w "$TRACING/set_ftrace_filter" ] && grep -qw function "$TRACING/available_tracers"; then
	tracer=1
else
	note "no function tracer: what served each request is not checked"
fi

# arch_driver ALG DRIVER: DRIVER is the architecture's own driver of ALG
# (x86: the AES-NI/AVX/VAES ones behind their SIMD wrappers; arm64: the
# Crypto Extensions ones), not a template.
arch_driver() {
	case $2 in *'('*) return 1 ;; esac
	case $1:$2 in
	ecb:ecb-aes-* | cbc:cbc-aes-* | ctr:ctr-aes-* | xts:xts-aes-* | \
	xctr:xctr-aes-* | gcm:generic-gcm-* | gcm:gcm-aes-ce) return 0 ;;
	esac
	return 1
}

# same_code DRIVER: DRIVER with a template's ecb(CIPHER) argument read as
# CIPHER.  6.12 builds cbc(aes) over the lskcipher ecb(CIPHER), so the
# instance a lookup of the name makes is cbc(ecb(aes-generic)), while the
# one af_alg_aio's reference makes by driver name is cbc(aes-generic): the
# same template over the same cipher, of the same priority, and a lookup
# may find either first.  xts's own argument is an skcipher ecb and stays.
same_code() {
	echo "$1" | sed -E 's/^(cbc|ctr|ecb)\(ecb\(([^()]*)\)\)$/\1(\2)/'
}

gcm_ref='gcm_base(ctr(aes-generic),ghash-generic)'
algs=$(awk '{ print $1 }' /sys/class/misc/gpu_aes/dispatch/cpu_drivers)
[ -n "$algs" ] || fail "dispatch/cpu_drivers lists no algorithm"
for a in $algs; do
	case $a in
	ecb) set -- --ivlen 0 skcipher ecb-aes-gpu 'ecb(aes-generic)' ;;
	cbc) set -- skcipher cbc-aes-gpu 'cbc(aes-generic)' ;;
	ctr) set -- skcipher ctr-aes-gpu 'ctr(aes-generic)' ;;
	xts) set -- --klen 64 skcipher xts-aes-gpu 'xts(ecb(aes-generic))' ;;
	gcm) set -- --ivlen 12 --aad 16 aead gcm-aes-gpu "$gcm_ref" ;;
	xctr) set -- skcipher xctr-aes-gpu "$(best_other 'xctr(aes)')" ;;
	*) fail "$a: no case in cpu-driver.sh"; continue ;;
	esac
	name="$a(aes)"
	if [ $tracer = 1 ]; then
		echo 0 >"$TRACING/tracing_on"
		echo nop >"$TRACING/current_tracer"
		: >"$TRACING/trace"
	fi
	# The first request makes the tfm (and its fallback), whose driver
	# the trace then watches serve the second.
	if ! af_alg_aio --sync --seed 5 "$@" 1 4096 >"$d/$a.first" 2>&1; then
		sed 's/^/    /' "$d/$a.first"
		fail "$a: a 4 KiB request on the CPU path against the generic instance"
		continue
	fi
	cpu=$(awk -v a="$a" '$1 == a { print $2 }' /sys/class/misc/gpu_aes/dispatch/cpu_drivers)
	want=$(best_other "$name")
	if [ "$(same_code "$cpu")" = "$(same_code "$want")" ]; then
		pass "$a: the CPU driver is $cpu, what $name resolves to without gpu_aes"
	else
		fail "$a: the CPU driver is '$cpu', a lookup of $name without gpu_aes finds '$want'"
	fi
	if [ $fast = 1 ]; then
		arch_driver "$a" "$cpu" && pass "$a: $cpu is the $arch AES driver" ||
			fail "$a: the CPU driver $cpu is not the $arch AES driver"
	fi
	[ $tracer = 1 ] || continue
	mod=$(crypto_field "$cpu" module)
	case $mod in
	'' | kernel) note "$a: $cpu is built in: not traced"; continue ;;
	esac
	echo ":mod:$mod" >"$TRACING/set_ftrace_filter" 2>/dev/null ||
		{ note "$a: cannot trace the functions of $mod"; continue; }
	echo function >"$TRACING/current_tracer"
	echo 1 >"$TRACING/tracing_on"
	af_alg_aio --sync --seed 6 "$@" 1 4096 >"$d/$a.traced" 2>&1
	rc=$?
	echo 0 >"$TRACING/tracing_on"
	grep -v '^#' "$TRACING/trace" | awk '{ print $5 }' | sort | uniq -c >"$d/$a.funcs"
	# The tracer off before the filter: an empty filter traces every
	# function, and patching them all under TCG crashes the guest.
	echo nop >"$TRACING/current_tracer"
	: >"$TRACING/set_ftrace_filter"
	[ $rc = 0 ] || { sed 's/^/    /' "$d/$a.traced"; fail "$a: the traced request"; continue; }
	if [ ! -s "$d/$a.funcs" ]; then
		fail "$a: no function of $mod ($cpu) ran for the request"
	elif [ "$(awk '$2 ~ /^aesni_(en|de)crypt$/ { n += $1 } END { print n + 0 }' \
		  "$d/$a.funcs")" -gt 16 ]; then
		# Once for a tweak is the driver's own doing; a template over
		# the cipher calls it for each of the 256 blocks.
		fail "$a: the one-block cipher ran per block: $(tr -s ' \n' ' ' <"$d/$a.funcs")"
	else
		pass "$a: served by $cpu ($mod: $(awk '{ printf "%s%s", s, $2; s = ", " }' "$d/$a.funcs"))"
	fi
done
finish
