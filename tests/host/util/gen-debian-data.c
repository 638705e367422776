/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Writes the expected data of test_util from Debian's libibverbs (rdma-core
 * 44): what its string, rate and marshalling functions return.  Not part of
 * the build; regenerate with
 *
 *   gcc -O2 -o /tmp/gen gen-debian-data.c -ldl
 *   /tmp/gen strings > strings.txt
 *   /tmp/gen rates > rates.txt       (scans the whole int range: ~1 min)
 *   /tmp/gen marshall > marshall.txt
 *
 * Line formats are described at the top of each file.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEBIAN_LIB "/usr/lib/x86_64-linux-gnu/libibverbs.so.1"

/* Sizes of the structs as rdma-core 44 and the kernel UAPI lay them out. */
#define QP_ATTR_SIZE 144	/* struct ibv_qp_attr */
#define KERN_QP_ATTR_SIZE 144	/* struct ib_uverbs_qp_attr */
#define AH_ATTR_SIZE 32		/* struct ibv_ah_attr */
#define KERN_AH_ATTR_SIZE 32	/* struct ib_uverbs_ah_attr */
#define PATH_REC_SIZE 64	/* struct ibv_sa_path_rec */
#define KERN_PATH_REC_SIZE 64	/* struct ib_user_path_rec */

static void *lib;

static void *sym(const char *name)
{
	void *p = dlsym(lib, name);

	if (!p) {
		fprintf(stderr, "%s: %s\n", name, dlerror());
		exit(1);
	}
	return p;
}

static void gen_strings(void)
{
	static const char *const fns[] = {
		"ibv_node_type_str", "ibv_port_state_str",
		"ibv_event_type_str", "ibv_wc_status_str",
	};
	static const int extremes[] = { INT_MIN, -1000, 255, 256, 1000,
					 INT_MAX };

	printf("# FUNCTION VALUE STRING... (Debian rdma-core 44)\n");
	for (size_t f = 0; f < 4; f++) {
		const char *(*fn)(int) = (const char *(*)(int))sym(fns[f]);

		for (int v = -2; v <= 40; v++)
			printf("%s %d %s\n", fns[f], v, fn(v));
		for (size_t i = 0; i < sizeof(extremes) / sizeof(int); i++)
			printf("%s %d %s\n", fns[f], extremes[i],
			       fn(extremes[i]));
	}
}

/*
 * Every input whose answer is not the default (-1 for the enum to number
 * conversions, IBV_RATE_MAX = 0 for the number to enum ones), found by
 * scanning the whole int range: the test expects the default elsewhere.
 */
static void gen_rates(void)
{
	static const char *const fns[] = {
		"ibv_rate_to_mult", "ibv_rate_to_mbps",
		"mult_to_ibv_rate", "mbps_to_ibv_rate",
	};
	static const int dflt[] = { -1, -1, 0, 0 };

	printf("# FUNCTION INPUT OUTPUT: every non-default answer over the "
	       "whole int range\n# (default: -1 for ibv_rate_to_*, 0 for "
	       "*_to_ibv_rate) (Debian rdma-core 44)\n");
	for (size_t f = 0; f < 4; f++) {
		int (*fn)(int) = (int (*)(int))sym(fns[f]);
		int v = INT_MIN;

		for (;;) {
			int r = fn(v);

			if (r != dflt[f])
				printf("%s %d %d\n", fns[f], v, r);
			if (v == INT_MAX)
				break;
			v++;
		}
	}
}

static void hex(const uint8_t *p, size_t n)
{
	putchar(' ');
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

/*
 * Random inputs, and the output buffer prefilled with one byte value, so
 * that bytes the function leaves alone are part of the expectation.
 */
static void gen_marshall(void)
{
	static const struct {
		const char *name;
		size_t in, out;
	} fns[] = {
		{ "ibv_copy_qp_attr_from_kern", KERN_QP_ATTR_SIZE,
		  QP_ATTR_SIZE },
		{ "ibv_copy_ah_attr_from_kern", KERN_AH_ATTR_SIZE,
		  AH_ATTR_SIZE },
		{ "ibv_copy_path_rec_from_kern", KERN_PATH_REC_SIZE,
		  PATH_REC_SIZE },
		{ "ibv_copy_path_rec_to_kern", PATH_REC_SIZE,
		  KERN_PATH_REC_SIZE },
	};

	srandom(44);
	printf("# FUNCTION FILL INPUT_HEX OUTPUT_HEX: output prefilled with "
	       "byte FILL (Debian rdma-core 44)\n");
	for (size_t f = 0; f < 4; f++) {
		void (*fn)(void *, void *) =
			(void (*)(void *, void *))sym(fns[f].name);

		for (int n = 0; n < 16; n++) {
			uint8_t in[256], out[256];
			uint8_t fill = n ? random() : 0;

			for (size_t i = 0; i < fns[f].in; i++)
				in[i] = n == 1 ? 0xff : random();
			memset(out, fill, fns[f].out);
			fn(out, in);
			printf("%s %02x", fns[f].name, fill);
			hex(in, fns[f].in);
			hex(out, fns[f].out);
			putchar('\n');
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s strings|rates|marshall\n", argv[0]);
		return 2;
	}
	lib = dlopen(DEBIAN_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	if (!strcmp(argv[1], "strings"))
		gen_strings();
	else if (!strcmp(argv[1], "rates"))
		gen_rates();
	else if (!strcmp(argv[1], "marshall"))
		gen_marshall();
	else
		return 2;
	return 0;
}
