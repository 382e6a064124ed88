#!/bin/sh
# dispatch.sh - the dispatch module parameter (kmod/dispatch.c):
#  1. it ships as "auto" (read from a load that ignores the harness's
#     /etc/modprobe.d options, which pin "ring" for the suites that count
#     ring requests); it takes auto, ring and cpu and refuses anything else
#     with EINVAL, leaving the mode as it was;
#  2. "cpu" sends every request to the CPU driver (fallback_policy_forced),
#     "ring" every one of them to the ring when a helper is attached
#     (policy_ring_forced): exact counts for N AF_ALG requests, each
#     checked against the generic driver;
#  3. "auto": every request is accounted for once, either a ring choice
#     (policy_ring_*) or a CPU one (fallback_policy_*, whose reasons add up
#     to fallback_policy), and the bytes are right (AF_ALG ctr/xts);
#  4. with the helper, the LUKS2 and kTLS suites (luks.sh, nginx-ktls.sh)
#     pass under "auto".
# Without the helper, every policy counter stays at 0 in every mode: the
# choice is only made when there is a ring to choose.
. "$(dirname "$0")/lib.sh"

d=$TMP/dispatch
mkdir -p "$d"
mode0=$(param dispatch)
cleanup() {
	echo "$mode0" >"$PARAMS/dispatch" 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT

# 1. The shipped default, and what the parameter accepts.
if with_helper; then
	note "the helper holds the module: the shipped default is checked without it"
else
	/sbin/modprobe -r gpu_aes &&
		/sbin/modprobe -C /dev/null gpu_aes && selftests_settled &&
		[ "$(param dispatch)" = auto ] &&
		pass "gpu_aes loaded without modprobe.d options: dispatch is auto" ||
		fail "the shipped dispatch default: $(param dispatch 2>&1)"
	/sbin/modprobe -r gpu_aes && /sbin/modprobe gpu_aes && selftests_settled ||
		fail "reload gpu_aes with the harness options"
	mode0=$(param dispatch)
fi
ok=1
for m in cpu ring auto; do
	echo $m >"$PARAMS/dispatch" && [ "$(param dispatch)" = $m ] ||
		{ note "dispatch=$m reads back $(param dispatch)"; ok=0; }
done
err=$( (echo gpu >"$PARAMS/dispatch") 2>&1)
rc=$?
[ $rc != 0 ] && case $err in *"Invalid argument"*) ;; *) false ;; esac ||
	{ note "dispatch=gpu: status $rc, '$err'"; ok=0; }
[ "$(param dispatch)" = auto ] || { note "after dispatch=gpu: $(param dispatch)"; ok=0; }
[ $ok = 1 ] && pass "dispatch takes auto, ring and cpu; 'gpu' is refused with EINVAL and changes nothing" ||
	fail "the dispatch parameter's values"

policy_ring_sum() {
	delta "$1" policy_ring_cost; _s=$D
	delta "$1" policy_ring_lone; _s=$((_s + D))
	delta "$1" policy_ring_load; _s=$((_s + D))
	delta "$1" policy_ring_forced; _s=$((_s + D))
	delta "$1" policy_ring_explore; echo $((_s + D))
}
fallback_policy_sum() {
	delta "$1" fallback_policy_cost; _s=$D
	delta "$1" fallback_policy_lone; _s=$((_s + D))
	delta "$1" fallback_policy_forced; _s=$((_s + D))
	delta "$1" fallback_policy_explore; echo $((_s + D))
}

# af_alg_run MODE ALG REF N LEN [OPTION...]: N AF_ALG requests of LEN
# bytes in MODE, each checked against REF.
af_alg_run() {
	_m=$1 _a=$2 _r=$3 _n=$4 _l=$5
	shift 5
	echo "$_m" >"$PARAMS/dispatch"
	af_alg_aio --sync --seed 7 "$@" skcipher "$_a" "$_r" "$_n" "$_l" >"$d/aio" 2>&1 ||
		{ sed 's/^/    /' "$d/aio"; return 1; }
}

# 2. Forced modes.
n=32
snap c
ok=1
af_alg_run cpu 'xts(aes)' 'xts(ecb(aes-generic))' $n 4096 --klen 64 || ok=0
expect_delta c ring_requests 0 || ok=0
expect_delta c fallback_requests $n || ok=0
if with_helper; then
	expect_delta c fallback_policy $n || ok=0
	expect_delta c fallback_policy_forced $n || ok=0
else
	expect_delta c fallback_no_helper $n || ok=0
	expect_delta c fallback_policy 0 || ok=0
fi
[ $ok = 1 ] && pass "dispatch=cpu: $n xts(aes) requests of 4096 bytes all on the CPU, every byte right" ||
	fail "dispatch=cpu"

snap r
ok=1
af_alg_run ring 'ctr(aes)' 'ctr(aes-generic)' $n 4096 || ok=0
if with_helper; then
	expect_delta r ring_ctr_requests $n || ok=0
	expect_delta r policy_ring_forced $n || ok=0
	expect_delta r fallback_requests 0 || ok=0
else
	expect_delta r ring_requests 0 || ok=0
	expect_delta r fallback_no_helper $n || ok=0
	expect_delta r policy_ring_forced 0 || ok=0
fi
[ $ok = 1 ] && pass "dispatch=ring: $n ctr(aes) requests of 4096 bytes $(with_helper && echo 'all on the ring' || echo 'on the CPU: no helper'), every byte right" ||
	fail "dispatch=ring"

# 3. auto: each request is one choice, ring or CPU, and every byte right.
snap a
ok=1
# af_alg_aio sends all N requests before it reads: N x LEN stays within
# the socket's send buffer.
af_alg_run auto 'ctr(aes)' 'ctr(aes-generic)' 8 16384 || ok=0
af_alg_run auto 'xts(aes)' 'xts(ecb(aes-generic))' $n 512 --klen 64 || ok=0
na=$((8 + n))
pr=$(policy_ring_sum a)
pf=$(fallback_policy_sum a)
delta a fallback_policy
[ "$D" = "$pf" ] || { note "fallback_policy +$D, its reasons add up to +$pf"; ok=0; }
delta a ring_requests
rr=$D
delta a fallback_requests
fb=$D
[ $((rr + fb)) = $na ] || { note "ring +$rr + fallback +$fb != $na"; ok=0; }
if with_helper; then
	[ $((pr + pf)) = $na ] ||
		{ note "ring choices +$pr + CPU choices +$pf != $na"; ok=0; }
else
	[ "$pr" = 0 ] && [ "$pf" = 0 ] ||
		{ note "policy counters moved without a helper: ring +$pr, cpu +$pf"; ok=0; }
fi
[ $ok = 1 ] && pass "dispatch=auto: $na AF_ALG requests (8 x 16 KiB ctr, $n x 512 B xts), ring $rr + CPU $fb (choices: ring $pr, CPU $pf), every byte right" ||
	fail "dispatch=auto over AF_ALG"

# 4. The LUKS2 and kTLS suites under auto: with the helper every request
# is on the ring or given to the CPU by the policy (lib.sh expect_routed),
# every byte right.
if with_helper; then
	for t in luks nginx-ktls; do
		echo auto >"$PARAMS/dispatch"
		sh "$(dirname "$0")/$t.sh" >"$d/$t.out" 2>&1
		rc=$?
		sed -n 's/^PASS /PASS dispatch=auto: /p; s/^FAIL /FAIL dispatch=auto: /p; /^  /p' "$d/$t.out"
		if grep -q '^FAIL ' "$d/$t.out"; then
			nfail=$((nfail + 1))
		elif [ $rc != 0 ]; then
			fail "dispatch=auto: $t.sh exited with status $rc"
		fi
	done
	delta a fallback_policy
	note "under auto since the AF_ALG runs: fallback_policy +$D"
fi
finish
