#!/bin/sh
# call 2: issue 23's four targets for the landed tree (main, e434ae4) in
# one call: three rounds of raw-qd1 (-zc, -word) and raw-gpu at 4 KiB,
# the ring's QD1 at 4 KiB, 16 threads of 4 KiB with the copy bounds and
# the null backend's QD1 (device-call.sh's rounds); bulk; OpenSSL; a
# quick gpu-check first.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
quick_check main
rounds 3 main
bulk_rows main
openssl_rows main
