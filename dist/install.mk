# make install / make uninstall, included by the top-level Makefile.
#
#   make install   [DESTDIR=] [PREFIX=/usr/local]
#   make uninstall [DESTDIR=] [PREFIX=/usr/local]
#
# Installs the module's DKMS source tree, gpu-aes-helper, gpu-aesctl and
# their man pages, the systemd units (the helper's; gpu-aesctl-metrics
# .service and .timer, not enabled), the udev rule and the modules-load.d
# file.  With an
# empty DESTDIR it then acts on this system (dist/host-setup): DKMS
# add/build/install for the running kernel, systemctl enable, module load,
# helper start; uninstall undoes that first and then removes every file.
#
# The files alone, in two parts, are what the Debian packages hold
# (debian/rules): install-dkms-files the module's sources
# (gpu-aes-dkms), install-user-files the rest (gpu-aes).  HELPER_BUILD
# and DISTBUILD name other build directories for the helper and the units.
#
# The unit, rule and modules-load.d file go to the paths Debian 12's own
# packages use (its systemd.pc and udev.pc say /lib/systemd/system and
# /lib/udev), not under PREFIX: bookworm still installs below /lib (the
# merged-/usr moratorium, DEP17), and /lib is /usr/lib there anyway.  Set
# SYSTEMDUNITDIR/UDEVRULESDIR for other distributions.

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' dkms.conf)
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSTEMDUNITDIR ?= /lib/systemd/system
UDEVRULESDIR ?= /lib/udev/rules.d
MODULESLOADDIR ?= /usr/lib/modules-load.d
DKMSSRCDIR = /usr/src/gpu-aes-$(VERSION)
DISTBUILD ?= build/dist

# What DKMS builds from: the module's build inputs and the ABI header.
DKMS_SRCS = dkms.conf kmod/Kbuild kmod/Kconfig kmod/Makefile \
	$(sort $(filter-out %.mod.c,$(wildcard kmod/*.c)) $(wildcard kmod/*.h) \
	$(wildcard uapi/*.h))
UNIT := $(DISTBUILD)/gpu-aes-helper.service
METRICS_UNIT := $(DISTBUILD)/gpu-aesctl-metrics.service

INSTALLED = $(DESTDIR)$(SYSTEMDUNITDIR)/gpu-aes-helper.service \
	$(DESTDIR)$(SYSTEMDUNITDIR)/gpu-aesctl-metrics.service \
	$(DESTDIR)$(SYSTEMDUNITDIR)/gpu-aesctl-metrics.timer \
	$(DESTDIR)$(UDEVRULESDIR)/60-gpu-aes.rules \
	$(DESTDIR)$(MODULESLOADDIR)/gpu-aes.conf \
	$(DESTDIR)$(SBINDIR)/gpu-aes-helper \
	$(DESTDIR)$(SBINDIR)/gpu-aesctl \
	$(DESTDIR)$(MANDIR)/man8/gpu-aes-helper.8 \
	$(DESTDIR)$(MANDIR)/man8/gpu-aesctl.8

# Rebuilt every time: SBINDIR comes from the command line.
.PHONY: $(UNIT) $(METRICS_UNIT) install-files install-dkms-files \
	install-user-files
$(UNIT) $(METRICS_UNIT): $(DISTBUILD)/%: dist/systemd/%.in
	@mkdir -p $(@D)
	sed 's|@SBINDIR@|$(SBINDIR)|g' $< >$@

check-version:
	@test -n '$(VERSION)' || { echo "no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }

install-files: install-dkms-files install-user-files

install-dkms-files: check-version
	for f in $(DKMS_SRCS); do \
		install -D -m 0644 "$$f" '$(DESTDIR)$(DKMSSRCDIR)'/"$$f" || exit 1; \
	done

install-user-files: check-version $(UNIT) $(METRICS_UNIT)
	$(MAKE) -C helper install DESTDIR='$(DESTDIR)' SBINDIR='$(SBINDIR)' \
		MANDIR='$(MANDIR)' $(if $(HELPER_BUILD),BUILD='$(HELPER_BUILD)')
	install -D -m 0644 $(UNIT) \
		'$(DESTDIR)$(SYSTEMDUNITDIR)/gpu-aes-helper.service'
	install -D -m 0644 $(METRICS_UNIT) \
		'$(DESTDIR)$(SYSTEMDUNITDIR)/gpu-aesctl-metrics.service'
	install -D -m 0644 dist/systemd/gpu-aesctl-metrics.timer \
		'$(DESTDIR)$(SYSTEMDUNITDIR)/gpu-aesctl-metrics.timer'
	install -D -m 0644 dist/udev/60-gpu-aes.rules \
		'$(DESTDIR)$(UDEVRULESDIR)/60-gpu-aes.rules'
	install -D -m 0644 dist/modules-load/gpu-aes.conf \
		'$(DESTDIR)$(MODULESLOADDIR)/gpu-aes.conf'

install: install-files
ifeq ($(DESTDIR),)
	dist/host-setup install '$(VERSION)'
endif

uninstall: check-version
ifeq ($(DESTDIR),)
	dist/host-setup remove '$(VERSION)'
endif
	rm -f $(INSTALLED)
	rm -rf '$(DESTDIR)$(DKMSSRCDIR)'
ifeq ($(DESTDIR),)
	dist/host-setup reload '$(VERSION)'
endif

.PHONY: check-version install uninstall
