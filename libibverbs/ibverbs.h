/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Library-wide internals that are not part of the provider interface:
 * export control, device discovery and the helpers shared by the verbs.
 */
#ifndef IBV_IBVERBS_H
#define IBV_IBVERBS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "driver.h"

/*
 * Discovery (init.c).  Scans sysfs and returns a fresh, referenced list of
 * devices (NULL-terminated) or NULL with errno; *num gets the count.
 */
struct verbs_device **verbs_discover(int *num) IBV_HIDDEN;
void verbs_device_get(struct verbs_device *vdev) IBV_HIDDEN;
void verbs_device_put(struct verbs_device *vdev) IBV_HIDDEN;
/* Free a record now: its plug-in device (uninit_device), then itself. */
void verbs_device_free(struct verbs_device *vdev) IBV_HIDDEN;

/*
 * The provider registry.  verbs_plugins_load() reads the configuration and
 * loads the plug-ins once per process (plugin_load.c);
 * verbs_plugin_next() walks the registered providers without a lock
 * (start with *iter NULL), the built-in ones first, and sets *builtin for
 * those; verbs_bind_plugin() lets the first matching provider allocate
 * the device of a new record (provider_match.c).
 */
void verbs_plugins_load(void) IBV_HIDDEN;
const struct verbs_device_ops *verbs_plugin_next(const void **iter,
						 bool *builtin) IBV_HIDDEN;
bool verbs_bind_plugin(struct verbs_device *vdev) IBV_HIDDEN;
/*
 * Open or import a context with the device's provider (provider_context.c).
 * The provider owns cmd_fd from the call on, and closes it when it fails.
 */
struct ibv_context *verbs_provider_open(struct verbs_device *vdev, int cmd_fd,
					void *private_data) IBV_HIDDEN;
struct ibv_context *verbs_provider_import(struct verbs_device *vdev,
					  int cmd_fd) IBV_HIDDEN;
/*
 * The library's messages, printed only when VERBS_LOG_LEVEL asks for
 * their level (verbs_log.c).
 */
bool verbs_log_enabled(uint32_t level) IBV_HIDDEN;
void verbs_log_lib(uint32_t level, const char *fmt, ...)
	VERBS_LOG_FMT(2, 3) IBV_HIDDEN;

/*
 * What the kernel tells over RDMA netlink about one ibdev
 * (device_netlink.c): its index and the driver that serves it.
 * Returns 0, or an errno when netlink is not available.
 */
struct verbs_nl_devinfo {
	uint32_t index;
	uint32_t driver_id;
	bool has_driver_id;
};
int verbs_nl_query_device(const char *ibdev_name,
			  struct verbs_nl_devinfo *info) IBV_HIDDEN;

/*
 * The parsing half of verbs_nl_query_device(), apart from the socket so
 * that it can be tested on recorded answers.  Each call takes one
 * received datagram answering the request numbered @seq, sent from
 * netlink port @portid (0: any): the device dump, which sets info->index
 * and found when it lists @name, or the "uverbs" chardev answer, which
 * sets the driver id.  Returns 1 while more datagrams are due, 0 when the
 * answer is complete, or a negative errno (the kernel's, or -EBADMSG,
 * -ESRCH, ... for a malformed or foreign datagram).
 */
struct verbs_nl_query {
	const char *name;
	struct verbs_nl_devinfo *info;
	bool found;
};
int verbs_nl_parse_dev_dump(struct verbs_nl_query *q, const void *buf,
			    size_t len, uint32_t seq, uint32_t portid)
	IBV_HIDDEN;
int verbs_nl_parse_chardev(struct verbs_nl_query *q, const void *buf,
			   size_t len, uint32_t seq, uint32_t portid)
	IBV_HIDDEN;

/*
 * Guard helpers for the public verbs.  Each returns true when the verb
 * must stop: errno is then set (EINVAL for a NULL object, EPERM for an
 * object inherited across fork()).
 */
static inline bool verbs_refuse_ctx(struct ibv_context *ctx)
{
	if (!ctx) {
		errno = EINVAL;
		return true;
	}
	if (verbs_inherited_strict(ctx)) {
		errno = EPERM;
		return true;
	}
	return false;
}

/* The same for a constructor on a PD. */
static inline bool verbs_refuse_pd(struct ibv_pd *pd)
{
	if (!pd) {
		errno = EINVAL;
		return true;
	}
	return verbs_refuse_ctx(pd->context);
}

/* Same as above for int-returning verbs: 0 or the errno to return. */
static inline int verbs_check_ctx(struct ibv_context *ctx)
{
	if (!ctx)
		return EINVAL;
	if (verbs_inherited_strict(ctx))
		return EPERM;
	return 0;
}

/*
 * Library wrappers installed in the public slots of struct ibv_context_ops
 * and struct verbs_context, which inline verbs in verbs.h call.
 */
struct ibv_mw *verbs_alloc_mw(struct ibv_pd *pd,
			      enum ibv_mw_type type) IBV_HIDDEN;
int verbs_dealloc_mw(struct ibv_mw *mw) IBV_HIDDEN;
int verbs_query_port_ext(struct ibv_context *ctx, uint8_t port_num,
			 struct ibv_port_attr *attr, size_t attr_len)
	IBV_HIDDEN;
int verbs_query_device_ex(struct ibv_context *ctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
	IBV_HIDDEN;
struct ibv_cq_ex *verbs_create_cq_ex(struct ibv_context *ctx,
				     struct ibv_cq_init_attr_ex *attr)
	IBV_HIDDEN;
struct ibv_qp *verbs_create_qp_ex(struct ibv_context *ctx,
				  struct ibv_qp_init_attr_ex *attr) IBV_HIDDEN;
struct ibv_srq *verbs_create_srq_ex(struct ibv_context *ctx,
				    struct ibv_srq_init_attr_ex *attr)
	IBV_HIDDEN;
int verbs_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num) IBV_HIDDEN;

/*
 * The one private symbol real clients use (IBVERBS_PRIVATE_34): pyverbs and
 * ibv_devinfo declare it themselves.
 */
enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};

int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type);

/*
 * Exported since IBVERBS_1.0 but, as upstream, declared in no installed
 * header (sysfs.c).
 */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);

/* Set errno and return NULL, for constructors. */
static inline void *verbs_null_errno(int err)
{
	errno = err;
	return NULL;
}

/* Which kind of object an asynchronous event is about (verbs_events.c). */
enum event_object { EV_CQ, EV_QP, EV_SRQ, EV_WQ, EV_NONE };
enum event_object event_object_of(enum ibv_event_type type) IBV_HIDDEN;
void verbs_event_to_user_objects(struct ibv_async_event *event) IBV_HIDDEN;

#endif /* IBV_IBVERBS_H */
