// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The providers built into the library, tried in this order. */
#include "driver.h"

const struct verbs_provider *const verbs_providers[] = {
	&verbs_provider_rxe,
	NULL,
};
