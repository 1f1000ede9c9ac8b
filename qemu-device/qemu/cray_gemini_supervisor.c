// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cray-gemini: the supervisor's QOM properties (routes, fabric, diag-ping,
 * counters, state, ports, fault-*), reached with QMP qom-set and qom-get.
 * See Documentation/fabric.rst.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qapi/error.h"
#include "qapi/visitor.h"

#include "cray_gemini.h"
#include "trace.h"

/* --- Supervisor (QOM properties, reached with QMP qom-set/qom-get) ------- */

/*
 * These play Cray's hardware supervisor: they exist after realize and are
 * how the launcher loads routing tables, holds the fabric, pings, reads
 * counters and injects faults (Documentation/fabric.rst).
 */

static bool cray_gemini_realized(CrayGeminiState *s, Error **errp)
{
    if (!DEVICE(s)->realized) {
        error_setg(errp, "cray-gemini: the device is not realized yet");
        return false;
    }
    return true;
}

static char *cray_gemini_get_routes(Object *obj, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);

    return g_strdup_printf("{\"generation\": %u, \"loaded\": %s}",
                           gemini_router_generation(&s->nic),
                           gemini_router_has_table(&s->nic) ? "true" : "false");
}

static void cray_gemini_set_routes(Object *obj, const char *path,
                                   Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);
    g_autofree gchar *img = NULL;
    g_autoptr(GError) gerr = NULL;
    gsize len;
    char err[200];

    if (!cray_gemini_realized(s, errp)) {
        return;
    }
    if (!g_file_get_contents(path, &img, &len, &gerr)) {
        error_setg(errp, "routes: %s", gerr->message);
        return;
    }
    if (gemini_router_load(&s->nic, img, len, err, sizeof(err))) {
        error_setg(errp, "routes '%s': %s", path, err);
        return;
    }
    trace_cray_gemini_routes_loaded(path,
                                    gemini_router_generation(&s->nic));
    cray_gemini_kick(s);
}

static const char *const fabric_state_names[] = {
    [VGEMINI_FABRIC_NO_TABLE] = "no-table",
    [VGEMINI_FABRIC_RUNNING] = "running",
    [VGEMINI_FABRIC_QUIESCED] = "quiesced",
};

static char *cray_gemini_get_fabric(Object *obj, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);

    return g_strdup(fabric_state_names[gemini_fabric_state(&s->nic)]);
}

static void cray_gemini_set_fabric(Object *obj, const char *v, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);

    if (!cray_gemini_realized(s, errp)) {
        return;
    }
    if (!strcmp(v, "quiesce")) {
        gemini_router_quiesce(&s->nic, true);
    } else if (!strcmp(v, "resume")) {
        gemini_router_quiesce(&s->nic, false);
    } else {
        error_setg(errp, "fabric: '%s': expected 'quiesce' or 'resume'", v);
        return;
    }
    trace_cray_gemini_fabric(v);
    cray_gemini_kick(s);
}

static char *cray_gemini_get_diag(Object *obj, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);
    char *buf = g_malloc(4096);

    gemini_diag_json(&s->nic, GEMINI_DIAG_HOST, buf, 4096);
    return buf;
}

static void cray_gemini_set_diag(Object *obj, const char *v, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);
    g_auto(GStrv) f = g_strsplit(v, ",", 0);
    uint64_t dest, len = GEMINI_PKT_MAX_DATA, count = 1;
    guint n = g_strv_length(f);

    if (!cray_gemini_realized(s, errp)) {
        return;
    }
    if (n < 1 || n > 3 || qemu_strtou64(f[0], NULL, 0, &dest) ||
        (n > 1 && qemu_strtou64(f[1], NULL, 0, &len)) ||
        (n > 2 && qemu_strtou64(f[2], NULL, 0, &count))) {
        error_setg(errp, "diag-ping: '%s': expected DEST[,LEN[,COUNT]]", v);
        return;
    }
    if (dest >= s->nic.num_nodes) {
        error_setg(errp, "diag-ping: no node %" PRIu64 " in a torus of %u",
                   dest, s->nic.num_nodes);
        return;
    }
    if (len > GEMINI_PKT_MAX_DATA || count < 1 || count > 1000000) {
        error_setg(errp, "diag-ping: LEN must be 0..%u, COUNT 1..1000000",
                   GEMINI_PKT_MAX_DATA);
        return;
    }
    if (gemini_diag_busy(&s->nic, GEMINI_DIAG_HOST)) {
        error_setg(errp, "diag-ping: a ping from the host is in flight");
        return;
    }
    trace_cray_gemini_diag_ping(dest, len, count);
    gemini_diag_start(&s->nic, GEMINI_DIAG_HOST, dest, len, count);
    cray_gemini_kick(s);
}

static char *cray_gemini_get_counters(Object *obj, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);
    char *buf = g_malloc(16384);

    gemini_counters_json(&s->nic, buf, 16384);
    return buf;
}

static char *cray_gemini_get_state(Object *obj, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);
    char *buf = g_malloc(65536);

    gemini_state_json(&s->nic, buf, 65536);
    return buf;
}

static char *cray_gemini_get_ports(Object *obj, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);
    char *buf = g_malloc(1024);

    gemini_ports_json(&s->nic, buf, 1024);
    return buf;
}

/* Each port's fault property is "fault-" and its short name: "fault-xp" */
static const char *const port_snames[GEMINI_NUM_TORUS_PORTS] = {
    VGEMINI_PORT_LIST(VGEMINI_PORT_SHORT_INIT)
};

static void cray_gemini_get_fault(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);
    char buf[160];
    char *p = buf;

    gemini_fault_get(&s->nic, (uintptr_t)opaque, buf, sizeof(buf));
    visit_type_str(v, name, &p, errp);
}

static void cray_gemini_set_fault(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    CrayGeminiState *s = CRAY_GEMINI(obj);
    g_autofree char *spec = NULL;
    unsigned port = (uintptr_t)opaque;
    char err[160];

    if (!visit_type_str(v, name, &spec, errp) ||
        !cray_gemini_realized(s, errp)) {
        return;
    }
    if (gemini_fault_set(&s->nic, port, spec, err, sizeof(err))) {
        error_setg(errp, "%s: %s", name, err);
        return;
    }
    trace_cray_gemini_fault(gemini_port_name(port), spec);
    cray_gemini_kick(s);
}

void cray_gemini_add_supervisor_props(ObjectClass *klass)
{
    object_class_property_add_str(klass, "routes", cray_gemini_get_routes,
                                  cray_gemini_set_routes);
    object_class_property_add_str(klass, "fabric", cray_gemini_get_fabric,
                                  cray_gemini_set_fabric);
    object_class_property_add_str(klass, "diag-ping", cray_gemini_get_diag,
                                  cray_gemini_set_diag);
    object_class_property_add_str(klass, "counters",
                                  cray_gemini_get_counters, NULL);
    object_class_property_add_str(klass, "ports", cray_gemini_get_ports,
                                  NULL);
    object_class_property_add_str(klass, "state", cray_gemini_get_state,
                                  NULL);
    for (uintptr_t p = 0; p < GEMINI_NUM_TORUS_PORTS; p++) {
        g_autofree char *name = g_strdup_printf("fault-%s", port_snames[p]);

        object_class_property_add(klass, name, "str", cray_gemini_get_fault,
                                  cray_gemini_set_fault, NULL, (void *)p);
    }
}
