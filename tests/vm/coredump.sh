#!/bin/sh
# coredump.sh - a core dump of the helper holds no key (issue 20, F3).
# Core dumps on (ulimit -c unlimited, core_pattern to a file here), a
# helper started with --allow-core-dump serves ctr(aes) and xts(aes) tfms
# with 128 and 256-bit keys that stay open (tests/vm/corekey.c), and is
# crashed (SIGSEGV): its core must hold none of the keys, raw or as the
# first round keys of their encryption and decryption schedules.  The
# same search of the live helper's memory just before the crash must
# find them, all in memory a core leaves out: so the search would have
# seen them.  Then a helper started without the option is crashed the
# same way and must leave no core at all.  Only with the helper; the
# standard helper is started again at the end.
. "$(dirname "$0")/lib.sh"

with_helper || { note "no helper: nothing to crash"; exit 0; }

d=$TMP/coredump
mkdir -p "$d/cores"
pattern=$(cat /proc/sys/kernel/core_pattern)
hpid=
kpid=
cleanup() {
	[ -n "$kpid" ] && kill "$kpid" 2>/dev/null
	# Reaped before pidof looks, which lists it until it has exited: the
	# standard helper is started again only when none is left.
	[ -n "$hpid" ] && kill -KILL "$hpid" 2>/dev/null && wait "$hpid"
	echo "$pattern" >/proc/sys/kernel/core_pattern
	[ -n "$(pidof gpu-aes-helper)" ] || restart_helper
	rm -rf "$d"
}
trap cleanup EXIT
echo "$d/cores/core.%p" >/proc/sys/kernel/core_pattern

# gone PID: wait (at most 60 s) until PID, not a child of this shell, has
# exited.
gone() {
	_i=0
	while kill -0 "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -le 600 ] || return 1
		sleep 0.1
	done
}

# start_helper ARG...: stop whichever helper runs, start one with core
# dumps allowed by the rlimit and ARGs, wait until it attaches; sets hpid.
start_helper() {
	_old=$(pidof gpu-aes-helper)
	[ -n "$_old" ] && kill -TERM $_old && gone "$_old"
	_att=$(counter helper_attaches)
	(ulimit -c unlimited && exec "$GPU_AES_HELPER_BIN" --backend cpu \
		--device /dev/gpu_aes "$@") 2>>"$GPU_AES_HELPER_LOG" &
	hpid=$!
	_i=0
	while [ "$(counter helper_attaches)" -le "$_att" ] && [ $_i -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ "$(counter helper_attaches)" -gt "$_att" ]
}

# serve: corekey's tfms on the ring, kept open; sets kpid.  Returns 1
# (after FAIL lines) unless all 8 requests took the ring and were right.
serve() {
	[ -n "$kpid" ] && kill "$kpid" 2>/dev/null
	# The last serve's "ready" must not answer for this one: the shell
	# truncates serve.out in the child, after the wait below may look.
	rm -f "$d/needles" "$d/serve.out"
	snap s
	corekey serve "$d" >"$d/serve.out" 2>&1 &
	kpid=$!
	_i=0
	while ! grep -q -e '^ready' -e '^failed' "$d/serve.out" && [ $_i -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	_ok=0
	grep -q '^ready' "$d/serve.out" || { sed 's/^/  /' "$d/serve.out"; _ok=1; }
	expect_delta s ring_ctr_requests 4 || _ok=1
	expect_delta s ring_xts_requests 4 || _ok=1
	[ $_ok = 0 ] && pass "$1: 4 tfms (ctr, xts; 128 and 256-bit keys) served on the ring, bytes right" ||
		fail "$1: corekey's requests on the ring"
	return $_ok
}

# hits FILE: the sum of the counts in corekey's "hits LABEL N..." lines.
hits() { awk '/^hits/ { for (i = 3; i <= NF; i++) n += $i } END { print n + 0 }' "$1"; }

# 1. Dumpable (--allow-core-dump): a core is written, without the keys.
if start_helper --allow-core-dump; then
	pass "a helper with --allow-core-dump attaches (core limit unlimited)"
else
	fail "no helper with --allow-core-dump attached"
	finish
	exit
fi
serve "--allow-core-dump" || { finish; exit; }
corekey scan "$d/needles" "$hpid" >"$d/live" 2>&1
# Every key and encryption schedule is in the helper (key table, the cpu
# backend's contexts); XTS decryption needs its data key's decryption
# schedule (CTR never builds one).  Only ever in memory a core leaves out.
missing=$(awk '/^hits/ && ($2 ~ /\/(raw|rk0|enc)$/ || $2 ~ /xts.*\.k1\/dec/) &&
	$3 + $4 == 0 { printf " %s", $2 }' "$d/live")
dumpable=$(awk '/^hits/ { n += $3 } END { print n + 0 }' "$d/live")
note "live helper: $(awk '/^hits/ { n += $4 } END { print n + 0 }' "$d/live") hits in memory left out of cores, $dumpable in dumpable memory"
[ -z "$missing" ] && pass "the live helper holds every key and its schedules (the search finds them)" ||
	{ sed 's/^/  /' "$d/live"; fail "not found in the live helper:$missing"; }
[ "$dumpable" = 0 ] && pass "no key byte of the live helper is in memory a core would hold" ||
	{ grep -v ' 0 [0-9]*$' "$d/live" | sed 's/^/  /'; fail "$dumpable key hits in the helper's dumpable memory"; }

kill -SEGV "$hpid"
wait "$hpid"
core=$d/cores/core.$hpid
hpid=
if [ -s "$core" ]; then
	size=$(wc -c <"$core")
	corekey count "$d/needles" "$core" >"$d/found" 2>&1
	n=$(hits "$d/found")
	note "core $size bytes: $n key hits"
	[ "$n" = 0 ] && pass "the core of a crashed helper ($size bytes) holds no key" ||
		{ grep -v ' 0$' "$d/found" | sed 's/^/  /'; fail "the core ($size bytes) holds $n copies of keys or round keys"; }
	rm -f "$core"
else
	ls -l "$d/cores" | sed 's/^/  /'
	fail "SIGSEGV left no core at $core (--allow-core-dump)"
fi

# 2. Not dumpable (the default): no core at all.
if start_helper; then
	serve "default" || { finish; exit; }
	corekey scan "$d/needles" "$hpid" >"$d/live" 2>&1
	[ "$(hits "$d/live")" -gt 0 ] || fail "default: the live helper holds no key (nothing to protect?)"
	pid=$hpid
	kill -SEGV "$hpid"
	wait "$hpid"
	hpid=
	[ -z "$(ls "$d/cores")" ] && pass "a crashed helper without --allow-core-dump writes no core (ulimit -c unlimited)" ||
		{ ls -l "$d/cores" | sed 's/^/  /'; fail "the helper without --allow-core-dump left a core (pid $pid)"; }
else
	fail "no helper attached (default options)"
fi
finish
