// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The environment of a rank, read strictly: a variable that is there but
 * is not what "vgemini run" writes is an error, never a guess.
 */
#include <errno.h>
#include <stdlib.h>

#include "alps_env.h"

/*
 * One decimal number at *s, ending at a NUL or at stop; *s is moved past
 * it.  Return: 0, or -EINVAL.
 */
static int parse_dec(const char **s, char stop, unsigned long long hi,
		     unsigned long long *out)
{
	const char *p = *s;
	unsigned long long v = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = *p - '0';

		if (d > hi || v > (hi - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (*p && *p != stop)
		return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

int vgemini_alps_env_num(const char *name, unsigned long long lo,
			 unsigned long long hi, unsigned long long *out)
{
	const char *s = getenv(name);
	unsigned long long v;

	if (!s)
		return -ENOENT;
	if (parse_dec(&s, 0, hi, &v) || v < lo)
		return -EINVAL;
	*out = v;
	return 0;
}

int vgemini_alps_env_list(const char *name, unsigned long long hi,
			  unsigned long long *v, int max)
{
	const char *s = getenv(name);
	int n = 0;

	if (!s)
		return -ENOENT;
	for (;;) {
		if (n == max || parse_dec(&s, ':', hi, &v[n]))
			return -EINVAL;
		n++;
		if (!*s)
			return n;
		s++;	/* the ':' */
	}
}
