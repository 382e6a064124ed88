#!/bin/sh
# device-pack.sh - packs a call's result files on the GPU machine into
# $OUT/results.tar.xz, keeping log.txt beside it: the device tool brings
# back at most 8 files from $OUT, and drops the rest without a word.
#
#     timeout 580 sh scratch/CALL/run.sh; sh bench/device-pack.sh
set -u
cd "${OUT:-out}" || exit 1
tar -cJf results.tar.xz --exclude=results.tar.xz -- * &&
	find . -maxdepth 1 -type f ! -name results.tar.xz ! -name log.txt \
		-delete
ls
