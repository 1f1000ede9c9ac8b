# SPDX-License-Identifier: GPL-2.0-or-later
#
# The routing-table firmware: the vgemini-routes tool and its host tests.
# Included by the top-level Makefile (which sets REPO, BUILD and CC) and by
# firmware/Makefile.  Everything it defines is named FIRMWARE_* or
# *-firmware.
#
#   $(BUILD)/firmware/vgemini-routes   the tool (-O2)
#   $(BUILD)/firmware/test_routes      host test of the library, ASan+UBSan
#                                      (TAP through testlib/tap.h)
#   test-firmware                      run test_routes, then test_cli.sh
#                                      against the tool (both print TAP)

FIRMWARE_OUT ?= $(BUILD)/firmware
FIRMWARE_DIR := $(REPO)/firmware
FIRMWARE_LIB := $(addprefix $(FIRMWARE_DIR)/,torus.c routes.c check.c image.c image_dir.c)
FIRMWARE_HDR := $(FIRMWARE_DIR)/routes.h $(REPO)/uapi/gemini_hw.h \
	$(REPO)/uapi/vgemini_route.h $(REPO)/uapi/vgemini_crc32.h \
	$(REPO)/uapi/vgemini_le.h $(REPO)/uapi/vgemini_names.h \
	$(REPO)/uapi/vgemini_ctl.h
FIRMWARE_CFLAGS := -std=c11 -g -Wall -Wextra -Werror -Wshadow \
	-I$(REPO)/uapi -I$(FIRMWARE_DIR)
FIRMWARE_SAN := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
FIRMWARE_BINS := $(FIRMWARE_OUT)/vgemini-routes $(FIRMWARE_OUT)/test_routes

$(FIRMWARE_OUT)/vgemini-routes: $(FIRMWARE_DIR)/vgemini-routes.c $(FIRMWARE_LIB) $(FIRMWARE_HDR)
	@mkdir -p $(@D)
	$(CC) $(FIRMWARE_CFLAGS) -O2 $(FIRMWARE_DIR)/vgemini-routes.c $(FIRMWARE_LIB) -o $@

$(FIRMWARE_OUT)/test_routes: $(FIRMWARE_DIR)/tests/test_routes.c $(FIRMWARE_LIB) $(FIRMWARE_HDR) \
		$(REPO)/testlib/tap.h
	@mkdir -p $(@D)
	$(CC) $(FIRMWARE_CFLAGS) $(FIRMWARE_SAN) -I$(REPO)/testlib \
		$(FIRMWARE_DIR)/tests/test_routes.c $(FIRMWARE_LIB) -o $@

.PHONY: test-firmware
test-firmware: $(FIRMWARE_BINS)
	@$(FIRMWARE_OUT)/test_routes
	@$(FIRMWARE_DIR)/tests/test_cli.sh $(FIRMWARE_OUT)/vgemini-routes
