#!/bin/sh
# slow-aes.sh - dispatch=auto on a kernel whose CPU AES is its slowest, the
# host kind where the ring pays: the guest is booted with the AES-NI and
# CLMUL drivers blacklisted (scripts/vm-test --mode slow-aes:
# modprobe.blacklist=aesni_intel,ghash_clmulni_intel), so gpu_aes's
# fallbacks, the CPU drivers it displaces, are built on aes-generic.
#
#  1. The fallbacks are the generic ones (dispatch/cpu_drivers), not AES-NI.
#  2. LUKS2 (luks.sh) and nginx kTLS (nginx-ktls.sh) pass under auto: every
#     request on the ring or given to the CPU by the policy, bytes right.
#  3. What auto chose follows its measured costs, on a guest of one CPU
#     (vm-test boots this mode with one): after a warm-up, 4 MiB
#     of O_DIRECT writes and reads through an xts(aes) dm-crypt mapping
#     (4096-byte sectors, many requests in flight: the cost rule decides)
#     are counted by reason, and the majority of the cost decisions is the
#     path that dispatch/estimates says is cheaper by more than the policy's
#     1/8 of hysteresis for 4 KiB xts requests (within it, either), both
#     before and after the window; a window whose estimates moved is
#     repeated, up to 5.  Under TCG the two paths cost whatever emulation
#     makes them cost, so no path is asserted: that the choice follows the
#     figures is.
# Only with the helper, under dispatch=auto, on such a guest.
. "$(dirname "$0")/lib.sh"

with_helper || { note "no helper: nothing to route"; exit 0; }
dispatch_auto || { note "dispatch is $(param dispatch), not auto"; exit 0; }
case " $(cat /proc/cmdline) " in
*modprobe.blacklist=*aesni_intel*) ;;
*) note "AES-NI is not blacklisted (vm-test --mode slow-aes does it)"; exit 0 ;;
esac

d=$TMP/slow-aes
name=gpuaes-slow
mkdir -p "$d"
cleanup() {
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT

# 1. No AES-NI anywhere; our fallbacks are what is left.
lsmod | grep -q '^aesni_intel ' && fail "aesni_intel is loaded despite the blacklist"
/sbin/modprobe algif_skcipher
af_alg_aio --sync --klen 64 skcipher 'xts(aes)' 'xts(ecb(aes-generic))' 1 4096 \
	>"$d/probe" 2>&1 || { sed 's/^/    /' "$d/probe"; fail "an xts(aes) tfm"; }
xts_cpu=$(awk '$1 == "xts" { print $2 }' /sys/class/misc/gpu_aes/dispatch/cpu_drivers)
note "the CPU drivers gpu_aes falls back to: $(tr '\n' ';' </sys/class/misc/gpu_aes/dispatch/cpu_drivers)"
case $xts_cpu in
*aesni* | *vaes* | -) fail "xts(aes) falls back to '$xts_cpu'" ;;
*) pass "xts(aes) falls back to $xts_cpu, not AES-NI" ;;
esac

# 2. The consumers, under auto.
for t in luks nginx-ktls; do
	sh "$(dirname "$0")/$t.sh" >"$d/$t.out" 2>&1
	rc=$?
	sed -n 's/^PASS /PASS slow AES, auto: /p; s/^FAIL /FAIL slow AES, auto: /p; /^  /p' "$d/$t.out"
	if grep -q '^FAIL ' "$d/$t.out"; then
		nfail=$((nfail + 1))
	elif [ $rc != 0 ]; then
		fail "slow AES, auto: $t.sh exited with status $rc"
	fi
done
gcm_cpu=$(awk '$1 == "gcm" { print $2 }' /sys/class/misc/gpu_aes/dispatch/cpu_drivers)
case $gcm_cpu in
*aesni* | *clmul* | -) fail "gcm(aes) falls back to '$gcm_cpu'" ;;
*) pass "gcm(aes) falls back to $gcm_cpu, not AES-NI or CLMUL" ;;
esac

# 3. Decisions against estimates, on one algorithm and size class.  Each
# CPU decides on its own estimates and dispatch/estimates shows their mean,
# so only with one CPU is what it shows what decided.
ncpu=$(grep -c '^processor' /proc/cpuinfo)
[ "$ncpu" = 1 ] || {
	note "$ncpu CPUs: dispatch/estimates is their mean, not what each decided on; the decisions are checked with one (vm-test --mode slow-aes)"
	finish
	exit
}
/sbin/modprobe brd rd_nr=1 rd_size=8192 || { fail "modprobe brd"; finish; exit; }
randfile "$d/key" 64
cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 512 \
	--sector-size 4096 --key-file "$d/key" /dev/ram0 "$name" ||
	{ fail "cryptsetup open (xts, 4096-byte sectors)"; finish; exit; }
randfile "$d/data" $((4 << 20))
want_sum=$(sha256sum <"$d/data" | cut -d' ' -f1)
# The path the estimates say is cheaper for 4 KiB xts encryption (the
# window's writes; each direction has its row): by more than the policy's
# 1/8 of hysteresis; within it, either.
xts_4k_row() {
	awk '$1 == "xts" && $2 == 4096 && $NF == "enc"' \
		/sys/class/misc/gpu_aes/dispatch/estimates
}
cheaper_by() {
	echo "$1" | awk '$3 == "-" || $4 == "-" { print "unknown"; exit }
		$4 * 9 < $3 * 8 { print "ring"; exit } $3 * 9 < $4 * 8 { print "cpu"; exit }
		{ print "either" }'
}
# Warm-up: both paths measured (exploration sends some each way), and the
# helper's own figure, which rests on a MiB of its work (cost_window.h).
dd if="$d/data" of=/dev/mapper/$name bs=1M oflag=direct 2>/dev/null
# A window counts where the estimates say the same before and after it:
# under TCG a figure can move as the emulation's speed does, and the
# decisions of a window over which it moved follow neither end.
window=1 bad=
while :; do
	before=$(cheaper_by "$(xts_4k_row)")
	snap x
	dd if="$d/data" of=/dev/mapper/$name bs=1M oflag=direct 2>/dev/null ||
		fail "dm-crypt write"
	delta x policy_ring_cost; ring=$D
	delta x fallback_policy_cost; cpu=$D
	delta x policy_ring_explore; rx=$D
	delta x fallback_policy_explore; cx=$D
	row=$(xts_4k_row)
	echo 3 >/proc/sys/vm/drop_caches
	got=$(dd if=/dev/mapper/$name bs=1M count=4 iflag=direct 2>/dev/null |
		sha256sum | cut -d' ' -f1)
	[ "$got" = "$want_sum" ] || bad="$bad $window"
	want=$(cheaper_by "$row")
	note "window $window: xts 4 KiB encryption estimates (alg bytes cpu_ns_per_kib ring_ns_per_kib ring_lone_us auto auto_lone dir): $row"
	note "window $window: the writes' decisions by cost: ring $ring, cpu $cpu; explorations: ring $rx, cpu $cx; cheaper before it: $before, after: $want"
	[ "$before" = "$want" ] && break
	window=$((window + 1))
	[ $window -le 5 ] && continue
	fail "auto's estimates for 4 KiB xts moved over each of 5 windows of 8 MiB"
	finish
	exit
done
[ -z "$bad" ] &&
	pass "4 MiB through xts(aes) dm-crypt under auto read back intact, $window time(s)" ||
	fail "xts dm-crypt under auto read back other bytes in window(s)$bad"
case $want in
ring) [ "$ring" -gt "$cpu" ] ;;
cpu) [ "$cpu" -gt "$ring" ] ;;
either) [ $((ring + cpu)) -gt 0 ] ;;
*) false ;;
esac &&
	pass "auto's decisions follow its estimates: $want is cheaper for 4 KiB xts by them, and took most of the cost decisions (ring $ring, cpu $cpu)" ||
	fail "auto's decisions (ring $ring, cpu $cpu) do not follow its estimates ($want)"
finish
