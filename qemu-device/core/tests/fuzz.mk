# SPDX-License-Identifier: GPL-2.0-only
#
# libFuzzer targets of the device core (clang, ASan, UBSan).  Included by
# the top-level Makefile, which sets REPO, BUILD, CORE_SRC and CORE_HDR.
#
#   make fuzz [FUZZ_TIME=600]   fuzz_core for 9/10 of FUZZ_TIME seconds and
#                               fuzz_packet for the rest, one worker each,
#                               on the committed corpus; new inputs go to a
#                               scratch corpus under build/fuzz/, crashes
#                               to build/fuzz-findings/
#   make fuzz-replay            replay the committed corpora, then fuzz
#                               for FUZZ_REPLAY_TIME (60) seconds in all;
#                               prints TAP, fails on any finding (make check)
#   make fuzz-cov               coverage build, replay the corpus, print the
#                               line coverage of every qemu-device/core/*.c
#   make fuzz-seeds             regenerate the seed-* inputs of the corpus

FUZZ_TIME ?= 600
FUZZ_REPLAY_TIME ?= 60
FUZZ_CC ?= clang
FUZZ_DIR := $(REPO)/qemu-device/core/tests
FUZZ_CORPUS := $(FUZZ_DIR)/corpus
FUZZ_OUT := $(BUILD)/fuzz
FUZZ_CFLAGS := -std=c11 -g -O1 -Wall -Wextra -Werror -Wshadow \
	-Iuapi -Iqemu-device/core
FUZZ_ASAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_SAN := -fsanitize=fuzzer $(FUZZ_ASAN)
FUZZ_COV := -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping

.PHONY: fuzz fuzz-replay fuzz-cov fuzz-seeds fuzz-build

$(BUILD)/core/fuzz_packet: qemu-device/core/gemini_packet.c $(CORE_HDR) qemu-device/core/tests/fuzz_packet.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) \
		qemu-device/core/gemini_packet.c qemu-device/core/tests/fuzz_packet.c -o $@

# The core, one object per file.  The link layer's comparisons are not
# traced: they dominate every poll, and the harness forges sequence
# numbers and sessions right by itself (a third more executions a second).
# The fault injector's are not either: on every packet a fault touches it
# compares random draws, which nothing can steer, and its spec parser was
# never traced (it came out of gemini_lcb.c).  The scheduler
# (gemini_nic.c) is traced, as it was in gemini_router.c.
FUZZ_OBJ := $(patsubst qemu-device/core/%.c,$(BUILD)/core/fuzz-obj/%.o,$(CORE_SRC))
FUZZ_NOCMP_gemini_lcb := -fno-sanitize-coverage=trace-cmp
FUZZ_NOCMP_gemini_port := -fno-sanitize-coverage=trace-cmp
FUZZ_NOCMP_gemini_fault := -fno-sanitize-coverage=trace-cmp

$(BUILD)/core/fuzz-obj/%.o: qemu-device/core/%.c $(CORE_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_ASAN) -fsanitize=fuzzer-no-link \
		$(FUZZ_NOCMP_$*) -c $< -o $@

# The harness itself is not instrumented for coverage: the fuzzer steers
# by the core's branches only, and the oracle's loops stay cheap.
$(BUILD)/core/fuzz-obj/fuzz_core.o: $(FUZZ_DIR)/fuzz_core.c $(FUZZ_DIR)/fuzz_core.h $(CORE_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_ASAN) -c $< -o $@

$(BUILD)/core/fuzz_core: $(FUZZ_OBJ) $(BUILD)/core/fuzz-obj/fuzz_core.o
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) $^ -o $@

# The same program, instrumented for source coverage instead.
$(BUILD)/core/fuzz_core_cov: $(CORE_SRC) $(CORE_HDR) $(FUZZ_DIR)/fuzz_core.c $(FUZZ_DIR)/fuzz_core.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_COV) $(CORE_SRC) $(FUZZ_DIR)/fuzz_core.c -o $@

$(BUILD)/core/fuzz_core_seeds: $(FUZZ_DIR)/fuzz_core_seeds.c $(FUZZ_DIR)/fuzz_core.h $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) -std=c11 -g -Wall -Wextra -Werror -Iuapi -Iqemu-device/core \
		$(FUZZ_DIR)/fuzz_core_seeds.c qemu-device/core/gemini_packet.c -o $@

fuzz-build: $(BUILD)/core/fuzz_core $(BUILD)/core/fuzz_packet

fuzz: fuzz-build
	@FUZZ_OUT=$(FUZZ_OUT) FUZZ_CORPUS=$(FUZZ_CORPUS) BUILD=$(BUILD) \
		$(FUZZ_DIR)/fuzz.sh run $(FUZZ_TIME)

fuzz-replay: fuzz-build
	@FUZZ_OUT=$(FUZZ_OUT) FUZZ_CORPUS=$(FUZZ_CORPUS) BUILD=$(BUILD) \
		$(FUZZ_DIR)/fuzz.sh replay $(FUZZ_REPLAY_TIME)

fuzz-cov: $(BUILD)/core/fuzz_core_cov
	@FUZZ_OUT=$(FUZZ_OUT) FUZZ_CORPUS=$(FUZZ_CORPUS) BUILD=$(BUILD) \
		$(FUZZ_DIR)/fuzz.sh cov

fuzz-seeds: $(BUILD)/core/fuzz_core_seeds
	@mkdir -p $(FUZZ_CORPUS)/fuzz_core $(FUZZ_CORPUS)/fuzz_packet
	$(BUILD)/core/fuzz_core_seeds $(FUZZ_CORPUS)/fuzz_core $(FUZZ_CORPUS)/fuzz_packet
