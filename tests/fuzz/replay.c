// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * main() for a fuzz target built without libFuzzer: run
 * LLVMFuzzerTestOneInput() once on every file named on the command line,
 * or found (not recursively) in a directory named there.  This turns the
 * corpus into a regression test that runs in every build, sanitizers
 * included, with no fuzzing engine.
 *
 * A failed check aborts (the test fails); an unreadable file or an empty
 * corpus fails too, so a test that replays nothing cannot pass.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static unsigned int replayed;

static int replay_file(const char *path)
{
	uint8_t *data = NULL;
	size_t size = 0, cap = 0, n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (size == cap) {
			cap = cap ? cap * 2 : 4096;
			data = realloc(data, cap);
			FUZZ_CHECK(data);
		}
		n = fread(data + size, 1, cap - size, f);
		size += n;
		if (!n)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		fclose(f);
		free(data);
		return -1;
	}
	fclose(f);
	printf("replay: %s (%zu bytes)\n", path, size);
	fflush(stdout);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	replayed++;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_dir(const char *dir)
{
	struct dirent **names;
	char path[4096];
	struct stat st;
	int n, i, err = 0;

	/* Sorted, so that a log names inputs in the same order every run. */
	n = scandir(dir, &names, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && !stat(path, &st) &&
		    S_ISREG(st.st_mode) && replay_file(path))
			err = -1;
		free(names[i]);
	}
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	struct stat st;
	int i, err = 0;

	for (i = 1; i < argc; i++) {
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i]))
				err = 1;
		} else if (replay_file(argv[i])) {
			err = 1;
		}
	}
	printf("replay: %u input(s)\n", replayed);
	if (!replayed) {
		fprintf(stderr, "replay: no input replayed\n");
		return 1;
	}
	return err;
}
