/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The running kernel's release, for in-guest checks whose right answer
 * changed with a kernel commit (each caller names it).  Apart from
 * guest_common.h because it needs no libibverbs: tests that compile the
 * command layer in (cmd_smoke) use it too.
 */
#ifndef GUEST_KERNEL_VERSION_H
#define GUEST_KERNEL_VERSION_H

#include <stdbool.h>

/* uname -r, or "?" if uname fails. */
const char *gc_kernel_release(void);
/* Whether the running kernel is MAJOR.MINOR or later. */
bool gc_kernel_at_least(int major, int minor);

#endif
