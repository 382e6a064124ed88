# bench/bench.mk - gpu-aes-bench's rules, read after helper/Makefile in
# helper/ (bench/Makefile runs `make -C ../helper -f Makefile -f
# ../bench/bench.mk`), as an external module's Kbuild is read by the
# kernel's Makefile: the benchmark links the helper's library and kring's
# and runs the cuda backend's kernels, so it is built with their flags,
# into the helper's BUILD, and helper/ names nothing of it.  Built only
# with the cuda backend (HAVE_CUDA=1).
#
#   bench-bin    $(BUILD)/gpu-aes-bench
#   afalg-speed  $(BUILD)/afalg-speed (AF_ALG, the kernel's own drivers)
#   bench-backlog  $(BUILD)/kring-backlog, run: a reap's admission cost
#   gpu-bins     also builds both (with cuda.mk's GPU test binaries)
#   bench        gpu-aes-bench -> ../out/bench.json and bench.png
#   bench-arm64  its objects cross-compiled for aarch64, not linked (as
#                helper/Makefile's arm64 does for the helper's)
#
# Its parts include report.h and bench.h, which include nothing of theirs:
# main runs the measurements (raw.cu, pcie.cu, cpu.c, helper_path.c),
# they report rows through report.c, and nothing includes back.

BENCH_SRC := ../bench
BENCH_BUILD := $(BUILD)/bench
BENCH := $(BUILD)/gpu-aes-bench
# The running kernel's own AES drivers through AF_ALG, no GPU needed
# (scripts/gpu-bench-cpu-drivers).
AFALG := $(BUILD)/afalg-speed

$(AFALG): $(BENCH_SRC)/afalg_speed.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

.PHONY: afalg-speed
afalg-speed: $(AFALG)
gpu-bins: $(AFALG)

# What a reap's admission costs with 1,000 to 50,000 requests backlogged:
# the kernel's ring (kring) alone, no GPU needed.
KRING_BACKLOG := $(BUILD)/kring-backlog

$(BENCH_BUILD)/kring_backlog.o: $(BENCH_SRC)/kring_backlog.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) -c -o $@ $<

$(KRING_BACKLOG): $(BENCH_BUILD)/kring_backlog.o $(KRING_LIB) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: bench-backlog
bench-backlog: $(KRING_BACKLOG)
	$(KRING_BACKLOG)

.PHONY: bench-bin bench bench-objs bench-arm64
ifeq ($(HAVE_CUDA),1)
BENCH_OBJS := $(addprefix $(BENCH_BUILD)/,main.o report.o raw.o pcie.o cpu.o \
	helper_path.o)

$(BENCH_BUILD)/%.o: $(BENCH_SRC)/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) -c -o $@ $<

$(BENCH_BUILD)/%.o: $(BENCH_SRC)/%.cu
	@mkdir -p $(@D)
	$(NVCC_RUN) $(NVCCFLAGS) -Isrc -c -o $@ $<

$(BENCH): $(BENCH_OBJS) $(KRING_LIB) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench-bin gpu-bins: $(BENCH)
bench-objs: $(BENCH_OBJS)

BENCH_ARGS ?=
bench: $(BENCH)
	@mkdir -p ../out
	$(BENCH) --json ../out/bench.json $(BENCH_ARGS)
	python3 $(BENCH_SRC)/plot.py ../out/bench.json ../out/bench.png

bench-arm64:
	+$(ARM64_CUDA_MAKE) -f Makefile -f $(BENCH_SRC)/bench.mk bench-objs

-include $(wildcard $(BENCH_BUILD)/*.d)
else
bench-bin bench bench-objs:
	@echo "SKIP: $@: nvcc not found (CUDA=0 or no CUDA toolkit)"
bench-arm64:
	@echo "bench-arm64: nvcc not found: gpu-aes-bench's objects are not cross-compiled"
endif
