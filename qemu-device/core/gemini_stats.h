/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cray-gemini device core: the counters and statistics as the supervisor
 * reads them (gemini_stats.c), through each block's API.
 */
#ifndef GEMINI_STATS_H
#define GEMINI_STATS_H

#include <stddef.h>

#include "gemini_json.h"

struct gemini_nic;

/* The name of port counter or NIC counter @idx, or NULL. */
const char *gemini_port_counter_name(unsigned int idx);
const char *gemini_nic_counter_name(unsigned int idx);
/* JSON texts for the supervisor (QMP): counters and statistics, ports. */
void gemini_counters_json(const struct gemini_nic *nic, char *buf, size_t len);
void gemini_ports_json(const struct gemini_nic *nic, char *buf, size_t len);
/*
 * Busy FMA descriptors and enabled CQs, live, as JSON, for a person
 * looking at a stalled job (the "state" property).
 */
void gemini_state_json(const struct gemini_nic *nic, char *buf, size_t len);

#endif /* GEMINI_STATS_H */
