// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive queues, a QP's own or shared: fill struct rxe_recv_wqe entries
 * and move the producer index.  No system call: the kernel picks the
 * entries up when a message arrives.
 */
#include <errno.h>
#include <string.h>

#include "rxe.h"

static void rxe_fill_recv_wqe(struct rxe_recv_wqe *wqe,
			      const struct ibv_recv_wr *wr)
{
	uint32_t length = 0;
	int i;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		length += wr->sg_list[i].length;
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = wr->num_sge;
}

/*
 * Post a chain.  Entries are published together at the end; on a bad
 * request the ones before it are still published, as the verbs promise.
 */
int rxe_wq_post_recv(struct rxe_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	uint32_t prod, cons, start;
	int err = 0;

	rxe_lock(&wq->lock);
	if (!wq->ring.buf) {
		err = EINVAL;
		goto out;
	}
	start = prod = rxe_ring_own_producer(&wq->ring);
	cons = rxe_ring_peer_consumer(&wq->ring);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge ||
		    (wr->num_sge && !wr->sg_list)) {
			err = EINVAL;
			break;
		}
		if (rxe_ring_full(&wq->ring, prod, cons)) {
			/* The kernel may have freed slots meanwhile. */
			cons = rxe_ring_peer_consumer(&wq->ring);
			if (rxe_ring_full(&wq->ring, prod, cons)) {
				err = ENOMEM;
				break;
			}
		}
		rxe_fill_recv_wqe(rxe_ring_elem(&wq->ring, prod), wr);
		prod = rxe_ring_next(&wq->ring, prod);
	}
	if (prod != start)
		rxe_ring_publish_producer(&wq->ring, prod);
out:
	rxe_unlock(&wq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

void rxe_wq_init(struct rxe_wq *wq)
{
	memset(wq, 0, sizeof(*wq));
	rxe_lock_init(&wq->lock);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

int rxe_wq_map(struct rxe_wq *wq, int fd, const struct mminfo *mi,
	       size_t hdr_size, uint32_t max_sge, uint32_t max_inline)
{
	size_t room;
	int err;

	err = rxe_ring_map(&wq->ring, fd, mi);
	if (err)
		return err;
	/* Never trust a limit that would write past one element. */
	room = rxe_ring_elem_size(&wq->ring);
	room = room > hdr_size ? room - hdr_size : 0;
	wq->max_sge = min_u32(max_sge, room / sizeof(struct rxe_sge));
	wq->max_inline = min_u32(max_inline, room);
	return 0;
}

void rxe_wq_fini(struct rxe_wq *wq)
{
	rxe_ring_unmap(&wq->ring);
}
