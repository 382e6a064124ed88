#!/bin/sh
# call 2: same-machine A/B of the GCM changes, profile, correctness
cd "$(dirname "$0")"
O=$OUT
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for b in base pre chunk; do
	echo "== raw $b"
	./gpu-aes-bench-$b --raw --raw-sizes 1073741824:1073741824 --json $O/raw-$b.json > $O/raw-$b.log 2>&1
	grep -E "raw-gpu +(aes-128-(ctr|xts|gcm)|aes-256-gcm|ghash)" $O/raw-$b.log | head -8
done
echo "== ncu gcm-128-enc (chunk)"
ncu --kernel-name regex:Lb1E --launch-skip 44 --launch-count 1 \
	--section SpeedOfLight --section ComputeWorkloadAnalysis \
	--section InstructionStats --section WarpStateStats --section Occupancy \
	--section SchedulerStats --print-details all \
	./gpu-aes-bench-chunk --raw --raw-sizes 268435456:268435456 --seconds 0.00001 > $O/ncu-gcm.txt 2>&1
grep -E "Duration|Issue Slots Busy|Executed Ipc A|Pipe|ALU|FMA|LSU|Stall|Occupancy|Registers" $O/ncu-gcm.txt | head -60
echo "== correctness (chunk)"
./kernel-check 6 2>&1 | tail -1
./check-backend 20 2>&1 | tail -1
compute-sanitizer --tool memcheck --error-exitcode 3 ./kernel-check 1 8192 2>&1 | tail -2
compute-sanitizer --tool racecheck --error-exitcode 3 ./kernel-check 1 8192 2>&1 | tail -2
compute-sanitizer --tool memcheck --error-exitcode 3 ./check-backend 3 2>&1 | tail -2
