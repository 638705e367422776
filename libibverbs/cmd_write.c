// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The write() transport: legacy and extended uverbs commands.
 *
 * The kernel checks the sizes in the header exactly (the legacy in_words
 * must equal the bytes written, the extended core plus provider words
 * must equal the bytes after both headers), so the layout is computed in
 * one place, vcmd_build_write(), and nowhere else.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_transport.h"

/*
 * Set by plug-ins (and from the environment, provider_context.c) that want
 * a destroy on a disassociated device, which the kernel answers with EIO,
 * to count as done: the object is gone with the device.
 */
IBV_EXPORT bool verbs_allow_disassociate_destroy;

static size_t round_up(size_t v, size_t align)
{
	return (v + align - 1) / align * align;
}

/* Provider request and response lengths; -1 when inconsistent. */
static int udata_lens(const struct vcmd_write_req *req, size_t *in,
		      size_t *out)
{
	const struct vcmd_udata *u = req->udata;

	*in = 0;
	*out = 0;
	if (!u)
		return 0;
	if ((!u->in && u->in_len) || (!u->out && u->out_len))
		return -1;
	if (u->in_len > VCMD_MAX_UDATA_IN || u->out_len > VCMD_MAX_UDATA)
		return -1;
	*in = u->in_len;
	*out = u->out_len;
	return 0;
}

/* Legacy commands count in 4-byte words, extended ones in 8-byte words. */
static size_t word_size(const struct vcmd_write_req *req)
{
	return req->extended ? 8 : 4;
}

size_t vcmd_write_resp_size(const struct vcmd_write_req *req)
{
	size_t in, out;

	if (udata_lens(req, &in, &out))
		return 0;
	return req->resp_len + round_up(out, word_size(req));
}

static ssize_t build_legacy(const struct vcmd_write_req *req, uint8_t *buf,
			    size_t buf_len, void *resp_buf, size_t drv_in)
{
	struct ib_uverbs_cmd_hdr hdr;
	size_t in_len, out_len;
	uint64_t resp_addr = (uintptr_t)resp_buf;

	in_len = sizeof(hdr) + req->core_len + round_up(drv_in, 4);
	out_len = vcmd_write_resp_size(req);
	if (req->core_len % 4 || req->resp_len % 4 ||
	    req->command > IB_USER_VERBS_CMD_COMMAND_MASK)
		return -EINVAL;
	/* Without a core response there is no address for the provider's. */
	if (out_len && (!req->resp_len || req->core_len < sizeof(resp_addr)))
		return -EINVAL;
	if (in_len > buf_len || in_len / 4 > UINT16_MAX ||
	    out_len / 4 > UINT16_MAX)
		return -EINVAL;

	hdr.command = req->command;
	hdr.in_words = in_len / 4;
	hdr.out_words = out_len / 4;
	memcpy(buf, &hdr, sizeof(hdr));
	buf += sizeof(hdr);
	memcpy(buf, req->core, req->core_len);
	/* Every command with a response starts with its address. */
	if (out_len)
		memcpy(buf, &resp_addr, sizeof(resp_addr));
	buf += req->core_len;
	memset(buf, 0, round_up(drv_in, 4));
	if (drv_in)
		memcpy(buf, req->udata->in, drv_in);
	return in_len;
}

static ssize_t build_extended(const struct vcmd_write_req *req, uint8_t *buf,
			      size_t buf_len, void *resp_buf, size_t drv_in,
			      size_t drv_out)
{
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	size_t in_len, drv_in_pad = round_up(drv_in, 8);

	in_len = sizeof(hdr) + sizeof(ex) + req->core_len + drv_in_pad;
	if (req->core_len % 8 || req->resp_len % 8 ||
	    req->command > IB_USER_VERBS_CMD_COMMAND_MASK)
		return -EINVAL;
	if (in_len > buf_len || req->core_len / 8 > UINT16_MAX ||
	    req->resp_len / 8 > UINT16_MAX)
		return -EINVAL;

	hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | req->command;
	hdr.in_words = req->core_len / 8;
	hdr.out_words = req->resp_len / 8;
	memset(&ex, 0, sizeof(ex));
	/* The kernel refuses a response address with nothing to write. */
	if (req->resp_len || drv_out)
		ex.response = (uintptr_t)resp_buf;
	ex.provider_in_words = drv_in_pad / 8;
	ex.provider_out_words = round_up(drv_out, 8) / 8;

	memcpy(buf, &hdr, sizeof(hdr));
	buf += sizeof(hdr);
	memcpy(buf, &ex, sizeof(ex));
	buf += sizeof(ex);
	memcpy(buf, req->core, req->core_len);
	buf += req->core_len;
	memset(buf, 0, drv_in_pad);
	if (drv_in)
		memcpy(buf, req->udata->in, drv_in);
	return in_len;
}

ssize_t vcmd_build_write(const struct vcmd_write_req *req, void *buf,
			 size_t buf_len, void *resp_buf)
{
	size_t drv_in, drv_out;

	if (!req->core || !req->core_len || req->core_len > VCMD_MAX_CORE_IN ||
	    req->resp_len > VCMD_MAX_CORE_OUT || (req->resp_len && !req->resp))
		return -EINVAL;
	if (udata_lens(req, &drv_in, &drv_out))
		return -EINVAL;
	if (req->extended)
		return build_extended(req, buf, buf_len, resp_buf, drv_in,
				      drv_out);
	return build_legacy(req, buf, buf_len, resp_buf, drv_in);
}

/* A plug-in reads the core response in its own buffer too. */
static void copy_core_out(const struct vcmd_write_req *req)
{
	const struct vcmd_udata *u = req->udata;

	if (!u || !u->core_out || !req->resp_len)
		return;
	memcpy(u->core_out, req->resp,
	       req->resp_len < u->core_out_len ? req->resp_len :
						 u->core_out_len);
}

static ssize_t write_cmd(int fd, struct vcmd_write_req *req, void *out)
{
	uint64_t stack_in[VCMD_MAX_WRITE_IN / sizeof(uint64_t)];
	size_t in_size = sizeof(stack_in);
	void *in = stack_in;
	ssize_t len, ret;

	/* Work requests of a post command may not fit on the stack. */
	if (req->udata && req->udata->in_len > VCMD_MAX_UDATA) {
		in_size += round_up(req->udata->in_len, 8) - VCMD_MAX_UDATA;
		in = malloc(in_size);
		if (!in)
			return -ENOMEM;
	}
	len = vcmd_build_write(req, in, in_size, out);
	if (len < 0) {
		ret = len;
	} else {
		ret = write(fd, in, len);
		if (ret < 0)
			ret = -errno;
		else if (ret != len)
			req->short_write = true;
	}
	if (in != stack_in)
		free(in);
	return ret;
}

/*
 * Legacy commands without provider data (REG_MR of most providers, a
 * plug-in's too, DEREG_MR, DEALLOC_PD, ...) are built in one pass: the
 * header, the core command, and the address of the caller's own
 * response, which the kernel fills directly.  Larger or extended
 * commands, and those with provider data, take the general path below.
 */
#define PLAIN_MAX_CORE 64

static bool plain_write(const struct vcmd_write_req *req)
{
	const struct vcmd_udata *u = req->udata;

	return (!u || (!u->in_len && !u->out_len)) && !req->extended &&
	       req->core &&
	       req->core_len && req->core_len <= PLAIN_MAX_CORE &&
	       !(req->core_len % 4) && !(req->resp_len % 4) &&
	       (!req->resp_len || (req->resp && req->core_len >= 8)) &&
	       req->resp_len <= VCMD_MAX_CORE_OUT &&
	       req->command <= IB_USER_VERBS_CMD_COMMAND_MASK;
}

static int write_plain(int fd, struct vcmd_write_req *req)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		uint64_t core[PLAIN_MAX_CORE / sizeof(uint64_t)];
	} buf;
	size_t len = sizeof(buf.hdr) + req->core_len;
	uint64_t resp_addr = (uintptr_t)req->resp;
	ssize_t ret;

	buf.hdr.command = req->command;
	buf.hdr.in_words = len / 4;
	buf.hdr.out_words = req->resp_len / 4;
	memcpy(buf.core, req->core, req->core_len);
	if (req->resp_len)
		buf.core[0] = resp_addr;
	ret = write(fd, &buf, len);
	if (ret < 0)
		return errno;
	if ((size_t)ret != len) {
		req->short_write = true;
		return EIO;
	}
	copy_core_out(req);
	return 0;
}

int vcmd_write(int fd, struct vcmd_write_req *req)
{
	uint64_t out[VCMD_MAX_WRITE_OUT / sizeof(uint64_t)];
	size_t resp_size;
	ssize_t ret;

	req->short_write = false;
	if (plain_write(req))
		return write_plain(fd, req);
	resp_size = vcmd_write_resp_size(req);
	if (resp_size > sizeof(out))
		return EINVAL;
	/*
	 * Start from the caller's response: a handle it preset to
	 * VCMD_NO_HANDLE stays so unless the kernel wrote one.
	 */
	memset(out, 0, resp_size);
	if (req->resp_len)
		memcpy(out, req->resp, req->resp_len);

	ret = write_cmd(fd, req, out);
	if (ret < 0)
		return -ret;
	if (req->resp_len)
		memcpy(req->resp, out, req->resp_len);
	if (req->short_write)
		return EIO;
	if (req->udata && req->udata->out_len)
		memcpy(req->udata->out, (uint8_t *)out + req->resp_len,
		       req->udata->out_len);
	copy_core_out(req);
	return 0;
}

int vcmd_invoke_write(struct ibv_context *ctx, struct vcmd_write_req *req)
{
	uint32_t command = req->command;
	size_t drv_in, drv_out;
	struct vcmd_ioctl c;
	int err;

	req->short_write = false;
	if (!req->core || !req->core_len || (req->resp_len && !req->resp) ||
	    udata_lens(req, &drv_in, &drv_out))
		return EINVAL;
	if (req->extended)
		command |= IB_USER_VERBS_CMD_FLAG_EXTENDED;

	/*
	 * The core response goes to UVERBS_ATTR_CORE_OUT, not to the
	 * address in the command, and the provider's parts travel in their
	 * own attributes, unpadded.
	 */
	vcmd_ioctl_start(&c, ctx, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_INVOKE_WRITE);
	vcmd_attr_in_u64(&c, UVERBS_ATTR_WRITE_CMD, command);
	vcmd_attr_in(&c, UVERBS_ATTR_CORE_IN, req->core, req->core_len, true);
	if (req->resp_len)
		vcmd_attr_out(&c, UVERBS_ATTR_CORE_OUT, req->resp,
			      req->resp_len, true);
	if (drv_in)
		vcmd_attr_in(&c, UVERBS_ATTR_UHW_IN, req->udata->in, drv_in,
			     true);
	if (drv_out)
		vcmd_attr_out(&c, UVERBS_ATTR_UHW_OUT, req->udata->out,
			      drv_out, true);
	err = vcmd_ioctl_ctx(ctx, &c);
	if (!err)
		copy_core_out(req);
	return err;
}


int vcmd_write_ctx(struct ibv_context *ctx, struct vcmd_write_req *req)
{
	int err;

	if (!vcmd_ctx_imported(ctx))
		return vcmd_write(ctx->cmd_fd, req);
	err = vcmd_invoke_write(ctx, req);
	/* A kernel without the method: the opener's process may write(). */
	if (err == EPROTONOSUPPORT || err == ENOTTY)
		err = vcmd_write(ctx->cmd_fd, req);
	return err;
}

int vcmd_write_create(struct ibv_context *ctx, struct vcmd_write_req *req,
		      uint32_t *handle, vcmd_destroy_fn destroy)
{
	int err;

	/* vcmd_write() leaves it so unless the kernel wrote a handle. */
	*handle = VCMD_NO_HANDLE;
	err = vcmd_write_ctx(ctx, req);
	if (err && req->short_write && *handle != VCMD_NO_HANDLE)
		destroy(ctx, *handle);
	return err;
}

int vcmd_write_create_events(struct ibv_context *ctx,
			     struct vcmd_write_req *req, uint32_t *handle,
			     vcmd_destroy_fn destroy, pthread_mutex_t *mutex,
			     pthread_cond_t *cond)
{
	int err = vcmd_events_init(mutex, cond);

	if (err)
		return err;
	err = vcmd_write_create(ctx, req, handle, destroy);
	if (err) {
		pthread_cond_destroy(cond);
		pthread_mutex_destroy(mutex);
	}
	return err;
}

int vcmd_events_init(pthread_mutex_t *mutex, pthread_cond_t *cond)
{
	int err = pthread_mutex_init(mutex, NULL);

	if (err)
		return err;
	err = pthread_cond_init(cond, NULL);
	if (err)
		pthread_mutex_destroy(mutex);
	return err;
}

void vcmd_events_drain(pthread_mutex_t *mutex, pthread_cond_t *cond,
		       const uint32_t *completed_a, uint32_t reported_a,
		       const uint32_t *completed_b, uint32_t reported_b)
{
	/*
	 * The man pages promise that destroying an object waits for the
	 * acknowledgement of every event the kernel queued for it, so an
	 * event can never name an object that is already gone.
	 */
	pthread_mutex_lock(mutex);
	while (*completed_a != reported_a ||
	       (completed_b && *completed_b != reported_b))
		pthread_cond_wait(cond, mutex);
	pthread_mutex_unlock(mutex);
	pthread_cond_destroy(cond);
	pthread_mutex_destroy(mutex);
}
