#!/bin/sh
# run.sh - run guest tests (in the guest, through scripts/vm-run):
#
#   scripts/vm-run [--no-helper] -- sh tests/vm/run.sh [-x 'TEST...'] [TEST...]
#
# TEST names a tests/vm/TEST.sh; default: all of them, health last; -x
# leaves out the TESTs it names.  Each prints PASS/FAIL lines; a test
# that exits non-zero without a FAIL line gets one.  Ends with "SUMMARY
# <passed> <failed>" and exits 1 on any failure.
dir=$(cd "$(dirname "$0")" && pwd)
skip=
if [ "${1:-}" = -x ]; then
	skip=" $2 "
	shift 2
fi
tests=${*:-proc-crypto cpu-driver af-alg kcapi vectors aead cbc ipsec templates cryptsetup luks nginx-ktls tcrypt aesctl helper-restart bad-input stall crash-load crash-load-luks access key-hygiene coredump hostile keyslots starve withhold dispatch slow-aes abi-algs host-ring lifecycle health}
out=${TMPDIR:-/tmp}/vm-test.out
passed=0
failed=0

[ -d /sys/module/gpu_aes ] || { echo "FAIL gpu_aes is not loaded"; echo "SUMMARY 0 1"; exit 1; }

# testmgr may still be running the drivers' self-tests after modprobe
# returns (slowly, under TCG); their requests would land in the counters
# of whichever test runs first.  A failed one is proc-crypto's to report.
. "$dir/lib.sh"
selftests_settled || echo "  self-tests still running after 60 s"

for t in $tests; do
	case $skip in *" $t "*) continue ;; esac
	start=$(date +%s)
	sh "$dir/$t.sh" >"$out" 2>&1
	rc=$?
	cat "$out"
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL $t: exited with status $rc"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	echo "  ($t: $(( $(date +%s) - start )) s)"
done
echo "SUMMARY $passed $failed"
[ "$failed" = 0 ]
