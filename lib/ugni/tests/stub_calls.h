/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Every function libugni does not offer, called with zero
 * arguments: each must return GNI_RC_ILLEGAL_OP (Documentation/ugni.rst). */
STUB(GNI_CtPostFma, (0, 0))
STUB(GNI_CeCreate, (0, 0))
STUB(GNI_CeGetId, (0, 0))
STUB(GNI_EpSetCeAttr, (0, 0, 0, 0))
STUB(GNI_CeConfigure, (0, 0, 0, 0, 0, 0))
STUB(GNI_CeCheckResult, (0, 0))
STUB(GNI_CeDestroy, (0))
