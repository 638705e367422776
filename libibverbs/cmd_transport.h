/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The two transports of the command layer, internal to cmd_*.c.
 *
 * write(): a struct ib_uverbs_cmd_hdr, the core command and the provider's
 * request, in one buffer.  The kernel writes the core response and, right
 * after it, the provider's response to the address in the command.
 *
 *  - Legacy commands count both directions in 4-byte words, header
 *    included on the way in.  The core command starts with the __u64
 *    'response' field when the command has a response; the provider's
 *    response starts sizeof(core response) bytes after it.
 *  - Extended commands (IB_USER_VERBS_CMD_FLAG_EXTENDED) put a struct
 *    ib_uverbs_ex_cmd_hdr after the header, which carries the response
 *    address; core and provider sizes are counted separately, in 8-byte
 *    words, headers excluded.
 *
 * ioctl(RDMA_VERBS_IOCTL): a struct ib_uverbs_ioctl_hdr followed by an
 * array of struct ib_uverbs_attr.  Input data of up to 8 bytes travels
 * inline in the attribute; larger input and all output is a pointer.  A
 * new object's handle (or fd) is written back into its attribute.
 * UVERBS_METHOD_INVOKE_WRITE carries a write() command this way, for
 * contexts whose process is not the one that opened the device.
 *
 * Building a request is a pure function of its arguments (tested on the
 * host without a device); only vcmd_write() and vcmd_ioctl_exec() make
 * system calls.  Everything lives on the caller's stack: no allocation,
 * no shared state.
 */
#ifndef IBV_CMD_TRANSPORT_H
#define IBV_CMD_TRANSPORT_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * <infiniband/verbs.h> (through cmd.h) first: it decides the shape of the
 * pointer fields of <rdma/ib_user_ioctl_verbs.h>, which it includes.
 */
#include "cmd.h"
#include "kern_abi.h"

#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>

/*
 * Largest provider response one command may carry, and the provider
 * request that fits on the stack; a larger request (up to what the
 * legacy header can count) goes through a heap buffer.
 */
#define VCMD_MAX_UDATA 1024
#define VCMD_MAX_UDATA_IN (UINT16_MAX * 4)
/* Largest core command (ib_uverbs_ex_modify_qp) and response. */
#define VCMD_MAX_CORE_IN 128
#define VCMD_MAX_CORE_OUT 320

/* Whole write() buffer and response buffer, rounded up to 8 bytes. */
#define VCMD_MAX_WRITE_IN                                                    \
	(sizeof(struct ib_uverbs_cmd_hdr) +                                   \
	 sizeof(struct ib_uverbs_ex_cmd_hdr) + VCMD_MAX_CORE_IN +             \
	 VCMD_MAX_UDATA)
#define VCMD_MAX_WRITE_OUT (VCMD_MAX_CORE_OUT + VCMD_MAX_UDATA)

/* A handle the kernel never hands out (its IDs are below INT_MAX). */
#define VCMD_NO_HANDLE UINT32_MAX

/* One write() command. */
struct vcmd_write_req {
	/* IB_USER_VERBS_CMD_* or, with @extended, IB_USER_VERBS_EX_CMD_* */
	uint32_t command;
	bool extended;
	/*
	 * The core command.  For a legacy command with a response the
	 * builder stores the response address in its first 8 bytes.
	 */
	const void *core;
	size_t core_len;
	/* The core response; left as it was when the kernel refuses. */
	void *resp;
	size_t resp_len;
	/* The provider's part, or NULL. */
	const struct vcmd_udata *udata;
	/*
	 * Set by vcmd_write() when write() returned a count other than the
	 * buffer length: the kernel may have created an object whose
	 * handle is in the response, which the caller must then destroy.
	 */
	bool short_write;
};

/* Bytes of response buffer @req needs: core response, provider part. */
size_t vcmd_write_resp_size(const struct vcmd_write_req *req) IBV_HIDDEN;

/*
 * Lay out @req in @buf (@buf_len bytes) with the kernel told to write its
 * response to @resp_buf.  Returns the number of bytes to write() or a
 * negative errno (EINVAL for sizes the ABI cannot express).
 */
ssize_t vcmd_build_write(const struct vcmd_write_req *req, void *buf,
			 size_t buf_len, void *resp_buf) IBV_HIDDEN;

/*
 * Build and write() @req on @fd, then copy the core response to
 * req->resp and the provider's response to req->udata->out.
 * Returns 0 or a positive errno.
 */
int vcmd_write(int fd, struct vcmd_write_req *req) IBV_HIDDEN;

/*
 * The same command carried by the ioctl method UVERBS_METHOD_INVOKE_WRITE,
 * which runs the kernel's write() handler without write()'s credential
 * check.
 */
int vcmd_invoke_write(struct ibv_context *ctx, struct vcmd_write_req *req)
	IBV_HIDDEN;

/*
 * Issue @req on the context's command fd.  write() refuses a caller whose
 * credentials are not the opener's (EACCES): a fork child, but also the
 * process an imported context came to.  So imported contexts go through
 * vcmd_invoke_write(), all others through write(), which keeps that
 * refusal as a second line of defence against use after fork().
 */
int vcmd_write_ctx(struct ibv_context *ctx, struct vcmd_write_req *req)
	IBV_HIDDEN;

/*
 * The fields of a vcmd_write_req that name a command or response struct,
 * so that a pointer and its size can never disagree.
 */
#define VCMD_REQ_CORE(c) .core = &(c), .core_len = sizeof(c)
#define VCMD_REQ_RESP(r) .resp = &(r), .resp_len = sizeof(r)

/* Destroys a kernel object by handle, for a create that went wrong. */
typedef int (*vcmd_destroy_fn)(struct ibv_context *ctx, uint32_t handle);

/*
 * Issue @req, a command that creates an object whose handle the kernel
 * writes to *@handle (inside req->resp).  A short write may leave the
 * object created although the command failed: then it is destroyed with
 * @destroy, so no error leaks a kernel object.
 */
int vcmd_write_create(struct ibv_context *ctx, struct vcmd_write_req *req,
		      uint32_t *handle, vcmd_destroy_fn destroy) IBV_HIDDEN;
/*
 * The same for an object with an event mutex and condition variable.
 * They are set up first so that nothing can fail once the kernel has the
 * object, and are torn down again on any error.
 */
int vcmd_write_create_events(struct ibv_context *ctx,
			     struct vcmd_write_req *req, uint32_t *handle,
			     vcmd_destroy_fn destroy, pthread_mutex_t *mutex,
			     pthread_cond_t *cond) IBV_HIDDEN;

/*
 * One ioctl() command; at least the attributes of any method here
 * (UVERBS_METHOD_WQ_CREATE: 13, QP_CREATE: 13 of its 15, plus the
 * provider's two each).
 */
#define VCMD_IOCTL_MAX_ATTRS 16

struct vcmd_ioctl {
	unsigned int num_attrs;
	bool overflow;
	/* struct ib_uverbs_ioctl_hdr and its attrs[], contiguous */
	uint64_t buf[(sizeof(struct ib_uverbs_ioctl_hdr) +
		      VCMD_IOCTL_MAX_ATTRS * sizeof(struct ib_uverbs_attr)) /
		     sizeof(uint64_t)];
};

static inline struct ib_uverbs_ioctl_hdr *vcmd_ioctl_hdr(struct vcmd_ioctl *c)
{
	return (struct ib_uverbs_ioctl_hdr *)c->buf;
}

void vcmd_ioctl_init(struct vcmd_ioctl *c, uint16_t object_id,
		     uint16_t method_id, uint32_t driver_id) IBV_HIDDEN;
/* The RDMA_DRIVER_* the kernel expects in the header for @ctx. */
uint32_t vcmd_ctx_driver_id(struct ibv_context *ctx) IBV_HIDDEN;
/* Start @c for a method of the device behind @ctx. */
void vcmd_ioctl_start(struct vcmd_ioctl *c, struct ibv_context *ctx,
		      uint16_t object_id, uint16_t method_id) IBV_HIDDEN;

/*
 * Append attributes.  @mandatory makes a kernel that does not know the
 * attribute fail with EPROTONOSUPPORT instead of ignoring it.  Each
 * returns the attribute (inside @c), or NULL when @c is full or the
 * length does not fit, in which case vcmd_ioctl_exec() fails with EINVAL.
 */
struct ib_uverbs_attr *vcmd_attr_in(struct vcmd_ioctl *c, uint16_t id,
				    const void *data, size_t len,
				    bool mandatory) IBV_HIDDEN;
struct ib_uverbs_attr *vcmd_attr_in_u64(struct vcmd_ioctl *c, uint16_t id,
					uint64_t value) IBV_HIDDEN;
struct ib_uverbs_attr *vcmd_attr_in_u32(struct vcmd_ioctl *c, uint16_t id,
					uint32_t value) IBV_HIDDEN;
/* An enum attribute: the element chosen, without data. */
struct ib_uverbs_attr *vcmd_attr_enum(struct vcmd_ioctl *c, uint16_t id,
				      uint8_t elem_id) IBV_HIDDEN;
struct ib_uverbs_attr *vcmd_attr_out(struct vcmd_ioctl *c, uint16_t id,
				     void *data, size_t len,
				     bool mandatory) IBV_HIDDEN;
/* The provider's private request and response, where it has any. */
void vcmd_attr_udata(struct vcmd_ioctl *c,
		     const struct vcmd_udata *udata) IBV_HIDDEN;
/* An existing object's handle. */
struct ib_uverbs_attr *vcmd_attr_idr(struct vcmd_ioctl *c, uint16_t id,
				     uint32_t handle) IBV_HIDDEN;
/* A new object: read its handle with vcmd_attr_handle() after exec. */
struct ib_uverbs_attr *vcmd_attr_new_idr(struct vcmd_ioctl *c,
					 uint16_t id) IBV_HIDDEN;
struct ib_uverbs_attr *vcmd_attr_fd(struct vcmd_ioctl *c, uint16_t id,
				    int fd) IBV_HIDDEN;

static inline uint32_t vcmd_attr_handle(const struct ib_uverbs_attr *a)
{
	return (uint32_t)a->data;
}

/* True when the kernel wrote an output attribute. */
static inline bool vcmd_attr_written(const struct ib_uverbs_attr *a)
{
	return a->flags & (UVERBS_ATTR_F_VALID_OUTPUT |
			   UVERBS_ATTR_F_MANDATORY);
}

/*
 * Complete the header (length, attribute count).  Returns the header
 * length, or 0 when an attribute did not fit.
 */
size_t vcmd_ioctl_finish(struct vcmd_ioctl *c) IBV_HIDDEN;

/* Finish and issue @c on @fd.  Returns 0 or a positive errno. */
int vcmd_ioctl_exec(int fd, struct vcmd_ioctl *c) IBV_HIDDEN;

/* A context ibv_import_device() made from another process's fd. */
static inline bool vcmd_ctx_imported(struct ibv_context *ctx)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);

	return vctx && vctx->priv && vctx->priv->imported;
}

/*
 * The hottest control commands (REG_MR, DEREG_MR) on a context of this
 * process, without provider data: the caller lays out the header and the
 * core command in one struct on its stack, with the response address (if
 * any) already in the command, and it goes out in one write(), without
 * the general path's marshalling.  @buf (@len bytes) starts with the
 * header.  0 or an errno; EIO for a short write, as vcmd_write() answers.
 */
static inline int vcmd_write_fixed(struct ibv_context *ctx, void *buf,
				   uint32_t command, size_t len,
				   size_t resp_len)
{
	struct ib_uverbs_cmd_hdr *hdr = buf;
	ssize_t ret;

	hdr->command = command;
	hdr->in_words = len / 4;
	hdr->out_words = resp_len / 4;
	ret = write(ctx->cmd_fd, buf, len);
	if (__builtin_expect(ret == (ssize_t)len, 1))
		return 0;
	return ret < 0 ? errno : EIO;
}

static inline int vcmd_ioctl_ctx(struct ibv_context *ctx,
				 struct vcmd_ioctl *c)
{
	return vcmd_ioctl_exec(ctx->cmd_fd, c);
}

/*
 * True for the errors of a kernel that lacks an ioctl method or
 * attribute, or an extended write command: the caller may fall back.
 */
static inline bool vcmd_unsupported(int err)
{
	return err == EPROTONOSUPPORT || err == ENOTTY ||
	       err == EOPNOTSUPP || err == ENOSYS;
}

/* Report a missing method as the verbs do: EOPNOTSUPP. */
static inline int vcmd_ioctl_errno(int err)
{
	return (err == EPROTONOSUPPORT || err == ENOTTY) ? EOPNOTSUPP : err;
}

/*
 * The private parts of a plug-in's command (struct ibv_* of kern_abi.h,
 * @base bytes, then its request up to @cmd_size) and response (the
 * kernel's core response, @core bytes, then its own up to @resp_size).
 */
static inline void vcmd_plugin_udata(struct vcmd_udata *u, const void *cmd,
				     size_t base, size_t cmd_size, void *resp,
				     size_t core, size_t resp_size)
{
	u->in = cmd && cmd_size > base ? (const uint8_t *)cmd + base : NULL;
	u->in_len = u->in ? cmd_size - base : 0;
	u->out = resp && resp_size > core ? (uint8_t *)resp + core : NULL;
	u->out_len = u->out ? resp_size - core : 0;
	u->core_out = resp;
	u->core_out_len = !resp ? 0 : resp_size < core ? resp_size : core;
}

#define VCMD_PLUGIN_UDATA(u, cmd, cmd_size, resp, resp_size)                \
	vcmd_plugin_udata(u, cmd, sizeof(*(cmd)), cmd_size, resp,             \
			  sizeof(*(resp)), resp_size)

/* An XRC domain is always a struct verbs_xrcd, which starts with it. */
static inline uint32_t vcmd_xrcd_handle(struct ibv_xrcd *xrcd)
{
	return ((struct verbs_xrcd *)xrcd)->handle;
}

/* The user handle of an object: its address in this process. */
static inline uint64_t vcmd_user_handle(const void *obj)
{
	return (uintptr_t)obj;
}

/*
 * Initialise the event mutex and condition variable of an object.
 * Returns 0 or a positive errno with nothing left initialised.
 */
int vcmd_events_init(pthread_mutex_t *mutex, pthread_cond_t *cond)
	IBV_HIDDEN;
/*
 * After the kernel destroyed an object: wait until the application has
 * acknowledged every event the kernel reported for it (@completed_b may
 * be NULL for objects with one counter), then tear the mutex and the
 * condition variable down.  The ack verbs count under @mutex and signal
 * @cond.
 */
void vcmd_events_drain(pthread_mutex_t *mutex, pthread_cond_t *cond,
		       const uint32_t *completed_a, uint32_t reported_a,
		       const uint32_t *completed_b, uint32_t reported_b)
	IBV_HIDDEN;

/*
 * The plug-ins' command buffer (struct ibv_command_buffer, provider_abi.h).
 *
 * A plug-in fills a buffer on its stack with rdma-core 44's inline
 * helpers and hands it to execute_ioctl(), or hands it to an ibv_cmd_*
 * function as the extra driver attributes of the library's own command,
 * chained through ->next.  The attributes filled so far are
 * hdr.attrs[0] .. next_attr - 1; last_attr ends the room, which in the
 * buffer that is issued covers the attributes of the whole chain.
 *
 * The two halves of issuing one are pure functions, tested on the host:
 * vcmd_cmdb_prepare() appends the chain's attributes to the issuing
 * buffer's own and completes the header (EINVAL, touching nothing the
 * kernel would see, when a helper flagged buffer_error or the chain does
 * not fit); vcmd_cmdb_complete() copies what the kernel wrote back into
 * the chained buffers, where their owners read it.
 */
struct ibv_command_buffer;

int vcmd_cmdb_prepare(struct ibv_command_buffer *cmd) IBV_HIDDEN;
void vcmd_cmdb_complete(struct ibv_command_buffer *cmd) IBV_HIDDEN;
/*
 * True for the core methods that destroy an object, which a fork child's
 * execute_ioctl() treats as done (see there).
 */
bool vcmd_method_destroys(uint16_t object_id, uint16_t method_id)
	IBV_HIDDEN;
/* Prepare, issue on @ctx and complete @cmd: 0 or a positive errno. */
int vcmd_cmdb_exec(struct ibv_context *ctx, struct ibv_command_buffer *cmd)
	IBV_HIDDEN;

/* Attributes one chain may add to a library command. */
#define VCMD_LINK_MAX_ATTRS 48

/*
 * Issue @c with the attributes of @link's chain (NULL: none) after its
 * own; afterwards @c's attributes hold what the kernel wrote into them,
 * and the chain's buffers theirs.  Returns 0 or the kernel's errno
 * unchanged (EINVAL for a chain that does not fit).
 */
int vcmd_ioctl_link(struct ibv_context *ctx, struct vcmd_ioctl *c,
		    struct ibv_command_buffer *link) IBV_HIDDEN;

/*
 * Whether a command whose ioctl method the kernel lacks may go as its
 * write() command with @link's chain dropped, as rdma-core's fallback
 * decides (libibverbs/cmd_fallback.c): not when a buffer of the chain is
 * marked ioctl-only or holds a mandatory attribute other than the
 * provider's UHW data, which the write() command carries.  *@extended is
 * set when a buffer asks for the extended write() command.
 */
bool vcmd_chain_writable(const struct ibv_command_buffer *link,
			 bool *extended) IBV_HIDDEN;

/*
 * A write() command whose core part may be larger than write()'s buffer
 * holds (flow specs, indirection tables): one that fits goes as
 * vcmd_write_ctx() sends it, a larger one through
 * UVERBS_METHOD_INVOKE_WRITE, which takes the core by pointer.
 */
int vcmd_write_ctx_any(struct ibv_context *ctx, struct vcmd_write_req *req)
	IBV_HIDDEN;

/*
 * The core part of IB_USER_VERBS_EX_CMD_CREATE_FLOW for a rule (struct
 * ibv_flow_attr followed by its specs) on QP @qp_handle: written into
 * @cmd, which has vcmd_flow_cmd_room() zeroed bytes.  Returns its length,
 * or a negative errno for a spec the kernel cannot take.
 */
size_t vcmd_flow_cmd_room(const struct ibv_flow_attr *attr) IBV_HIDDEN;
ssize_t vcmd_build_create_flow(uint32_t qp_handle,
			       const struct ibv_flow_attr *attr,
			       struct ib_uverbs_create_flow *cmd) IBV_HIDDEN;

/*
 * The exported ibv_cmd_* return the errno they return, in errno too:
 * plug-ins built for rdma-core 44 read either.
 */
static inline int vcmd_set_errno(int err)
{
	if (err)
		errno = err;
	return err;
}

extern bool verbs_allow_disassociate_destroy;

/*
 * The same for a plug-in's destroy: after a hot unplug the kernel answers
 * EIO, which a plug-in that set verbs_allow_disassociate_destroy takes as
 * success (upstream's rule), so that it frees its user-space object.
 */
static inline int vcmd_destroy_errno(int err)
{
	if (err == EIO && verbs_allow_disassociate_destroy)
		return 0;
	return vcmd_set_errno(err);
}

#endif /* IBV_CMD_TRANSPORT_H */
