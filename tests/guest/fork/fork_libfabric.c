// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fork child of a libfabric user sends and receives through libfabric's
 * verbs provider.
 *
 * The verbs provider takes its contexts from librdmacm's per-process
 * device cache, which fork() does not reset: a child only has the
 * parent's.  Here an echo server (a process of its own, started before the
 * parent touches libfabric) listens on rxe1's address with a passive
 * endpoint.  The parent calls fi_getinfo() for the verbs provider, opens
 * the fabric and a domain, and exchanges a message with the server over a
 * connected FI_EP_MSG endpoint of that domain.  Then children made by
 * fork(), _Fork() and a raw clone(), from the parent's fi_info, open a
 * fabric, a domain, an endpoint and a CQ of their own, connect, send a
 * message and receive its echo, and exit.  After each child the parent
 * exchanges a message again on a new endpoint of its own domain.
 *
 * On Debian's library the child's objects land in the parent's kernel
 * context and the kernel refuses its commands: the child's check is a
 * guard.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include "fork_proc.h"

/* Beyond any ctest timeout of the test. */
#define SERVER_LIFETIME 900

#define SERVER_IP "198.18.0.2"
#define CLIENT_IP "198.18.0.1"
#define PORT "7473"
#define MSG 64
#define EQ_WAIT_MS 15000

/* A fabric, its event queue and one domain. */
struct fab {
	struct fid_fabric *fabric;
	struct fid_eq *eq;
	struct fid_domain *domain;
};

/* A connected endpoint with its CQ and registered buffer. */
struct conn {
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_mr *mr;
	char *buf; /* send half, then receive half */
	/* FI_CONTEXT mode: the provider keeps state in each request's. */
	struct fi_context send_ctx;
	struct fi_context recv_ctx;
};

static struct fi_info *hints(void)
{
	struct fi_info *h = fi_allocinfo();

	if (!h)
		return NULL;
	h->ep_attr->type = FI_EP_MSG;
	h->caps = FI_MSG;
	h->mode = FI_CONTEXT;
	h->addr_format = FI_SOCKADDR_IN;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				  FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	h->fabric_attr->prov_name = strdup("verbs");
	return h;
}

static struct fi_info *getinfo(bool passive)
{
	struct sockaddr_in *src;
	struct fi_info *h = hints(), *info = NULL;
	int ret;

	if (!h)
		return NULL;
	if (!passive) {
		src = calloc(1, sizeof(*src));
		if (!src) {
			fi_freeinfo(h);
			return NULL;
		}
		src->sin_family = AF_INET;
		inet_pton(AF_INET, CLIENT_IP, &src->sin_addr);
		h->src_addr = src;
		h->src_addrlen = sizeof(*src);
	}
	ret = fi_getinfo(FI_VERSION(1, 17), SERVER_IP, PORT,
			 passive ? FI_SOURCE : 0, h, &info);
	fi_freeinfo(h);
	return ret ? NULL : info;
}

static int fab_open(struct fab *f, struct fi_info *info)
{
	struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_UNSPEC };

	memset(f, 0, sizeof(*f));
	if (fi_fabric(info->fabric_attr, &f->fabric, NULL) ||
	    fi_eq_open(f->fabric, &eq_attr, &f->eq, NULL))
		return -1;
	return fi_domain(f->fabric, info, &f->domain, NULL) ? -1 : 0;
}

static void fab_close(struct fab *f)
{
	if (f->domain)
		fi_close(&f->domain->fid);
	if (f->eq)
		fi_close(&f->eq->fid);
	if (f->fabric)
		fi_close(&f->fabric->fid);
	memset(f, 0, sizeof(*f));
}

/* The next event on @eq: its type, or -1 (timeout or error). */
static int eq_wait(struct fid_eq *eq, struct fi_eq_cm_entry *entry)
{
	uint32_t event;
	ssize_t n;

	n = fi_eq_sread(eq, &event, entry, sizeof(*entry), EQ_WAIT_MS, 0);
	return n >= (ssize_t)sizeof(entry->fid) ? (int)event : -1;
}

/* An endpoint on @f's domain for @info, bound and enabled, a receive up. */
static int conn_open(struct conn *c, struct fab *f, struct fi_info *info)
{
	struct fi_cq_attr cq_attr = { .size = 16,
				      .format = FI_CQ_FORMAT_CONTEXT,
				      .wait_obj = FI_WAIT_NONE };

	memset(c, 0, sizeof(*c));
	c->buf = fu_map(4096);
	if (!c->buf || fi_cq_open(f->domain, &cq_attr, &c->cq, NULL) ||
	    fi_endpoint(f->domain, info, &c->ep, NULL) ||
	    fi_ep_bind(c->ep, &f->eq->fid, 0) ||
	    fi_ep_bind(c->ep, &c->cq->fid, FI_TRANSMIT | FI_RECV) ||
	    fi_enable(c->ep) ||
	    fi_mr_reg(f->domain, c->buf, 4096, FI_SEND | FI_RECV, 0, 0, 0,
		      &c->mr, NULL))
		return -1;
	return fi_recv(c->ep, c->buf + MSG, MSG, fi_mr_desc(c->mr), 0,
		       &c->recv_ctx) ?
		       -1 :
		       0;
}

static void conn_close(struct conn *c)
{
	if (c->ep) {
		fi_shutdown(c->ep, 0);
		fi_close(&c->ep->fid);
	}
	if (c->mr)
		fi_close(&c->mr->fid);
	if (c->cq)
		fi_close(&c->cq->fid);
	if (c->buf)
		fu_unmap(c->buf, 4096);
	memset(c, 0, sizeof(*c));
}

/* One completion on @c's CQ within a few seconds. */
static bool cq_wait(struct conn *c)
{
	struct fi_cq_entry comp;
	struct timespec ts = { 0, 1000000 };
	ssize_t n;

	for (int i = 0; i < 10000; i++) {
		n = fi_cq_read(c->cq, &comp, 1);
		if (n == 1)
			return true;
		if (n != -FI_EAGAIN)
			return false;
		nanosleep(&ts, NULL);
	}
	return false;
}

static bool send_msg(struct conn *c, const char *text)
{
	snprintf(c->buf, MSG, "%s", text);
	return !fi_send(c->ep, c->buf, MSG, fi_mr_desc(c->mr), 0,
			&c->send_ctx) &&
	       cq_wait(c);
}

/* ---- the echo server: one connection at a time ---- */

/* A request that arrived while serve() waited for its FI_SHUTDOWN. */
static struct fi_eq_cm_entry pending;
static bool have_pending;

static void serve(struct fab *f, struct fi_info *req)
{
	struct fi_eq_cm_entry entry;
	struct conn c;

	if (conn_open(&c, f, req) || fi_accept(c.ep, NULL, 0) ||
	    eq_wait(f->eq, &entry) != FI_CONNECTED) {
		conn_close(&c);
		return;
	}
	/* The receive completes first; then the echo goes out. */
	if (cq_wait(&c)) {
		memcpy(c.buf, c.buf + MSG, MSG);
		if (!fi_send(c.ep, c.buf, MSG, fi_mr_desc(c.mr), 0,
			     &c.send_ctx))
			cq_wait(&c);
	}
	/*
	 * This connection's FI_SHUTDOWN.  The EQ is the listener's too: the
	 * next client's request may come first, and is kept for the loop.
	 */
	for (;;) {
		int ev = eq_wait(f->eq, &entry);

		if (ev < 0 || (ev == FI_SHUTDOWN && entry.fid == &c.ep->fid))
			break;
		if (ev == FI_CONNREQ && !have_pending) {
			pending = entry;
			have_pending = true;
		}
	}
	conn_close(&c);
}

static void server_main(int ready_fd)
{
	struct fi_info *info = getinfo(true);
	struct fi_eq_cm_entry entry;
	struct fid_pep *pep;
	struct fab f;

	if (!info || fi_fabric(info->fabric_attr, &f.fabric, NULL))
		_exit(1);
	{
		struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_UNSPEC };

		if (fi_eq_open(f.fabric, &eq_attr, &f.eq, NULL) ||
		    fi_passive_ep(f.fabric, info, &pep, NULL) ||
		    fi_pep_bind(pep, &f.eq->fid, 0) || fi_listen(pep))
			_exit(1);
	}
	if (write(ready_fd, "r", 1) != 1)
		_exit(1);
	close(ready_fd);
	for (;;) {
		if (have_pending) {
			entry = pending;
			have_pending = false;
		} else if (eq_wait(f.eq, &entry) != FI_CONNREQ) {
			continue;
		}
		f.domain = NULL;
		if (!fi_domain(f.fabric, entry.info, &f.domain, NULL)) {
			serve(&f, entry.info);
			fi_close(&f.domain->fid);
		}
		fi_freeinfo(entry.info);
	}
}

/* ---- clients ---- */

static struct fi_info *client_info;

/* Connect on @f, send @text, get the echo; NULL or the failed step. */
static const char *exchange(struct fab *f, const char *text)
{
	struct fi_eq_cm_entry entry;
	const char *failed = NULL;
	struct conn c;

	if (conn_open(&c, f, client_info))
		failed = "endpoint";
	else if (fi_connect(c.ep, client_info->dest_addr, NULL, 0) ||
		 eq_wait(f->eq, &entry) != FI_CONNECTED)
		failed = "fi_connect";
	else if (!send_msg(&c, text))
		failed = "fi_send";
	else if (!cq_wait(&c))
		failed = "fi_recv";
	else if (strncmp(c.buf + MSG, text, MSG))
		failed = "echo";
	conn_close(&c);
	return failed;
}

static void child_main(void *arg)
{
	const char *who = arg, *failed = "fi_fabric/fi_domain";
	struct fab f;

	if (!fab_open(&f, client_info))
		failed = exchange(&f, "child's message");
	fp_guard(!failed,
		 "%s: fabric, domain, endpoint; message echoed through "
		 "libfabric's verbs provider (%s)",
		 who, failed ? failed : "ok");
	/* Cleanup as a well-behaved child does, also after a failure. */
	fab_close(&f);
}

/*
 * After a child a guard: upstream's child works in the parent's kernel
 * context and closes its endpoint, domain and fabric there, which can
 * break the parent's next connection (seen in one guest run on Debian's
 * library: fi_connect failed after two of three children; not in every
 * run).
 */
static void parent_exchange(struct fab *f, const char *when, bool guard)
{
	const char *failed = exchange(f, when);

	if (guard)
		gc_guard(!failed,
			 "parent %s: message echoed on a new endpoint "
			 "(%s)",
			 when, failed ? failed : "ok");
	else
		gc_ok(!failed,
		      "parent %s: message echoed on a new endpoint "
		      "(%s)",
		      when, failed ? failed : "ok");
}

int main(void)
{
	enum fp_kind kinds[] = { FP_FORK, FP_UFORK, FP_CLONE };
	char who[64];
	struct fab parent;
	pid_t server;
	int status;

	if (!fu_start("fork_libfabric"))
		return gc_finish();
	server = fu_start_server(server_main, SERVER_LIFETIME);
	if (!gc_ok(server > 0, "echo server listens on %s:%s", SERVER_IP, PORT))
		return gc_finish();
	client_info = getinfo(false);
	if (gc_ok(client_info != NULL, "parent: fi_getinfo(verbs, msg)") &&
	    gc_ok(!fab_open(&parent, client_info),
		  "parent: fi_fabric, fi_domain on %s",
		  client_info->domain_attr->name)) {
		parent_exchange(&parent, "before any child", false);
		for (unsigned int i = 0; i < 3; i++) {
			snprintf(who, sizeof(who), "child of %s",
				 fp_kind_name(kinds[i]));
			status = fp_run(kinds[i], child_main, who, who);
			gc_ok(status == 0, "%s exited normally (%d)", who,
			      status);
			parent_exchange(&parent, "after a child", true);
		}
		fab_close(&parent);
	}
	if (client_info)
		fi_freeinfo(client_info);
	kill(server, SIGKILL);
	fu_wait(server);
	return gc_finish();
}
