#!/bin/sh
# templates.sh - the templates the kernel builds over our drivers whenever
# ecb-, cbc-, ctr-, gcm- or xctr-aes-gpu is the best inner algorithm.
#
#  1. Ask for every AES template a consumer may name (AF_ALG bind, as
#     IPsec's or a program's lookup would) and list, from /proc/crypto, the
#     instances built over a gpu_aes driver.  Each must have a case below
#     (an instance without one fails: a kernel that builds a new one needs a
#     test) and must show "selftest: passed".  An IV generator (echainiv,
#     seqiv) over one is checked through its inner instance's case.
#  2. Each instance, by driver name and (where it wins) by cra_name, against
#     the generic instance (tests/vm/af_alg_aio.c, byte for byte), both
#     directions:
#       - read one request at a time: AF_ALG sets CRYPTO_TFM_REQ_MAY_BACKLOG,
#         so with the helper every request's inner request is on the ring;
#       - AIO, N requests on one socket in flight at once (N up to 64, the
#         program's limit, far below the socket's 208 KiB send buffer):
#         AEADs get no MAY_BACKLOG, so every one is answered on the CPU
#         before io_submit moves on (AF_ALG would fail the next with
#         -EBUSY); skciphers are made synchronous by AF_ALG itself;
#     with the counters moving by exactly that many requests.
#  3. With the helper: one queue of 16 entries (--queues 1, so callers on
#     every CPU share it and the count is exact), the helper stopped, 24
#     callers at once: 16 on the ring, 8 backlogged (-EBUSY, then
#     -EINPROGRESS through the template), every one exact once the helper
#     runs again.
. "$(dirname "$0")/lib.sh"

/sbin/modprobe algif_aead
/sbin/modprobe algif_skcipher
/sbin/modprobe ccm
/sbin/modprobe authenc
min=$(param ring_min_bytes)
ccm_ref='ccm_base(ctr(aes-generic),cbcmac(aes-generic))'
gcm_ref='gcm_base(ctr(aes-generic),ghash-generic)'

# case NAME: "TYPE|REF|OPTIONS|LEN|INNER" for a template instance's
# cra_name: the reference by driver name, af_alg_aio's key/IV/AAD/tag
# options, the text length, and the gpu_aes algorithm its one inner
# request per request goes to ("cbc+tail": cts, which sends all but the
# last block and then one 16-byte request for it).  Skcipher lengths are
# multiples of 16: AF_ALG cuts a read to whole chunks while more data is
# queued.
case_of() {
	case $1 in
	'ccm(aes)')
		echo "aead|$ccm_ref|--klen 16 --ivlen 16 --iv0 3 --aad 20 --tag 8|1000|ctr" ;;
	'rfc4309(ccm(aes))')
		echo "aead|rfc4309($ccm_ref)|--klen 19 --ivlen 8 --aad 16 --tag 16|777|ctr" ;;
	'rfc4543(gcm(aes))')
		echo "aead|rfc4543($gcm_ref)|--klen 20 --ivlen 8 --aad 20 --tag 16|600|gcm" ;;
	'rfc4106(gcm(aes))')
		echo "aead|rfc4106($gcm_ref)|--klen 20 --ivlen 8 --aad 16 --tag 16|600|gcm" ;;
	'rfc3686(ctr(aes))')
		echo "skcipher|rfc3686(ctr(aes-generic))|--klen 20 --ivlen 8|1008|ctr" ;;
	'lrw(aes)')
		echo "skcipher|lrw(ecb(aes-generic))|--klen 32 --ivlen 16|1024|ecb" ;;
	'xts(aes)')
		echo "skcipher|xts(ecb(aes-generic))|--klen 32 --ivlen 16|1024|ecb" ;;
	'authenc(hmac(sha256),ctr(aes))')
		echo "aead|authenc(hmac(sha256-generic),ctr(aes-generic))|--authenc 16 --klen 56 --ivlen 16 --aad 24 --tag 16|1000|ctr" ;;
	'authenc(hmac(sha256),rfc3686(ctr(aes)))')
		echo "aead|authenc(hmac(sha256-generic),rfc3686(ctr(aes-generic)))|--authenc 20 --klen 60 --ivlen 8 --aad 24 --tag 16|1000|ctr" ;;
	'authenc(hmac(sha256),cbc(aes))')
		echo "aead|authenc(hmac(sha256-generic),cbc(aes-generic))|--authenc 16 --klen 56 --ivlen 16 --aad 24 --tag 16|1024|cbc" ;;
	'essiv(cbc(aes),sha256)')
		echo "skcipher|essiv(cbc(aes-generic),sha256-generic)|--klen 32 --ivlen 16|1024|cbc" ;;
	'cts(cbc(aes))')
		echo "skcipher|cts(cbc(aes-generic))|--klen 16 --ivlen 16|1024|cbc+tail" ;;
	*) return 1 ;;
	esac
}

# What a consumer may ask for: IPsec (rfc4106/4309/4543, rfc3686 and
# authenc), dm-crypt (lrw, essiv, xts), programs (ccm, hctr2, ...).
aeads='ccm(aes) rfc4309(ccm(aes)) rfc4543(gcm(aes)) rfc4106(gcm(aes))
authenc(hmac(sha256),ctr(aes)) authenc(hmac(sha256),rfc3686(ctr(aes)))
authenc(hmac(sha256),cbc(aes)) seqiv(rfc4106(gcm(aes)))'
skciphers='lrw(aes) rfc3686(ctr(aes)) xctr(aes) hctr2(aes) cts(cbc(aes))
essiv(cbc(aes),sha256) cbc(aes) pcbc(aes) cfb(aes) ofb(aes) xts(ecb(aes))'
for n in $aeads; do af_alg_aio --probe aead "$n" >/dev/null; done
for n in $skciphers; do af_alg_aio --probe skcipher "$n" >/dev/null; done

# "cra_name driver" of every instance whose driver names one of ours: not
# our drivers themselves (dispatch/cpu_drivers lists the modes registered,
# xctr only where the kernel has xctr(aes)).
ours=$(awk '{ printf "%s%s", s, $1; s = "|" }' \
	/sys/class/misc/gpu_aes/dispatch/cpu_drivers)
found=$(proc_crypto | awk -v ours="^($ours)-aes-gpu$" '/^name/ { n = $3 }
	/^driver/ { if ($3 ~ /-aes-gpu/ && $3 !~ ours) print n, $3 }' \
	| sort -u)
note "instances over gpu_aes on $(uname -r):"
while read -r n d; do note "  $n = $d"; done <<EOF
$found
EOF
echo "$found" | grep -q '^ccm(aes) ccm_base(ctr-aes-gpu,' &&
	pass "ccm(aes) is built over ctr-aes-gpu, as a consumer gets it" ||
	fail "no ccm(aes) instance over ctr-aes-gpu"
# A template over our ecb or ctr (xts(ecb-aes-gpu) exists now) must not
# take LUKS2's or kTLS's lookups from the native drivers.
for c in 'xts(aes) xts-aes-gpu' 'gcm(aes) gcm-aes-gpu'; do
	best=$(best_driver "${c% *}")
	[ "$best" = "${c#* }" ] && pass "${c% *} still resolves to ${c#* }" ||
		fail "${c% *} resolves to '$best' once the templates exist"
done

# run_one SNAP TYPE NAME REF OPTS LEN N MODE DIR: one af_alg_aio run.
run_one() {
	_extra=
	[ "$8" = sync ] && _extra=--sync
	[ "$9" = dec ] && _extra="$_extra --dec"
	# shellcheck disable=SC2086 # OPTS are words
	run_c af_alg_aio $_extra $5 "$2" "$3" "$4" "$7" "$6"
}

# exact SNAP INNER N MODE TYPE: the counters moved as N requests of MODE
# (sync, aio) must.  AF_ALG's AEAD AIO requests lack MAY_BACKLOG and go to
# the CPU at once; its skcipher AIO requests do not: algif_skcipher on
# these kernels (6.1.y, 6.12.y stable) processes AIO synchronously with
# MAY_BACKLOG set, so they go where a read would.
exact() {
	_ok=0
	# cts: one more 16-byte inner request each, on the ring only when
	# ring_min_bytes lets 16 bytes in.
	_alg=${2%+tail} _tail=0 _small=0
	if [ "$_alg" != "$2" ]; then
		_tail=$3
		[ "$min" -le 16 ] || _small=$3
	fi
	if [ "$4" = aio ] && [ "$5" = aead ]; then
		expect_delta "$1" fallback_no_backlog "$3" || _ok=1
		expect_delta "$1" fallback_requests "$3" || _ok=1
		expect_delta "$1" ring_requests 0 || _ok=1
	elif with_helper; then
		expect_delta "$1" "ring_${_alg}_requests" $(($3 + _tail - _small)) || _ok=1
		expect_delta "$1" ring_requests $(($3 + _tail - _small)) || _ok=1
		expect_delta "$1" fallback_small "$_small" || _ok=1
		expect_delta "$1" fallback_requests "$_small" || _ok=1
	else
		expect_delta "$1" fallback_no_helper $(($3 + _tail)) || _ok=1
		expect_delta "$1" fallback_requests $(($3 + _tail)) || _ok=1
	fi
	expect_delta "$1" backlogged 0 || _ok=1
	expect_delta "$1" timeouts 0 || _ok=1
	return $_ok
}

# Read from a here-document, not a pipe: fail() must count in this shell.
while read -r n d; do
	[ -n "$n" ] || continue
	# IV generators (IPsec's echainiv, seqiv; tests/vm/cbc.sh builds one)
	# derive each IV from a random per-instance salt: no reference makes
	# the same bytes.  Their bytes are their inner instance's, which needs
	# its own case and is compared below.
	case $n in
	echainiv\(*\) | seqiv\(*\))
		inner_n=${n#*\(}
		inner_n=${inner_n%\)}
		st=$(crypto_field "$d" selftest)
		if case_of "$inner_n" >/dev/null && [ "$st" = passed ]; then
			pass "$d: selftest passed; its inner $inner_n has a case"
		else
			fail "$d: selftest '$st', inner $inner_n"
		fi
		continue ;;
	esac
	if ! c=$(case_of "$n"); then
		fail "$d ($n): no test case for this template instance"
		continue
	fi
	IFS='|' read -r type ref opts len inner <<-CASE
	$c
	CASE
	st=$(crypto_field "$d" selftest)
	[ "$st" = passed ] && pass "$d: selftest passed" ||
		fail "$d: selftest '$st'"
	names=$d
	[ "$(best_driver "$n")" = "$d" ] && names="$d $n"
	for name in $names; do
		for mode in sync aio; do
			for dir in enc dec; do
				nreq=8
				[ "$mode" = aio ] && nreq=64
				snap t
				if run_one t "$type" "$name" "$ref" "$opts" \
					"$len" "$nreq" "$mode" "$dir"; then
					exact t "$inner" "$nreq" "$mode" "$type" &&
						pass "$name $mode $dir: counters moved by $nreq requests" ||
						fail "$name $mode $dir: counters"
				fi
			done
		done
	done
done <<EOF
$found
EOF

# A full ring under the template: the backlog path, end to end.
full_ring() {
	d=$(echo "$found" | awk '$1 == "ccm(aes)" { print $2; exit }')
	[ -n "$d" ] || return 0
	# One queue: with one per CPU the 24 callers would split over them.
	restart_helper --queues 1 --entries 16 ||
		{ fail "the helper did not attach with one queue"; return; }
	hp=$(pidof gpu-aes-helper)
	set_deadline 60000
	c=$(case_of 'ccm(aes)')
	IFS='|' read -r type ref opts len inner <<-CASE
	$c
	CASE
	snap f
	kill -STOP "$hp"
	j=0
	callers=
	while [ $j -lt 24 ]; do
		# shellcheck disable=SC2086 # OPTS are words
		af_alg_aio --sync --seed $((j + 1)) $opts aead "$d" "$ref" 1 "$len" \
			>"$TMP/full.$j" 2>&1 &
		callers="$callers $!"
		j=$((j + 1))
	done
	i=0
	until delta f backlogged && [ "$D" -ge 8 ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || break
		sleep 0.1
	done
	kill -CONT "$hp"
	# Not a bare wait: the helper is a child of this shell too.
	for p in $callers; do wait "$p"; done
	ok=1
	j=0
	while [ $j -lt 24 ]; do
		grep -q '^ok ' "$TMP/full.$j" || { note "caller $j:"; sed 's/^/    /' "$TMP/full.$j"; ok=0; }
		j=$((j + 1))
	done
	expect_delta f ring_ctr_requests 24 || ok=0
	expect_delta f backlogged 8 || ok=0
	expect_delta f fallback_requests 0 || ok=0
	expect_delta f timeouts 0 || ok=0
	[ $ok = 1 ] && pass "$d on one 16-entry queue: 24 callers at once, 8 backlogged, all exact" ||
		fail "$d on a full ring"
	restore_deadline
	# Leave the helper as the other suites expect it.
	restart_helper || fail "the default helper did not come back"
}
with_helper && full_ring
[ "$min" -le 256 ] || note "ring_min_bytes $min: the inner requests may be too short for the ring"
finish
