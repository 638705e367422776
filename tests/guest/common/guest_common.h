/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * guest_common: helpers for the in-guest C tests (static library
 * `guest_common`, link it together with `ibverbs`).
 *
 * The tests run inside the Soft-RoCE guest of tests/vm/run, which has two
 * rxe devices: rxe0 on veth0 (198.18.0.1) and rxe1 on veth1 (198.18.0.2),
 * connected to each other.  Only the public verbs API is used here, so the
 * same test binaries run against this project's libibverbs.so.1 and against
 * Debian's (LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu): that is how the
 * tests themselves are proven.
 *
 * Reporting (TAP-like, one line per check):
 *   gc_start("name")   prints which libibverbs.so.1 the process mapped
 *                      and, if $GC_EXPECT_LIB is set, fails unless the
 *                      mapped path contains it;
 *   gc_ok(cond, ...)   prints "ok N - ..." or "not ok N - ...";
 *   gc_guard(cond, ...)
 *                      a check of a guarantee upstream libibverbs lacks:
 *                      gc_ok() with " # guard" after the description.
 *                      Against Debian's library the failures of a test
 *                      must be exactly its guard checks (run-all);
 *   gc_skip(...)       prints "ok N - # SKIP ...";
 *   gc_known_bug(cond, bug, ...)
 *                      a check that a known bug of the system's
 *                      libibverbs/librxe fails: when the mapped library
 *                      is Debian's and cond is false it prints
 *                      "not ok N - ... # TODO bug" and counts as skipped;
 *                      otherwise it is gc_ok();
 *   gc_finish()        prints "P passed, F failed[, S skipped]" and
 *                      returns the exit status (0 when nothing failed).
 *
 * Devices: gc_dev_open(&dev, 0) opens rxe0 with the GID index of
 * ::ffff:198.18.0.1 and a PD; gc_dev_open(&dev, 1) the same for rxe1 and
 * 198.18.0.2.  gc_find_gid() finds the index of any IPv4-mapped GID.
 *
 * Queue pairs: gc_create_qp() makes a QP with the given caps on one CQ (or
 * NULL for defaults), gc_connect() takes two RC or UC QPs through
 * INIT/RTR/RTS towards each other, gc_ud_ready() a UD QP to RTS with
 * GC_QKEY, gc_create_ah() an address handle from one device to another.
 *
 * Pairs: gc_pair_open() opens rxe0 (side a) and rxe1 (side b) with a CQ
 * of GC_CQ_SIZE entries each; when @type is not 0 it also creates one QP of
 * that type on each side and connects them (RC, UC) or readies them (UD).
 * gc_pair_close() destroys whatever is set, so tests may add their own.
 *
 * Memory: gc_buf_alloc() allocates page-aligned memory, fills it with a
 * pattern and registers it; gc_buf_free() undoes that.
 *
 * Completions: gc_poll() waits (busy, then sleeping) up to GC_TIMEOUT_MS
 * for n completions and returns how many arrived, or -1 on a poll error.
 * gc_poll_ex() does the same on an extended CQ with ibv_start_poll(),
 * giving the wr_ids (0 for a completion with an error status).  Both say
 * how many of how many came when the time runs out, unless the wait was
 * no longer than GC_QUIET_MS: such short waits check that nothing comes.
 *
 * Bounded waits: no test may wait for anything without a limit of its
 * own, or a hang is only ended by the harness's kill, which tells nothing
 * about what was awaited.  gc_wait_fd() polls one descriptor (an event or
 * completion channel, a pipe from a child), gc_read_fd() reads a whole
 * message from one, gc_wait_child() reaps a child and kills it when it
 * outlives its limit.  Each prints what it waited for when the limit is
 * reached.  Their limits are the GC_*_MS below.
 */
#ifndef GUEST_COMMON_H
#define GUEST_COMMON_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel_version.h"

#define GC_PORT		1
#define GC_QKEY		0x11111111
/*
 * Limits of every wait, generous for a loaded TCG guest.  A completion
 * that 5.10's rxe never gives costs GC_TIMEOUT_MS each time, so that one
 * stays as short as it can.  A child runs a whole scenario, and arms a
 * watchdog of its own of up to a minute: the parent's limit lies above
 * those and below the 120 s that the shortest tests with children get.
 *
 * GC_REPLY_TIMEOUT_MS bounds the wait for a completion rxe makes at once
 * - of an RDMA, atomic or send request on a connected pair, one its
 * responder refuses, one flushed after an error - in the checks that
 * 5.10's rxe fails by never completing
 * (tests/data/kernel-known-failures).  6.1 and
 * 6.12 complete them within milliseconds, also in a loaded guest; 5.10
 * would otherwise idle 20 s per check, some 25 times a boot.
 */
#define GC_TIMEOUT_MS		20000
#define GC_REPLY_TIMEOUT_MS	5000
#define GC_CHILD_TIMEOUT_MS	90000
#define GC_QUIET_MS		1000
#define GC_CQ_SIZE	512

/* Every remote access right, for buffers the peer reads or writes. */
#define GC_ACCESS_ALL	(IBV_ACCESS_LOCAL_WRITE | \
			 IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)

struct gc_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	int gid_index;
	const char *name;
	const char *ip;
};

struct gc_buf {
	uint8_t *addr;
	size_t len;
	struct ibv_mr *mr;
};

/* Queue sizes for gc_create_qp(); zero fields take the defaults. */
struct gc_qp_caps {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	struct ibv_srq *srq;
	int sq_sig_all;
};

struct gc_pair {
	struct gc_dev a, b;
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *qp_a, *qp_b;
};

/* Reporting */
void gc_start(const char *test_name);
bool gc_ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool gc_guard(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void gc_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool gc_known_bug(bool cond, const char *bug, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The same for a known bug of Debian's librxe plug-in: known wherever
 * that plug-in serves rxe, on Debian's library or, with
 * RDMAV_RXE_PROVIDER=plugin, on this one.
 */
bool gc_known_librxe_bug(bool cond, const char *bug, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A guard check of a guarantee the built-in rxe provider gives and
 * Debian's librxe does not: on this library with librxe serving rxe
 * (RDMAV_RXE_PROVIDER=plugin) a failure is reported as known (TODO); on
 * Debian's library it is a guard failure like any other, which the
 * "guard" label expects.
 */
bool gc_builtin_guard(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * True when the mapped libibverbs.so.1 is Debian's: rdma-core's file,
 * libibverbs.so.1.14.44.0, in the system's directory.  Ours is
 * libibverbs.so.1.14.44, in a build tree or, installed from our package,
 * in that same directory.
 */
bool gc_system_lib(void);
/* True when Debian's librxe plug-in is mapped, so serves rxe here. */
bool gc_librxe_mapped(void);
void gc_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int gc_finish(void);
/* The path of the libibverbs.so.1 mapped into this process, or "?". */
const char *gc_mapped_libibverbs(void);

/* Devices */
int gc_find_gid(struct ibv_context *ctx, uint8_t port, const char *ipv4,
		union ibv_gid *gid);
int gc_dev_open(struct gc_dev *dev, int which);
void gc_dev_close(struct gc_dev *dev);

/* Memory */
int gc_buf_alloc(struct gc_buf *buf, struct ibv_pd *pd, size_t len,
		 int access, uint8_t seed);
void gc_buf_free(struct gc_buf *buf);
void gc_fill(void *p, size_t len, uint8_t seed);

/* Queue pairs */
struct ibv_qp *gc_create_qp(struct gc_dev *dev, struct ibv_cq *cq,
			    enum ibv_qp_type type,
			    const struct gc_qp_caps *caps);
int gc_qp_init(struct ibv_qp *qp, int access);
int gc_connect(struct ibv_qp *a, struct gc_dev *da, struct ibv_qp *b,
	       struct gc_dev *db);
int gc_ud_ready(struct ibv_qp *qp);
struct ibv_ah *gc_create_ah(struct gc_dev *from, struct gc_dev *to);

int gc_pair_open(struct gc_pair *p, enum ibv_qp_type type,
		 const struct gc_qp_caps *caps);
/*
 * On a pair opened without QPs: connected RC QPs, side b's on @cq_b (a CQ
 * of the test's own, destroyed by the test after the QPs).  0, or -1
 * leaving whatever it created in @p for gc_pair_close().
 */
int gc_pair_rc_on(struct gc_pair *p, struct ibv_cq *cq_b);
void gc_pair_close(struct gc_pair *p);

/* Completions */
/* CLOCK_MONOTONIC in milliseconds, for deadlines. */
long gc_now_ms(void);
int gc_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc, int timeout_ms);
int gc_poll_ex(struct ibv_cq_ex *cq, int n, uint64_t *wr_ids, int timeout_ms);

/* Posting shorthands: one SGE, 0 or an errno. */
int gc_post_recv(struct ibv_qp *qp, struct gc_buf *buf, size_t off,
		 uint32_t len, uint64_t wr_id);
int gc_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op,
		 struct gc_buf *buf, size_t off, uint32_t len, uint64_t wr_id,
		 unsigned int flags, uint64_t raddr, uint32_t rkey);

const char *gc_status_str(enum ibv_wc_status status);

/*
 * Bounded waits.  @what names what is awaited, for the message on a
 * timeout ("completion event of the receiver's CQ", "child running the
 * guard checks").
 *
 * gc_wait_fd(): 1 when @fd has @events (for POLLIN also when it hung up,
 * so that a read() returns end of file or the error), 0 on a timeout,
 * -1 on an error.  Like gc_poll(), it says nothing of a timeout of at
 * most GC_QUIET_MS: such short waits check that nothing comes.
 * gc_read_fd(): reads @len bytes within @timeout_ms in all; the count
 * read (less at end of file), or -1 on a timeout or an error.
 * gc_wait_child_until(): @pid's wait status in @status and @pid, or -1:
 * when it still runs at @deadline_ms (gc_now_ms()'s clock; the child is
 * then killed with SIGKILL and reaped if it dies within a few seconds
 * more) or on an error.  Several waits that share one deadline cannot
 * add up past the test's limit.  gc_wait_child(): the same within
 * @timeout_ms from now.
 */
int gc_wait_fd(int fd, short events, int timeout_ms, const char *what);
/*
 * gc_wait_fd()'s poll by a deadline (gc_now_ms()'s clock), and quiet:
 * for a caller that waits in several steps against one limit and says
 * itself what did not come within all of it.  errno is set on -1
 * (POLLNVAL: EBADF).
 */
int gc_fd_ready_until(int fd, short events, long deadline);
ssize_t gc_read_fd(int fd, void *buf, size_t len, int timeout_ms,
		   const char *what);
pid_t gc_wait_child_until(pid_t pid, int *status, long deadline_ms,
			  const char *what);
pid_t gc_wait_child(pid_t pid, int *status, int timeout_ms,
		    const char *what);

/*
 * The kernel's object counts (restrack), as `rdma resource show` prints
 * them per device: "0: rxe0: pd 2 cq 3 qp 3 cm_id 0 mr 2 ctx 1 srq 1".
 * The guest runs one test at a time, so a change is the test's doing.
 * gc_rdma_counts() reads the whole listing into @buf (false on failure);
 * gc_rdma_count() picks the count of @type ("pd", "qp", ...) of device
 * @dev from such a listing, or -1 when the kernel does not report it.
 */
bool gc_rdma_counts(char *buf, size_t len);
long gc_rdma_count(const char *counts, const char *dev, const char *type);

/*
 * A batch of ibv_wr_*() builders on another thread, to prove what one
 * thread's batch does while a second waits in ibv_wr_start() for it:
 * gc_batch_thread_start() starts a thread that calls ibv_wr_start() on
 * @t->qx, then @t->build(@t) (the builders and setters) and
 * ibv_wr_complete(), and returns once the thread has had time to reach
 * ibv_wr_start() and wait there (0, or pthread_create()'s error).
 * gc_batch_thread_join() gives ibv_wr_complete()'s result.
 */
struct gc_batch_thread {
	struct ibv_qp_ex *qx;
	void (*build)(struct gc_batch_thread *t);
	void *arg;
	pthread_t th;
	int started;
	int err;
};

int gc_batch_thread_start(struct gc_batch_thread *t);
int gc_batch_thread_join(struct gc_batch_thread *t);

#endif /* GUEST_COMMON_H */
