# SPDX-License-Identifier: GPL-2.0-only
#
# vgemini's libudreg: Cray's user-space memory registration cache
# (udreg_pub.h, pkg-config module cray-udreg), which Open MPI's
# rcache/udreg, GASNet's gemini conduit and libfabric's gni provider use
# over GNI_MemRegister.  Included by lib/lib.mk, which sets LIB_OUT and
# LIB_DIR.  Everything it defines is named UDREG_*, or is a target under
# $(LIB_OUT).
#
#   $(LIB_OUT)/libudreg.so.1.0.0  shared library (soname libudreg.so.1,
#                                 symbol versions from lib/udreg/libudreg.map)
#                                 with the links libudreg.so.1 and libudreg.so
#   $(LIB_OUT)/libudreg.a         static library
#   $(LIB_OUT)/include/udreg_pub.h
#   $(LIB_OUT)/pkgconfig/cray-udreg.pc
#   $(LIB_OUT)/tests/test_udreg   host unit test (TAP, testlib/tap.h),
#                                 library and test under ASan+UBSan
#
# Host tests: lib/udreg/tests/host-test.py $(LIB_OUT), run by test-lib.

UDREG_DIR := $(LIB_DIR)/udreg
UDREG_VERSION := 1.0.0
UDREG_HDR := $(UDREG_DIR)/udreg_pub.h
UDREG_SRC := $(UDREG_DIR)/udreg.c
UDREG_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow -pedantic \
	-fPIC -fvisibility=hidden -pthread -I$(UDREG_DIR)
UDREG_SAN := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all

UDREG_OBJ := $(LIB_OUT)/obj/udreg/udreg.o
UDREG_SO := $(LIB_OUT)/libudreg.so.$(UDREG_VERSION)
UDREG_A := $(LIB_OUT)/libudreg.a
UDREG_INC := $(LIB_OUT)/include/udreg_pub.h
UDREG_PC := $(LIB_OUT)/pkgconfig/cray-udreg.pc
UDREG_TEST := $(LIB_OUT)/tests/test_udreg
UDREG_TARGETS := $(UDREG_SO) $(LIB_OUT)/libudreg.so.1 $(LIB_OUT)/libudreg.so \
	$(UDREG_A) $(UDREG_INC) $(UDREG_PC) $(UDREG_TEST)

$(UDREG_OBJ): $(UDREG_SRC) $(UDREG_HDR)
	@mkdir -p $(@D)
	$(CC) $(UDREG_CFLAGS) -c $< -o $@

$(UDREG_SO): $(UDREG_OBJ) $(UDREG_DIR)/libudreg.map
	$(CC) -shared -pthread -Wl,-soname,libudreg.so.1 \
		-Wl,--version-script=$(UDREG_DIR)/libudreg.map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now $(UDREG_OBJ) -o $@

$(LIB_OUT)/libudreg.so.1: $(UDREG_SO)
	ln -sf $(notdir $<) $@

$(LIB_OUT)/libudreg.so: $(LIB_OUT)/libudreg.so.1
	ln -sf $(notdir $<) $@

$(UDREG_A): $(UDREG_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(UDREG_INC): $(UDREG_HDR)
	@mkdir -p $(@D)
	cp $< $@

$(UDREG_PC): $(UDREG_DIR)/cray-udreg.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(LIB_OUT)|' -e 's|@VERSION@|$(UDREG_VERSION)|' $< >$@

$(UDREG_TEST): $(UDREG_DIR)/tests/test_udreg.c $(UDREG_SRC) $(UDREG_HDR) \
		$(REPO)/testlib/tap.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -pthread $(UDREG_SAN) \
		-I$(UDREG_DIR) -I$(REPO)/testlib \
		$(UDREG_DIR)/tests/test_udreg.c $(UDREG_SRC) -o $@
