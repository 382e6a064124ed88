# lib.sh - shared by the guest tests in tests/vm/ (POSIX sh, busybox).
# Sourced by each test; the test then calls pass/fail once per case and
# returns non-zero if any case failed.

STATS=/sys/class/misc/gpu_aes/stats
PARAMS=/sys/module/gpu_aes/parameters
TMP=${TMPDIR:-/tmp}
nfail=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }
# Detail lines, printed before the FAIL line they explain.
note() { echo "  $*"; }

with_helper() { [ "${GPU_AES_VM_HELPER:-0}" = 1 ]; }

counter() { read -r _v <"$STATS/$1" && echo "$_v"; }
param() { read -r _v <"$PARAMS/$1" && echo "$_v"; }

# The helpers below use only shell builtins: a fork costs ~10 ms under TCG
# and the kcapi test takes thousands of snapshots.

# snap NAME: remember every counter under NAME for a later delta.
snap() {
	for _f in "$STATS"/*; do
		read -r _v <"$_f"
		eval "_snap_${1}_${_f##*/}=\$_v"
	done
}

# set_deadline MS: timeout_ms for what the suite does next.
# restore_deadline, from the suite's cleanup, puts back the value it had
# before the suite's first set_deadline (nothing, if none was set).
set_deadline() {
	[ -n "${_old_timeout:-}" ] || _old_timeout=$(param timeout_ms)
	echo "$1" >"$PARAMS/timeout_ms"
}
restore_deadline() {
	[ -z "${_old_timeout:-}" ] || echo "$_old_timeout" >"$PARAMS/timeout_ms"
	_old_timeout=
}

# patient_deadline: for a suite that tests where requests go, not how
# fast the helper serves them.  TCG on a busy 2-core host can hold the
# helper off the CPU for a second, the default timeout_ms, and a deadline
# then sends the rest to the CPU (stall.sh tests that contract); 10 s
# keeps the route the suite asserts.
patient_deadline() {
	set_deadline 10000
}

# wait_ready FILE PID TENTHS: wait until a background tool writes FILE
# (it is ready), dies, or TENTHS tenths of a second pass; 0 if FILE is there.
wait_ready() {
	_i=0
	until [ -s "$1" ]; do
		_i=$((_i + 1))
		[ $_i -lt "$3" ] || break
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$1" ]
}

# delta NAME COUNTER: set D to how far COUNTER moved since snap NAME.
delta() {
	read -r _v <"$STATS/$2"
	eval "D=\$((_v - _snap_${1}_$2))"
}

# expect_delta NAME COUNTER WANT: note and return 1 unless it moved by WANT.
expect_delta() {
	delta "$1" "$2"
	[ "$D" = "$3" ] && return 0
	note "$2 moved by $D, expected $3"
	[ "$2" != fallback_requests ] || fallback_reasons "$1"
	return 1
}

# fallback_reasons NAME: note the fallback reasons, timeouts and backlog
# that moved since snap NAME: a slow host (timeouts, stalled, full) reads
# differently from a routing bug.
fallback_reasons() {
	_fr=
	for _f in "$STATS"/fallback_* "$STATS"/timeouts "$STATS"/backlogged; do
		case ${_f##*/} in fallback_requests | fallback_bytes) continue ;; esac
		delta "$1" "${_f##*/}"
		[ "$D" = 0 ] || _fr="$_fr ${_f##*/} +$D"
	done
	note "by reason:${_fr:- none}"
}

# expect_min NAME COUNTER MIN WHAT: note (about WHAT) and return 1 unless
# COUNTER moved by at least MIN since snap NAME.
expect_min() {
	delta "$1" "$2"
	[ "$D" -ge "$3" ] && return 0
	note "$4: $2 moved by $D, want >= $3"
	return 1
}

# expect_path NAME BYTES: the requests since snap NAME (BYTES in all, each
# request at least ring_min_bytes) went through the ring when the helper runs
# and through the CPU fallback when it does not -- never the other way.
expect_path() {
	if with_helper; then
		_ok=0
		expect_delta "$1" ring_bytes "$2" || _ok=1
		expect_delta "$1" fallback_requests 0 || _ok=1
		expect_delta "$1" fallback_bytes 0 || _ok=1
		expect_min "$1" ring_requests 1 "$2 bytes" || _ok=1
	else
		_ok=0
		expect_delta "$1" fallback_bytes "$2" || _ok=1
		expect_delta "$1" ring_requests 0 || _ok=1
		expect_delta "$1" ring_bytes 0 || _ok=1
		expect_min "$1" fallback_requests 1 "$2 bytes" || _ok=1
	fi
	return $_ok
}

# proc_crypto: /proc/crypto, read until two reads agree (at most 50).
# Each read() of it walks the algorithm list anew from a record index,
# so a registration between two reads (a template instance testmgr or a
# lookup creates) can tear a record: a driver seen without its module line.
proc_crypto() {
	_pa=$(cat /proc/crypto)
	_pi=0
	while _pb=$(cat /proc/crypto); [ "$_pa" != "$_pb" ] && [ $_pi -lt 50 ]; do
		_pa=$_pb
		_pi=$((_pi + 1))
	done
	# $(...) dropped the blank line that ends the last record
	printf '%s\n\n' "$_pb"
}

# crypto_field DRIVER FIELD: FIELD of DRIVER's entry in /proc/crypto.
crypto_field() {
	proc_crypto | awk -v drv="$1" -v field="$2" '
		function flush() { if (f["driver"] == drv) { print f[field]; done = 1; exit }
			split("", f) }
		/^$/ { flush(); next }
		{ k = $0; sub(/[ \t]*:.*/, "", k); v = $0; sub(/^[^:]*: ?/, "", v); f[k] = v }
		END { if (!done) flush() }
	'
}

# best_driver NAME: the driver the crypto API picks for NAME (highest
# priority among tested, non-internal entries), as a lookup would.
best_driver() {
	proc_crypto | awk -v name="$1" '
		/^$/ { if (n == name && st == "passed" && in_ == "no" && pr > bp) {
			bp = pr; bd = d }
			n = d = st = in_ = ""; pr = -1 }
		$1 == "name" { n = $3 }
		$1 == "driver" { d = $3 }
		$1 == "priority" { pr = $3 + 0 }
		$1 == "selftest" { st = $3 }
		$1 == "internal" { in_ = $3 }
		END { print bd }
	'
}

hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }

# randfile FILE BYTES
randfile() { head -c "$2" /dev/urandom >"$1"; }

# ctr_volume NAME KIB DIR [OPTION...]: a KIB KiB brd ramdisk under a plain
# aes-ctr-plain64 dm-crypt mapping /dev/mapper/NAME, keyed from a new
# DIR/key; OPTIONs go to cryptsetup open.  Says FAIL and returns 1 if
# either step fails.
ctr_volume() {
	_cv_name=$1 _cv_kib=$2 _cv_dir=$3
	shift 3
	/sbin/modprobe brd rd_nr=1 rd_size="$_cv_kib" || { fail "modprobe brd"; return 1; }
	randfile "$_cv_dir/key" 32
	cryptsetup open --type plain --cipher aes-ctr-plain64 --key-size 256 \
		"$@" --key-file "$_cv_dir/key" /dev/ram0 "$_cv_name" ||
		{ fail "cryptsetup open"; return 1; }
}

# luks_volume NAME KIB DIR: a LUKS2 volume with cryptsetup's default cipher
# (aes-xts-plain64, 512-bit key) and KIB KiB of data on a brd ramdisk (plus
# the 16 MiB LUKS2 header), opened as /dev/mapper/NAME with a new DIR/key.
# Only the PBKDF cost departs from the defaults (argon2id takes minutes
# under TCG).  Says FAIL and returns 1 if a step fails.
luks_volume() {
	/sbin/modprobe brd rd_nr=1 rd_size=$(($2 + 16384)) || { fail "modprobe brd"; return 1; }
	randfile "$3/key" 32
	cryptsetup luksFormat -q --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file "$3/key" /dev/ram0 || { fail "cryptsetup luksFormat"; return 1; }
	cryptsetup open --key-file "$3/key" /dev/ram0 "$1" ||
		{ fail "cryptsetup open (LUKS2)"; return 1; }
}

# selftests_settled: wait (at most 60 s) until testmgr has a verdict for
# every gpu_aes driver.  Newer kernels run the self-tests after modprobe
# has returned, and their requests would land in whatever a test counts
# next (or on a fake helper's ring).
selftests_settled() {
	_i=0
	while awk '/^driver/ { d = $3 }
		/^selftest/ { if (d ~ /-aes-gpu$/ && $3 == "unknown") bad = 1 }
		END { exit !bad }' /proc/crypto; do
		_i=$((_i + 1))
		[ $_i -le 600 ] || return 1
		sleep 0.1
	done
}

# dispatch_auto: the helper is attached and dispatch is auto, so the
# module routes each request by cost (kmod/dispatch.c): to the ring or, by
# the policy (fallback_policy), to the CPU.
dispatch_auto() { with_helper && [ "$(param dispatch)" = auto ]; }

# expect_routed SNAP RING_COUNTER MIN WHAT: under dispatch=auto, at least
# MIN requests since SNAP went to the ring (RING_COUNTER) or to the CPU by
# the policy or for being under ring_min_bytes, and none to the CPU for
# any other reason (no helper, stalled, full, ...).
expect_routed() {
	delta "$1" "$2"; _er_r=$D
	delta "$1" fallback_policy; _er_p=$D
	delta "$1" fallback_small; _er_s=$D
	delta "$1" fallback_requests; _er_f=$D
	[ $((_er_r + _er_p + _er_s)) -ge "$3" ] && [ "$_er_f" = $((_er_p + _er_s)) ] &&
		return 0
	note "$4: $2 +$_er_r, fallback_policy +$_er_p, fallback_small +$_er_s, fallback_requests +$_er_f (want >= $3 routed, no other fallback)"
	return 1
}

# restart_helper [OPTION...]: stop the running helper and start a new one
# with the cpu backend and OPTIONs (logging where the first one did), on
# the CPUs HELPER_CPUS lists (taskset's list; default: any); wait (at most
# 30 s) until it has attached.  Returns 1 if it did not.
restart_helper() {
	_rh_old=$(pidof gpu-aes-helper)
	_rh_att=$(counter helper_attaches)
	if [ -n "$_rh_old" ]; then
		# shellcheck disable=SC2086 # pidof may name several: each a word
		kill -TERM $_rh_old
		# shellcheck disable=SC2086
		while kill -0 $_rh_old 2>/dev/null; do sleep 0.1; done
	fi
	${HELPER_CPUS:+taskset -c "$HELPER_CPUS"} \
		"$GPU_AES_HELPER_BIN" --backend cpu --device /dev/gpu_aes "$@" \
		2>>"$GPU_AES_HELPER_LOG" &
	_rh_i=0
	until [ "$(counter helper_attaches)" != "$_rh_att" ]; do
		_rh_i=$((_rh_i + 1))
		[ $_rh_i -lt 300 ] || return 1
		sleep 0.1
	done
}

# The test's exit status: 0 when no case failed.
finish() {
	[ "$nfail" = 0 ]
}

# run_c PROG ARG...: run a test program of tests/vm/*.c that prints
# "ok ..."/"not ok ..." per check, "stat ..." lines and indented detail
# lines; its checks become PASS/FAIL lines, its stats and details notes.
run_c() {
	"$@" >"$TMP/run_c.out" 2>&1
	_rc=$?
	sed -n '/^  /p; s/^ok /PASS /p; s/^not ok /FAIL /p; s/^stat /  /p' "$TMP/run_c.out"
	nfail=$((nfail + $(grep -c '^not ok ' "$TMP/run_c.out")))
	if [ $_rc != 0 ] && ! grep -q '^not ok ' "$TMP/run_c.out"; then
		cat "$TMP/run_c.out"
		fail "$1 exited with status $_rc"
	fi
	return $_rc
}

# no_splat: the kernel log has no BUG/WARNING/Oops/... line.
no_splat() {
	dmesg | grep -E 'BUG:|WARNING:|Oops|Call Trace|general protection|UBSAN|KASAN|list_(add|del) corruption|refcount_t:|blocked for more than' && return 1
	return 0
}

# no_d_state: no task is in uninterruptible sleep (field 3 of
# /proc/PID/stat; the command name in field 2 may hold spaces, so the state
# is the first field after the last ')').
# Each one found is noted with its kernel stack, where it waits.
no_d_state() {
	_d=0
	for _s in /proc/[0-9]*/stat; do
		read -r _l <"$_s" 2>/dev/null || continue
		_st=${_l##*) }
		case $_st in
		D\ *)
			note "in D state: $_l"
			sed 's/^/    /' "${_s%/stat}/stack" 2>/dev/null
			_d=$((_d + 1)) ;;
		esac
	done
	[ $_d = 0 ]
}

# running PID: PID exists and has not exited (a zombie has); sets _we_l
# to its /proc/PID/stat line.
running() {
	read -r _we_l 2>/dev/null <"/proc/$1/stat" || return 1
	case ${_we_l##*) } in Z\ *) return 1 ;; esac
}

# wait_exit PID SECONDS: wait (at most SECONDS) for PID to end (or to be
# a zombie) and return its exit status if it is our child (127 if it is
# not).  One still running then is left alone, its state and kernel stack
# noted (the hang is the finding: a bare "wait" would sit until the VM's
# own timeout and say nothing), and 255 is returned.
wait_exit() {
	_we_i=0
	while [ $_we_i -lt $(($2 * 10)) ]; do
		running "$1" || break
		sleep 0.1
		_we_i=$((_we_i + 1))
	done
	if [ $_we_i -ge $(($2 * 10)) ]; then
		_we_st=${_we_l##*) }
		_we_comm=${_we_l#*(}
		note "pid $1 (${_we_comm%)*}) still running after $2 s, state ${_we_st%% *}"
		sed 's/^/    /' "/proc/$1/stack" 2>/dev/null
		return 255
	fi
	wait "$1"
}

# ---- Which queues carry requests --------------------------------------
# A CPU submits to queue (CPU % nr_queues) (uapi/gpu_aes.h).  The real
# helper keeps no per-queue count, so the kernel is asked, through
# tracefs: a kretprobe on gpu_aes_route counts per CPU the requests the
# ring took (it returned -EINPROGRESS or -EBUSY: posted or backlogged on
# that CPU's queue), and a kprobe on gpu_aes_ring_attach counts SETUPs by
# their nr_queues (the third __u32 of struct gpu_aes_setup, its third
# argument).  Histograms only: nothing goes to the trace buffer.
TRACING=/sys/kernel/tracing
_qp_route='hist:keys=common_cpu:vals=hitcount if ret < 0'
_qp_attach='hist:keys=nq:vals=hitcount'

# nr_cpus: CPUs online in the guest.
nr_cpus() { grep -c '^processor' /proc/cpuinfo; }

# helper_queues: the queues of the helper that attached last, from its log
# ("region ... (N queues of ...").
helper_queues() {
	sed -n 's/.*region .*(\([0-9]*\) queues of .*/\1/p' "$GPU_AES_HELPER_LOG" | tail -n 1
}

# queue_probe_start: start counting (again from 0).  Returns 1 (with a
# note) if tracefs or the probes are not there.
queue_probe_start() {
	queue_probe_stop
	{ echo 'r:gpuaes/route gpu_aes_route ret=$retval:s32' >>"$TRACING/kprobe_events" &&
	  echo 'p:gpuaes/attach gpu_aes_ring_attach nq=+8($arg3):u32' >>"$TRACING/kprobe_events" &&
	  echo "$_qp_route" >"$TRACING/events/gpuaes/route/trigger" &&
	  echo "$_qp_attach" >"$TRACING/events/gpuaes/attach/trigger"; } 2>/dev/null ||
		{ note "cannot set the kprobes on gpu_aes_route/gpu_aes_ring_attach"; return 1; }
}

# queue_probe_stop: remove the probes (a test's cleanup calls it too).
queue_probe_stop() {
	[ -e "$TRACING/events/gpuaes/route/trigger" ] &&
		echo "!$_qp_route" >"$TRACING/events/gpuaes/route/trigger" 2>/dev/null
	[ -e "$TRACING/events/gpuaes/attach/trigger" ] &&
		echo "!$_qp_attach" >"$TRACING/events/gpuaes/attach/trigger" 2>/dev/null
	echo '-:gpuaes/route' >>"$TRACING/kprobe_events" 2>/dev/null
	echo '-:gpuaes/attach' >>"$TRACING/kprobe_events" 2>/dev/null
	return 0
}

# _qp_hits EVENT KEY VALUE: the hitcount of KEY == VALUE in EVENT's histogram.
_qp_hits() {
	awk -v k="$2:" -v v="$3" '$1 == "{" && $2 == k && $3 == v && $5 == "hitcount:" { n += $6 }
		END { print n + 0 }' "$TRACING/events/gpuaes/$1/hist" 2>/dev/null || echo 0
}

# ring_on_cpu CPU: requests the ring took on CPU since queue_probe_start.
ring_on_cpu() { _qp_hits route common_cpu "$1"; }

# attaches_with_queues N: SETUPs of N queues since queue_probe_start.
attaches_with_queues() { _qp_hits attach nq "$1"; }

# expect_queues_live NQ WHAT: note the requests the ring took per queue
# (CPU c counted for queue c % NQ) since queue_probe_start, and return 1
# unless every queue that some online CPU maps to took at least one.
expect_queues_live() {
	_ncpu=$(nr_cpus)
	_ok=0
	_q=0
	_line=
	while [ $_q -lt "$1" ]; do
		_n=0
		_c=$_q
		while [ $_c -lt "$_ncpu" ]; do
			_n=$((_n + $(ring_on_cpu $_c)))
			_c=$((_c + $1))
		done
		_line="$_line queue $_q: $_n;"
		[ $_q -ge "$_ncpu" ] || [ $_n -gt 0 ] || _ok=1
		_q=$((_q + 1))
	done
	note "$2: requests taken onto each of $1 queues by CPU ($_ncpu CPUs):$_line"
	return $_ok
}
