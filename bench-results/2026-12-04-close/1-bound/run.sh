#!/bin/sh
# Issue 23's close, one call on the tree that lands (close): a quick
# gpu-check; three rounds of the four targets (device-call.sh's rounds);
# bulk with copy-pipe, the copies and transfers pipelined with no ring
# (bulk's bound); the null backend's bulk (the host path alone); 16 KiB
# and 64 KiB with four times the window (whether the consumers' depth
# bounds bulk); OpenSSL; the stage table.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
quick_check close
rounds 3 close
bulk_rows close
export GPU_AES_BENCH_BACKEND=null
B bulk close "bulk null" --helper --no-qd1 --req-sizes 16384:1048576 \
	--seconds 0.5
unset GPU_AES_BENCH_BACKEND
B bulk close "bulk 16k w1024" --helper --no-qd1 --req-sizes 16384:16384 \
	--window 1024 --queue-data-mib 32 --seconds 0.5
B bulk close "bulk 64k w1024" --helper --no-qd1 --req-sizes 65536:65536 \
	--window 1024 --queue-data-mib 64 --seconds 0.5
bulk_rows close
openssl_rows close
stage_table close
