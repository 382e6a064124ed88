#!/bin/sh
# call 1: can the slots a 4 KiB stream walks stay in the host's cache?
# The stage tables of the sixteenth pass (2026-12-02-out-host/2-max) put
# 0.44-0.48 us of a 4 KiB request in the copy in (streaming stores, x86),
# 0.32 in the lock after it (those stores draining before the sqe is
# published) and 0.65-0.74 in the copy out, against a data area of 16 MiB
# per queue (the bench's, 256 MiB on 16 queues) that the copies walk as a
# ring: every slot is a line miss both ways.  The machine's L3 is 300 MiB;
# 16 threads keep 256 x 4 KiB each in flight, 16 MiB in all.  With 2 MiB
# per queue (32 MiB in all) the slots come back before they leave the
# cache, and a copy in with ordinary stores (`tc`: temporal.patch, the
# generic path's sg_pcopy_to_buffer() on x86 too, no wmb()) neither reads
# its lines from memory nor waits for them to drain.  Prediction: `tc2`
# host CPU per request -0.4 to -0.6 us against `main` (copy in -0.2, the
# lock -0.25, the copy out -0.1 if the GPU's writes land in the cache),
# requests/s up where the host bounds them; `main2` (streaming stores,
# small area) about `main` (the copy in bypasses the cache anyway; the
# copy out may gain); `tc` (ordinary stores, 16 MiB) worse than `main`
# (the third pass measured it: each store reads its line first).  4 MiB
# per queue is gpu-aes-helper's default (`main4`, `tc4`).
# Trees: main e434ae4 (bench --queue-data-mib), tc = main + temporal.patch;
# mainN / tcN: the same binaries run with --queue-data-mib N.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
for v in main tc; do
	for q in 4 2; do
		mkdir -p "$P/$v$q"
		printf '#!/bin/sh\nexec %s/%s/gpu-aes-bench "$@" --queue-data-mib %s\n' \
			"$P" "$v" "$q" > "$P/$v$q/gpu-aes-bench"
		chmod +x "$P/$v$q/gpu-aes-bench"
	done
done
BIN=$P/tc ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
	> "$O/gpu-check-quick.txt" 2>&1
log "gpu-check quick tc rc=$?"
for r in 1 2 3 4 5; do
	for v in $(order "$r" main tc2 main2 tc4 main4 tc); do
		load "$r" t16 "$v"
	done
done
for r in 1 2; do
	for v in $(order "$r" main tc2 main4 tc4); do
		load "$r" t4 "$v"
	done
done
for v in tc2 main; do
	stage_table "$v"
	mv "$O/stages.txt" "$O/stages-$v.txt"
	for f in "$O"/stages-cuda-bench.txt "$O"/stages-null-bench.txt; do
		[ -e "$f" ] && mv "$f" "${f%.txt}-$v.txt"
	done
done
bulk_rows main tc
openssl_rows main
