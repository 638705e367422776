/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The library's utility functions through its public API: enum strings,
 * rate conversions and kernel struct marshalling against data dumped from
 * Debian's libibverbs (gen-debian-data.c), marshalling round trips, and
 * ibv_get_sysfs_path() / ibv_read_sysfs_file() on a sysfs-like tree in a
 * temporary directory.
 *
 * Usage: test_util DATADIR [STRINGS]
 *        (DATADIR holds strings.txt, rates.txt, marshall.txt; STRINGS
 *        replaces DATADIR/strings.txt, for a release's own strings)
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/sa.h>
#include <rdma/ib_user_sa.h>
#include <rdma/ib_user_verbs.h>

#include "tap.h"

/* Exported by libibverbs, declared by no installed header. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src);
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src);

/* DIR/NAME, or NAME itself when DIR is NULL. */
static FILE *open_data(const char *dir, const char *name)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "",
		 name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s: %s\n", path,
			strerror(errno));
		exit(2);
	}
	return f;
}

/* ---- enum strings ---- */

static const char *call_str(const char *fn, int v)
{
	if (!strcmp(fn, "ibv_node_type_str"))
		return ibv_node_type_str(v);
	if (!strcmp(fn, "ibv_port_state_str"))
		return ibv_port_state_str(v);
	if (!strcmp(fn, "ibv_event_type_str"))
		return ibv_event_type_str(v);
	if (!strcmp(fn, "ibv_wc_status_str"))
		return ibv_wc_status_str(v);
#if IBV_RDMA_CORE_RELEASE >= 56
	if (!strcmp(fn, "ibv_wr_opcode_str"))
		return ibv_wr_opcode_str(v);
#endif
	return NULL;
}

static void test_strings(const char *dir, const char *file)
{
	FILE *f = file ? open_data(NULL, file) : open_data(dir, "strings.txt");
	char line[512], fn[64];
	int v, n, bad = 0, total = 0;

	while (fgets(line, sizeof(line), f)) {
		const char *want, *got;

		if (line[0] == '#' ||
		    sscanf(line, "%63s %d %n", fn, &v, &n) < 2)
			continue;
		want = line + n;
		line[strcspn(line, "\n")] = '\0';
		got = call_str(fn, v);
		total++;
		if (!got || strcmp(got, want)) {
			bad++;
			CHECK(false, "%s(%d) = \"%s\", Debian: \"%s\"", fn, v,
			      got ? got : "(null)", want);
		}
	}
	fclose(f);
	CHECK(total > 100 && !bad, "enum strings: %d values as Debian's",
	      total);
}

/* ---- rates ---- */

#define RATE_FNS 4
static const char *const rate_fns[RATE_FNS] = {
	"ibv_rate_to_mult", "ibv_rate_to_mbps", "mult_to_ibv_rate",
	"mbps_to_ibv_rate",
};
static const int rate_default[RATE_FNS] = { -1, -1, IBV_RATE_MAX,
					     IBV_RATE_MAX };

static int call_rate(int fn, int v)
{
	switch (fn) {
	case 0:
		return ibv_rate_to_mult(v);
	case 1:
		return ibv_rate_to_mbps(v);
	case 2:
		return mult_to_ibv_rate(v);
	default:
		return mbps_to_ibv_rate(v);
	}
}

struct rate_fact {
	int fn, in, out;
};

static int fact_lookup(const struct rate_fact *facts, int n, int fn, int in,
		       int *out)
{
	for (int i = 0; i < n; i++)
		if (facts[i].fn == fn && facts[i].in == in) {
			*out = facts[i].out;
			return 1;
		}
	return 0;
}

static void test_rates(const char *dir)
{
	FILE *f = open_data(dir, "rates.txt");
	struct rate_fact facts[256];
	char line[256], name[64];
	int nfacts = 0;

	while (fgets(line, sizeof(line), f) && nfacts < 256) {
		struct rate_fact *r = &facts[nfacts];

		if (line[0] == '#' ||
		    sscanf(line, "%63s %d %d", name, &r->in, &r->out) != 3)
			continue;
		for (r->fn = 0; r->fn < RATE_FNS; r->fn++)
			if (!strcmp(name, rate_fns[r->fn]))
				break;
		if (r->fn < RATE_FNS)
			nfacts++;
	}
	fclose(f);

	for (int fn = 0; fn < RATE_FNS; fn++) {
		/*
		 * The data lists every non-default answer over the int
		 * range; check those, and the default over a wide window
		 * and at the ends.
		 */
		static const int ends[] = { INT_MIN, INT_MIN + 1, -1, 0,
					    INT_MAX - 1, INT_MAX };
		int lo = fn < 2 ? -1000 : -100000;
		int hi = fn < 2 ? 1000 : 2000000;
		int bad = 0, n = 0, want, got;

		for (int v = lo; v <= hi; v++, n++) {
			if (!fact_lookup(facts, nfacts, fn, v, &want))
				want = rate_default[fn];
			got = call_rate(fn, v);
			if (got != want && bad++ < 5)
				CHECK(false, "%s(%d) = %d, Debian: %d",
				      rate_fns[fn], v, got, want);
		}
		for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
			if (!fact_lookup(facts, nfacts, fn, ends[i], &want))
				want = rate_default[fn];
			got = call_rate(fn, ends[i]);
			if (got != want && bad++ < 5)
				CHECK(false, "%s(%d) = %d, Debian: %d",
				      rate_fns[fn], ends[i], got, want);
		}
		CHECK(!bad, "%s: %d inputs as Debian's", rate_fns[fn], n + 6);
	}
	CHECK(nfacts == 76, "rate data: %d non-default answers", nfacts);
}

/* ---- marshalling ---- */

static int unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (s[0] && s[1] && s[0] != ' ' && s[0] != '\n' && n < max) {
		unsigned int b;

		if (sscanf(s, "%2x", &b) != 1)
			return -1;
		out[n++] = b;
		s += 2;
	}
	return n;
}

static void call_marshall(const char *fn, void *out, void *in)
{
	if (!strcmp(fn, "ibv_copy_qp_attr_from_kern"))
		ibv_copy_qp_attr_from_kern(out, in);
	else if (!strcmp(fn, "ibv_copy_ah_attr_from_kern"))
		ibv_copy_ah_attr_from_kern(out, in);
	else if (!strcmp(fn, "ibv_copy_path_rec_from_kern"))
		ibv_copy_path_rec_from_kern(out, in);
	else if (!strcmp(fn, "ibv_copy_path_rec_to_kern"))
		ibv_copy_path_rec_to_kern(out, in);
}

static void test_marshall_data(const char *dir)
{
	FILE *f = open_data(dir, "marshall.txt");
	char line[2048], fn[64];
	int total = 0, bad = 0;

	while (fgets(line, sizeof(line), f)) {
		uint8_t in[256], want[256], got[256];
		unsigned int fill;
		char *p;
		int nin, nout, off;

		if (line[0] == '#' ||
		    sscanf(line, "%63s %x %n", fn, &fill, &off) != 2)
			continue;
		p = line + off;
		nin = unhex(p, in, sizeof(in));
		p = strchr(p, ' ');
		nout = p ? unhex(p + 1, want, sizeof(want)) : -1;
		if (nin <= 0 || nout <= 0) {
			CHECK(false, "marshall.txt: bad line for %s", fn);
			continue;
		}
		memset(got, fill, nout);
		call_marshall(fn, got, in);
		total++;
		if (memcmp(got, want, nout)) {
			bad++;
			CHECK(false, "%s: output differs from Debian's", fn);
		}
	}
	fclose(f);
	CHECK(total == 64 && !bad,
	      "marshalling: %d vectors byte for byte as Debian's", total);
}

static void fill_random(void *p, size_t n)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = random();
}

static void test_path_rec_round_trip(void)
{
	int bad = 0;

	for (int i = 0; i < 1000; i++) {
		struct ibv_sa_path_rec rec, back;
		struct ib_user_path_rec kern, kback;

		/* verbs -> kernel -> verbs: every field comes back */
		memset(&rec, 0, sizeof(rec));
		fill_random(&rec.dgid, sizeof(rec.dgid));
		fill_random(&rec.sgid, sizeof(rec.sgid));
		rec.dlid = random();
		rec.slid = random();
		rec.raw_traffic = random();
		rec.flow_label = random();
		rec.hop_limit = random();
		rec.traffic_class = random();
		rec.reversible = random();
		rec.numb_path = random();
		rec.pkey = random();
		rec.sl = random();
		rec.mtu_selector = random();
		rec.mtu = random();
		rec.rate_selector = random();
		rec.rate = random();
		rec.packet_life_time_selector = random();
		rec.packet_life_time = random();
		rec.preference = random();
		ibv_copy_path_rec_to_kern(&kern, &rec);
		memset(&back, 0, sizeof(back));
		ibv_copy_path_rec_from_kern(&back, &kern);
		bad += !!memcmp(&rec, &back, sizeof(rec));

		/* kernel -> verbs -> kernel, mtu within the u8 it maps to */
		fill_random(&kern, sizeof(kern));
		kern.mtu &= 0xff;
		ibv_copy_path_rec_from_kern(&back, &kern);
		fill_random(&kback, sizeof(kback));
		ibv_copy_path_rec_to_kern(&kback, &back);
		bad += !!memcmp(&kern, &kback, sizeof(kern));
	}
	CHECK(!bad, "path record: 1000 round trips each way");
}

static void test_qp_attr_fields(void)
{
	struct ib_uverbs_qp_attr k;
	struct ibv_qp_attr a;
	bool ok;

	memset(&k, 0, sizeof(k));
	k.qp_state = IBV_QPS_RTS;
	k.cur_qp_state = IBV_QPS_RTR;
	k.path_mtu = IBV_MTU_4096;
	k.qkey = 0x11111111;
	k.dest_qp_num = 0x123456;
	k.max_inline_data = 220;
	k.ah_attr.grh.dgid[15] = 0x42;
	k.ah_attr.grh.flow_label = 0xabcde;
	k.ah_attr.dlid = 0x1234;
	k.ah_attr.is_global = 1;
	k.alt_ah_attr.port_num = 2;
	k.pkey_index = 7;
	k.alt_timeout = 19;
	k.rnr_retry = 7;

	memset(&a, 0xa5, sizeof(a));
	ibv_copy_qp_attr_from_kern(&a, &k);
	ok = a.cur_qp_state == IBV_QPS_RTR && a.path_mtu == IBV_MTU_4096 &&
	     a.qkey == 0x11111111 && a.dest_qp_num == 0x123456 &&
	     a.cap.max_inline_data == 220 &&
	     a.ah_attr.grh.dgid.raw[15] == 0x42 &&
	     a.ah_attr.grh.flow_label == 0xabcde &&
	     a.ah_attr.dlid == 0x1234 && a.ah_attr.is_global == 1 &&
	     a.alt_ah_attr.port_num == 2 && a.pkey_index == 7 &&
	     a.alt_timeout == 19 && a.rnr_retry == 7;
	CHECK(ok, "qp attr: fields land where they belong");
	/* As upstream: qp_state and rate_limit are the caller's. */
	CHECK(a.qp_state == 0xa5a5a5a5 && a.rate_limit == 0xa5a5a5a5,
	      "qp attr: qp_state and rate_limit left alone");
}

/* ---- sysfs ---- */

static char tmpdir[] = "/tmp/test_util.XXXXXX";

static void put_file(const char *rel, const char *content, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	if (!f || fwrite(content, 1, len, f) != len) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
	fclose(f);
}

#define PUT(rel, lit) put_file(rel, lit, sizeof(lit) - 1)

struct read_case {
	const char *file;
	size_t size;
	int ret;
	const char *buf;	/* expected start of buf, NULL: untouched */
	size_t buf_len;
};

/* What Debian's ibv_read_sysfs_file() does with each (observed). */
static const struct read_case read_cases[] = {
	{ "a", 64, 5, "hello", 6 },		/* newline dropped, NUL */
	{ "b", 64, 5, "hello", 6 },		/* no newline */
	{ "c", 64, 9, "two\nlines", 10 },	/* only the last one */
	{ "e", 64, 0, NULL, 0 },		/* empty: buf untouched */
	{ "f", 64, 2, "x\n", 3 },		/* one newline only */
	{ "g", 8, -1, "01234567", 8 },		/* no room for NUL */
	{ "g", 17, 16, "0123456789abcdef", 17 },/* newline makes room */
	{ "c", 4, 3, "two", 4 },		/* cut at a newline */
	{ "c", 3, -1, "two", 3 },
	{ "a", 1, -1, "h", 1 },
	{ "a", 0, 0, NULL, 0 },
	{ "nope", 64, -1, NULL, 0 },
};

static void test_read_sysfs_file(void)
{
	char dir[PATH_MAX], buf[64];

	snprintf(dir, sizeof(dir), "%s/sub", tmpdir);
	mkdir(dir, 0755);
	PUT("sub/a", "hello\n");
	PUT("sub/b", "hello");
	PUT("sub/c", "two\nlines\n");
	PUT("sub/e", "");
	PUT("sub/f", "x\n\n");
	PUT("sub/g", "0123456789abcdef\n");

	for (size_t i = 0; i < sizeof(read_cases) / sizeof(read_cases[0]);
	     i++) {
		const struct read_case *c = &read_cases[i];
		char untouched[64];
		int ret;
		bool ok;

		memset(buf, 'X', sizeof(buf));
		memset(untouched, 'X', sizeof(untouched));
		ret = ibv_read_sysfs_file(dir, c->file, buf, c->size);
		ok = ret == c->ret &&
		     !memcmp(buf, c->buf ? c->buf : untouched,
			     c->buf ? c->buf_len : sizeof(buf)) &&
		     (!c->buf || buf[c->buf_len] == 'X' ||
		      c->buf_len == c->size);
		CHECK(ok, "ibv_read_sysfs_file(%s, %zu) = %d as upstream",
		      c->file, c->size, ret);
	}

	errno = 0;
	CHECK(ibv_read_sysfs_file(dir, "nope", buf, sizeof(buf)) == -1 &&
	      errno == ENOENT, "ibv_read_sysfs_file: missing file, ENOENT");
	CHECK(ibv_read_sysfs_file(tmpdir, "sub", buf, sizeof(buf)) == -1 &&
	      errno == EISDIR, "ibv_read_sysfs_file: directory, EISDIR");
	strcat(dir, "/");
	CHECK(ibv_read_sysfs_file(dir, "a", buf, sizeof(buf)) == 5,
	      "ibv_read_sysfs_file: trailing slash in dir");
}

/* Run ourselves with SYSFS_PATH set (or not) and see what the root is. */
static void check_root(const char *env, const char *want)
{
	char self[PATH_MAX];
	int status;
	pid_t pid;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		CHECK(false, "readlink /proc/self/exe");
		return;
	}
	self[n] = '\0';
	pid = fork();
	if (!pid) {
		if (env)
			setenv("SYSFS_PATH", env, 1);
		else
			unsetenv("SYSFS_PATH");
		execl(self, self, "--root", want, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "ibv_get_sysfs_path with SYSFS_PATH=%s%s%s is \"%s\"",
	      env ? "\"" : "", env ? env : "(unset)", env ? "\"" : "", want);
}

/* Child side: the root, and that it is read once. */
static int root_child(const char *want)
{
	const char *first = ibv_get_sysfs_path();

	setenv("SYSFS_PATH", "/changed", 1);
	return strcmp(first, want) || strcmp(ibv_get_sysfs_path(), want);
}

static void test_sysfs_root(void)
{
	check_root(NULL, "/sys");
	check_root("/sys", "/sys");
	check_root("/foo//", "/foo");
	check_root("/a/b/", "/a/b");
	check_root("rel/", "rel");
	check_root("/", "");
	check_root("", "");
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--root"))
		return root_child(argv[2]);
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s DATADIR [STRINGS]\n", argv[0]);
		return 2;
	}
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}

	test_strings(argv[1], argc == 3 ? argv[2] : NULL);
	test_rates(argv[1]);
	test_marshall_data(argv[1]);
	test_path_rec_round_trip();
	test_qp_attr_fields();
	test_read_sysfs_file();
	test_sysfs_root();

	cleanup();
	return tap_done();
}
