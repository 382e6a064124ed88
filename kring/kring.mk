# kring/kring.mk - the kernel's request path built in userspace, included
# by helper/Makefile (paths relative to helper/).
#
#   $(KRING_LIB)   libkring.a: kmod/ring.c keys.c job.c alg.c stats.c,
#                  unchanged, against kshim.h; kring.c (the request type)
#                  and kring_host.c (the helper in-process); kshim.c
#
# The kmod/ files and kring.c see only kshim.h (force-included) and, for
# each <linux/...> or <crypto/...> header they include, an empty stub made
# here from KRING_STUBS: a kmod/ file that includes a header not listed
# fails to build, which is the cue to fake what it needs in kshim.h.
# <linux/types.h> and <linux/ioctl.h> are the system's uapi headers.

KRING_DIR := ../kring
KMOD_DIR := ../kmod
KRING_BUILD := $(BUILD)/kring
KRING_LIB := $(KRING_BUILD)/libkring.a
KRING_STUB_DIR := $(KRING_BUILD)/stubs

KRING_KMOD := ring queue backlog replay keys job alg stats dispatch policy cost estimates
KRING_STUBS := asm/barrier.h linux/atomic.h linux/bitmap.h linux/bitops.h \
	linux/bottom_half.h linux/cache.h linux/cpumask.h linux/crypto.h \
	linux/jiffies.h linux/kernel.h linux/list.h linux/lockdep.h \
	linux/math64.h linux/mm.h linux/module.h linux/mutex.h linux/percpu.h \
	linux/scatterlist.h linux/sched.h linux/slab.h linux/smp.h \
	linux/spinlock.h \
	linux/string.h linux/sysfs.h linux/wait.h linux/wait_bit.h \
	linux/workqueue.h \
	linux/sizes.h linux/tick.h linux/timekeeping.h \
	crypto/aes.h crypto/algapi.h crypto/gcm.h

# The kernel's W=1 warning set, as far as it applies to this code.
KRING_KCFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers -Wmissing-prototypes \
	-Wold-style-definition -fno-strict-aliasing \
	-include $(KRING_DIR)/kshim.h -I$(KRING_STUB_DIR) -I$(KMOD_DIR) \
	-I../uapi

KRING_CFLAGS_BASE = $(filter-out -std=c11 $(WARN),$(CFLAGS))

KRING_KOBJS := $(KRING_KMOD:%=$(KRING_BUILD)/kmod_%.o) $(KRING_BUILD)/kring.o
KRING_OBJS := $(KRING_KOBJS) $(KRING_BUILD)/kshim.o \
	$(KRING_BUILD)/kring_host.o

$(KRING_STUB_DIR)/.stamp: $(KRING_DIR)/kring.mk
	@mkdir -p $(KRING_STUB_DIR)/asm $(KRING_STUB_DIR)/linux \
		$(KRING_STUB_DIR)/crypto
	@for h in $(KRING_STUBS); do : >$(KRING_STUB_DIR)/$$h; done
	@touch $@

$(KRING_BUILD)/kmod_%.o: $(KMOD_DIR)/%.c $(KRING_STUB_DIR)/.stamp
	$(CC) -D_GNU_SOURCE -MMD -MP $(KRING_KCFLAGS) $(KRING_CFLAGS_BASE) -c -o $@ $<

$(KRING_BUILD)/kring.o: $(KRING_DIR)/kring.c $(KRING_STUB_DIR)/.stamp
	$(CC) -D_GNU_SOURCE -MMD -MP $(KRING_KCFLAGS) $(KRING_CFLAGS_BASE) -c -o $@ $<

$(KRING_BUILD)/kshim.o: $(KRING_DIR)/kshim.c $(KRING_STUB_DIR)/.stamp
	$(CC) -D_GNU_SOURCE -MMD -MP $(KRING_CFLAGS_BASE) -std=gnu11 -c -o $@ $<

$(KRING_BUILD)/kring_host.o: $(KRING_DIR)/kring_host.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(KRING_LIB): $(KRING_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

-include $(wildcard $(KRING_BUILD)/*.d)
