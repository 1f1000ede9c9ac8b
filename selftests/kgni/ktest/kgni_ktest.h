/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kgni_ktest: what its files share.  kgni_ktest_main.c has the debugfs
 * files, the result buffer and the single-node commands;
 * kgni_ktest_peer.c the cross-node ones ("peer ...").
 */
#ifndef KGNI_KTEST_H
#define KGNI_KTEST_H

#include <linux/compiler.h>
#include <linux/types.h>

#include <gni_pub.h>

#define KTEST_DEVICE		0
#define KTEST_PTAG		GNI_PTAG_LND	/* gnilnd's, a kernel ptag */
#define KTEST_COOKIE		GNI_JOB_CREATE_COOKIE(0x4b54, 0)

/* The result file: emptied, then appended to (under the command lock) */
void ktest_result_clear(void);
__printf(1, 2) void ktest_print(const char *fmt, ...);
const char *ktest_rc_name(gni_return_t rc);

/* "peer ARGS", under the command lock; 0 or a negative errno */
int ktest_peer_cmd(char *args);
/* At unload: what the peer commands left, torn down */
void ktest_peer_exit(void);

#endif /* KGNI_KTEST_H */
