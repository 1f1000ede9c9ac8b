# SPDX-License-Identifier: GPL-2.0-only
#
# The uGNI job tests (selftests/ugni/*.c): programs written against
# gni_pub.h and pmi.h (and rca_lib.h, udreg_pub.h), built static the
# way a Cray user builds them (pkg-config --cflags --libs --static
# cray-ugni cray-pmi cray-rca cray-udreg), put into the guest image's
# /usr/bin and run as jobs by scripts/tests/ugni-jobs.py
# ("vgemini run -n 8 ugni_putget", ...).  Included by lib/lib.mk, which
# sets LIB_OUT, REPO and the libraries' targets.  Everything it defines is
# named UGNI_JOB_*, or is a target under $(LIB_OUT)/guest.

UGNI_JOB_DIR := $(REPO)/selftests/ugni
UGNI_JOB_PROGS := ugni_putget ugni_amo ugni_cq ugni_isolation ugni_nosys \
	ugni_bench ugni_soak ugni_rdma ugni_bw ugni_dgram ugni_smsg ugni_msgq \
	ugni_ring ugni_cdms ugni_memcalls ugni_udreg ugni_errors ugni_suspend \
	ugni_bi
UGNI_JOB_BINS := $(addprefix $(LIB_OUT)/guest/usr/bin/,$(UGNI_JOB_PROGS))
UGNI_JOB_PKG := PKG_CONFIG_PATH=$(LIB_OUT)/pkgconfig pkg-config

$(LIB_OUT)/guest/usr/bin/ugni_%: $(UGNI_JOB_DIR)/ugni_%.c \
		$(UGNI_JOB_DIR)/ugni_job.h $(UGNI_A) $(UGNI_INC) $(UGNI_PC) \
		$(PMI_A) $(PMI_INC) $(PMI_PC) $(LIB_OUT)/librca.a \
		$(LIB_OUT)/include/rca_lib.h $(LIB_OUT)/pkgconfig/cray-rca.pc \
		$(LIB_OUT)/libudreg.a $(LIB_OUT)/include/udreg_pub.h \
		$(LIB_OUT)/pkgconfig/cray-udreg.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -static \
		$$($(UGNI_JOB_PKG) --cflags cray-ugni cray-pmi cray-rca \
		cray-udreg) $< -o $@ $$($(UGNI_JOB_PKG) --static --libs \
		cray-ugni cray-pmi cray-rca cray-udreg)
