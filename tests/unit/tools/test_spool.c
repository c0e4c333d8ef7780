/* SPDX-License-Identifier: MIT */
/*
 * test_spool.c: tools/pfshim/run/spool.c, the runner splitting a spool into
 * files: an image's last record is its file; a record cut short, or one
 * whose framing lies (a length past the next record, a name that climbs out
 * of the directory or hides, bytes before the first record), is dropped
 * and the records after it still taken; a name already there is kept and
 * the report takes the next %n.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/output/spool.h"
#include "tools/pfshim/run/spool.h"

static char dir[] = "/tmp/test_spool.XXXXXX";
static int dfd = -1;

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_spool.XXXXXX");
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_PATH | O_DIRECTORY);
	return dfd < 0;
}

static int teardown(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	(void)state;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, "..")))
			unlinkat(dfd, e->d_name, 0);
	if (d)
		closedir(d);
	close(dfd);
	rmdir(dir);
	return 0;
}

/* Append a record (key, name, body; @len: the length it claims, -1 for the body's) to @s. */
static void record(char *s, const char *key, const char *name, const char *body, long len)
{
	sprintf(s + strlen(s), "\x1e%s %s %ld\n%s", key, name, len < 0 ? (long)strlen(body) : len,
		body);
}

/* The text of @name in the directory, or "" when it is not there. */
static const char *file(const char *name)
{
	static char text[256];
	int fd = openat(dfd, name, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : 0;

	text[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return text;
}

static int files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void split(const char *s, struct spool_split_result *r)
{
	memset(r, 0, sizeof(*r));
	spool_split_buffer(dfd, s, strlen(s), r, NULL, NULL);
}

static void test_last_record_of_an_image_is_its_file(void **state)
{
	char s[1024] = "";
	struct spool_split_result r;

	(void)state;
	record(s, "10.111", "h.r-.p0000010.T.0.json", "{\"reason\":\"exec\"}\n", -1);
	record(s, "11.222", "h.r-.p0000011.T.0.json", "{\"b\":1}\n", -1);
	/* The same pid and name, a new image after exec: a file of its own, the next %n. */
	record(s, "10.333", "h.r-.p0000010.T.0.json", "{\"reason\":\"exit\",\"new\":1}\n", -1);
	/* The second image's later report replaces its first. */
	record(s, "11.222", "h.r-.p0000011.T.0.json", "{\"b\":2}\n", -1);
	split(s, &r);
	assert_int_equal(r.records, 4);
	assert_int_equal(r.files, 3);
	assert_int_equal(r.torn, 0);
	assert_int_equal(r.lost, 0);
	assert_int_equal(files(), 3);
	assert_string_equal(file("h.r-.p0000010.T.0.json"), "{\"reason\":\"exec\"}\n");
	assert_string_equal(file("h.r-.p0000010.T.1.json"), "{\"reason\":\"exit\",\"new\":1}\n");
	assert_string_equal(file("h.r-.p0000011.T.0.json"), "{\"b\":2}\n");
}

static void test_torn_and_lying_records_are_dropped(void **state)
{
	char s[2048] = "garbage before any record";
	struct spool_split_result r;

	(void)state;
	/* Cut short: it claims 100 bytes, the next record starts after 9. */
	record(s, "1.1", "h.p1.0.json", "{\"torn\":", 100);
	record(s, "2.2", "h.p2.0.json", "{\"ok\":2}\n", -1);
	/* Names that would climb out, hide, or are no report's. */
	record(s, "3.3", "../h.p3.0.json", "{}\n", -1);
	record(s, "4.4", ".h.p4.0.json", "{}\n", -1);
	record(s, "5.5", "a\x01.0.json", "{}\n", -1);
	record(s, "6.6", "h.p6.json", "{}\n", -1);
	/* A key that is no pid.start, a length of 25 digits, no length at all. */
	record(s, "7;x", "h.p7.0.json", "{}\n", -1);
	strcat(s, "\x1e" "8.8 h.p8.0.json 1000000000000000000000000\n{}\n");
	strcat(s, "\x1e" "9.9 h.p9.0.json\n{}\n");
	record(s, "10.10", "h.p10.0.json", "{\"ok\":10}\n", -1);
	/* The last one cut short by the end of the spool. */
	record(s, "11.11", "h.p11.0.json", "{\"end\"", 50);
	split(s, &r);
	assert_int_equal(r.records, 2);
	assert_int_equal(r.torn, 10);
	assert_int_equal(files(), 2);
	assert_string_equal(file("h.p2.0.json"), "{\"ok\":2}\n");
	assert_string_equal(file("h.p10.0.json"), "{\"ok\":10}\n");
}

static void test_a_file_there_is_never_replaced(void **state)
{
	char s[512] = "";
	struct spool_split_result r;
	int fd = openat(dfd, "h.p5.0.json", O_WRONLY | O_CREAT | O_EXCL, 0644);

	(void)state;
	assert_true(write(fd, "mine", 4) == 4);
	close(fd);
	assert_int_equal(symlinkat("/etc/passwd", dfd, "h.p5.1.json"), 0);
	record(s, "5.5", "h.p5.0.json", "{\"spooled\":1}\n", -1);
	split(s, &r);
	assert_int_equal(r.files, 1);
	assert_string_equal(file("h.p5.0.json"), "mine");
	assert_string_equal(file("h.p5.2.json"), "{\"spooled\":1}\n");
	/* The link is still a link, to the same file, which is untouched. */
	{
		char target[64] = "";

		assert_int_equal(readlinkat(dfd, "h.p5.1.json", target, sizeof(target) - 1), 11);
		assert_string_equal(target, "/etc/passwd");
	}
}

/*
 * A second runner into the same directory while the first's job runs: the
 * first's spool is no earlier run's leftover; taken and split there too,
 * each of its reports would be two files.
 */
static void test_a_live_runners_spool_is_not_taken(void **state)
{
	char name[NAME_MAX + 1], host[256] = "", s[256] = "";
	struct spool_split_result left = { 0 }, r = { 0 };
	int first, second, fd;

	(void)state;
	gethostname(host, sizeof(host) - 1);
	assert_int_equal(spool_name(name, sizeof(name), host), 0);
	first = run_spool_create(dfd, &left);
	assert_true(first >= 0);
	record(s, "7.7", "h.p7.0.json", "{\"once\":1}\n", -1);
	fd = openat(dfd, name, O_WRONLY | O_APPEND);
	assert_true(fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s));
	close(fd);
	second = run_spool_create(dfd, &left);
	assert_true(second < 0);
	assert_int_equal(left.files, 0);
	assert_int_equal(files(), 0);
	run_spool_split(dfd, first, &r, NULL, NULL);
	assert_int_equal(r.files, 1);
	assert_int_equal(files(), 1);
	assert_string_equal(file("h.p7.0.json"), "{\"once\":1}\n");
	/* A runner killed: its spool is nobody's, and the next run splits it. */
	first = run_spool_create(dfd, &left);
	assert_true(first >= 0);
	fd = openat(dfd, name, O_WRONLY | O_APPEND);
	memset(s, 0, sizeof(s));
	record(s, "8.8", "h.p8.0.json", "{\"left\":1}\n", -1);
	assert_true(fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s));
	close(fd);
	close(first);
	second = run_spool_create(dfd, &left);
	assert_true(second >= 0);
	assert_int_equal(left.files, 1);
	assert_string_equal(file("h.p8.0.json"), "{\"left\":1}\n");
	close(second);
	unlinkat(dfd, name, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_last_record_of_an_image_is_its_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_torn_and_lying_records_are_dropped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_file_there_is_never_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_live_runners_spool_is_not_taken, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
