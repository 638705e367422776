/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The child guard: is a context inherited across fork()?
 *
 * Every context records who opened it (struct verbs_owner, the first
 * member of the library's private state, set up by verbs_init_context()).
 * Every layer that must refuse an inherited object asks the one predicate
 * below: the verbs, the command layer, the provider wrappers
 * (provider_context.c, provider_guard.c) and the built-in provider.  This
 * header sits below all of them: it needs only the public context layout
 * and the process token (fork.h, fork_guard.c).
 */
#ifndef IBV_CHILD_GUARD_H
#define IBV_CHILD_GUARD_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "fork.h"

/* Who opened a context; the first member of struct verbs_ex_private. */
struct verbs_owner {
	/* The opener's process token (fork_guard.c). */
	uint64_t proc_token;
	/* Its pid, for verbs_inherited_strict(). */
	pid_t pid;
};

static inline const struct verbs_owner *
verbs_owner_of(const struct ibv_context *ctx)
{
	const char *p = (const char *)ctx;
	const struct verbs_context *vctx;

	vctx = (const void *)(p - offsetof(struct verbs_context, context));

	/* The owner is the private state's first member (driver.h). */
	return (const struct verbs_owner *)vctx->priv;
}

/*
 * The child guard.  True when @ctx was opened in another process: this
 * one is a child that inherited it.  It compares the context's process
 * token with this process's, which every child made by fork(), _Fork() or
 * clone() without CLONE_VM sees change without any atfork handler (the
 * token page is MADV_WIPEONFORK).  One load of the owner, one of the
 * token page and a compare, no call: the data path affords it.
 *
 * The owner is loaded before the token page, so a caller that loaded the
 * context's private state for its own use shares that load with the
 * guard.
 */
static inline bool verbs_inherited(const struct ibv_context *ctx)
{
	return __builtin_expect(!verbs_proc_is(verbs_owner_of(ctx)->proc_token),
				0);
}

/*
 * The control path's variant: also true when the pid is not the
 * opener's.  The token cannot catch two kinds of child: one that shares
 * the parent's memory (vfork(), clone(CLONE_VM)), which sees the parent's
 * token page itself, and one made without the atfork handlers on a kernel
 * without MADV_WIPEONFORK, whose fallback token only a handler clears.
 * Such a child must still never create, modify or destroy the parent's
 * kernel objects, so every verb that issues a kernel command pays for the
 * getpid() system call, which is nothing next to the command.  The data
 * path does not: a vfork() child may only call execve() or _exit().
 */
static inline bool verbs_inherited_strict(const struct ibv_context *ctx)
{
	return verbs_inherited(ctx) || verbs_owner_of(ctx)->pid != getpid();
}

#endif /* IBV_CHILD_GUARD_H */
