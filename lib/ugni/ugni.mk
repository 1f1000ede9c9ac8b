# SPDX-License-Identifier: GPL-2.0-only
#
# libugni, the uGNI API (gni_pub.h), with the pkg-config modules cray-ugni
# and cray-gni-headers, built on gnicore (lib/gnicore/, the engine it
# shares with kgni.ko: same flags, hidden like the rest).  Included by
# lib/lib.mk, which sets LIB_OUT and LIB_DIR.  Everything it defines is
# named UGNI_* or GNICORE_*, or is a target under $(LIB_OUT).
#
#   $(LIB_OUT)/libugni.so.1.0.0   shared library (soname libugni.so.1,
#                                 symbol versions from lib/ugni/libugni.map)
#                                 with the links libugni.so.1 and libugni.so
#   $(LIB_OUT)/libugni.a          static library
#   $(LIB_OUT)/include/gni_pub.h  the header programs include
#   $(LIB_OUT)/pkgconfig/cray-ugni.pc, cray-gni-headers.pc
#   $(LIB_OUT)/tests/test_ugni    host unit test (TAP, testlib/tap.h),
#                                 library and test under ASan+UBSan; the
#                                 library's open, ioctl and mmap of
#                                 /dev/kgniN reach a fake kernel
#                                 (tests/fake_kgni.c, through --wrap)
#   $(LIB_OUT)/tests/test_gnicore gnicore's unit test (lib/gnicore/tests/,
#                                 TAP), under ASan+UBSan
#
# Host tests: lib/ugni/tests/host-test.py $(LIB_OUT), run by test-lib.

UGNI_DIR := $(LIB_DIR)/ugni
GNICORE_DIR := $(LIB_DIR)/gnicore
UGNI_VERSION := 1.0.0
UGNI_SONAME := libugni.so.1
GNICORE_HDR := $(wildcard $(GNICORE_DIR)/*.h) $(REPO)/uapi/gni_wire.h
UGNI_HDR := $(UGNI_DIR)/gni_pub.h $(UGNI_DIR)/ugni_priv.h \
	$(UGNI_DIR)/ugni_msgq.h $(REPO)/uapi/ugni_msgq_wire.h \
	$(REPO)/uapi/gemini_nic.h $(REPO)/uapi/gemini_hw.h \
	$(REPO)/uapi/kgni_ioctl.h $(REPO)/uapi/kgni_ioctl_diag.h \
	$(REPO)/uapi/kgni_ioctl_dp.h $(REPO)/uapi/kgni_ioctl_dgram.h \
	$(REPO)/uapi/gemini_mh.h $(GNICORE_HDR)
GNICORE_SRC := $(GNICORE_DIR)/gnicore_req.c $(GNICORE_DIR)/gnicore_fma.c \
	$(GNICORE_DIR)/gnicore_cq.c $(GNICORE_DIR)/gnicore_smsg.c
UGNI_SRC := $(UGNI_DIR)/ugni_info.c $(UGNI_DIR)/ugni_nic.c \
	$(UGNI_DIR)/ugni_cq.c $(UGNI_DIR)/ugni_mem.c $(UGNI_DIR)/ugni_post.c \
	$(UGNI_DIR)/ugni_dgram.c $(UGNI_DIR)/ugni_smsg.c $(UGNI_DIR)/ugni_msgq.c \
	$(UGNI_DIR)/ugni_msgq_io.c $(UGNI_DIR)/ugni_err.c $(UGNI_DIR)/ugni_job.c \
	$(UGNI_DIR)/ugni_stubs.c
UGNI_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow -pedantic \
	-fPIC -fvisibility=hidden -I$(UGNI_DIR) -I$(GNICORE_DIR) \
	-I$(REPO)/uapi -DUGNI_BUILD_STRING='"vgemini libugni $(UGNI_VERSION)"'
UGNI_SAN := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
UGNI_OBJ := $(patsubst $(UGNI_DIR)/%.c,$(LIB_OUT)/obj/ugni/%.o,$(UGNI_SRC)) \
	$(patsubst $(GNICORE_DIR)/%.c,$(LIB_OUT)/obj/gnicore/%.o,$(GNICORE_SRC))

UGNI_SO := $(LIB_OUT)/libugni.so.$(UGNI_VERSION)
UGNI_A := $(LIB_OUT)/libugni.a
UGNI_INC := $(LIB_OUT)/include/gni_pub.h
UGNI_PC := $(LIB_OUT)/pkgconfig/cray-ugni.pc \
	$(LIB_OUT)/pkgconfig/cray-gni-headers.pc
UGNI_TEST := $(LIB_OUT)/tests/test_ugni
GNICORE_TEST := $(LIB_OUT)/tests/test_gnicore
UGNI_TARGETS := $(UGNI_SO) $(LIB_OUT)/libugni.so.1 $(LIB_OUT)/libugni.so \
	$(UGNI_A) $(UGNI_INC) $(UGNI_PC) $(UGNI_TEST) $(GNICORE_TEST)

$(LIB_OUT)/obj/ugni/%.o: $(UGNI_DIR)/%.c $(UGNI_HDR)
	@mkdir -p $(@D)
	$(CC) $(UGNI_CFLAGS) -c $< -o $@

$(LIB_OUT)/obj/gnicore/%.o: $(GNICORE_DIR)/%.c $(UGNI_HDR)
	@mkdir -p $(@D)
	$(CC) $(UGNI_CFLAGS) -c $< -o $@

$(UGNI_SO): $(UGNI_OBJ) $(UGNI_DIR)/libugni.map
	$(CC) -shared -pthread -Wl,-soname,$(UGNI_SONAME) \
		-Wl,--version-script=$(UGNI_DIR)/libugni.map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now $(UGNI_OBJ) -o $@

$(LIB_OUT)/libugni.so.1: $(UGNI_SO)
	ln -sf $(notdir $<) $@

$(LIB_OUT)/libugni.so: $(LIB_OUT)/libugni.so.1
	ln -sf $(notdir $<) $@

$(UGNI_A): $(UGNI_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(UGNI_INC): $(UGNI_DIR)/gni_pub.h
	@mkdir -p $(@D)
	cp $< $@

$(LIB_OUT)/pkgconfig/%.pc: $(UGNI_DIR)/%.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(LIB_OUT)|' -e 's|@VERSION@|$(UGNI_VERSION)|' $< >$@

UGNI_TEST_SRC := $(UGNI_DIR)/tests/test_ugni.c $(UGNI_DIR)/tests/fake_kgni.c
UGNI_TEST_WRAP := -Wl,--wrap=open,--wrap=ioctl,--wrap=mmap

$(UGNI_TEST): $(UGNI_TEST_SRC) $(UGNI_DIR)/tests/fake_kgni.h \
		$(UGNI_DIR)/tests/stub_calls.h $(UGNI_SRC) $(GNICORE_SRC) \
		$(UGNI_HDR) $(REPO)/testlib/tap.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -pthread $(UGNI_SAN) \
		-I$(UGNI_DIR) -I$(GNICORE_DIR) -I$(REPO)/uapi \
		-I$(REPO)/testlib $(UGNI_TEST_SRC) $(UGNI_SRC) $(GNICORE_SRC) \
		$(UGNI_TEST_WRAP) -o $@

# gnicore alone: its request table, SMSG and CQ logic on plain memory
$(GNICORE_TEST): $(GNICORE_DIR)/tests/test_gnicore.c $(GNICORE_SRC) \
		$(UGNI_HDR) $(REPO)/testlib/tap.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -Wshadow -pthread $(UGNI_SAN) \
		-DGNICORE_TEST -I$(UGNI_DIR) -I$(GNICORE_DIR) -I$(REPO)/uapi \
		-I$(REPO)/testlib $< $(GNICORE_SRC) -o $@
