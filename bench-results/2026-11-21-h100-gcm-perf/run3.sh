#!/bin/sh
# call 3: balanced GCM chunks; where the GCM kernel's time goes (ncu)
cd "$(dirname "$0")"
O=$OUT
mkdir -p out
./gpu-aes-bench-bal --raw --raw-sizes 1073741824:1073741824 --json $O/raw-bal.json > $O/raw-bal.log 2>&1
grep -E "raw-gpu +(aes-128-(ctr|xts|gcm)|aes-256-gcm|ghash)" $O/raw-bal.log | head -8
M='regex:^sm__pipe_.*_cycles_active.avg.pct_of_peak_sustained_active$'
M2='regex:^sm__inst_executed_pipe_[a-z_]*.sum$'
for s in 0:xts 44:gcm 88:ghash; do
	ncu --kernel-name-base mangled --kernel-name regex:Lb1E \
		--launch-skip ${s%%:*} --launch-count 1 \
		--section SpeedOfLight --section ComputeWorkloadAnalysis \
		--section InstructionStats --section WarpStateStats \
		--section Occupancy --section SchedulerStats \
		--metrics "$M,$M2,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum" \
		--print-details all \
		./gpu-aes-bench-bal --raw --raw-sizes 1073741824:1073741824 \
		--seconds 0.00001 --json out/x.json > $O/ncu-${s#*:}.txt 2>&1
	echo "== ncu ${s#*:}"
	grep -E "sm__pipe_(alu|fma|fmaheavy|shared|lsu)|issue_active|inst_executed.sum|pipe_(alu|fma|lsu|fmaheavy|uniform).sum|Duration|Achieved Occ|Stall|No Eligible|ERROR" $O/ncu-${s#*:}.txt | head -30
done
