# SPDX-License-Identifier: GPL-2.0-only
#
# vgemini: the one front door.
#
#   make          build everything (QEMU with cray-gemini, kgni.ko, the
#                 selftests, the guest image)
#   make setup    install the Debian packages vgemini needs
#   make check    build, then run every test; ends with "N passed, N failed"
#   make demo     build, boot a 2x2x2 torus, show it, tear it down
#   make bench    the fast-path figures (P1-P5) next to baselines of the
#                 same run (scripts/bench.sh), then Open MPI's ping-pong
#                 over btl/ugni next to btl/tcp (scripts/bench-mpi.sh)
#   make bench-mpi  that MPI part alone, and the protocol sweep read from
#                 the counters
#   make ompi     Open MPI built as for a Cray XE (scripts/build-ompi.sh;
#                 make check and make bench build it too)
#   make bench-scale  P5 for 27- and 64-node tori: boot, memory, idle CPU,
#                 an all-to-all job (about 10 minutes)
#   make soak     DURATION seconds (default 600) of all-to-all uGNI traffic
#                 under link faults and paused nodes (scripts/tests/soak.py)
#   make test-core, make test-lib   host unit tests only, in seconds
#   make fuzz     FUZZ_TIME seconds (default 600) of libFuzzer on the
#                 device core; make fuzz-cov: its line coverage per file
#   make docs     render Documentation/ to build/docs/html (Sphinx, with
#                 the kernel-doc of uapi/); any warning fails it
#   make clean    remove every build output
#
# The front-door targets run `setup` first and then a sub-make, so that
# values found from installed packages (the kernel release) are fresh.

REPO  := $(CURDIR)
BUILD := $(REPO)/build

.PHONY: all setup check demo bench bench-mpi bench-scale soak docs clean
.PHONY: build qemu test-core module kgni-sdk ktest ipogif selftests image firmware ompi

all: setup
	@$(MAKE) --no-print-directory build

check: setup
	@$(MAKE) --no-print-directory build ompi
	@scripts/check.sh

demo: setup
	@$(MAKE) --no-print-directory build
	@scripts/demo.sh

bench: setup
	@$(MAKE) --no-print-directory build ompi
	@scripts/bench.sh
	@scripts/bench-mpi.sh

bench-mpi: setup
	@$(MAKE) --no-print-directory build ompi
	@scripts/bench-mpi.sh

bench-scale: setup
	@$(MAKE) --no-print-directory build
	@scripts/bench-scale.sh

DURATION ?= 600
soak: setup
	@$(MAKE) --no-print-directory build
	@scripts/tests/soak.py --seconds $(DURATION)

setup:
	@scripts/setup.sh

# Sphinx, warnings as errors; kernel-doc from Debian's linux-source tarball
# (scripts/docs.sh).  Needs only the packages of `make setup`.
docs:
	@scripts/docs.sh

# --- what the front door builds (setup must have run) ---------------------

KVER  ?= $(shell scripts/kver.sh)
KDIR  ?= /usr/src/linux-headers-$(KVER)

build: qemu module ktest ipogif selftests lib image core-tests firmware ethhub

qemu:
	@scripts/build-qemu.sh

# Open MPI from Debian's source package, against build/lib's pkg-config
# modules; cached in build/ompi, configured again only when its inputs
# change.
ompi: lib
	@scripts/build-ompi.sh

# kgni.ko, then what out-of-tree kernel clients build against (kgni-sdk).
module:
	@test -n "$(KVER)" || { echo "no linux-headers-amd64: run 'make setup'" >&2; exit 1; }
	@echo "module: kgni.ko for $(KVER)"
	@mkdir -p $(BUILD)
	@$(MAKE) --no-print-directory -C $(KDIR) M=$(REPO) modules >$(BUILD)/module.log 2>&1 || \
		{ cat $(BUILD)/module.log >&2; exit 1; }
	@! grep -i 'warning' $(BUILD)/module.log >&2 || { echo "module: warnings" >&2; exit 1; }
	@$(MAKE) --no-print-directory -s kgni-sdk

selftests:
	@$(MAKE) --no-print-directory -C selftests O=$(BUILD)/selftests

image: module ktest ipogif selftests lib
	@KGNI_KO=$(REPO)/driver/kgni.ko KTEST_KO=$(KTEST_OUT)/kgni_ktest.ko \
		IPOGIF_KO=$(IPOGIF_OUT)/ipogif.ko SELFTESTS_DIR=$(BUILD)/selftests LIB_GUEST=$(LIB_OUT)/guest \
		scripts/build-image.sh

# Host unit tests of the device core, under ASan and UBSan.
CORE_SRC := $(wildcard qemu-device/core/*.c)
# Their TAP harness is testlib/tap.h, shared with the other C tests.
CORE_HDR := $(wildcard qemu-device/core/*.h qemu-device/core/tests/*.h uapi/*.h) \
	testlib/tap.h
CORE_CFLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -Wshadow \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-Iuapi -Iqemu-device/core -Itestlib
CORE_TESTS := $(BUILD)/core/test_core $(BUILD)/core/test_packet \
	$(BUILD)/core/test_fabric $(BUILD)/core/test_nic $(BUILD)/core/test_fma \
	$(BUILD)/core/test_nat $(BUILD)/core/test_cq $(BUILD)/core/test_fault \
	$(BUILD)/core/test_bte $(BUILD)/core/test_bte_xfer

$(BUILD)/core/test_core: $(CORE_SRC) $(CORE_HDR) qemu-device/core/tests/test_core.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) $(CORE_SRC) qemu-device/core/tests/test_core.c -o $@

$(BUILD)/core/test_packet: qemu-device/core/gemini_packet.c $(CORE_HDR) qemu-device/core/tests/test_packet.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) qemu-device/core/gemini_packet.c qemu-device/core/tests/test_packet.c -o $@

# The fabric test routes with the real firmware's tables.
$(BUILD)/core/test_fabric: $(CORE_SRC) $(CORE_HDR) $(FIRMWARE_LIB) $(FIRMWARE_HDR) qemu-device/core/tests/test_fabric.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) -Ifirmware $(CORE_SRC) $(FIRMWARE_LIB) qemu-device/core/tests/test_fabric.c -o $@

# The NIC's target side: translation, completion queues, requests.
$(BUILD)/core/test_nic: $(CORE_SRC) $(CORE_HDR) $(FIRMWARE_LIB) $(FIRMWARE_HDR) qemu-device/core/tests/test_nic.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) -Ifirmware $(CORE_SRC) $(FIRMWARE_LIB) qemu-device/core/tests/test_nic.c -o $@

# The NIC's source side: FMA descriptors, windows, completion.
$(BUILD)/core/test_fma: $(CORE_SRC) $(CORE_HDR) $(FIRMWARE_LIB) $(FIRMWARE_HDR) qemu-device/core/tests/test_fma.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) -Ifirmware $(CORE_SRC) $(FIRMWARE_LIB) qemu-device/core/tests/test_fma.c -o $@

# One block each, linked with only what that block calls: its own file and
# gemini_bus.c (DMA, interrupts, guest errors) or the JSON writer.  The
# fault injector's test plays the port it takes down.
CORE_BLOCK = qemu-device/core/gemini_$(1).c
$(BUILD)/core/test_nat: $(call CORE_BLOCK,nat) $(call CORE_BLOCK,bus) $(CORE_HDR) qemu-device/core/tests/test_nat.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) $(filter %.c,$^) -o $@

$(BUILD)/core/test_cq: $(call CORE_BLOCK,cq) $(call CORE_BLOCK,bus) $(call CORE_BLOCK,json) $(CORE_HDR) qemu-device/core/tests/test_cq.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) $(filter %.c,$^) -o $@

$(BUILD)/core/test_fault: $(call CORE_BLOCK,fault) $(CORE_HDR) qemu-device/core/tests/test_fault.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) $(filter %.c,$^) -o $@

# The BTE sends through the router, so its tests link the whole core.
$(BUILD)/core/test_bte: $(CORE_SRC) $(CORE_HDR) $(FIRMWARE_LIB) $(FIRMWARE_HDR) qemu-device/core/tests/test_bte.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) -Ifirmware $(CORE_SRC) $(FIRMWARE_LIB) qemu-device/core/tests/test_bte.c -o $@

$(BUILD)/core/test_bte_xfer: $(CORE_SRC) $(CORE_HDR) $(FIRMWARE_LIB) $(FIRMWARE_HDR) qemu-device/core/tests/test_bte_xfer.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) -Ifirmware $(CORE_SRC) $(FIRMWARE_LIB) qemu-device/core/tests/test_bte_xfer.c -o $@

# The 4 GiB transfer alone, -O2 without sanitizers (see the test).
$(BUILD)/core/test_bte_4g: $(CORE_SRC) $(CORE_HDR) $(FIRMWARE_LIB) $(FIRMWARE_HDR) qemu-device/core/tests/test_bte_xfer.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -O1 -fsanitize=% -fno-sanitize-recover=%,$(CORE_CFLAGS)) \
		-O2 -DTEST_BTE_4G -Wno-unused-function -Ifirmware $(CORE_SRC) $(FIRMWARE_LIB) \
		qemu-device/core/tests/test_bte_xfer.c -o $@

CORE_TESTS += $(BUILD)/core/test_bte_4g

# What the core costs per 8-byte PUT without QEMU (make bench's CORE
# rows): -O2 without sanitizers, as QEMU builds it.
$(BUILD)/core/bench_core: $(CORE_SRC) $(CORE_HDR) $(FIRMWARE_LIB) $(FIRMWARE_HDR) qemu-device/core/tests/bench_core.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -O1 -fsanitize=% -fno-sanitize-recover=%,$(CORE_CFLAGS)) \
		-O2 -Wno-unused-function -Ifirmware $(CORE_SRC) $(FIRMWARE_LIB) \
		qemu-device/core/tests/bench_core.c -o $@

.PHONY: bench-core
bench-core: $(BUILD)/core/bench_core

core-tests: $(CORE_TESTS) $(BUILD)/core/bench_core

test-core: $(CORE_TESTS)
	@for t in $(CORE_TESTS); do $$t || exit 1; done

# libFuzzer targets of the core (clang): fuzz, fuzz-replay, fuzz-cov.
include qemu-device/core/tests/fuzz.mk

# Routing-table firmware: the vgemini-routes tool and its tests.
include firmware/firmware.mk

# User-space libraries for the guests (PMI); built on the host.
include lib/lib.mk

firmware: $(FIRMWARE_BINS)

# What out-of-tree kernel clients of kgni build against
# (Documentation/kernel-api.rst, "Building a client"): $(KGNI_OUT)/include
# with copies of gni_pub.h, krca_lib.h and rsms/rs_sm_states.h, kgni's
# $(KGNI_OUT)/Module.symvers, and the pkg-config modules cray-gni (its
# Cflags and its variable symvers), cray-krca and lsb-cray-hss beside
# cray-gni-headers in $(LIB_OUT)/pkgconfig.  `make module` makes them.
KGNI_OUT := $(BUILD)/kgni
KGNI_SDK := $(KGNI_OUT)/include/gni_pub.h $(KGNI_OUT)/Module.symvers \
	$(KGNI_OUT)/include/krca_lib.h $(KGNI_OUT)/include/rsms/rs_sm_states.h \
	$(addprefix $(LIB_OUT)/pkgconfig/,cray-gni.pc cray-krca.pc lsb-cray-hss.pc)
kgni-sdk: $(KGNI_SDK)

$(KGNI_OUT)/include/gni_pub.h: $(UGNI_DIR)/gni_pub.h
	@mkdir -p $(@D)
	cp $< $@

$(KGNI_OUT)/include/%.h: $(REPO)/driver/include/%.h
	@mkdir -p $(@D)
	cp $< $@

$(KGNI_OUT)/Module.symvers: $(REPO)/Module.symvers
	@mkdir -p $(@D)
	cp $< $@

$(LIB_OUT)/pkgconfig/%.pc: $(REPO)/driver/%.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(KGNI_OUT)|' -e 's|@VERSION@|$(UGNI_VERSION)|' $< >$@

# $(call kclient-stale,DIR,KO): a client module built before kgni's
# Module.symvers last changed is cleaned, so that it is built again: kbuild
# does not run modpost again for a changed KBUILD_EXTRA_SYMBOLS, and the
# old module would keep kgni's old symbol versions (a change of a structure
# kgni's exports use changes them; the guest's kernel then refuses the
# client: "disagrees about version of symbol").
kclient-stale = if [ -e $(1)/$(2) ] && [ $(KGNI_OUT)/Module.symvers -nt $(1)/$(2) ]; then \
	echo "$(2): kgni's symbol versions changed: built again"; \
	$(MAKE) --no-print-directory -C $(1) KDIR=$(KDIR) clean >/dev/null 2>&1 || \
		rm -f $(1)/$(2) $(1)/*.o $(1)/*.mod.c; fi

# kgni_ktest.ko, the kernel API's test client (selftests/kgni/ktest/), built
# as any client is, through pkg-config, into $(KTEST_OUT); the image carries
# it, kapi_test loads it.
KTEST_OUT := $(BUILD)/ktest
KTEST_SRC := $(addprefix selftests/kgni/ktest/,Kbuild Makefile) \
	$(filter-out %.mod.c,$(wildcard selftests/kgni/ktest/*.[ch]))
ktest: module $(LIB_OUT)/pkgconfig/cray-gni-headers.pc
	@echo "ktest: kgni_ktest.ko for $(KVER)"
	@mkdir -p $(KTEST_OUT)
	@$(call kclient-stale,$(KTEST_OUT),kgni_ktest.ko)
	@rm -f $(KTEST_OUT)/*.[ch]
	@cp -p $(KTEST_SRC) $(KTEST_OUT)/
	@PKG_CONFIG_PATH=$(LIB_OUT)/pkgconfig $(MAKE) --no-print-directory \
		-C $(KTEST_OUT) KDIR=$(KDIR) >$(BUILD)/ktest.log 2>&1 || \
		{ cat $(BUILD)/ktest.log >&2; exit 1; }
	@! grep -i 'warning' $(BUILD)/ktest.log >&2 || { echo "ktest: warnings" >&2; exit 1; }

# ipogif.ko, IP over the fabric (driver/ipogif/, Documentation/ipogif.rst),
# built as any client is, through pkg-config, into $(IPOGIF_OUT); the image
# carries it, guest/init loads it with vgemini.ipogif=1 (vgemini up
# --ipogif).
IPOGIF_OUT := $(BUILD)/ipogif
IPOGIF_SRC := driver/ipogif/Kbuild driver/ipogif/Makefile \
	$(wildcard driver/ipogif/*.[ch])
ipogif: module $(LIB_OUT)/pkgconfig/cray-gni-headers.pc
	@echo "ipogif: ipogif.ko for $(KVER)"
	@mkdir -p $(IPOGIF_OUT)
	@$(call kclient-stale,$(IPOGIF_OUT),ipogif.ko)
	@cp -p $(IPOGIF_SRC) $(IPOGIF_OUT)/
	@PKG_CONFIG_PATH=$(LIB_OUT)/pkgconfig $(MAKE) --no-print-directory \
		-C $(IPOGIF_OUT) KDIR=$(KDIR) >$(BUILD)/ipogif.log 2>&1 || \
		{ cat $(BUILD)/ipogif.log >&2; exit 1; }
	@! grep -i 'warning' $(BUILD)/ipogif.log >&2 || { echo "ipogif: warnings" >&2; exit 1; }

# The Ethernet hub of "vgemini up --net" (a host program; the launcher
# also builds it, with the same flags, when it is missing or stale).
ETHHUB := $(BUILD)/host/vgemini-ethhub
.PHONY: ethhub
ethhub: $(ETHHUB)
$(ETHHUB): scripts/vgemini-ethhub.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -pthread $< -o $@

clean:
	-@test -d "$(KDIR)" && $(MAKE) --no-print-directory -C $(KDIR) M=$(REPO) clean >/dev/null
	rm -rf $(BUILD)
