/* SPDX-License-Identifier: MIT */
/*
 * replay.c: libFuzzer's calling convention without libFuzzer. Each file of
 * the directories (or the files) named on the command line is read into a
 * heap block of exactly its size and handed once to LLVMFuzzerTestOneInput,
 * in name order. Linked with one fuzz target by gcc, as the unit tests link
 * the shim, so that `make unit` replays every committed seed and every kept
 * crash-* input of tests/fuzz/corpus/<target>/ with no clang installed (and
 * under ASan and UBSan in `make check-asan`). A target's broken contract
 * aborts, as under libFuzzer: the replay dies naming the input.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Only fuzz_sysfs has one (its temporary tree). */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *data;

	if (!f || fstat(fileno(f), &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* Exactly the input's size (at least one byte to allocate): a read past it is caught. */
	data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!data || fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		fprintf(stderr, "replay: %s: cannot read it\n", path);
		fclose(f);
		free(data);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "replay: %s\n", path);	/* the last one named is the one that died */
	LLVMFuzzerTestOneInput(data, (size_t)st.st_size);
	free(data);
	return 0;
}

/* Every regular file of @dir not starting with '.', in name order: the number replayed, or -1. */
static int replay_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), done = 0;

	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (names[i]->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) < (int)sizeof(path) &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) < 0)
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	int total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS-DIR|FILE...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		int n;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			n = replay_dir(argv[i]);
		else
			n = replay_file(argv[i]) < 0 ? -1 : 1;
		if (n < 0)
			return 1;
		total += n;
	}
	printf("%s: %d inputs replayed\n", argv[0], total);
	return 0;
}
