/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * For tests that compile the command layer (or another part of the
 * library) without fork_guard.c: the process token the child guard
 * (child_guard.h) compares, and the private state of the contexts a test
 * makes.  Include once per test program, after the library's headers.
 */
#ifndef TEST_CHILD_GUARD_STUB_H
#define TEST_CHILD_GUARD_STUB_H

#include <stdbool.h>
#include <unistd.h>

#include "driver.h"

static struct verbs_proc_page stub_proc_page = { .token = 1 };
struct verbs_proc_page *verbs_proc_page = &stub_proc_page;

uint64_t verbs_proc_adopt(void)
{
	return stub_proc_page.token;
}

/* The private state of every context a test makes: opened by this process. */
static struct verbs_ex_private stub_priv = { .owner.proc_token = 1 };

static inline void stub_own_context(struct verbs_context *vctx)
{
	stub_priv.owner.pid = getpid();
	vctx->priv = &stub_priv;
}

/*
 * Act as a fork child (@child) or as the opener: a child sees another
 * process token, as after fork() (fork_guard.c).
 */
static inline void stub_be_child(bool child)
{
	stub_proc_page.token = child ? 2 : 1;
}

#endif /* TEST_CHILD_GUARD_STUB_H */
