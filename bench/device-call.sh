# shellcheck shell=sh
# device-call.sh - what an A/B call's run.sh does first on the GPU machine,
# sourced from the repository root:
#
#     . bench/device-call.sh
#
# The run.sh and the pack live in scratch/ (untracked, so they travel to
# the GPU machine and never into a commit); what comes back is read with
# results_summary.py and paired_rounds.py, and its figures go to
# docs/performance.md and the commit message, not into the tree.
#
# Unpacks scratch/pk.tar.xz (one folder per tree: gpu-aes-bench,
# cuda/kernel-check, cuda/check-backend) into $P, writes the GPU's name
# and driver to $O/device.txt ($O is the device tool's $OUT), and gives
#   log MESSAGE...            a line in $O/log.txt, seconds since the start
#   B FILE TREE TAG ARGS...   gpu-aes-bench of TREE with ARGS (the fixed
#                             launch shape 1 512 4 1), its rows up to the
#                             summary appended to $O/FILE.txt under
#                             "### TREE TAG", its exit status logged
#   order R TREE...           the TREEs, reversed when round R is even
#   load R LOAD TREE          4 KiB requests of TREE at LOAD, tagged
#                             "R LOAD": t16 (16 threads, deep), t16wW (16
#                             threads at window W, mid) or tN (N threads,
#                             mid)
#   rounds N TREE...          N rounds of TREEs in order: raw-qd1 (-zc,
#                             -word) and raw-gpu at 4 KiB (raw), QD1 at
#                             4 KiB (qd1), load t16; then the null
#                             backend's QD1 with the first TREE (qd1)
#   quick_check TREE          scripts/gpu-check of TREE, 10 rounds, no
#                             sanitizers ($O/gpu-check-quick.txt); a
#                             failure ends the call (exit 1)
#   openssl_rows TREE         OpenSSL at 4 KiB on this host, as it is and
#                             with AES-NI and VAES masked (openssl)
#   stage_table TREE          scripts/gpu-bench-stages of TREE with $P/perf:
#                             $O/stages.txt and the benches it folded
#   bulk_rows TREE...         16 KiB-1 MiB requests on 16 threads (bulk)
# bench/results_summary.py reads the files B writes, and
# bench/paired_rounds.py sets two trees' rounds side by side.
# The device tool brings back at most 8 files: run
# bench/device-pack.sh after run.sh to get them all in one.
set -u
O=${OUT:-out}
export LC_ALL=C
P=/tmp/pk
mkdir -p "$P" && tar -C "$P" -xJf scratch/pk.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/device.txt" 2>&1
t0=$(date +%s)
log() { echo "$* $(( $(date +%s) - t0 )) s" >> "$O/log.txt"; }
B() {	# file tree tag args...
	f=$1 v=$2 tag=$3
	shift 3
	echo "### $v $tag" >> "$O/$f.txt"
	GPU_AES_CUDA_SHAPE="1 512 4 1" timeout 90 "$P/$v/gpu-aes-bench" "$@" \
		--json /tmp/j.json > /tmp/b.txt 2>&1
	rc=$?
	sed -n '/^# summary/q;p' /tmp/b.txt >> "$O/$f.txt"
	log "$f $v $tag rc=$rc"
}
order() {	# round trees... (call it in $(...): it sets even, o and t)
	even=$(($1 % 2 == 0)) o=
	shift
	for t in "$@"; do
		if [ "$even" = 1 ]; then o="$t $o"; else o="$o $t"; fi
	done
	# shellcheck disable=SC2086 # the words, one space apart
	echo $o
}
load() {	# round load tree
	case $2 in
	t16) B deep "$3" "$1 t16" --helper --no-qd1 --req-sizes 4096:4096 \
		--seconds 0.5 ;;
	t16w*) B mid "$3" "$1 $2" --helper --no-qd1 --req-sizes 4096:4096 \
		--window "${2#t16w}" --seconds 0.5 ;;
	t*) B mid "$3" "$1 $2" --helper --no-qd1 --req-sizes 4096:4096 \
		--threads "${2#t}" --seconds 0.5 ;;
	esac
}
rounds() {	# n trees...
	n=$1 r=1
	shift
	while [ "$r" -le "$n" ]; do
		for v in $(order "$r" "$@"); do
			B raw "$v" "$r raw" --raw --raw-sizes 4096:4096 --seconds 0.3
			B qd1 "$v" "$r qd1" --helper --req-sizes 4096:4096 \
				--threads 1 --window 1 --seconds 0.5
			load "$r" t16 "$v"
		done
		export GPU_AES_BENCH_BACKEND=null
		B qd1 "$1" "$r null" --helper --req-sizes 4096:4096 --threads 1 \
			--window 1 --seconds 0.5
		unset GPU_AES_BENCH_BACKEND
		r=$((r + 1))
	done
}
quick_check() {	# tree
	BIN=$P/$1 ROUNDS=10 SANITIZE=0 timeout 100 scripts/gpu-check /tmp/chk \
		> "$O/gpu-check-quick.txt" 2>&1
	qc=$?
	log "gpu-check quick rc=$qc"
	[ $qc = 0 ] || exit 1
}
openssl_rows() {	# tree
	B openssl "$1" "cpu" --cpu --req-sizes 4096:4096 --seconds 0.5
	export OPENSSL_ia32cap='~0x200000200000000'
	B openssl "$1" "cpu-noaes" --cpu --req-sizes 4096:4096 --seconds 0.5
	unset OPENSSL_ia32cap
}
stage_table() {	# tree
	GPU_AES_CUDA_SHAPE="1 512 4 1" STACK=16384 FREQ=99 BIN=$P/$1 \
		PERF=$P/perf/perf-wrap timeout 150 scripts/gpu-bench-stages \
		/tmp/st > "$O/stages.txt" 2>&1
	log "stages rc=$?"
	cp /tmp/st/stages-*-bench.txt "$O/" 2>/dev/null
}
bulk_rows() {	# trees...
	for v in "$@"; do
		B bulk "$v" "bulk" --helper --no-qd1 \
			--req-sizes 16384:1048576 --seconds 0.5
	done
}
