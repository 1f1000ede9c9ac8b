/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the small JSON writer of the supervisor's
 * reports (gemini_json.c); the blocks write their own parts with it.
 */
#ifndef GEMINI_JSON_H
#define GEMINI_JSON_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A JSON text being written into a buffer of fixed size: what does not
 * fit is cut (@cut), the text always ends with a NUL.
 */
struct gemini_json {
	char *p;
	size_t left;
	bool cut;
};

void gemini_json_printf(struct gemini_json *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* GEMINI_JSON_H */
