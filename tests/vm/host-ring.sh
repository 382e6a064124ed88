#!/bin/sh
# host-ring.sh - (scripts/vm-run --host-helper) the ring is served from the
# host: gpu-aes-helper runs there and maps the region out of this guest's
# RAM, gpu-aes-guest-agent here forwards doorbells and completions.
#
#   - the agent is attached, the host's helper serves this guest's session
#     with the backend it was asked for (HOST_BACKEND, default cpu);
#   - after the suites before it (vectors, luks, ...), each algorithm's
#     ring requests counted here equal, exactly, the requests the host's
#     helper took for that algorithm (its status file); none invalid, no
#     completion rejected here;
#   - the time of a lone 4 KiB request through the host (reqtime), as a
#     note: two crossings of the port per request under TCG;
#   - the agent's session child SIGKILLed: its parent keeps the region
#     pinned until the host has let go of it, then the agent attaches again
#     (helper_attaches +1) and requests are on the ring, byte for byte.
. "$(dirname "$0")/lib.sh"

if [ "${GPU_AES_VM_HOST_HELPER:-0}" != 1 ]; then
	note "not served from the host (scripts/vm-run --host-helper): skipped"
	finish
	exit
fi
want_backend=${HOST_BACKEND:-cpu}
trap restore_deadline EXIT
patient_deadline

# host_field KEY: KEY's value in the host's status file (top level).
host_field() {
	sed -n "s/^  \"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$GPU_AES_HOST_STATUS"
}
# host_alg ALG: the requests the host's helper took for ALG.
host_alg() {
	awk -v alg="\"$1\":" '
		$1 == "\"algorithms\":" { in_a = 1; next }
		in_a && $1 == alg { in_k = 1; next }
		in_k && $1 == "\"requests\":" { sub(/,/, "", $2); print $2; exit }
	' "$GPU_AES_HOST_STATUS"
}
# host_settled: wait (at most 10 s: the file is rewritten every 2 s) until
# the host has taken every request this guest posted.
host_settled() {
	_i=0
	while [ $_i -lt 100 ]; do
		_ok=1
		for _a in ecb ctr xts gcm cbc; do
			[ "$(host_alg $_a)" = "$(counter ring_${_a}_requests)" ] || _ok=0
		done
		[ $_ok = 1 ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

agent=$(pidof gpu-aes-guest-agent)
[ -n "$agent" ] && grep -q 'served by the host' "$GPU_AES_AGENT_LOG" &&
	pass "the agent is attached and served by the host (pids $agent)" ||
	{ sed 's/^/  /' "$GPU_AES_AGENT_LOG"; fail "the agent is not served"; }
[ "$(counter helper_attaches)" = 1 ] && pass "helper_attaches = 1" ||
	fail "helper_attaches = $(counter helper_attaches)"
backend=$(host_field backend)
pages=$(sed -n 's/.*"pages": "\(.*\)".*/\1/p' "$GPU_AES_HOST_STATUS")
[ "$backend" = "$want_backend" ] && [ "$pages" = "the guest's RAM" ] &&
	pass "the host's helper serves this guest's RAM with its $backend backend" ||
	fail "host status: backend '$backend' (want $want_backend), pages '$pages'"

# A few requests of every algorithm, so each has a count to compare.
d=$TMP/host-ring
mkdir -p "$d"
randfile "$d/pt" 4096
randfile "$d/key" 32
kcapi-enc -q -e -c 'ecb(aes)' --keyfd 3 3<"$d/key" -i "$d/pt" -o "$d/ct" ||
	fail "kcapi-enc ecb(aes)"
for c in 'cbc(aes)' 'ctr(aes)' 'xts(aes)'; do
	kcapi-enc -q -e -c "$c" --iv 000102030405060708090a0b0c0d0e0f \
		--keyfd 3 3<"$d/key" -i "$d/pt" -o "$d/ct" ||
		fail "kcapi-enc $c"
done
kcapi-enc -q -e -c 'gcm(aes)' --iv 000102030405060708090a0b --taglen 16 --aad 00 \
	--keyfd 3 3<"$d/key" -i "$d/pt" -o "$d/ct" || fail "kcapi-enc gcm(aes)"
if host_settled; then
	line=
	for a in ecb ctr xts gcm cbc; do line="$line $a $(host_alg $a);"; done
	pass "every ring request here was taken by the host's helper:$line"
else
	for a in ecb ctr xts gcm cbc; do
		note "$a: ring_${a}_requests $(counter ring_${a}_requests) here, $(host_alg $a) on the host"
	done
	fail "the host's counts differ from this guest's"
fi
inv=$(sed -n 's/.*"invalid": \([0-9]*\).*/\1/p' "$GPU_AES_HOST_STATUS")
[ "$inv" = 0 ] && pass "the host's helper found no invalid request" ||
	fail "the host's helper found '$inv' invalid requests"
[ "$(counter rejected_completions)" = 0 ] && pass "rejected_completions = 0" ||
	fail "rejected_completions = $(counter rejected_completions)"

# A lone request's time through the host: one doorbell and one completion
# crossing the port (notes only: TCG's times are no host's).
snap q
if run_c reqtime --len 4096 200; then
	delta q ring_ctr_requests
	note "200 lone 4 KiB ctr requests: $D on the ring"
fi

# The session's child killed: the parent must get the host to let go
# before it closes the device, then attach anew.
parent=
for p in $agent; do
	pp=$(awk '/^PPid:/ { print $2 }' /proc/$p/status)
	case " $agent " in *" $pp "*) child=$p; parent=$pp ;; esac
done
if [ -z "$parent" ]; then
	fail "no session child under the agent (pids $agent)"
else
	att=$(counter helper_attaches)
	kill -KILL "$child"
	i=0
	until [ "$(counter helper_attaches)" -gt "$att" ] || [ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ "$(counter helper_attaches)" -gt "$att" ] &&
	   grep -q "asking the host to release" "$GPU_AES_AGENT_LOG"; then
		pass "session child killed: released by the host, attached again in $((i / 10)).$((i % 10)) s"
	else
		sed 's/^/  /' "$GPU_AES_AGENT_LOG"
		fail "no new attachment after the session child was killed"
	fi
	snap k
	kcapi-enc -q -e -c 'ctr(aes)' --iv 000102030405060708090a0b0c0d0e0f \
		--keyfd 3 3<"$d/key" -i "$d/pt" -o "$d/ct" &&
		openssl enc -aes-256-ctr -K "$(hex "$d/key")" \
			-iv 000102030405060708090a0b0c0d0e0f -in "$d/pt" -out "$d/ref" &&
		cmp -s "$d/ct" "$d/ref" && expect_delta k ring_ctr_requests 1 &&
		pass "after it: a ctr request on the ring, = openssl" ||
		fail "a request after the reattach"
fi
rm -rf "$d"
finish
