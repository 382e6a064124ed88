#!/bin/sh
# proc-crypto.sh - our drivers are registered, passed testmgr and win
# the lookup by name at the priority the module parameter says (xts and gcm
# one above it); xts-aes-gpu and gcm-aes-gpu must outrank every other
# xts(aes)/gcm(aes) driver (the guest's aesni ones, and any template over
# our ecb or ctr, included), since LUKS2 and kTLS look up by name.  A
# driver that fails its self-test is silently replaced by aesni, so this is
# checked before anything else trusts a lookup by name.
. "$(dirname "$0")/lib.sh"

prio=$(param priority)
# xts and gcm one above ecb and ctr, so no template over those ties them.
cprio=$((prio + 1))

want() {
	got=$(crypto_field "$1" "$2")
	[ "$got" = "$3" ] || { note "$1: $2 is '$got', expected '$3'"; ok=0; }
}

# other_prio DRIVER NAME: the highest priority among the other drivers of
# NAME (any self-test state, so a competitor that failed it still counts).
other_prio() {
	proc_crypto | awk -v name="$2" -v drv="$1" '
		function flush() { if (n == name && d != drv && pr > m) { m = pr; md = d }
			n = d = ""; pr = -1 }
		/^$/ { flush() }
		$1 == "name" { n = $3 } $1 == "driver" { d = $3 }
		$1 == "priority" { pr = $3 + 0 }
		END { flush(); print m + 0, (md == "" ? "none" : md) }'
}

# check_driver DRIVER NAME PRIORITY BLOCKSIZE IVSIZE [MINKEY MAXKEY]
check_driver() {
	ok=1
	want "$1" name "$2"
	want "$1" module gpu_aes
	want "$1" selftest passed
	want "$1" priority "$3"
	want "$1" type skcipher
	want "$1" async yes
	want "$1" internal no
	want "$1" blocksize "$4"
	want "$1" ivsize "$5"
	want "$1" "min keysize" "${6:-16}"
	want "$1" "max keysize" "${7:-32}"
	if [ $ok = 1 ]; then pass "$1 registered, selftest passed, priority $3"
	else fail "$1 registration"; fi
}

# resolves DRIVER NAME: the lookup of NAME goes where the priorities say.
resolves() {
	# Highest priority among other tested drivers for the same name.
	other=$(proc_crypto | awk -v name="$2" -v drv="$1" '
		/^$/ { if (n == name && d != drv && st == "passed" && pr > m) m = pr
			n = d = st = ""; pr = -1 }
		$1 == "name" { n = $3 } $1 == "driver" { d = $3 }
		$1 == "priority" { pr = $3 + 0 } $1 == "selftest" { st = $3 }
		END { print m + 0 }')
	best=$(best_driver "$2")
	if [ "$prio" -gt "$other" ]; then
		[ "$best" = "$1" ] && pass "$2 resolves to $1 ($prio > $other)" ||
			fail "$2 resolves to '$best', not $1 ($prio > $other)"
	else
		[ "$best" != "$1" ] && pass "$2 resolves to $best ($prio <= $other)" ||
			fail "$2 resolves to $1 although $prio <= $other"
	fi
}

# strictly_first DRIVER NAME: DRIVER outranks every other driver of NAME,
# whatever the priority parameter: LUKS2 (xts) and kTLS (gcm) only reach
# us if the lookup does.
strictly_first() {
	# other_prio prints two words, meant to become $3 and $4.
	# shellcheck disable=SC2046
	set -- "$1" "$2" $(other_prio "$1" "$2")
	best=$(best_driver "$2")
	[ "$cprio" -gt "$3" ] && [ "$best" = "$1" ] &&
		pass "$2 resolves to $1: priority $cprio > $3 ($4, the best other driver)" ||
		fail "$2 resolves to '$best'; $1 priority $cprio, best other $3 ($4)"
}

check_driver ecb-aes-gpu 'ecb(aes)' "$prio" 16 0
resolves ecb-aes-gpu 'ecb(aes)'
check_driver ctr-aes-gpu 'ctr(aes)' "$prio" 1 16
resolves ctr-aes-gpu 'ctr(aes)'
check_driver cbc-aes-gpu 'cbc(aes)' "$prio" 16 16
resolves cbc-aes-gpu 'cbc(aes)'
# xctr-aes-gpu only where the kernel has an xctr(aes) to fall back on
# (abi-algs.sh: elsewhere it is left out of everything).
if grep -q '^xctr ' /sys/class/misc/gpu_aes/dispatch/cpu_drivers; then
	check_driver xctr-aes-gpu 'xctr(aes)' "$prio" 1 16
	resolves xctr-aes-gpu 'xctr(aes)'
else
	note "xctr-aes-gpu: not registered, the kernel has no xctr(aes)"
fi
check_driver xts-aes-gpu 'xts(aes)' "$cprio" 16 16 32 64
strictly_first xts-aes-gpu 'xts(aes)'

# gcm-aes-gpu is an AEAD: /proc/crypto shows no key sizes for it.
ok=1
for f in "name gcm(aes)" "module gpu_aes" "selftest passed" "priority $cprio" \
	"type aead" "async yes" "internal no" "blocksize 1" "ivsize 12" \
	"maxauthsize 16"; do
	want gcm-aes-gpu "${f% *}" "${f##* }"
done
[ $ok = 1 ] && pass "gcm-aes-gpu registered (aead), selftest passed, priority $cprio" ||
	fail "gcm-aes-gpu registration"
strictly_first gcm-aes-gpu 'gcm(aes)'

# The guest has AES-NI (-cpu max), or on arm64 the Crypto Extensions
# (xts-aes-ce, gcm-aes-ce), so the wins above were against those.
case $(uname -m) in
aarch64) cpu_drv='*-aes-ce' cpu_name=aes-ce ;;
*) cpu_drv='*aesni*' cpu_name=aesni ;;
esac
for c in 'xts(aes)' 'gcm(aes)'; do
	# shellcheck disable=SC2046 # two words: priority, driver
	set -- $(other_prio "${c%%(*}-aes-gpu" "$c")
	# shellcheck disable=SC2254 # cpu_drv is a pattern
	case $2 in
	$cpu_drv) pass "$c: the competitor outranked is $2 (priority $1)" ;;
	*) fail "$c: no $cpu_name driver registered (best other: $2)" ;;
	esac
done

attaches=$(counter helper_attaches)
if with_helper; then want_attaches=1; else want_attaches=0; fi
[ "$attaches" = "$want_attaches" ] &&
	pass "helper_attaches is $attaches" ||
	fail "helper_attaches is $attaches, expected $want_attaches"
finish
