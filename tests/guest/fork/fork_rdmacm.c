// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fork child of an rdma_cm user connects and exchanges messages through
 * rdma_cm.
 *
 * librdmacm opens each device once per process and keeps the context and
 * a PD in a cache that fork() does not reset; a child only ever gets
 * those.  Here an echo server (a process of its own, started before the
 * parent touches rdma_cm) listens on rxe1's address.  The parent connects
 * to it with rdma_create_ep() from rxe0's address and exchanges a message
 * over that connection, which it keeps open: librdmacm's cache now holds
 * rxe0's context and the PD of the parent's QP.  Then children made by
 * fork(), _Fork() and a raw clone(), and one fork child working from a
 * thread of its own, run the rdma_client flow (rdma_create_ep(),
 * rdma_reg_msgs(), rdma_connect(), rdma_post_send/recv(), completions by
 * event) against the server and exit; then several fork children do it at
 * once.  After each, the parent exchanges a message over its own
 * connection again.
 *
 * Then the parent says goodbye, disconnects and destroys its endpoint, so
 * that what librdmacm keeps cached (the context, and whatever PD it keeps
 * for it) is all the children inherit, and children of fork(), _Fork()
 * and clone() and several at once run the client flow again.  Once they
 * are gone the kernel's object counts (`rdma resource show`) must come
 * back to those after the parent's disconnect: nothing a child made was
 * charged to the parent's context (the server's side of a child's
 * connection goes when the server sees the child's goodbye, so the wait
 * is bounded, not immediate).  The parent then connects again.
 *
 * On Debian's library the child's QP and MR land in the parent's kernel
 * context and its first post fails (the kernel refuses write() commands
 * from another process): the child's checks are guards.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "fork_proc.h"

/* Beyond any ctest timeout of the test. */
#define SERVER_LIFETIME 900

#define SERVER_IP "198.18.0.2"
#define CLIENT_IP "198.18.0.1"
#define PORT "7471"
#define MSG 64
#define CHILDREN 3

/*
 * One connected endpoint and its registered buffers, in a mapping of
 * their own: in legacy mode registered pages are kept from children, and
 * a stack or heap page would take more with it.
 */
struct ep {
	struct rdma_cm_id *id;
	struct ibv_mr *send_mr, *recv_mr;
	char *send, *recv;
};

static int ep_map(struct ep *e)
{
	memset(e, 0, sizeof(*e));
	e->send = fu_map(4096);
	if (!e->send)
		return -1;
	e->recv = e->send + 2048;
	return 0;
}

static struct rdma_addrinfo *addrinfo(bool passive)
{
	struct rdma_addrinfo hints = { 0 }, *res = NULL;
	struct sockaddr_in src = { .sin_family = AF_INET };

	hints.ai_port_space = RDMA_PS_TCP;
	if (passive) {
		hints.ai_flags = RAI_PASSIVE;
	} else {
		inet_pton(AF_INET, CLIENT_IP, &src.sin_addr);
		hints.ai_src_addr = (struct sockaddr *)&src;
		hints.ai_src_len = sizeof(src);
	}
	if (rdma_getaddrinfo(SERVER_IP, PORT, &hints, &res))
		return NULL;
	return res;
}

static void qp_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 4;
	attr->cap.max_recv_wr = 4;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->sq_sig_all = 1;
	attr->qp_type = IBV_QPT_RC;
}

static int ep_reg(struct ep *e)
{
	e->recv_mr = rdma_reg_msgs(e->id, e->recv, MSG);
	e->send_mr = rdma_reg_msgs(e->id, e->send, MSG);
	return e->recv_mr && e->send_mr ? 0 : -1;
}

static void ep_close(struct ep *e)
{
	if (!e->id)
		return;
	rdma_disconnect(e->id);
	if (e->send_mr)
		rdma_dereg_mr(e->send_mr);
	if (e->recv_mr)
		rdma_dereg_mr(e->recv_mr);
	rdma_destroy_ep(e->id);
	e->id = NULL;
}

static void ep_free(struct ep *e)
{
	ep_close(e);
	if (e->send)
		fu_unmap(e->send, 4096);
	e->send = NULL;
}

/*
 * The server's threads share one alarm, which bounds the server's life
 * instead (server_main()): they wait without their own.
 */
static bool in_server;

static void wait_timed_out(int sig)
{
	static const char msg[] = "rdma_cm completion: none in time\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

/*
 * Wait for one completion by event, as rdma_client does.  The wait
 * blocks in ibv_get_cq_event() without a limit, so an alarm bounds it:
 * a lost completion fails the test with a message instead of hanging.
 */
static bool wait_comp(struct ep *e, bool send)
{
	struct sigaction sa = { .sa_handler = wait_timed_out }, old;
	unsigned int prev;
	struct ibv_wc wc;
	int n;

	if (in_server) {
		n = send ? rdma_get_send_comp(e->id, &wc) :
			   rdma_get_recv_comp(e->id, &wc);
		return n > 0 && wc.status == IBV_WC_SUCCESS;
	}
	sigaction(SIGALRM, &sa, &old);
	prev = alarm(GC_TIMEOUT_MS / 1000);
	n = send ? rdma_get_send_comp(e->id, &wc) :
		   rdma_get_recv_comp(e->id, &wc);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	if (prev)
		alarm(prev);
	return n > 0 && wc.status == IBV_WC_SUCCESS;
}

static bool wait_send(struct ep *e)
{
	return wait_comp(e, true);
}

static bool wait_recv(struct ep *e)
{
	return wait_comp(e, false);
}

/* Send @text, receive the server's echo; 0 or the step that failed. */
static const char *exchange(struct ep *e, const char *text)
{
	snprintf(e->send, MSG, "%s", text);
	memset(e->recv, 0, MSG);
	if (rdma_post_recv(e->id, NULL, e->recv, MSG, e->recv_mr))
		return "rdma_post_recv";
	if (rdma_post_send(e->id, NULL, e->send, MSG, e->send_mr, 0))
		return "rdma_post_send";
	if (!wait_send(e))
		return "send completion";
	if (!wait_recv(e))
		return "recv completion";
	return strncmp(e->recv, text, MSG) ? "echo" : NULL;
}

/*
 * The client's last message: the server disconnects too, which the
 * client's rdma_disconnect() waits for.
 */
static void say_bye(struct ep *e)
{
	snprintf(e->send, MSG, "bye");
	if (!rdma_post_send(e->id, NULL, e->send, MSG, e->send_mr, 0))
		wait_send(e);
}

/* rdma_client's flow up to a connection; 0 or the step that failed. */
static const char *client_connect(struct ep *e)
{
	struct rdma_addrinfo *res = addrinfo(false);
	struct ibv_qp_init_attr attr;
	int ret;

	if (ep_map(e)) {
		rdma_freeaddrinfo(res);
		return "mmap";
	}
	if (!res)
		return "rdma_getaddrinfo";
	qp_attr(&attr);
	ret = rdma_create_ep(&e->id, res, NULL, &attr);
	rdma_freeaddrinfo(res);
	if (ret) {
		e->id = NULL;
		return "rdma_create_ep";
	}
	if (ep_reg(e))
		return "rdma_reg_msgs";
	if (rdma_connect(e->id, NULL))
		return "rdma_connect";
	return NULL;
}

/* ---- the echo server, in a process of its own ---- */

static void *serve_one(void *arg)
{
	struct ep *e = arg;

	for (;;) {
		memset(e->recv, 0, MSG);
		if (rdma_post_recv(e->id, NULL, e->recv, MSG, e->recv_mr) ||
		    !wait_recv(e) || !strcmp(e->recv, "bye"))
			break;
		memcpy(e->send, e->recv, MSG);
		if (rdma_post_send(e->id, NULL, e->send, MSG, e->send_mr, 0) ||
		    !wait_send(e))
			break;
	}
	ep_free(e);
	free(e);
	return NULL;
}

/* Accept and echo until killed; every connection in a thread. */
static void server_main(int ready_fd)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *listen_id;
	struct rdma_addrinfo *res;
	pthread_t t;

	in_server = true;
	res = addrinfo(true);
	qp_attr(&attr);
	if (!res || rdma_create_ep(&listen_id, res, NULL, &attr) ||
	    rdma_listen(listen_id, 16))
		_exit(1);
	if (write(ready_fd, "r", 1) != 1)
		_exit(1);
	close(ready_fd);
	for (;;) {
		struct ep *e = malloc(sizeof(*e));

		if (!e || ep_map(e) || rdma_get_request(listen_id, &e->id))
			_exit(1);
		if (ep_reg(e) || rdma_accept(e->id, NULL) ||
		    pthread_create(&t, NULL, serve_one, e)) {
			ep_free(e);
			free(e);
			continue;
		}
		pthread_detach(t);
	}
}

/* ---- the children ---- */

/*
 * `rdma resource show` in the parent just before it forks: a child's QP
 * and MRs are on a fresh open of rxe0, one context more than the parent
 * has.  Upstream's are in the parent's kernel context, which its connect
 * does not show.
 */
static char fork_counts[1024];

/*
 * Set by a child whose connect left the kernel's context count where it
 * was before the fork: its objects are in the parent's context, which
 * the parent keeps open, so the counts cannot come back (the parent need
 * not wait for them).  Shared with every child, however it was made.
 */
static int *landed_in_parent;

/* Take the counts before a child; a failure fails @who's check. */
static bool take_fork_counts(const char *who)
{
	if (gc_ok(gc_rdma_counts(fork_counts, sizeof(fork_counts)),
		  "%s: the kernel's object counts before the child", who))
		return true;
	fork_counts[0] = 0;
	return false;
}

static bool own_context(long *more)
{
	char now[1024];
	long before = gc_rdma_count(fork_counts, "rxe0", "ctx");

	*more = -1;
	if (!gc_rdma_counts(now, sizeof(now)) || before < 0)
		return false;
	*more = gc_rdma_count(now, "rxe0", "ctx") - before;
	return *more == 1;
}

/* The whole client flow; reports each step when @who is set. */
static bool child_client(const char *who, const char *text)
{
	const char *failed;
	struct ep e;
	long more = -1;

	failed = client_connect(&e);
	if (!failed && !own_context(&more) && more == 0)
		__atomic_store_n(landed_in_parent, 1, __ATOMIC_RELEASE);
	if (who)
		fp_guard(!failed && more == 1,
			 "%s: rdma_create_ep, rdma_reg_msgs, "
			 "rdma_connect (%s: %s), on a kernel context of its "
			 "own (%ld more on rxe0)",
			 who, failed ? failed : "ok",
			 failed ? strerror(errno) : "", more);
	if (!failed) {
		failed = exchange(&e, text);
		if (who)
			fp_guard(!failed,
				 "%s: message echoed through rdma_cm "
				 "(%s)",
				 who, failed ? failed : "ok");
	}
	/*
	 * Cleanup as a well-behaved client does.  After a failure the exit
	 * does it: a disconnect the server never answers would wait.
	 */
	if (!failed) {
		say_bye(&e);
		ep_free(&e);
	}
	return !failed;
}

static void child_main(void *arg)
{
	child_client(arg, "child's message");
}

static void *thread_main(void *arg)
{
	child_client(arg, "child thread's message");
	return NULL;
}

/* A child whose RDMA runs in a thread it starts. */
static void child_thread_main(void *arg)
{
	pthread_t t;

	if (!fp_ok(!pthread_create(&t, NULL, thread_main, arg),
		   "%s: starts a thread", (const char *)arg))
		return;
	pthread_join(t, NULL);
}

static void parent_exchange(struct ep *parent, const char *when)
{
	const char *failed = exchange(parent, when);

	gc_ok(!failed, "parent %s: message echoed on its own connection (%s)",
	      when, failed ? failed : "ok");
}

static void run_child(enum fp_kind kind, void (*fn)(void *), const char *who,
		      struct ep *parent)
{
	int status;

	if (!take_fork_counts(who))
		return;
	status = fp_run(kind, fn, (void *)who, who);

	gc_ok(status == 0, "%s exited normally (%d)", who, status);
	parent_exchange(parent, "after a child");
}

static void run_many(struct ep *parent)
{
	pid_t pids[CHILDREN];
	int ok = 0, status;
	char when[64];

	if (!take_fork_counts("many children"))
		return;
	for (int i = 0; i < CHILDREN; i++) {
		pids[i] = fp_spawn(FP_FORK);
		if (pids[i] == 0) {
			/*
			 * All of them connect, exchange and disconnect at
			 * once through one server: more than one child's
			 * time under a loaded emulator, and still a hang's
			 * bound, within the parent's wait for it.
			 */
			alarm(GC_CHILD_TIMEOUT_MS / 1000 - 10);
			_exit(child_client(NULL, "one of many") ? 0 : 1);
		}
	}
	if (parent)
		parent_exchange(parent, "while children run");
	for (int i = 0; i < CHILDREN; i++) {
		status = pids[i] > 0 ? fu_wait(pids[i]) : -1;
		if (status == 0)
			ok++;
		else
			gc_diag("one of many: exit status %d%s", status,
				status == 128 + SIGALRM ? " (its watchdog)" :
				status == 1 ? " (a step failed or timed out)" :
					      "");
	}
	snprintf(when, sizeof(when), "%d children at once%s", CHILDREN,
		 parent ? "" : " after the parent's disconnect");
	gc_guard(ok == CHILDREN, "%s: %d exchanged through rdma_cm", when, ok);
	if (parent)
		parent_exchange(parent, "after many children");
}

/*
 * Whether the kernel's counts come back to @want within GC_TIMEOUT_MS:
 * the server frees its side of a child's connection when it has read the
 * child's goodbye, after the child may have exited.  A child whose
 * objects went into the parent's context decides it at once: they stay
 * as long as the parent's context does.
 */
static bool counts_settle(const char *want, const char *who)
{
	long deadline = gc_now_ms() + GC_TIMEOUT_MS;
	char now[1024] = "";
	bool same, landed;

	for (;;) {
		same = gc_rdma_counts(now, sizeof(now)) && !strcmp(now, want);
		landed = __atomic_load_n(landed_in_parent, __ATOMIC_ACQUIRE);
		if (same || landed || gc_now_ms() > deadline)
			break;
		usleep(100 * 1000);
	}
	gc_guard(same,
		 "parent after %s: the kernel's object counts are back to "
		 "those before (within %d ms)%s",
		 who, GC_TIMEOUT_MS,
		 landed ? "; a child's objects are in the parent's context" :
			  "");
	if (!same)
		gc_diag("before:\n%snow:\n%s", want, now);
	return same;
}

/*
 * The parent's connection is gone: librdmacm's cache is all the children
 * inherit.
 */
static void run_disconnected(void)
{
	static const char *const who[] = {
		"child of fork() after the parent's disconnect",
		"child of _Fork() after the parent's disconnect",
		"child of raw clone() after the parent's disconnect",
	};
	static const enum fp_kind kinds[] = { FP_FORK, FP_UFORK, FP_CLONE };
	char before[1024];
	int status;

	if (!gc_ok(gc_rdma_counts(before, sizeof(before)),
		   "parent: the kernel's object counts after its disconnect"))
		return;
	gc_diag("rxe0 after the parent's disconnect: ctx %ld, pd %ld, qp %ld",
		gc_rdma_count(before, "rxe0", "ctx"),
		gc_rdma_count(before, "rxe0", "pd"),
		gc_rdma_count(before, "rxe0", "qp"));
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		*landed_in_parent = 0;
		if (!take_fork_counts(who[i]))
			continue;
		status = fp_run(kinds[i], child_main, (void *)who[i], who[i]);
		gc_ok(status == 0, "%s exited normally (%d)", who[i], status);
		counts_settle(before, who[i]);
	}
	*landed_in_parent = 0;
	run_many(NULL);
	counts_settle(before, "many children");
}

int main(void)
{
	struct ep parent;
	const char *failed;
	pid_t server;

	if (!fu_start("fork_rdmacm"))
		return gc_finish();
	landed_in_parent = mmap(NULL, sizeof(*landed_in_parent),
				PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!gc_ok(landed_in_parent != MAP_FAILED, "mmap of a shared flag"))
		return gc_finish();
	server = fu_start_server(server_main, SERVER_LIFETIME);
	if (!gc_ok(server > 0, "echo server listens on %s:%s", SERVER_IP, PORT))
		return gc_finish();

	failed = client_connect(&parent);
	if (gc_ok(!failed, "parent: connects through rdma_cm (%s)",
		  failed ? failed : "ok")) {
		parent_exchange(&parent, "before any child");
		run_child(FP_FORK, child_main, "child of fork()", &parent);
		run_child(FP_UFORK, child_main, "child of _Fork()", &parent);
		run_child(FP_CLONE, child_main, "child of raw clone()",
			  &parent);
		run_child(FP_FORK, child_thread_main, "thread of a fork child",
			  &parent);
		run_many(&parent);
		say_bye(&parent);
		ep_free(&parent);
		run_disconnected();
		failed = client_connect(&parent);
		gc_ok(!failed, "parent: connects again (%s)",
		      failed ? failed : "ok");
		if (!failed)
			parent_exchange(&parent, "after its reconnect");
	}
	if (!failed)
		say_bye(&parent);
	ep_free(&parent);
	kill(server, SIGKILL);
	fu_wait(server);
	return gc_finish();
}
