// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Asynchronous events through ibv_get_async_event(): port events when
 * veth1 goes down and up again (rxe0's port loses its carrier: PORT_ERR,
 * then PORT_ACTIVE, both naming port 1), and QP events after errors that
 * kernels with them report (a remote access error on an RC responder, an
 * SRQ-attached QP moved to ERR).  rxe in the 6.1 kernel raises no QP
 * events (LAST_WQE_REACHED and QP_ACCESS_ERR came later): then that part
 * is skipped and says so.
 *
 * Taking veth1 down removes its routes; they are put back, and the test
 * waits until both ports are ACTIVE with their IPv4 GIDs again, so the
 * tests after it find the guest as they expect.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest_common.h"

static void nonblocking(struct ibv_context *ctx)
{
	fcntl(ctx->async_fd, F_SETFL,
	      fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
}

/*
 * Wait up to @ms in all for an event of @type, however many others come
 * first; acknowledge every event read.  Returns true when one came;
 * @port/@qp get its element.
 */
static bool wait_event(struct ibv_context *ctx, enum ibv_event_type type,
		       int ms, int *port, struct ibv_qp **qp)
{
	long deadline = gc_now_ms() + ms;
	struct ibv_async_event ev;
	bool found = false;
	char what[80];
	int r;

	snprintf(what, sizeof(what), "async event \"%s\" of %s",
		 ibv_event_type_str(type), ibv_get_device_name(ctx->device));
	while (!found) {
		/* One limit for all, and said whole: others may come first. */
		r = gc_fd_ready_until(ctx->async_fd, POLLIN, deadline);
		if (r < 0)
			gc_diag("poll for %s: %s", what, strerror(errno));
		/* Some callers expect none: a short wait stays quiet. */
		else if (!r && ms > GC_QUIET_MS)
			gc_diag("timeout: no %s within %d ms", what, ms);
		if (r != 1)
			break;
		if (ibv_get_async_event(ctx, &ev)) {
			gc_diag("ibv_get_async_event for %s: %s", what,
				strerror(errno));
			break;
		}
		gc_diag("async event: %s",
			ibv_event_type_str(ev.event_type));
		if (ev.event_type == type) {
			found = true;
			if (port)
				*port = ev.element.port_num;
			if (qp)
				*qp = ev.element.qp;
		}
		ibv_ack_async_event(&ev);
	}
	return found;
}

static int port_state(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;

	return ibv_query_port(ctx, GC_PORT, &pa) ? -1 : (int)pa.state;
}

#define ROUTES "/tmp/rxe_events.routes"

static int sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		gc_diag("'%s': status %d", cmd, rc);
	return rc;
}

/* Wait (up to 30 s) until rxe@which is ACTIVE with its IPv4 GID back. */
static bool device_back(int which)
{
	struct gc_dev dev;
	int i;

	for (i = 0; i < 300; i++) {
		if (!gc_dev_open(&dev, which)) {
			int st = port_state(dev.ctx);

			gc_dev_close(&dev);
			if (st == IBV_PORT_ACTIVE)
				return true;
		}
		usleep(100000);
	}
	return false;
}

static void test_port_events(void)
{
	struct gc_dev dev;
	int port = 0;
	bool seen;

	if (!gc_ok(!gc_dev_open(&dev, 0), "port: open rxe0"))
		return;
	nonblocking(dev.ctx);
	/* Routes that the kernel does not put back by itself. */
	if (!gc_ok(!sh("ip -4 route show table all dev veth1 | "
		       "grep -v -e 'proto kernel' -e '^local' "
		       "-e '^broadcast' >" ROUTES),
		   "port: veth1's routes saved"))
		goto out;

	gc_ok(!sh("ip link set veth1 down"), "port: veth1 down");
	seen = wait_event(dev.ctx, IBV_EVENT_PORT_ERR, GC_TIMEOUT_MS, &port,
			  NULL);
	gc_ok(seen && port == GC_PORT, "port: IBV_EVENT_PORT_ERR for port %d",
	      port);
	gc_ok(port_state(dev.ctx) == IBV_PORT_DOWN,
	      "port: query_port says DOWN (%d)", port_state(dev.ctx));

	port = 0;
	gc_ok(!sh("ip link set veth1 up"), "port: veth1 up");
	seen = wait_event(dev.ctx, IBV_EVENT_PORT_ACTIVE, GC_TIMEOUT_MS,
			  &port, NULL);
	gc_ok(seen && port == GC_PORT,
	      "port: IBV_EVENT_PORT_ACTIVE for port %d", port);
	gc_ok(!sh("while read -r r; do ip route replace $r dev veth1; "
		  "done <" ROUTES), "port: veth1's routes restored");
	unlink(ROUTES);
	gc_ok(device_back(0) && device_back(1),
	      "port: rxe0 and rxe1 ACTIVE with their IPv4 GIDs again");
	/*
	 * The link-local address comes back tentative: later tests (the
	 * IPv6 path of l2_resolve) need it usable, so wait out DAD.
	 */
	gc_ok(!sh("for i in $(seq 100); do "
		  "[ -z \"$(ip -6 addr show dev veth1 tentative)\" ] && exit 0; "
		  "sleep 0.1; done; exit 1"),
	      "port: veth1's IPv6 addresses usable again");
out:
	gc_dev_close(&dev);
}

static void test_qp_events(void)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 8,
						   .max_sge = 1 } };
	struct ibv_qp_attr err_state = { .qp_state = IBV_QPS_ERR };
	struct gc_qp_caps caps = {};
	struct ibv_qp *srq_qp = NULL, *qp = NULL;
	struct ibv_srq *srq = NULL;
	struct gc_buf a;
	struct gc_pair p;
	struct ibv_wc wc;
	bool seen;

	memset(&a, 0, sizeof(a));
	if (!gc_ok(!gc_pair_open(&p, IBV_QPT_RC, NULL), "qp: RC pair"))
		return;
	nonblocking(p.a.ctx);
	nonblocking(p.b.ctx);
	if (gc_buf_alloc(&a, p.a.pd, 4096, GC_ACCESS_ALL, 1)) {
		gc_ok(false, "qp: buffer");
		goto out;
	}
	/* A WRITE with a bad rkey: an access error at the responder. */
	gc_ok(!gc_post_send(p.qp_a, IBV_WR_RDMA_WRITE, &a, 0, 64, 1,
			    IBV_SEND_SIGNALED, 0x1000, 0x4242) &&
	      gc_poll(p.cq_a, 1, &wc, GC_REPLY_TIMEOUT_MS) == 1 &&
	      wc.status == IBV_WC_REM_ACCESS_ERR,
	      "qp: WRITE with a bad rkey fails remotely");
	seen = wait_event(p.b.ctx, IBV_EVENT_QP_ACCESS_ERR, 1000, NULL, &qp);

	srq = ibv_create_srq(p.b.pd, &sia);
	caps.srq = srq;
	srq_qp = srq ? gc_create_qp(&p.b, p.cq_b, IBV_QPT_RC, &caps) : NULL;
	if (!gc_ok(srq_qp && !gc_qp_init(srq_qp, GC_ACCESS_ALL) &&
		   !ibv_modify_qp(srq_qp, &err_state, IBV_QP_STATE),
		   "qp: a QP on an SRQ moved to ERR"))
		goto out;
	if (seen) {
		gc_ok(qp == p.qp_b, "qp: QP_ACCESS_ERR names the responder");
	} else if (wait_event(p.b.ctx, IBV_EVENT_QP_LAST_WQE_REACHED, 1000,
			      NULL, &qp)) {
		seen = true;
		gc_ok(qp == srq_qp, "qp: QP_LAST_WQE_REACHED names the QP");
	}
	if (!seen)
		gc_skip("no QP event: rxe in this kernel raises none");
out:
	if (srq_qp)
		gc_ok(!ibv_destroy_qp(srq_qp), "qp: destroy after the events");
	if (srq)
		ibv_destroy_srq(srq);
	if (a.mr)
		gc_buf_free(&a);
	gc_pair_close(&p);
}

int main(void)
{
	gc_start("rxe_events");
	test_qp_events();
	test_port_events();
	return gc_finish();
}
