#!/bin/sh
# crash-load.sh - the helper is SIGKILLed and restarted at random moments,
# at least KILLS (50) times, while 4 writers/readers (tests/vm/blkverify.c,
# O_DIRECT, 64 KiB requests = 128 sector requests each) write and verify
# distinct regions of an aes-ctr-plain64 dm-crypt volume on brd.  No
# byte may be wrong, no I/O may fail, no task may be left in D state, the
# ring must carry requests again after every restart, and the counters
# must add up.  The helper runs with one queue per CPU (its default; 2 in
# the guest): every restart must attach that many queues, and every queue
# must have carried requests (kprobes, lib.sh queue_probe_start).  Only
# with the helper.
#
# CRASH_VOLUME=luks runs the same on a LUKS2 volume with cryptsetup's
# default aes-xts-plain64 (xts-aes-gpu) instead (crash-load-luks.sh).
. "$(dirname "$0")/lib.sh"

with_helper || { note "no helper: nothing to kill"; exit 0; }

kills=${CRASH_KILLS:-50}
volume=${CRASH_VOLUME:-ctr}
case $volume in
ctr) ring=ring_requests ;;
luks) ring=ring_xts_requests ;;
*) fail "CRASH_VOLUME=$volume: expected ctr or luks"; exit 1 ;;
esac
writers=4
sectors=4096			# per writer: 2 MiB
d=$TMP/crash
mkdir -p "$d"
name=gpuaes-crash
cleanup() {
	queue_probe_stop
	cryptsetup close "$name" 2>/dev/null
	rmmod brd 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT

${volume}_volume "$name" $((writers * sectors / 2)) "$d" || { finish; exit; }
dev=/dev/mapper/$name

pid=$(pidof gpu-aes-helper)
[ -n "$pid" ] || { fail "no helper running"; finish; exit; }
ncpu=$(nr_cpus)
nq=$(helper_queues)
[ "${nq:-0}" -ge 2 ] && [ "$nq" -ge "$ncpu" ] &&
	pass "$volume: the helper serves $nq queues, one per CPU ($ncpu)" ||
	fail "$volume: the helper serves ${nq:-?} queues on $ncpu CPUs: want one per CPU, at least 2"
queue_probe_start || fail "$volume: kprobes for the per-queue evidence"
snap k
attaches=$(counter helper_attaches)
w=0
while [ $w -lt $writers ]; do
	blkverify "$dev" $((w * sectors)) $sectors $w "$d/stop" >"$d/w$w.out" 2>&1 &
	eval "wpid$w=\$!"
	w=$((w + 1))
done

# Kill at a random moment (0..0.3 s after the ring moved), restart, and wait
# until the new helper has attached and the ring has carried requests.
# A killed helper that does not go, or a restart after which the ring
# carries nothing, ends the kills there with the evidence (who waits, and
# where): the later kills would only spend the VM's timeout.
start_helper() {
	"$GPU_AES_HELPER_BIN" --backend cpu --device /dev/gpu_aes \
		2>>"$GPU_AES_HELPER_LOG" &
	pid=$!
}
n=0
reused=0
busy=0
while [ $n -lt $kills ]; do
	sleep "0.$(( RANDOM % 4 ))$(( RANDOM % 10 ))"
	kill -KILL "$pid"
	n=$((n + 1))
	# The first helper is vm-init's child: we can only see it go.
	wait_exit "$pid" 30 2>/dev/null
	if [ $? = 255 ]; then
		fail "$volume: kill $n: the helper (pid $pid) did not exit within 30 s"
		no_d_state
		break
	fi
	start_helper
	i=0
	while [ "$(counter helper_attaches)" -lt $((attaches + n)) ] && [ $i -lt 300 ]; do
		sleep 0.05
		i=$((i + 1))
		running "$pid" && continue
		# A process seen gone (or a zombie) may still have a thread
		# giving the device back: a new helper that found it busy
		# (EXIT_BUSY) is started again.
		wait "$pid"
		hrc=$?
		[ $hrc = 5 ] || { note "restart $n: the helper exited with status $hrc before it attached"; break; }
		busy=$((busy + 1))
		start_helper
	done
	r0=$(counter $ring)
	i=0
	while [ "$(counter $ring)" -le "$r0" ] && [ $i -lt 300 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	if [ "$(counter $ring)" -gt "$r0" ]; then
		reused=$((reused + 1))
		continue
	fi
	note "restart $n: the ring carried nothing within 15 s; attaches $(($(counter helper_attaches) - attaches)) of $n, $ring $(counter $ring), fallback_requests $(counter fallback_requests)"
	no_d_state
	break
done
[ $busy = 0 ] || note "$busy restarted helpers found the device still held by the killed one and were started again"
touch "$d/stop"
ok=1
w=0
while [ $w -lt $writers ]; do
	eval "wait_exit \$wpid$w 120" || ok=0
	w=$((w + 1))
done
cat "$d"/w*.out | sed 's/^/  /'
tot=$(cat "$d"/w*.out | sed -n 's/.*bytes_verified=\([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}')
verr=$(cat "$d"/w*.out | sed -n 's/.*verify_errors=\([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}')
ioerr=$(cat "$d"/w*.out | sed -n 's/.*io_errors=\([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}')
nout=$(cat "$d"/w*.out | grep -c '^blkverify id=')
[ $ok = 1 ] && [ "$nout" = $writers ] && [ "$verr" = 0 ] && [ "$ioerr" = 0 ] && [ "$tot" -gt 0 ] &&
	pass "$volume: $kills helper kills under load: $tot bytes verified, 0 verify errors, 0 I/O errors" ||
	fail "$volume: $kills kills: $nout of $writers writers reported, verify errors $verr, I/O errors $ioerr, $tot bytes verified"
[ $reused = $kills ] && pass "$volume: the ring carried requests again after each of the $kills restarts" ||
	fail "$volume: the ring was used again after only $reused of $kills restarts"
no_d_state && pass "$volume: no task in D state" || fail "$volume: tasks in D state (above)"

delta k helper_attaches; att=$D
delta k recomputed; rec=$D
delta k timeouts; to=$D
delta k late_completions; late=$D
delta k rejected_completions; rej=$D
delta k helper_errors; herr=$D
delta k ring_requests; rr=$D
delta k fallback_requests; fr=$D
note "ring_requests $rr fallback_requests $fr recomputed $rec timeouts $to late $late attaches $att"
[ "$att" = "$kills" ] && pass "$volume: helper_attaches moved by exactly $kills" ||
	fail "$volume: helper_attaches moved by $att, want $kills"
[ "$rec" -gt 0 ] && [ "$rec" -le "$rr" ] &&
	pass "$volume: recomputed $rec (requests in flight at the kills), within ring_requests $rr" ||
	fail "$volume: recomputed $rec, ring_requests $rr"
[ "$late" -le "$to" ] && pass "$volume: late_completions $late <= timeouts $to" ||
	fail "$volume: late_completions $late > timeouts $to"
[ "$rej" = 0 ] && [ "$herr" = 0 ] &&
	pass "$volume: the real helper sent no rejected completion and no error" ||
	fail "$volume: rejected_completions $rej helper_errors $herr"
att_nq=$(attaches_with_queues "${nq:-0}")
[ "$att_nq" = "$kills" ] &&
	pass "$volume: each of the $kills restarted helpers attached ${nq:-?} queues" ||
	fail "$volume: $att_nq of $kills restarts attached ${nq:-?} queues"
expect_queues_live "${nq:-1}" "$volume" &&
	pass "$volume: every one of the ${nq:-1} queues carried requests under the kills" ||
	fail "$volume: not every queue carried requests"
queue_probe_stop
finish
