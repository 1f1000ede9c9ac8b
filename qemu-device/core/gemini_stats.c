// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini device core: the counters and statistics as the supervisor
 * reads them.
 *
 * The names of the port and NIC counters, and the JSON texts of the
 * router's counters, the NIC's target-side (RMT, CQ) and FMA statistics,
 * the state of the torus ports and the live state of FMA and the CQs
 * that the glue hands to QMP.  Nothing here counts: the blocks count in
 * their own files; this only reads, through their APIs.
 */
#include <stdarg.h>
#include <stdio.h>

#include "gemini_core.h"

static const char *const port_ctr_names[VGEMINI_PC_NUM] = {
	VGEMINI_PORT_COUNTER_LIST(VGEMINI_PC_NAME_INIT)
};

static const char *const nic_ctr_names[VGEMINI_NC_NUM] = {
	VGEMINI_NIC_COUNTER_LIST(VGEMINI_NC_NAME_INIT)
};

const char *gemini_port_counter_name(unsigned int idx)
{
	return idx < VGEMINI_PC_NUM ? port_ctr_names[idx] : NULL;
}

const char *gemini_nic_counter_name(unsigned int idx)
{
	return idx < VGEMINI_NC_NUM ? nic_ctr_names[idx] : NULL;
}

/* --- JSON for the supervisor -------------------------------------------- */

#define jprintf gemini_json_printf

/* The FMA engine's own statistics (the source side of the data path). */
static void fma_stats_json(struct gemini_json *j,
			   const struct gemini_fma_stats *f)
{
	const struct {
		const char *name;
		uint64_t val;
	} v[] = {
		{ "requests", f->requests }, { "responses", f->responses },
		{ "errors", f->errors }, { "timeouts", f->timeouts },
		{ "stale", f->stale }, { "refused", f->refused },
		{ "orb_full", f->orb_full }, { "ssid_full", f->ssid_full },
		{ "priv_refused", f->priv_refused },
		{ "completions", f->completions },
		{ "local_events", f->local_events },
		{ "local_lost", f->local_lost }, { "paused", f->paused },
		{ "wc_merged", f->wc_merged },
		{ "flags_early", f->flags_early },
		{ "bi_held", f->bi_held },
	};
	unsigned int i;

	jprintf(j, ", \"fma\": {");
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		jprintf(j, "%s\"%s\": %llu", i ? ", " : "", v[i].name,
			(unsigned long long)v[i].val);
	jprintf(j, "}");
}

void gemini_counters_json(const struct gemini_nic *nic, char *buf, size_t len)
{
	struct gemini_json j = { buf, len, false };
	const struct gemini_rmt_stats *rmt = gemini_rmt_stats(nic);
	const struct gemini_cq_stats *cq = gemini_cq_stats(nic);
	unsigned int p, i;

	jprintf(&j, "{\"node\": %u, \"coord\": [%u, %u, %u], ",
		nic->gemini_id, nic->cfg.coord[0], nic->cfg.coord[1],
		nic->cfg.coord[2]);
	jprintf(&j, "\"generation\": %u, \"ports\": {",
		gemini_router_generation(nic));
	for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++) {
		jprintf(&j, "%s\"%s\": {", p ? ", " : "", gemini_port_name(p));
		for (i = 0; i < VGEMINI_PC_NUM; i++)
			jprintf(&j, "%s\"%s\": %llu", i ? ", " : "",
				port_ctr_names[i],
				(unsigned long long)gemini_port_counter(nic, p,
									i));
		jprintf(&j, "}");
	}
	jprintf(&j, "}, \"nic\": {");
	for (i = 0; i < VGEMINI_NC_NUM; i++)
		jprintf(&j, "%s\"%s\": %llu", i ? ", " : "", nic_ctr_names[i],
			(unsigned long long)gemini_nic_counter(nic, i));
	jprintf(&j, "}, \"rmt\": {\"req_done\": %llu, \"req_refused\": %llu, ",
		(unsigned long long)rmt->req_done,
		(unsigned long long)rmt->req_refused);
	jprintf(&j, "\"flags_held\": %llu, \"flags_dropped\": %llu, ",
		(unsigned long long)rmt->flags_held,
		(unsigned long long)rmt->flags_dropped);
	jprintf(&j, "\"req_waits\": %llu, \"cq_events\": %llu, ",
		(unsigned long long)rmt->req_waits,
		(unsigned long long)cq->events);
	jprintf(&j, "\"cq_overruns\": %llu, \"cq_lost\": %llu}",
		(unsigned long long)cq->overruns,
		(unsigned long long)cq->lost);
	fma_stats_json(&j, gemini_fma_stats(nic));
	jprintf(&j, "}");
}

void gemini_ports_json(const struct gemini_nic *nic, char *buf, size_t len)
{
	struct gemini_json j = { buf, len, false };
	unsigned int p;

	jprintf(&j, "[");
	for (p = 0; p < GEMINI_NUM_TORUS_PORTS; p++) {
		enum vgemini_port_state st = gemini_port_state(nic, p);

		jprintf(&j, "%s{\"port\": \"%s\", \"state\": \"%s\", ",
			p ? ", " : "", gemini_port_name(p),
			gemini_port_state_name(st));
		if (st == VGEMINI_PORT_UP || st == VGEMINI_PORT_MISWIRED)
			jprintf(&j, "\"peer\": %u}", gemini_port_peer(nic, p));
		else
			jprintf(&j, "\"peer\": null}");
	}
	jprintf(&j, "]");
}

void gemini_state_json(const struct gemini_nic *nic, char *buf, size_t len)
{
	struct gemini_json j = { buf, len, false };

	if (!len)
		return;
	jprintf(&j, "{");
	gemini_fma_state_json(nic, &j);
	jprintf(&j, ", \"cq\": [");
	gemini_cq_state_json(nic, &j);
	jprintf(&j, "]}");
	if (j.cut)
		/* Cut: still one valid (if short) document. */
		snprintf(buf, len, "{\"truncated\": true}");
}
