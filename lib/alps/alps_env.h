/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Internal to vgemini's ALPS libraries: reading the numbers "vgemini run"
 * puts in a rank's environment.  Each library links its own copy; the
 * names are prefixed because a static library's symbols are global.
 */
#ifndef VGEMINI_ALPS_ENV_H
#define VGEMINI_ALPS_ENV_H

#define ALPS_EXPORT __attribute__((visibility("default")))

/*
 * The variable name as a decimal number in lo..hi, in *out.  Only digits
 * are taken (no sign, no spaces, no base prefix).  Return: 0; -ENOENT
 * when the variable is not set; -EINVAL when it is empty, not a number or
 * out of range.
 */
int vgemini_alps_env_num(const char *name, unsigned long long lo,
			 unsigned long long hi, unsigned long long *out);

/*
 * The variable name as a colon-separated list of decimal numbers, each at
 * most hi, into v[0..max-1].  Return: the number of entries (1..max);
 * -ENOENT when not set; -EINVAL when empty, malformed, with an entry out
 * of range or with more than max entries.
 */
int vgemini_alps_env_list(const char *name, unsigned long long hi,
			  unsigned long long *v, int max);

#endif /* VGEMINI_ALPS_ENV_H */
