// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the JSON writer of the supervisor's reports.
 */
#include <stdarg.h>
#include <stdio.h>

#include "gemini_json.h"

void gemini_json_printf(struct gemini_json *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* With one byte left vsnprintf still terminates the text. */
	if (!j->left) {
		j->cut = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(j->p, j->left, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= j->left) {
		n = (int)j->left - 1;
		j->cut = true;
	}
	j->p += n;
	j->left -= n;
}
