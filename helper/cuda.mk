# cuda.mk - the CUDA backend (helper/cuda/), included by helper/Makefile.
#
#   HAVE_CUDA=1 when nvcc is on PATH (CUDA=0 forces it off)
#   CUDA_OBJS / CUDA_LDLIBS / CUDA_CPPFLAGS: see the contract in Makefile
#   make check       also runs the cuda backend's host unit tests (no GPU)
#   make check-gpu   GPU correctness suite: kernel_check (every launch
#                    shape vs OpenSSL), check_backend (the helper path
#                    through the kernel's request path, kring/) and
#                    check_status (the GPUs in the helper's status file);
#                    SKIP without a GPU
#   make gpu-bins    the binaries a GPU machine runs: these three (and
#                    gpu-aes-bench, where ../bench/bench.mk is read too)
#   make portable-check  the portable path's code compiled for sm_75 as
#                    fast as ptxas allows, which refuses any instruction
#                    a Turing lacks (check-bins builds it with nvcc)
#
# The GPU code every binary carries (docs/gpus.md):
#   CUDA_ARCHS=all   (the default: what make install, the packages and
#                    gpu-bins ship) SASS for every architecture CUDA 13
#                    builds for, sm_75 to sm_120, and compute_90 PTX that
#                    the driver JIT-compiles for any later GPU
#   CUDA_ARCHS=ci    what make check builds, where no GPU runs it: the
#                    TMA path's, sm_90 and compute_90 PTX, as before the
#                    portable path (which portable-check compiles)
#   NVCC_GENCODE=... any other set, e.g. the portable path alone as PTX
#                    that the driver JIT-compiles on any GPU, Hopper too:
#                    NVCC_GENCODE='-gencode arch=compute_75,code=compute_75'
#                    BUILD=build-sm75 (a directory of its own)
#
# The runtime is linked statically (-lcudart_static) so binaries carry it.

NVCC ?= nvcc
CUDA_DIR := helper/cuda
CUDA_SRC := cuda
GPUTEST := ../tests/gpu
CUDA_BUILD := $(BUILD)/cuda

ifeq ($(CUDA),0)
HAVE_CUDA := 0
else
HAVE_CUDA := $(if $(shell command -v $(NVCC) 2>/dev/null),1,0)
endif

# The host-only parts are plain C and always unit-tested, with the parts
# of src/ they use (aes_key.c: the one key expansion; xts_ecb.c: the test
# reference's XTS; file_atomic.c: the tuning cache's writer).
CUDA_UNIT := $(CUDA_BUILD)/cuda-unit
CUDA_UNIT_OBJS := $(CUDA_BUILD)/unit_host.o $(CUDA_BUILD)/ref.o \
	$(CUDA_BUILD)/aes_host.o $(CUDA_BUILD)/aes_key.o $(CUDA_BUILD)/xts_ecb.o \
	$(CUDA_BUILD)/tune_cache.o $(CUDA_BUILD)/file_atomic.o \
	$(CUDA_BUILD)/gpu_path.o

$(CUDA_BUILD)/%.o: $(CUDA_SRC)/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) -c -o $@ $<

$(CUDA_BUILD)/aes_key.o $(CUDA_BUILD)/xts_ecb.o $(CUDA_BUILD)/file_atomic.o: \
		$(CUDA_BUILD)/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) -c -o $@ $<

$(CUDA_BUILD)/%.o: $(GPUTEST)/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Isrc $(CFLAGS) -c -o $@ $<

$(CUDA_UNIT): $(CUDA_UNIT_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcrypto -lpthread

# The same tests under ASan+UBSan (the sanitizer sub-make skips cuda.mk).
CUDA_UNIT_ASAN := $(CUDA_BUILD)/cuda-unit-asan
CUDA_UNIT_SRCS := $(GPUTEST)/unit_host.c $(GPUTEST)/ref.c \
	$(CUDA_SRC)/aes_host.c src/aes_key.c src/xts_ecb.c \
	$(CUDA_SRC)/tune_cache.c src/file_atomic.c $(CUDA_SRC)/gpu_path.c
$(CUDA_UNIT_ASAN): $(CUDA_UNIT_SRCS) $(wildcard $(CUDA_SRC)/*.h) \
	$(GPUTEST)/ref.h src/aes_key.h src/xts_ecb.h src/file_atomic.h
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -Isrc -std=c11 -O1 -g \
		-Wall -Wextra -Werror -fsanitize=address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer \
		-o $@ $(CUDA_UNIT_SRCS) -lcrypto -lpthread

.PHONY: cuda-unit-run
cuda-unit-run: $(CUDA_UNIT) $(CUDA_UNIT_ASAN)
	$(CUDA_UNIT)
	$(CUDA_UNIT_ASAN)

# Hook: 'make check' runs these too (prerequisite of the check target).
CUDA_UNIT_TESTS := cuda-unit-run
check: $(CUDA_UNIT_TESTS)
check-bins: $(CUDA_UNIT) $(CUDA_UNIT_ASAN)

ifeq ($(HAVE_CUDA),1)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC)))
NVCCFLAGS ?= -O3
# The portable path's SASS comes from one compute_75 PTX, the TMA path's
# from one compute_90: the code below 9.0 does not differ by
# architecture, and nvcc then runs cicc (most of the build's time) once
# per path, not once per GPU.  compute_90 PTX is the newest code path's;
# newer PTX would be the same code, loadable on fewer GPUs (not on 11.0).
CUDA_SM_PORTABLE := 75 80 86 87 89
CUDA_SM_TMA := 90 100 120
CUDA_ARCHS ?= all
ifeq ($(CUDA_ARCHS),all)
NVCC_GENCODE ?= \
	$(foreach a,$(CUDA_SM_PORTABLE),-gencode arch=compute_75,code=sm_$(a)) \
	$(foreach a,$(CUDA_SM_TMA),-gencode arch=compute_90,code=sm_$(a)) \
	-gencode arch=compute_90,code=compute_90
else ifeq ($(CUDA_ARCHS),ci)
NVCC_GENCODE ?= -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
else
$(error CUDA_ARCHS is '$(CUDA_ARCHS)': all or ci, or set NVCC_GENCODE)
endif
# nvcc compiles for the architectures side by side (0: a thread per CPU)
NVCC_THREADS ?= 0
NVCC_COMMON := -std=c++17 -D_GNU_SOURCE -MMD -MP \
	-Xcompiler -Wall,-Wextra,-Werror,-fno-strict-aliasing
override NVCCFLAGS += $(NVCC_COMMON) $(NVCC_GENCODE) --threads $(NVCC_THREADS)
# The codes the binaries carry, as they report them (kernel_id.c): every
# code= of NVCC_GENCODE ("sm_75 ... compute_90").
comma := ,
CUDA_CODES := $(strip $(subst ],,$(subst [,,$(patsubst code=%,%,$(filter-out \
	arch=% -gencode --generate-code,$(subst $(comma), ,$(NVCC_GENCODE)))))))
# nvcc through ccache where it is installed (NVCC_LAUNCHER= turns that
# off): cicc spends about three minutes on aes_kernel.cu, and make check
# compiles it twice with the same flags, in the tree and for the Debian
# package in a copy of the tree.  The directory stays out of the key
# (CCACHE_NOHASHDIR): nvcc gets relative paths and no -g, and ccache
# writes each .d file for its own object.
NVCC_LAUNCHER ?= $(shell command -v ccache 2>/dev/null)
NVCC_RUN = $(if $(NVCC_LAUNCHER),CCACHE_NOHASHDIR=1 $(NVCC_LAUNCHER)) $(NVCC)

CUDA_OBJS := $(CUDA_BUILD)/aes_host.o $(CUDA_BUILD)/aes_kernel.o \
	$(CUDA_BUILD)/kernel_id.o $(CUDA_BUILD)/cuda_pipeline.o \
	$(CUDA_BUILD)/cuda_keys.o $(CUDA_BUILD)/cuda_tuning.o \
	$(CUDA_BUILD)/tune_cache.o $(CUDA_BUILD)/gpu_path.o
CUDA_CPPFLAGS := -DHAVE_CUDA
CUDA_LDLIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread \
	-lstdc++

# The -gencode list the objects were built with: another rebuilds them.
CUDA_GENCODE_STAMP := $(CUDA_BUILD)/gencode
$(CUDA_GENCODE_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(NVCC_GENCODE)' | cmp -s - $@ || echo '$(NVCC_GENCODE)' >$@
.PHONY: FORCE
FORCE:

$(CUDA_BUILD)/%.o: $(CUDA_SRC)/%.cu $(CUDA_GENCODE_STAMP)
	@mkdir -p $(@D)
	$(NVCC_RUN) $(NVCCFLAGS) -Isrc -c -o $@ $<

$(CUDA_BUILD)/%.o: $(GPUTEST)/%.cu $(CUDA_GENCODE_STAMP)
	@mkdir -p $(@D)
	$(NVCC_RUN) $(NVCCFLAGS) -Isrc -c -o $@ $<

# Unoptimised, so it takes seconds, not the minutes of the real build:
# ptxas checks each instruction against the PTX's target either way.
CUDA_PORTABLE_CHECK := $(CUDA_BUILD)/portable-check.o
$(CUDA_PORTABLE_CHECK): $(CUDA_SRC)/aes_kernel.cu
	@mkdir -p $(@D)
	$(NVCC_RUN) $(NVCC_COMMON) -gencode arch=compute_75,code=sm_75 \
		-Xcicc -O0 -Xptxas -O0 -Isrc -c -o $@ $<

# The kernel build in the tuning cache's key (cuda/cuda_tuning.cu): the
# first 16 hex digits of the sha256 of the device code aes_kernel.o
# carries (its .nv_fatbin section: every cubin and the PTX), so that a
# change to what the GPU runs (source, nvcc, flags) tunes again and a
# rebuild of the same code does not.  nvcc names anonymous namespaces
# after the source's path, so the same tree built in another directory
# hashes differently (one more tuning run, never a stale shape), unless
# ccache hands it the object built elsewhere: the same device code.
OBJCOPY ?= objcopy
$(CUDA_BUILD)/kernel_id.c: $(CUDA_BUILD)/aes_kernel.o
	$(OBJCOPY) -O binary --only-section=.nv_fatbin $< $@.fatbin
	test -s $@.fatbin
	id=$$(sha256sum $@.fatbin | cut -c1-16) && \
	printf '%s\n' '/* Generated by helper/cuda.mk from aes_kernel.o. */' \
		'extern const char gpu_aes_kernel_build_id[];' \
		"const char gpu_aes_kernel_build_id[] = \"$$id\";" \
		'extern const char gpu_aes_kernel_archs[];' \
		'const char gpu_aes_kernel_archs[] = "$(CUDA_CODES)";' >$@.tmp
	rm -f $@.fatbin
	mv $@.tmp $@

$(CUDA_BUILD)/kernel_id.o: $(CUDA_BUILD)/kernel_id.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

KCHECK := $(CUDA_BUILD)/kernel-check
BCHECK := $(CUDA_BUILD)/check-backend
SCHECK := $(CUDA_BUILD)/check-status
GPU_BINS := $(KCHECK) $(BCHECK) $(SCHECK)
# LIB is defined after this file is included: name it here.
HELPER_LIB := $(BUILD)/libgpuaes-helper.a

$(KCHECK): $(CUDA_BUILD)/kernel_check.o $(CUDA_BUILD)/ref.o $(HELPER_LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BCHECK): $(CUDA_BUILD)/check_backend.o $(CUDA_BUILD)/ref.o $(KRING_LIB) \
	$(HELPER_LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(SCHECK): $(CUDA_BUILD)/check_status.o $(HELPER_LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

all: $(GPU_BINS)

.PHONY: gpu-bins check-gpu portable-check
gpu-bins: $(GPU_BINS)
portable-check: $(CUDA_PORTABLE_CHECK)
check-bins: $(CUDA_PORTABLE_CHECK)

CHECK_GPU_ROUNDS ?= 200
check-gpu: $(GPU_BINS)
	@if ! $(KCHECK) --probe; then \
		echo "SKIP: check-gpu: no usable CUDA GPU here"; exit 0; fi; \
	$(KCHECK) 12 && $(BCHECK) $(CHECK_GPU_ROUNDS) && $(SCHECK)

else
.PHONY: check-gpu
check-gpu:
	@echo "SKIP: $@: nvcc not found (CUDA=0 or no CUDA toolkit)"
endif

-include $(wildcard $(CUDA_BUILD)/*.d)
