# gpu-aes top level.  Each part builds in its own directory; this file only
# names the entry points a user or CI calls.
#
#   make              build the helper (and tools) for this machine
#   make kmod         build gpu_aes.ko against KDIR (default: running kernel)
#   make check        every test tier that runs without a GPU (what CI runs),
#                     one after another, then the time each took
#   make check-unit   helper unit tests, plain, under ASan/UBSan and TSan;
#                     the VM boot-again rule (tests/scripts)
#   make check-vm     the module in qemu on Debian 6.1 and 6.12 kernels
#   make check-arm64  arm64: the helper cross-built (cuda objects too),
#                     unit tests under qemu-aarch64 (4K and 64K pages), the
#                     VM suites' arm64 subset on Debian's arm64 6.12 kernel
#                     (qemu-system-aarch64); part of check
#   make check-arm64-64k  the same subset on a 64K-page arm64 kernel built
#                     from linux-source-6.12 (once, cached: 10-25 min)
#   make kunit        KUnit suites on UML under KASAN (scripts/kunit: also
#                     a plain build)
#   make check-gpu    GPU correctness suite (needs an NVIDIA GPU)
#   make gpu-bins     what a GPU machine runs: the GPU checks and
#                     gpu-aes-bench (bench/), in helper/build/
#   make bench        gpu-aes-bench, writes out/bench.{json,png}; every
#                     figure of docs/performance.md: scripts/gpu-bench OUT
#   make lint         checkpatch/W=1/sparse on kmod, cppcheck on helper
#   make demo         boot a VM with the module + helper and show it working
#   make install      DKMS sources, helper, systemd unit, udev rule (DESTDIR=,
#                     PREFIX=/usr/local); with no DESTDIR also DKMS build,
#                     enable and start: see dist/install.mk
#   make uninstall    undo make install
#   make check-install  install/uninstall into a scratch DESTDIR, checked
#   make check-systemd  the installed unit and udev rule under systemd in a
#                     Debian 12 VM on the 6.1 kernel
#   make deb          the Debian packages gpu-aes-dkms and gpu-aes, in
#                     out/deb/ (scripts/make-deb; CUDA=0: no cuda backend)
#   make check-deb    build them (lintian clean), then apt install, upgrade
#                     and purge them in the systemd VM on 6.12 (scripts/vm-deb)

KDIR ?= /lib/modules/$(shell uname -r)/build
# Jobs for the builds that check-unit runs before its tests.
JOBS ?= $(shell nproc)
# The tests build the helper's GPU code for one architecture, not the
# eight it ships with (helper/cuda.mk, docs/gpus.md): no GPU runs it
# there, and the full set takes 20 minutes more on 2 cores.
# CUDA_ARCHS=all on the command line builds what ships.
check check-unit check-install check-deb check-vm check-systemd \
	check-arm64 check-arm64-64k: export CUDA_ARCHS ?= ci

.PHONY: all helper kmod check check-unit check-vm kunit check-gpu gpu-bins \
	bench lint \
	demo clean install uninstall check-install check-systemd deb check-deb \
	check-arm64 check-arm64-64k

all: helper

helper:
	$(MAKE) -C helper

kmod:
	$(MAKE) -C kmod KDIR=$(KDIR)

# What each tier runs once that it ran twice before, and why that loses no
# case: docs/testing.md ("What make check runs once").
CHECK_TIERS := lint check-unit check-install check-deb check-vm check-systemd \
	kunit check-arm64

check:
	@MAKE='$(MAKE)' scripts/check-tiers $(CHECK_TIERS)

check-unit:
	$(MAKE) -C helper -j$(JOBS) check-bins
	$(MAKE) -C helper check
	tests/scripts/test_vm_boot_systemd.sh

check-vm:
	scripts/vm-test

check-arm64:
	$(MAKE) -C helper arm64 arm64-check
	$(MAKE) -C bench bench-arm64
	scripts/vm-test --arch arm64

# Not in check: the kernel build alone takes 10-25 minutes on 2 cores.
check-arm64-64k:
	scripts/vm-test --arch arm64 --kernel 64k

# KASAN's kernel has every option of the plain one and runs the same
# cases; `scripts/kunit` alone runs both.
kunit:
	scripts/kunit kasan

check-gpu:
	$(MAKE) -C helper check-gpu

gpu-bins:
	$(MAKE) -C bench gpu-bins

bench:
	$(MAKE) -C bench bench

lint:
	scripts/lint

demo:
	scripts/demo

check-install:
	scripts/check-install

# On 6.1, Debian 12's own kernel; check-deb boots 6.12 under systemd with
# the same unit, udev rule and DKMS tree, and unloads and reloads the
# module there.  What this guest checks beyond that (the metrics service's
# sandbox, kill -9, gpu-aesctl under the unit) is systemd's and ours, not
# the kernel's.  scripts/vm-systemd 6.12 runs it on 6.12.
check-systemd:
	scripts/vm-systemd 6.1

deb:
	scripts/make-deb

# The unit tests ran in check-unit (nocheck); the newer version, for the
# upgrade, needs no cuda backend.  One kernel, 6.12: install, upgrade (its
# DKMS build is in the guest, under TCG, where it takes minutes) and
# purge; 6.1 boots the installed unit in check-systemd.
check-deb:
	DEB_BUILD_OPTIONS=nocheck scripts/make-deb --lintian
	CUDA=0 DEB_BUILD_OPTIONS=nocheck scripts/make-deb --out out/deb/new \
		--version $(VERSION)+vmtest1
	scripts/vm-deb --upgrade 6.12

include dist/install.mk

clean:
	$(MAKE) -C helper clean
	$(MAKE) -C kmod clean KDIR=$(KDIR) || true
