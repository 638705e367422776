/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * first_call: where the first ibv_is_fork_initialized() spends its time.
 *
 * Both libraries answer the first call by asking the kernel over RDMA
 * netlink (RDMA_NLDEV_CMD_SYS_GET, attribute COPY_ON_FORK).  This program
 * makes that very request itself with raw syscalls before the library
 * does, twice, timing each step:
 *
 *   nl_cold.STEP   the first time in this process (ns): socket(), the
 *                  request (sendto(), in which the kernel builds the
 *                  answer), recv(), close();
 *   nl_warm.total  the same again: what the round trip itself costs;
 *   first_call_warm then the library's first call (ns), with the kernel's
 *                  path already warm: what is left is the library's own
 *                  first-time work (its code's first run, lazy binding,
 *                  allocations; under TCG also the translation of code
 *                  run for the first time);
 *   second_call    and its second call.
 *
 * bench/fork_status times the first call cold, for comparison.
 */
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_util.h"

#define SYS_GET RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET)

static int round_trip(const char *tag)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr h;
	} req = {
		.h = {
			.nlmsg_len = sizeof(struct nlmsghdr),
			.nlmsg_type = SYS_GET,
			.nlmsg_flags = NLM_F_REQUEST,
			.nlmsg_seq = 1,
		},
	};
	char buf[4096];
	uint64_t t0, t1, t2, t3, t4;
	ssize_t n;
	int fd;

	t0 = bench_now_ns();
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	t1 = bench_now_ns();
	if (fd < 0) {
		perror("socket(NETLINK_RDMA)");
		return -1;
	}
	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0) {
		perror("sendto");
		close(fd);
		return -1;
	}
	t2 = bench_now_ns();
	n = recv(fd, buf, sizeof(buf), 0);
	t3 = bench_now_ns();
	close(fd);
	t4 = bench_now_ns();
	if (n <= 0) {
		perror("recv");
		return -1;
	}
	if (!strcmp(tag, "nl_cold")) {
		printf("%s.socket %llu ns\n", tag,
		       (unsigned long long)(t1 - t0));
		printf("%s.request %llu ns\n", tag,
		       (unsigned long long)(t2 - t1));
		printf("%s.recv %llu ns\n", tag, (unsigned long long)(t3 - t2));
		printf("%s.close %llu ns\n", tag,
		       (unsigned long long)(t4 - t3));
	}
	printf("%s.total %llu ns\n", tag, (unsigned long long)(t4 - t0));
	return 0;
}

int main(void)
{
	struct ibv_device **list;
	enum ibv_fork_status st;
	uint64_t t0, t1, t2;
	int n;

	/* As bench/fork_status: the library is initialised first. */
	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	bench_print_library();
	if (round_trip("nl_cold") || round_trip("nl_warm"))
		return 1;
	t0 = bench_now_ns();
	st = ibv_is_fork_initialized();
	t1 = bench_now_ns();
	st = ibv_is_fork_initialized();
	t2 = bench_now_ns();
	printf("# status: %s\n", bench_fork_status_name(st));
	printf("first_call_warm %llu ns\n", (unsigned long long)(t1 - t0));
	printf("second_call %llu ns\n", (unsigned long long)(t2 - t1));
	return 0;
}
