# bench/bench.mk - gpu-aes-bench (helper/bench/), included by helper/Makefile
# after cuda.mk and after LIB is defined: the benchmark links against the
# helper library and runs the cuda backend's kernel directly, so it is
# built only with the cuda backend (HAVE_CUDA=1).
#
#   make             also builds build/gpu-aes-bench
#   make gpu-bins    also builds it (with cuda.mk's GPU test binaries)
#   make bench       gpu-aes-bench -> ../out/bench.json and bench.png
#
# Its parts include report.h and bench.h, which include nothing of theirs:
# main runs the measurements (raw.cu, pcie.cu, cpu.c, helper_path.c),
# they report rows through report.c, and nothing includes back.

BENCH_SRC := bench
BENCH_BUILD := $(BUILD)/bench
BENCH := $(BUILD)/gpu-aes-bench

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

all gpu-bins: $(BENCH)

.PHONY: bench
BENCH_ARGS ?=
bench: $(BENCH)
	@mkdir -p ../out
	$(BENCH) --json ../out/bench.json $(BENCH_ARGS)
	python3 $(BENCH_SRC)/plot.py ../out/bench.json ../out/bench.png

-include $(wildcard $(BENCH_BUILD)/*.d)
else
.PHONY: bench
bench:
	@echo "SKIP: $@: nvcc not found (CUDA=0 or no CUDA toolkit)"
endif
