#!/bin/sh
# pack-perf.sh DIR - this machine's perf, the libraries it links and the
# loader that runs them, into DIR, with DIR/perf-wrap to run it: the GPU
# machine has no perf, and its C library is not this one's, so a wrapper
# that only sets LD_LIBRARY_PATH fails there before perf starts (it did:
# 3a867eb:bench-results/2026-12-02-out-host/1-ab, no stage table).  Pack DIR as
# perf/ beside the trees in scratch/pk.tar.xz; device-call.sh's
# stage_table runs $P/perf/perf-wrap.
set -eu
if [ $# != 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
	echo "usage: $0 DIR   (perf, its libraries and perf-wrap into DIR)" >&2
	exit 2
fi
dir=$1
perf=$(command -v perf) || { echo "pack-perf: no perf on PATH" >&2; exit 1; }
loader=$(ldd "$perf" | awk '/ld-linux/ { print $1 }')
[ -n "$loader" ] || { echo "pack-perf: $perf names no loader" >&2; exit 1; }
mkdir -p "$dir/lib"
cp -L "$perf" "$dir/perf"
cp -L "$loader" "$dir/lib/"
ldd "$perf" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
	while read -r lib; do cp -L "$lib" "$dir/lib/"; done
cat > "$dir/perf-wrap" <<WRAP
#!/bin/sh
d=\$(dirname "\$0")
exec "\$d/lib/$(basename "$loader")" --library-path "\$d/lib" "\$d/perf" "\$@"
WRAP
chmod +x "$dir/perf-wrap"
"$dir/perf-wrap" version
