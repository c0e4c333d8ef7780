/* SPDX-License-Identifier: MIT */
/*
 * proc_stat.c: /proc/PID/stat read and parsed once for all: the job's ancestry
 * (output/job.c) and the thread counts (shim.c, interval.c).
 */
#include "preload/proc_stat.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "export/buf.h"
#include "fastread/sysfile.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static uint64_t number(const char *p)
{
	uint64_t n = 0;

	for (; is_digit(*p); p++)
		n = n * 10 + (uint64_t)(*p - '0');
	return n;
}

int proc_stat_parse(const char *text, struct proc_stat *st)
{
	/* comm (field 2) may hold spaces and parentheses: the fields start after the last ')' */
	const char *p = strrchr(text, ')');
	int field = 2;

	memset(st, 0, sizeof(*st));
	if (!p)
		return -EIO;
	for (p++; *p && field < 22; p++) {
		if (*p != ' ')
			continue;
		field++;
		if (field == 3)
			st->state = p[1];
		else if (field == 4)
			st->ppid = (int)number(p + 1);
		else if (field == 20)
			st->threads = (long)number(p + 1);
		else if (field == 22)
			st->start = number(p + 1);
	}
	return field == 22 && st->state ? 0 : -EIO;
}

int proc_stat_read(int pid, struct proc_stat *st)
{
	char path[64], text[1024];
	struct buf b;
	int n;

	memset(st, 0, sizeof(*st));
	buf_init(&b, path, sizeof(path));
	buf_puts(&b, "/proc/");
	if (pid)
		buf_put_u64(&b, (uint64_t)pid);
	else
		buf_puts(&b, "self");
	buf_puts(&b, "/stat");
	buf_finish(&b);
	n = sysfile_read(path, text, sizeof(text));
	if (n <= 0)
		return n < 0 && n != -ENAMETOOLONG ? n : -EIO;
	return proc_stat_parse(text, st);
}
