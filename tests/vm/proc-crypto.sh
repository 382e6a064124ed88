#!/bin/sh
# proc-crypto.sh - both drivers are registered, passed testmgr and win the
# lookup by name at the priority the module parameter says.  A driver that
# fails its self-test is silently replaced by aesni, so this is checked before
# anything else trusts a lookup by name.
. "$(dirname "$0")/lib.sh"

prio=$(param priority)

# check_driver DRIVER NAME BLOCKSIZE IVSIZE
check_driver() {
	ok=1
	want() {
		got=$(crypto_field "$1" "$2")
		[ "$got" = "$3" ] || { note "$1: $2 is '$got', expected '$3'"; ok=0; }
	}
	want "$1" name "$2"
	want "$1" module gpu_aes
	want "$1" selftest passed
	want "$1" priority "$prio"
	want "$1" type skcipher
	want "$1" async yes
	want "$1" internal no
	want "$1" blocksize "$3"
	want "$1" ivsize "$4"
	want "$1" "min keysize" 16
	want "$1" "max keysize" 32
	if [ $ok = 1 ]; then pass "$1 registered, selftest passed, priority $prio"
	else fail "$1 registration"; fi

	# Highest priority among other tested drivers for the same name.
	other=$(awk -v name="$2" -v drv="$1" '
		/^$/ { if (n == name && d != drv && st == "passed" && pr > m) m = pr
			n = d = st = ""; pr = -1 }
		$1 == "name" { n = $3 } $1 == "driver" { d = $3 }
		$1 == "priority" { pr = $3 + 0 } $1 == "selftest" { st = $3 }
		END { print m + 0 }' /proc/crypto)
	best=$(best_driver "$2")
	if [ "$prio" -gt "$other" ]; then
		[ "$best" = "$1" ] && pass "$2 resolves to $1 ($prio > $other)" ||
			fail "$2 resolves to '$best', not $1 ($prio > $other)"
	else
		[ "$best" != "$1" ] && pass "$2 resolves to $best ($prio <= $other)" ||
			fail "$2 resolves to $1 although $prio <= $other"
	fi
}

check_driver ecb-aes-gpu 'ecb(aes)' 16 0
check_driver ctr-aes-gpu 'ctr(aes)' 1 16

attaches=$(counter helper_attaches)
if with_helper; then want_attaches=1; else want_attaches=0; fi
[ "$attaches" = "$want_attaches" ] &&
	pass "helper_attaches is $attaches" ||
	fail "helper_attaches is $attaches, expected $want_attaches"
finish
