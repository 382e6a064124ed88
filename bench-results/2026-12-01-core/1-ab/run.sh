#!/bin/sh
# call 1: the helper core's diet against the landed tree.  The stage
# table of 2026-11-29 had the core (the one thread every batch passes) at
# 0.17-0.20 us per 4 KiB request and 90-96 % of a CPU at 4.6-5.3 M/s on
# 16 threads: it caps requests/s.  `new` prefetches the SQ entries it
# takes (their misses were most of "take batch, check sqes", 0.043 us),
# reuses the copy runs' vector, loads the counter with two byte swaps and
# checks a segment's key inline.  Prediction: the core 0.13-0.16 us per
# request, 16 threads of 4 KiB +10-20 % requests/s (gcm past 5 M) unless
# another bound shows (then the core well under 90 % busy); QD1 and the
# other threads unchanged.  A quick gpu-check of `new` first; four
# rounds of both trees (device-call.sh's rounds); where `new`'s core
# goes (gpu-bench-stages, cuda and null); 16 KiB-1 MiB and OpenSSL once.
# (quick_check, openssl_rows, stage_table and bulk_rows were written out
# here when it ran; the functions are the same lines.)
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
quick_check new
rounds 4 main new
stage_table new
bulk_rows main new
openssl_rows main
