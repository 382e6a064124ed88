#!/bin/sh
# ipsec.sh - IPsec ESP through gpu_aes.  ESP submits its AEAD requests
# without CRYPTO_TFM_REQ_MAY_BACKLOG (and without MAY_SLEEP: from softirq),
# so they take the ring where it has room now and the CPU at once where it
# has none (kmod/README.md, "Routing of a request").  For each of
# rfc4106(gcm(aes)) and authenc(hmac(sha256),cbc(aes)), ESP in transport
# mode between two network namespaces over a veth pair:
#
#  1. the ESP AEAD instance is built on our driver (gcm-aes-gpu,
#     cbc-aes-gpu), or is the CPU's own rfc4106 (AES-NI), which ESP then
#     uses without gpu_aes (checked: pings answered, no gpu_aes request);
#  2. 20 pings of 1000 bytes are all answered, and each of their 80 ESP
#     requests (out and back, encrypted and decrypted) ran where the mode
#     says: with the helper and dispatch=ring on the ring
#     (ring_<alg>_requests +80, nothing on the CPU), without it on the CPU
#     (fallback_no_helper +80); under dispatch=auto, on one path or the
#     other, every one counted;
#  3. 4 MiB over TCP (busybox nc) through the tunnel arrives intact
#     (sha256), none of its requests backlogged or timed out; with the
#     helper some of them ran on the ring (under dispatch=auto at least
#     the share it explores), the rest on the CPU by the policy or, under
#     dispatch=ring, for want of room right then (fallback_full).
. "$(dirname "$0")/lib.sh"

d=$TMP/ipsec
mkdir -p "$d"
cleanup() {
	ip netns del esp-a 2>/dev/null
	ip netns del esp-b 2>/dev/null
	restore_deadline
	rm -rf "$d"
}
trap cleanup EXIT
patient_deadline
# Busybox's sh runs its own applet for a bare name that is one, whatever
# PATH says; its ip has no netns or xfrm, so the image's iproute2 by path.
ip() { /usr/sbin/ip "$@"; }
mode=$(param dispatch)

# echainiv and seqiv take their salt from the default crypto RNG, drbg:
# built in on Debian's 6.12, a module on 6.1, where its self-test of
# hmac(sha512) needs sha512 loaded first or warns.
for m in veth esp4 xfrm_user echainiv seqiv sha512_generic drbg; do
	/sbin/modprobe $m 2>/dev/null
done

# tunnel NAME: the two namespaces, the veth pair, and ESP transport-mode
# states and policies both ways for NAME (rfc4106 or authenc).
tunnel() {
	ip netns del esp-a 2>/dev/null
	ip netns del esp-b 2>/dev/null
	ip netns add esp-a && ip netns add esp-b || { fail "ip netns add"; return 1; }
	ip link add va netns esp-a type veth peer name vb netns esp-b ||
		{ fail "veth pair"; return 1; }
	ip -n esp-a addr add 10.78.0.1/24 dev va
	ip -n esp-b addr add 10.78.0.2/24 dev vb
	for ns in esp-a esp-b; do
		ip -n $ns link set lo up
	done
	ip -n esp-a link set va up
	ip -n esp-b link set vb up
	case $1 in
	rfc4106)
		# 16-byte key and the 4-byte salt after it.
		set -- aead 'rfc4106(gcm(aes))' \
			0x$(head -c 20 /dev/urandom | od -An -v -tx1 | tr -d ' \n') 128 ;;
	authenc)
		ke=0x$(head -c 16 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
		ka=0x$(head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
		set -- enc 'cbc(aes)' $ke auth-trunc 'hmac(sha256)' $ka 128 ;;
	esac
	for ns in esp-a esp-b; do
		ip -n $ns xfrm state add src 10.78.0.1 dst 10.78.0.2 proto esp \
			spi 0x2001 mode transport "$@" 2>"$d/xfrm" &&
		ip -n $ns xfrm state add src 10.78.0.2 dst 10.78.0.1 proto esp \
			spi 0x2002 mode transport "$@" 2>"$d/xfrm" ||
			{ sed 's/^/    /' "$d/xfrm"; fail "xfrm state ($ns): $*"; return 1; }
	done
	ip -n esp-a xfrm policy add src 10.78.0.1 dst 10.78.0.2 dir out \
		tmpl src 10.78.0.1 dst 10.78.0.2 proto esp mode transport &&
	ip -n esp-a xfrm policy add src 10.78.0.2 dst 10.78.0.1 dir in \
		tmpl src 10.78.0.2 dst 10.78.0.1 proto esp mode transport &&
	ip -n esp-b xfrm policy add src 10.78.0.2 dst 10.78.0.1 dir out \
		tmpl src 10.78.0.2 dst 10.78.0.1 proto esp mode transport &&
	ip -n esp-b xfrm policy add src 10.78.0.1 dst 10.78.0.2 dir in \
		tmpl src 10.78.0.1 dst 10.78.0.2 proto esp mode transport ||
		{ fail "xfrm policy"; return 1; }
	# The first packet resolves the neighbour (and instantiates the AEAD).
	ip netns exec esp-a ping -c 1 -W 5 10.78.0.2 >/dev/null 2>&1
}

# esp NAME AEAD ALG DRIVER: the three checks for one ESP AEAD, whose
# requests count in ring_ALG_requests and whose instance is built on
# DRIVER, where it outranks the CPU's own: on x86 with AES-NI, aesni_intel
# registers rfc4106(gcm(aes)) itself (rfc4106-gcm-aesni*, priority 400 to
# 800), which no template over gcm-aes-gpu can beat, so ESP's GCM is ours
# only where the CPU lacks AES instructions (slow-aes mode), where the ring
# pays.
esp() {
	tunnel "$1" || return 1
	ad=$(best_driver "$2")
	case $ad in
	*"$4"*) pass "$1: the ESP AEAD $ad is built on $4" ;;
	*'('*)
		fail "$1: the ESP AEAD is '$ad', not built on $4"
		return 1 ;;
	*)
		note "$1: the ESP AEAD is the CPU's own $ad (native, above any template over $4)"
		native_esp "$1"
		return ;;
	esac

	snap p
	ip netns exec esp-a ping -c 20 -i 0.2 -s 1000 -W 5 10.78.0.2 >"$d/ping" 2>&1
	got=$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' "$d/ping")
	[ "$got" = 20 ] ||
		{ sed 's/^/    /' "$d/ping"; fail "$1: $got of 20 pings answered"; return 1; }
	ok=1
	if ! with_helper; then
		expect_delta p fallback_no_helper 80 || ok=0
		where="on the CPU (no helper)"
	elif [ "$mode" = ring ]; then
		expect_delta p "ring_$3_requests" 80 || ok=0
		expect_delta p fallback_requests 0 || ok=0
		where="on the ring"
	else
		delta p "ring_$3_requests"; r=$D
		delta p fallback_requests; c=$D
		[ $((r + c)) = 80 ] || { ok=0; note "ring $r + cpu $c is not 80"; }
		where="$r on the ring, $c on the CPU (auto)"
	fi
	expect_delta p backlogged 0 || ok=0
	[ $ok = 1 ] && pass "$1: 20 pings of 1000 bytes answered, their 80 ESP requests $where" ||
		fail "$1: where the pings' ESP requests ran"

	randfile "$d/data" $((4 << 20))
	want=$(sha256sum <"$d/data" | cut -d' ' -f1)
	snap t
	# The listener reads its stdin too, and stops at its end: a fifo
	# held open keeps it on the socket until the sender closes.
	rm -f "$d/in"
	mkfifo "$d/in"
	sleep 130 >"$d/in" &
	spid=$!
	ip netns exec esp-b timeout 120 nc -l -p 5001 <"$d/in" >"$d/got" \
		2>"$d/nc-l" &
	lpid=$!
	sleep 1
	ip netns exec esp-a timeout 120 nc 10.78.0.2 5001 <"$d/data" 2>"$d/nc"
	wait $lpid
	kill $spid 2>/dev/null
	got=$(sha256sum <"$d/got" | cut -d' ' -f1)
	[ "$got" = "$want" ] ||
		{ fail "$1: 4 MiB over TCP arrived as $(wc -c <"$d/got") bytes of other data"; return 1; }
	ok=1
	delta t "ring_$3_requests"; r=$D
	delta t fallback_full; full=$D
	expect_delta t backlogged 0 || ok=0
	expect_delta t timeouts 0 || ok=0
	if with_helper; then
		[ "$r" -gt 0 ] || { ok=0; note "no request of the transfer on the ring"; }
	else
		[ "$r" = 0 ] || { ok=0; note "$r requests on the ring without a helper"; }
	fi
	[ $ok = 1 ] && pass "$1: 4 MiB over TCP intact, $r of its ESP requests on the ring ($full on the CPU for want of room), none backlogged" ||
		fail "$1: 4 MiB over TCP: where its requests ran"
}

# native_esp NAME: ESP on the CPU's own driver works beside gpu_aes, and
# none of its requests reaches it.
native_esp() {
	snap n
	ip netns exec esp-a ping -c 20 -i 0.2 -s 1000 -W 5 10.78.0.2 >"$d/ping" 2>&1
	got=$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' "$d/ping")
	ok=1
	[ "$got" = 20 ] || { ok=0; note "$got of 20 pings answered"; }
	expect_delta n ring_requests 0 || ok=0
	expect_delta n fallback_requests 0 || ok=0
	[ $ok = 1 ] && pass "$1: 20 pings of 1000 bytes answered on the CPU's own driver, none through gpu_aes" ||
		fail "$1: ESP on the CPU's own driver"
}

esp rfc4106 'rfc4106(gcm(aes))' gcm gcm-aes-gpu
esp authenc 'authenc(hmac(sha256),cbc(aes))' cbc cbc-aes-gpu
no_splat && pass "no kernel warning"
finish
