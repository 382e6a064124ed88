#!/bin/sh
# call 3: helper path at 4 KiB and 16 KiB requests with the new kernel (C).
mkdir -p /tmp/gb && gzip -dc .devbin/gcm/bench-C.gz > /tmp/gb/b && chmod +x /tmp/gb/b
/tmp/gb/b --helper --no-qd1 --req-sizes 4096:16384 --json "$OUT/helper-C.json" > "$OUT/helper-C.log" 2>&1
grep "^helper " "$OUT/helper-C.log"
