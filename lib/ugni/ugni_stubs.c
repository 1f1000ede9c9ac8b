// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The uGNI functions a Gemini does not have: the collective engine and
 * chained FMA are Aries only.  Each returns GNI_RC_ILLEGAL_OP, as Cray's
 * library does on a Gemini, and touches none of its arguments.
 * Documentation/ugni.rst lists them.
 */
#include "ugni_priv.h"

/* Each stub ignores every argument by design: say so once, not per line. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Aries only: Gemini has none */
UGNI_EXPORT gni_return_t GNI_CtPostFma(gni_ep_handle_t ep_hndl,
		gni_post_descriptor_t *post_descr)
{
	return GNI_RC_ILLEGAL_OP;
}

/* Aries only: Gemini has none */
UGNI_EXPORT gni_return_t GNI_CeCreate(gni_nic_handle_t nic_hndl,
		gni_ce_handle_t *ce_hndl)
{
	return GNI_RC_ILLEGAL_OP;
}

/* Aries only: Gemini has none */
UGNI_EXPORT gni_return_t GNI_CeGetId(gni_ce_handle_t ce_hndl, uint32_t *ce_id)
{
	return GNI_RC_ILLEGAL_OP;
}

/* Aries only: Gemini has none */
UGNI_EXPORT gni_return_t GNI_EpSetCeAttr(gni_ep_handle_t ep_hndl,
		uint32_t ce_id, uint32_t child_id, gni_ce_child_t child_type)
{
	return GNI_RC_ILLEGAL_OP;
}

/* Aries only: Gemini has none */
UGNI_EXPORT gni_return_t GNI_CeConfigure(gni_ce_handle_t ce_hndl,
		gni_ep_handle_t *child_eps, uint32_t num_child_eps,
		gni_ep_handle_t parent_ep, gni_cq_handle_t cq_hndl,
		uint32_t modes)
{
	return GNI_RC_ILLEGAL_OP;
}

/* Aries only: Gemini has none */
UGNI_EXPORT gni_return_t GNI_CeCheckResult(gni_ce_result_t *result,
		uint32_t length)
{
	return GNI_RC_ILLEGAL_OP;
}

/* Aries only: Gemini has none */
UGNI_EXPORT gni_return_t GNI_CeDestroy(gni_ce_handle_t ce_hndl)
{
	return GNI_RC_ILLEGAL_OP;
}
