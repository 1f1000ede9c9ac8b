# SPDX-License-Identifier: GPL-2.0-only
#
# vgemini's ALPS libraries, which answer from the environment of a
# "vgemini run" rank what ALPS tells a rank on a Cray: libalpslli (the
# apid, the Gemini credentials), libalpsutil (the placement) and
# libwlm_detect (the workload manager), with their headers and the
# pkg-config modules cray-alps (headers only), cray-alpslli,
# cray-alpsutil and cray-wlm_detect; and librca (rca_lib.h, cray-rca: a
# node's mesh coordinates), which a rank asks about its placement too.  Included by lib/lib.mk, which sets
# LIB_OUT and LIB_DIR.  Everything it defines is named ALPS_*,
# or is a target under $(LIB_OUT).
#
#   $(LIB_OUT)/libalpslli.so.1.0.0, libalpsutil.so.1.0.0,
#   libwlm_detect.so.1.0.0, librca.so.1.0.0 shared libraries (sonames *.so.1, symbol
#                                 versions from lib/alps/*.map) with their
#                                 .so.1 and .so links
#   $(LIB_OUT)/libalpslli.a, libalpsutil.a, libwlm_detect.a, librca.a
#   $(LIB_OUT)/include/alps/{alps,alps_toolAssist,libalpsutil,libalpslli,
#                            apInfo}.h, $(LIB_OUT)/include/wlm_detect.h,
#   $(LIB_OUT)/include/rca_lib.h
#   $(LIB_OUT)/pkgconfig/cray-{alps,alpslli,alpsutil,wlm_detect,rca}.pc
#   $(LIB_OUT)/tests/test_alps    host unit test (TAP, testlib/tap.h),
#                                 libraries and test under ASan+UBSan
#
# Host tests: lib/alps/tests/host-test.py $(LIB_OUT), run by test-lib.

ALPS_DIR := $(LIB_DIR)/alps
ALPS_VERSION := 1.0.0
ALPS_HDR_NAMES := alps.h alps_toolAssist.h libalpsutil.h libalpslli.h apInfo.h
ALPS_HDR := $(addprefix $(ALPS_DIR)/,$(ALPS_HDR_NAMES) wlm_detect.h \
	rca_lib.h alps_env.h) $(REPO)/uapi/pmi_wire.h
ALPS_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow -pedantic \
	-fPIC -fvisibility=hidden -pthread -I$(ALPS_DIR) -I$(REPO)/uapi
ALPS_SAN := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all

ALPS_INC := $(addprefix $(LIB_OUT)/include/alps/,$(ALPS_HDR_NAMES)) \
	$(LIB_OUT)/include/wlm_detect.h $(LIB_OUT)/include/rca_lib.h
ALPS_PC := $(addprefix $(LIB_OUT)/pkgconfig/,cray-alps.pc cray-alpslli.pc \
	cray-alpsutil.pc cray-wlm_detect.pc cray-rca.pc)
ALPS_TEST := $(LIB_OUT)/tests/test_alps
ALPS_TARGETS := $(ALPS_INC) $(ALPS_PC) $(ALPS_TEST)

$(LIB_OUT)/obj/alps/%.o: $(ALPS_DIR)/%.c $(ALPS_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALPS_CFLAGS) -c $< -o $@

# ALPS_LIB(name, sources): lib<name>.so.$(ALPS_VERSION) with its links,
# lib<name>.a, from lib/alps/<sources>.c and lib/alps/lib<name>.map
define ALPS_LIB
ALPS_OBJ_$(1) := $(patsubst %,$(LIB_OUT)/obj/alps/%.o,$(2))

$(LIB_OUT)/lib$(1).so.$(ALPS_VERSION): $$(ALPS_OBJ_$(1)) $(ALPS_DIR)/lib$(1).map
	$$(CC) -shared -pthread -Wl,-soname,lib$(1).so.1 \
		-Wl,--version-script=$(ALPS_DIR)/lib$(1).map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now $$(ALPS_OBJ_$(1)) -o $$@

$(LIB_OUT)/lib$(1).so.1: $(LIB_OUT)/lib$(1).so.$(ALPS_VERSION)
	ln -sf $$(notdir $$<) $$@

$(LIB_OUT)/lib$(1).so: $(LIB_OUT)/lib$(1).so.1
	ln -sf $$(notdir $$<) $$@

$(LIB_OUT)/lib$(1).a: $$(ALPS_OBJ_$(1))
	@rm -f $$@
	$$(AR) rcs $$@ $$^

ALPS_TARGETS += $(LIB_OUT)/lib$(1).so.$(ALPS_VERSION) $(LIB_OUT)/lib$(1).so.1 \
	$(LIB_OUT)/lib$(1).so $(LIB_OUT)/lib$(1).a
endef

$(eval $(call ALPS_LIB,alpslli,alps_lli alps_env))
$(eval $(call ALPS_LIB,alpsutil,alps_util alps_env))
$(eval $(call ALPS_LIB,wlm_detect,wlm_detect))
$(eval $(call ALPS_LIB,rca,rca))

$(filter $(LIB_OUT)/include/alps/%,$(ALPS_INC)): $(LIB_OUT)/include/alps/%.h: \
		$(ALPS_DIR)/%.h
	@mkdir -p $(@D)
	cp $< $@

$(LIB_OUT)/include/wlm_detect.h $(LIB_OUT)/include/rca_lib.h: \
		$(LIB_OUT)/include/%.h: $(ALPS_DIR)/%.h
	@mkdir -p $(@D)
	cp $< $@

$(ALPS_PC): $(LIB_OUT)/pkgconfig/%.pc: $(ALPS_DIR)/%.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(LIB_OUT)|' -e 's|@VERSION@|$(ALPS_VERSION)|' $< >$@

ALPS_SRC := $(addprefix $(ALPS_DIR)/,alps_lli.c alps_util.c alps_env.c \
	wlm_detect.c rca.c)

$(ALPS_TEST): $(ALPS_DIR)/tests/test_alps.c $(ALPS_SRC) $(ALPS_HDR) \
		$(REPO)/testlib/tap.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -pthread $(ALPS_SAN) \
		-I$(ALPS_DIR) -I$(REPO)/uapi -I$(REPO)/testlib \
		$(ALPS_DIR)/tests/test_alps.c $(ALPS_SRC) -o $@
