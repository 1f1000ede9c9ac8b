# SPDX-License-Identifier: GPL-2.0-only
#
# The user libraries: libpmi (PMI-1 and PMI-2 for "vgemini run" jobs)
# with its pkg-config module cray-pmi, and the PMI test program.  Included
# by the top-level Makefile, which sets REPO, BUILD and CC.  Everything it
# defines is named LIB_* or PMI_*, or is a target under $(LIB_OUT).
#
#   $(LIB_OUT)/libpmi.so.1.1.0    shared library (soname libpmi.so.1,
#                                 symbol versions from lib/pmi/libpmi.map)
#                                 with the links libpmi.so.1 and libpmi.so
#   $(LIB_OUT)/libpmi.a           static library
#   $(LIB_OUT)/include/pmi.h, pmi2.h, pmi_cray.h
#                                 the headers programs include
#   $(LIB_OUT)/pkgconfig/cray-pmi.pc
#                                 PKG_CONFIG_PATH=$(LIB_OUT)/pkgconfig
#                                 pkg-config --cflags --libs cray-pmi
#   $(LIB_OUT)/guest/             a tree that scripts/build-image.sh copies
#                                 onto the guest image's root:
#                                 usr/bin/pmi_test (static, built through
#                                 pkg-config), and the uGNI job tests
#                                 usr/bin/ugni_* (selftests/ugni/)
#   $(LIB_OUT)/tests/             host builds of pmi_test: pmi_test_asan
#                                 (library and test under ASan+UBSan) and
#                                 pmi_test_dyn (linked to libpmi.so); and
#                                 vgemini-agent (guest/agent*.c under
#                                 ASan+UBSan) for "vgemini run --local"
#
#   lib        all of the above, libugni (lib/ugni/ugni.mk), the ALPS
#              libraries (lib/alps/alps.mk) and the registration cache
#              libudreg (lib/udreg/udreg.mk)
#   test-lib   host tests (lib/pmi/tests/host-test.py, TAP): the exported
#              symbols, and pmi_test run by "vgemini run --local";
#              then libugni's, the ALPS libraries' and libudreg's
#              (lib/*/tests/host-test.py, TAP)

LIB_OUT ?= $(BUILD)/lib
LIB_DIR := $(REPO)/lib
PMI_DIR := $(LIB_DIR)/pmi
PMI_VERSION := 1.2.0
PMI_SONAME := libpmi.so.1
PMI_HDR := $(PMI_DIR)/pmi.h $(PMI_DIR)/pmi2.h $(PMI_DIR)/pmi_cray.h \
	$(PMI_DIR)/pmi_priv.h \
	$(REPO)/uapi/pmi_wire.h $(REPO)/uapi/vgemini_le.h
# PMI_Get_version_info() answers PMI_VERSION.
PMI_VERSION_DEFS := $(patsubst %,-DPMI_LIB_%,$(join MAJOR= MINOR= REVISION=,\
	$(subst ., ,$(PMI_VERSION))))
PMI_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow \
	-fPIC -fvisibility=hidden -pthread -I$(PMI_DIR) -I$(REPO)/uapi \
	$(PMI_VERSION_DEFS)
PMI_SRC := $(PMI_DIR)/pmi.c $(PMI_DIR)/pmi_kvs.c $(PMI_DIR)/pmi2.c \
	$(PMI_DIR)/pmi_cray.c
PMI_OBJ := $(LIB_OUT)/obj/pmi.o $(LIB_OUT)/obj/pmi_kvs.o \
	$(LIB_OUT)/obj/pmi2.o $(LIB_OUT)/obj/pmi_cray.o
PMI_SAN := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
PMI_PKG := PKG_CONFIG_PATH=$(LIB_OUT)/pkgconfig pkg-config

PMI_SO := $(LIB_OUT)/libpmi.so.$(PMI_VERSION)
PMI_A := $(LIB_OUT)/libpmi.a
PMI_PC := $(LIB_OUT)/pkgconfig/cray-pmi.pc
PMI_INC := $(LIB_OUT)/include/pmi.h $(LIB_OUT)/include/pmi2.h \
	$(LIB_OUT)/include/pmi_cray.h
PMI_GUEST_TEST := $(LIB_OUT)/guest/usr/bin/pmi_test
PMI_HOST_TESTS := $(LIB_OUT)/tests/pmi_test_asan $(LIB_OUT)/tests/pmi_test_dyn \
	$(LIB_OUT)/tests/vgemini-agent
LIB_TARGETS := $(PMI_SO) $(LIB_OUT)/libpmi.so.1 $(LIB_OUT)/libpmi.so \
	$(PMI_A) $(PMI_INC) $(PMI_PC) $(PMI_GUEST_TEST) $(PMI_HOST_TESTS)

include $(LIB_DIR)/ugni/ugni.mk
include $(LIB_DIR)/alps/alps.mk
include $(LIB_DIR)/udreg/udreg.mk
include $(REPO)/selftests/ugni/ugni-tests.mk

.PHONY: lib test-lib

lib: $(LIB_TARGETS) $(UGNI_TARGETS) $(ALPS_TARGETS) $(UDREG_TARGETS) \
	$(UGNI_JOB_BINS)

$(PMI_OBJ): $(LIB_OUT)/obj/%.o: $(PMI_DIR)/%.c $(PMI_HDR)
	@mkdir -p $(@D)
	$(CC) $(PMI_CFLAGS) -c $< -o $@

$(PMI_SO): $(PMI_OBJ) $(PMI_DIR)/libpmi.map
	$(CC) -shared -pthread -Wl,-soname,$(PMI_SONAME) \
		-Wl,--version-script=$(PMI_DIR)/libpmi.map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now $(PMI_OBJ) -o $@

$(LIB_OUT)/libpmi.so.1: $(PMI_SO)
	ln -sf $(notdir $<) $@

$(LIB_OUT)/libpmi.so: $(LIB_OUT)/libpmi.so.1
	ln -sf $(notdir $<) $@

$(PMI_A): $(PMI_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(PMI_INC): $(LIB_OUT)/include/%.h: $(PMI_DIR)/%.h
	@mkdir -p $(@D)
	cp $< $@

$(PMI_PC): $(PMI_DIR)/cray-pmi.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(LIB_OUT)|' -e 's|@VERSION@|$(PMI_VERSION)|' $< >$@

# The guest's copy is static (the busybox image has no dynamic loader of
# its own) and built the way users build theirs: through pkg-config.
$(PMI_GUEST_TEST): $(PMI_DIR)/tests/pmi_test.c $(PMI_A) $(PMI_INC) $(PMI_PC)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static \
		$$($(PMI_PKG) --cflags cray-pmi) $< -o $@ \
		$$($(PMI_PKG) --static --libs cray-pmi)

$(LIB_OUT)/tests/pmi_test_asan: $(PMI_DIR)/tests/pmi_test.c $(PMI_SRC) $(PMI_HDR)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -pthread $(PMI_SAN) \
		-I$(PMI_DIR) -I$(REPO)/uapi $(PMI_VERSION_DEFS) \
		$(PMI_DIR)/tests/pmi_test.c $(PMI_SRC) -o $@

$(LIB_OUT)/tests/pmi_test_dyn: $(PMI_DIR)/tests/pmi_test.c $(LIB_OUT)/libpmi.so $(PMI_INC) $(PMI_PC)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror \
		$$($(PMI_PKG) --cflags cray-pmi) $< -o $@ \
		$$($(PMI_PKG) --libs cray-pmi) -Wl,-rpath,$(LIB_OUT)

LIB_AGENT_SRC := $(addprefix $(REPO)/guest/,agent.c agent_frame.c agent_exec.c)
LIB_AGENT_HDR := $(REPO)/guest/agent.h $(REPO)/uapi/vgemini_agent.h \
	$(REPO)/uapi/vgemini_le.h
$(LIB_OUT)/tests/vgemini-agent: $(LIB_AGENT_SRC) $(LIB_AGENT_HDR)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -I$(REPO)/uapi $(PMI_SAN) \
		$(LIB_AGENT_SRC) -o $@

test-lib: lib
	@$(PMI_DIR)/tests/host-test.py $(LIB_OUT)
	@$(UGNI_DIR)/tests/host-test.py $(LIB_OUT)
	@$(ALPS_DIR)/tests/host-test.py $(LIB_OUT)
	@$(UDREG_DIR)/tests/host-test.py $(LIB_OUT)
