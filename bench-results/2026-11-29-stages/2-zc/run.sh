#!/bin/sh
# call 2: the same build as call 1; does a zero-copy batch of many small
# requests take the helper core below its cap?  In call 1 the core spent
# 0.17-0.20 us per 4 KiB request at 4.6-5.3 M/s on 16 threads, 90-96 %
# of a CPU; 0.04 of it on the copy engines' runs (copy_runs(), the
# runtime's batched copies), which a zero-copy batch does not make.
# GPU_AES_CUDA_ZC_MAX=8 MiB (default 256 KiB) against the default, four
# rounds of 16 threads of 4 KiB alternated, then 16 KiB (its batches of
# ~5 MiB go zero-copy too) and 64 KiB once each.
# shellcheck source=helper/bench/device-call.sh
. helper/bench/device-call.sh
for r in 1 2 3 4; do
	order="dflt zc8"
	[ $((r % 2)) = 0 ] && order="zc8 dflt"
	for v in $order; do
		case $v in
		zc8) export GPU_AES_CUDA_ZC_MAX=8388608 ;;
		*) unset GPU_AES_CUDA_ZC_MAX ;;
		esac
		B deep main "$r t16 $v" --helper --no-qd1 \
			--req-sizes 4096:4096 --seconds 0.5
	done
done
for v in dflt zc8; do
	case $v in
	zc8) export GPU_AES_CUDA_ZC_MAX=8388608 ;;
	*) unset GPU_AES_CUDA_ZC_MAX ;;
	esac
	B bulk main "bulk $v" --helper --no-qd1 --req-sizes 16384:65536 \
		--seconds 0.5
done
unset GPU_AES_CUDA_ZC_MAX
