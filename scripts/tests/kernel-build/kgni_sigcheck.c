// SPDX-License-Identifier: GPL-2.0-only
/*
 * kgni_sigcheck: every function of the kernel API that kgni.ko exports,
 * assigned to a pointer of its exact type as the project's kGNI
 * specification gives it (sections 3 and 4; gni_cdm_get_nic_address() is
 * vgemini's, typed as GNI_CdmGetNicAddress), and the RCA functions as
 * gnilnd calls them (section 8).  In the kernel uint32_t is
 * u32, uint8_t u8 and uint64_t u64: the same types.
 *
 * The kernel-build stage (scripts/tests/kernel-build.py) builds it with
 * -Werror through pkg-config, as a client is built: a prototype of
 * gni_pub.h that differs from the spec fails to compile, a function
 * kgni.ko does not export fails modpost.  The stage also checks that the
 * functions named here are exactly the gni_* of kgni's Module.symvers,
 * and that KGNI_SIGCHECK_BREAK (one parameter type changed) fails.
 * Never loaded.
 */
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include <gni_pub.h>
#include <krca_lib.h>

/* The kernel-only declarations (kgni section 1) */
static_assert(GNI_ERRNO_FUNC_STR_LEN == 100);
#define KGNI_SIGCHECK_ERRNO	((gni_errno_t *)NULL)
static_assert(__same_type(KGNI_SIGCHECK_ERRNO->valid, u8));
static_assert(__same_type(KGNI_SIGCHECK_ERRNO->func, char[100]));
static_assert(__same_type(KGNI_SIGCHECK_ERRNO->lineno, int));
static_assert(__same_type(KGNI_SIGCHECK_ERRNO->errno, int));
static_assert(__same_type(KGNI_SIGCHECK_ERRNO->data1, u64));
static_assert(__same_type(KGNI_SIGCHECK_ERRNO->data2, u64));
static_assert(__same_type(KGNI_SIGCHECK_ERRNO->data3, u64));
static_assert(__same_type(KGNI_SIGCHECK_ERRNO->data4, u64));
static_assert(offsetof(gni_errno_t, func) == 1);
static_assert(offsetof(gni_errno_t, lineno) == 104);
static_assert(offsetof(gni_errno_t, errno) == 108);
static_assert(offsetof(gni_errno_t, data1) == 112);
static_assert(offsetof(gni_errno_t, data4) == 136);
static_assert(sizeof(gni_errno_t) == 144);
static_assert(__same_type(gni_cq_event_hndlr_f *, void (*)(u32, u64)));
static_assert(__same_type(gni_error_mask_t, u8));
static_assert(sizeof(gni_error_event_t) == 48);

#ifdef KGNI_SIGCHECK_BREAK
#define KGNI_SIGCHECK_PTAG_T	u32
#else
#define KGNI_SIGCHECK_PTAG_T	u8
#endif

/* Domain and NIC (kgni section 3.1) */
static gni_return_t (*const sig_gni_cdm_create)(u32 inst_id,
						KGNI_SIGCHECK_PTAG_T ptag,
						u32 cookie, u32 modes,
						gni_cdm_handle_t *cdm_hndl)
	__used = gni_cdm_create;
static gni_return_t (*const sig_gni_cdm_attach)(gni_cdm_handle_t cdm_hndl,
						u32 device_id,
						u32 *local_addr,
						gni_nic_handle_t *nic_hndl)
	__used = gni_cdm_attach;
static gni_return_t (*const sig_gni_cdm_destroy)(gni_cdm_handle_t cdm_hndl)
	__used = gni_cdm_destroy;
static gni_return_t (*const sig_gni_subscribe_errors)
	(gni_nic_handle_t nic_handle, gni_error_mask_t mask, u32 EEQ_size,
	 void (*EQ_new_event)(gni_err_handle_t),
	 void (*app_crit_err)(gni_err_handle_t),
	 gni_err_handle_t *err_handle)
	__used = gni_subscribe_errors;
static gni_return_t (*const sig_gni_release_errors)
	(gni_err_handle_t err_handle)
	__used = gni_release_errors;
static gni_return_t (*const sig_gni_set_quiesce_callback)
	(gni_nic_handle_t nic_hndl,
	 void (*qsce_func)(gni_nic_handle_t, u64))
	__used = gni_set_quiesce_callback;
static u32 (*const sig_gni_get_quiesce_status)(gni_nic_handle_t nic_hndl)
	__used = gni_get_quiesce_status;

/* Completion queues (kgni section 3.2; the handler's type as asserted above) */
static gni_return_t (*const sig_gni_cq_create)
	(gni_nic_handle_t nic_hndl, u32 entry_count, u32 delay_index,
	 void (*event_handler)(u32 device_id, u64 data), u64 usr_event_data,
	 gni_cq_handle_t *cq_hndl)
	__used = gni_cq_create;
static gni_return_t (*const sig_gni_cq_destroy)(gni_cq_handle_t cq_hndl)
	__used = gni_cq_destroy;
static gni_return_t (*const sig_gni_cq_get_event)
	(gni_cq_handle_t cq_hndl, gni_cq_entry_t *event_data)
	__used = gni_cq_get_event;
static gni_return_t (*const sig_gni_cq_error_str)(gni_cq_entry_t entry,
						  void *buffer, u32 len)
	__used = gni_cq_error_str;
static gni_return_t (*const sig_gni_cq_error_recoverable)
	(gni_cq_entry_t entry, u32 *recoverable)
	__used = gni_cq_error_recoverable;
static gni_return_t (*const sig_gni_get_completed)
	(gni_cq_handle_t cq_hndl, gni_cq_entry_t event_data,
	 gni_post_descriptor_t **post_descr)
	__used = gni_get_completed;

/* The CQ entry accessors (kgni section 1: GNI_CQ_* expand to them) */
static u64 (*const sig_gni_cq_get_data)(gni_cq_entry_t entry)
	__used = gni_cq_get_data;
static u64 (*const sig_gni_cq_get_source)(gni_cq_entry_t entry)
	__used = gni_cq_get_source;
static u64 (*const sig_gni_cq_get_status)(gni_cq_entry_t entry)
	__used = gni_cq_get_status;
static u64 (*const sig_gni_cq_overrun)(gni_cq_entry_t entry)
	__used = gni_cq_overrun;
static u64 (*const sig_gni_cq_get_inst_id)(gni_cq_entry_t entry)
	__used = gni_cq_get_inst_id;
static u64 (*const sig_gni_cq_get_rem_inst_id)(gni_cq_entry_t entry)
	__used = gni_cq_get_rem_inst_id;
static u64 (*const sig_gni_cq_get_msg_id)(gni_cq_entry_t entry)
	__used = gni_cq_get_msg_id;
static u64 (*const sig_gni_cq_get_tid)(gni_cq_entry_t entry)
	__used = gni_cq_get_tid;
static u64 (*const sig_gni_cq_get_type)(gni_cq_entry_t entry)
	__used = gni_cq_get_type;
static void (*const sig_gni_cq_set_inst_id)(gni_cq_entry_t *entry, u64 v)
	__used = gni_cq_set_inst_id;
static void (*const sig_gni_cq_set_rem_inst_id)(gni_cq_entry_t *entry,
						u64 v)
	__used = gni_cq_set_rem_inst_id;
static void (*const sig_gni_cq_set_msg_id)(gni_cq_entry_t *entry, u64 v)
	__used = gni_cq_set_msg_id;
static void (*const sig_gni_cq_set_tid)(gni_cq_entry_t *entry, u64 v)
	__used = gni_cq_set_tid;
static void (*const sig_gni_cq_set_type)(gni_cq_entry_t *entry, u64 v)
	__used = gni_cq_set_type;
static void (*const sig_gni_cq_clr_status)(gni_cq_entry_t *entry)
	__used = gni_cq_clr_status;

/* Endpoints (kgni section 3.4) */
static gni_return_t (*const sig_gni_ep_create)(gni_nic_handle_t nic_hndl,
					       gni_cq_handle_t src_cq_hndl,
					       gni_ep_handle_t *ep_hndl)
	__used = gni_ep_create;
static gni_return_t (*const sig_gni_ep_bind)(gni_ep_handle_t ep_hndl,
					     u32 remote_addr, u32 remote_id)
	__used = gni_ep_bind;
static gni_return_t (*const sig_gni_ep_set_eventdata)
	(gni_ep_handle_t ep_hndl, u32 local_event, u32 remote_event)
	__used = gni_ep_set_eventdata;
static gni_return_t (*const sig_gni_ep_unbind)(gni_ep_handle_t ep_hndl)
	__used = gni_ep_unbind;
static gni_return_t (*const sig_gni_ep_destroy)(gni_ep_handle_t ep_hndl)
	__used = gni_ep_destroy;

/* Datagrams (kgni sections 3.4 and 4) */
static gni_return_t (*const sig_gni_ep_postdata)
	(gni_ep_handle_t ep_hndl, void *in_data, u16 data_len, void *out_buf,
	 u16 buf_size)
	__used = gni_ep_postdata;
static gni_return_t (*const sig_gni_ep_postdata_w_id)
	(gni_ep_handle_t ep_hndl, void *in_data, u16 data_len, void *out_buf,
	 u16 buf_size, u64 datagram_id)
	__used = gni_ep_postdata_w_id;
static gni_return_t (*const sig_gni_ep_postdata_test)
	(gni_ep_handle_t ep_hndl, gni_post_state_t *post_state,
	 u32 *remote_addr, u32 *remote_id)
	__used = gni_ep_postdata_test;
static gni_return_t (*const sig_gni_ep_postdata_test_by_id)
	(gni_ep_handle_t ep_hndl, u64 datagram_id,
	 gni_post_state_t *post_state, u32 *remote_addr, u32 *remote_id)
	__used = gni_ep_postdata_test_by_id;
static gni_return_t (*const sig_gni_ep_postdata_wait)
	(gni_ep_handle_t ep_hndl, u32 timeout, gni_post_state_t *post_state,
	 u32 *remote_addr, u32 *remote_id)
	__used = gni_ep_postdata_wait;
static gni_return_t (*const sig_gni_postdata_probe)
	(gni_nic_handle_t nic_hndl, u32 *remote_addr, u32 *remote_id)
	__used = gni_postdata_probe;
static gni_return_t (*const sig_gni_postdata_probe_by_id)
	(gni_nic_handle_t nic_hndl, u64 *datagram_id)
	__used = gni_postdata_probe_by_id;
static gni_return_t (*const sig_gni_postdata_probe_wait_by_id)
	(gni_nic_handle_t nic_hndl, u32 timeout, u64 *datagram_id)
	__used = gni_postdata_probe_wait_by_id;
static gni_return_t (*const sig_gni_ep_postdata_cancel)
	(gni_ep_handle_t ep_hndl)
	__used = gni_ep_postdata_cancel;
static gni_return_t (*const sig_gni_ep_postdata_cancel_by_id)
	(gni_ep_handle_t ep_hndl, u64 datagram_id)
	__used = gni_ep_postdata_cancel_by_id;

/* Short messages (kgni section 3.3) */
static gni_return_t (*const sig_gni_smsg_buff_size_needed)
	(gni_smsg_attr_t *smsg_attr, unsigned int *size)
	__used = gni_smsg_buff_size_needed;
static gni_return_t (*const sig_gni_smsg_init)
	(gni_ep_handle_t ep_hndl, gni_smsg_attr_t *local_smsg_attr,
	 gni_smsg_attr_t *remote_smsg_attr)
	__used = gni_smsg_init;
static gni_return_t (*const sig_gni_smsg_send)
	(gni_ep_handle_t ep_hndl, void *header, u32 header_length,
	 void *data, u32 data_length, u32 msg_id)
	__used = gni_smsg_send;
static gni_return_t (*const sig_gni_smsg_getnext)(gni_ep_handle_t ep_hndl,
						  void **header)
	__used = gni_smsg_getnext;
static gni_return_t (*const sig_gni_smsg_release)(gni_ep_handle_t ep_hndl)
	__used = gni_smsg_release;

/* RDMA (kgni section 3.5) */
static gni_return_t (*const sig_gni_post_rdma)
	(gni_ep_handle_t ep_hndl, gni_post_descriptor_t *post_descr)
	__used = gni_post_rdma;

/* Memory (kgni section 3.6) */
static gni_return_t (*const sig_gni_mem_register)
	(gni_nic_handle_t nic_hndl, u64 address, u64 length,
	 gni_cq_handle_t dst_cq_hndl, u32 flags, gni_mem_handle_t *mem_hndl)
	__used = gni_mem_register;
static gni_return_t (*const sig_gni_mem_register_segments)
	(gni_nic_handle_t nic_hndl, gni_mem_segment_t *mem_segments,
	 u32 segments_cnt, gni_cq_handle_t dst_cq_hndl, u32 flags,
	 gni_mem_handle_t *mem_hndl)
	__used = gni_mem_register_segments;
static gni_return_t (*const sig_gni_mem_deregister)
	(gni_nic_handle_t nic_hndl, gni_mem_handle_t *mem_hndl,
	 int hold_timeout)
	__used = gni_mem_deregister;
static gni_return_t (*const sig_gni_mem_mdd_release)
	(gni_nic_handle_t nic_hndl, gni_mem_handle_t *mem_hndl)
	__used = gni_mem_mdd_release;

/* kgni section 4 */
static gni_return_t (*const sig_gni_get_errno)(gni_nic_handle_t nic_hndl,
					       gni_errno_t *errno_ptr)
	__used = gni_get_errno;
static gni_return_t (*const sig_gni_post_fma)
	(gni_ep_handle_t ep_hndl, gni_post_descriptor_t *post_descr)
	__used = gni_post_fma;
static gni_return_t (*const sig_gni_smsg_set_delivery_mode)
	(gni_nic_handle_t nic_handle, u16 dlvr_mode)
	__used = gni_smsg_set_delivery_mode;
static gni_return_t (*const sig_gni_smsg_set_max_retrans)
	(gni_nic_handle_t nic_handle, u16 max_retrans)
	__used = gni_smsg_set_max_retrans;

static gni_return_t (*const sig_gni_get_error_mask)
	(gni_err_handle_t err_handle, gni_error_mask_t *mask)
	__used = gni_get_error_mask;
static gni_return_t (*const sig_gni_set_error_mask)
	(gni_err_handle_t err_handle, gni_error_mask_t mask_in,
	 gni_error_mask_t *mask_out)
	__used = gni_set_error_mask;
static gni_return_t (*const sig_gni_get_error_event)
	(gni_err_handle_t err_handle, gni_error_event_t *event)
	__used = gni_get_error_event;
static gni_return_t (*const sig_gni_wait_error_events)
	(gni_err_handle_t err_handle, gni_error_event_t *events,
	 u32 events_size, u32 timeout, u32 *num_events)
	__used = gni_wait_error_events;
static gni_return_t (*const sig_gni_set_error_ptag)
	(gni_err_handle_t err_handle, u8 ptag)
	__used = gni_set_error_ptag;

/* vgemini's, as GNI_CdmGetNicAddress */
static gni_return_t (*const sig_gni_cdm_get_nic_address)(u32 device_id,
							 u32 *address,
							 u32 *cpu_id)
	__used = gni_cdm_get_nic_address;

/*
 * RCA (kgni section 8): the types gnilnd checks with typecheck(), and the
 * functions as gnilnd and its configure probe call them
 */
static_assert(__same_type(rca_nid_t, __u32));
static_assert(__same_type(nic_addr_t, __u32));
static krca_ticket_t sig_krca_null __used = KRCA_NULL_TICKET;
static_assert(__same_type(((rs_node_array_t *)NULL)->na_ids, rs_node_t *));
static_assert(__same_type(((rs_event_t *)NULL)->ev_id, rs_event_code_t));

static int (*const sig_krca_register)(krca_ticket_t *ticket, u32 svc_type,
				      u32 instance, int flags)
	__used = krca_register;
static int (*const sig_krca_unregister)(krca_ticket_t *ticket)
	__used = krca_unregister;
static int (*const sig_krca_subscribe)(krca_ticket_t *ticket,
				       rs_event_code_t ev, u32 svc_filter,
				       rca_ticket_t *sub_ticket)
	__used = krca_subscribe;
static int (*const sig_krca_unsubscribe)(krca_ticket_t *ticket,
					 rca_ticket_t sub_ticket)
	__used = krca_unsubscribe;
static int (*const sig_krca_wait_event)(krca_ticket_t *ticket)
	__used = krca_wait_event;
static int (*const sig_krca_wakeup_wait_event)(krca_ticket_t *ticket)
	__used = krca_wakeup_wait_event;
static int (*const sig_krca_get_message)(krca_ticket_t *ticket,
					 rs_event_t *event)
	__used = krca_get_message;
static int (*const sig_krca_get_sysnodes)(rs_node_array_t *list)
	__used = krca_get_sysnodes;
static int (*const sig_krca_nid_to_nicaddrs)(rca_nid_t nid, int numnic,
					     nic_addr_t *nicaddrs)
	__used = krca_nid_to_nicaddrs;
static int (*const sig_krca_nicaddr_to_nid)(nic_addr_t nicaddr,
					    rca_nid_t *nid)
	__used = krca_nicaddr_to_nid;
/* Cray's headers do not declare it (gnilnd does, itself); krca_lib.h does */
static void (*const sig_send_hb_2_l0)(void) __used = send_hb_2_l0;

MODULE_DESCRIPTION("Signature check of kgni's kernel API");
MODULE_LICENSE("GPL");
