/* SPDX-License-Identifier: MIT */
/*
 * fuzz_output.c: output_expand(), the PFSHIM_OUTPUT template, on any
 * template, host and program name, pid and buffer size. Input: two bytes of
 * buffer size, four of pid, then template \0 host \0 program. The buffer is
 * an exact-size heap block: a byte written past @size is an ASan report.
 * On success the result is a string that fits; on -ENAMETOOLONG it is
 * still NUL-terminated (the snprintf contract of struct buf).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "preload/output/output.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct output_names names;
	struct fuzz_fields f;
	char *template, *host, *program, *path;
	size_t path_size;
	int32_t pid;
	int err;

	if (size < 6)
		return 0;
	path_size = (size_t)(data[0] | data[1] << 8) % 4097;
	memcpy(&pid, data + 2, sizeof(pid));
	fuzz_split(data + 6, size - 6, 3, &f);
	template = fuzz_exact(f.field[0]);
	host = fuzz_exact(f.field[1]);
	program = fuzz_exact(f.field[2]);
	names = (struct output_names){ .pid = pid, .host = host, .program = program };

	path = malloc(path_size ? path_size : 1);
	if (!path)
		abort();
	err = output_expand(template, &names, path, path_size);
	if (err != 0 && err != -EINVAL && err != -ENAMETOOLONG)
		abort();
	if (err == 0 && (path_size == 0 || strnlen(path, path_size) >= path_size))
		abort();
	if (err == -ENAMETOOLONG && path_size > 0 && strnlen(path, path_size) >= path_size)
		abort();

	free(path);
	free(program);
	free(host);
	free(template);
	fuzz_fields_free(&f);
	return 0;
}
