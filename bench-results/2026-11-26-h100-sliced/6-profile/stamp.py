import subprocess, sys, time
# runs argv, prefixing each line of its stdout with CLOCK_MONOTONIC
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
for line in p.stdout:
    sys.stdout.write("%.6f %s" % (time.clock_gettime(time.CLOCK_MONOTONIC), line))
    sys.stdout.flush()
sys.exit(p.wait())
