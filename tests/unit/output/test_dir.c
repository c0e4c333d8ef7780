/* SPDX-License-Identifier: MIT */
/*
 * test_output_dir.c: preload/output/dir.c, reports as files in a directory:
 * names that sort by host, rank and pid; the directory made with its
 * parents; the first report of an image takes a free name, later ones
 * replace it, and nothing else is left in the directory; an image removes
 * its own file and no other (output_dir_remove()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/output/dir.h"
#include "preload/output/ledger.h"
#include "fds_open.h"

static const struct output_names names = { .pid = 4242, .host = "vm", .rank = "3",
					    .start_ns = 1700000000500000000ULL, .ext = ".json" };

static void test_name(void **state)
{
	struct output_names n = names;
	char name[128];

	(void)state;
	assert_int_equal(output_dir_name(&n, name, sizeof(name)), 0);
	assert_string_equal(name, "vm.r000003.p0004242.20231114T221320Z.0.json");
	n.rank = NULL;
	n.seq = 12;
	assert_int_equal(output_dir_name(&n, name, sizeof(name)), 0);
	assert_string_equal(name, "vm.r-.p0004242.20231114T221320Z.12.json");
	assert_int_equal(output_dir_name(&n, name, 10), -ENAMETOOLONG);
}

/* A host name is someone's choice (sethostname in a namespace): never a path, never hidden. */
static void test_name_hostile_host(void **state)
{
	struct output_names n = names;
	char name[128];

	(void)state;
	n.host = "../x/\n";
	assert_int_equal(output_dir_name(&n, name, sizeof(name)), 0);
	assert_string_equal(name, "_._x__.r000003.p0004242.20231114T221320Z.0.json");
	n.host = "..";
	assert_int_equal(output_dir_name(&n, name, sizeof(name)), 0);
	assert_string_equal(name, "_..r000003.p0004242.20231114T221320Z.0.json");
	n.host = "";
	assert_int_equal(output_dir_name(&n, name, sizeof(name)), 0);
	assert_string_equal(name, "localhost.r000003.p0004242.20231114T221320Z.0.json");
}

static int entries(const char *dir, char *first, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n++ == 0)
			snprintf(first, size, "%.*s", (int)size - 1, e->d_name);
	closedir(d);
	return n;
}

static void file_is(const char *dir, const char *name, const char *text)
{
	char path[512], got[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	assert_true(n >= 0);
	got[n] = '\0';
	assert_string_equal(got, text);
}

static void test_write_publish_replace(void **state)
{
	char top[] = "/tmp/pfshim-test-dir.XXXXXX", dir[128], name[128], path[256];
	struct output_names other = names;
	const char *why;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/a/b/", top);
	errno = 1234;
	assert_int_equal(output_dir_write(dir, &names, "one\n", 4, &why), 0);
	assert_int_equal(errno, 1234);
	assert_int_equal(entries(dir, name, sizeof(name)), 1);
	assert_string_equal(name, "vm.r000003.p0004242.20231114T221320Z.0.json");
	/* a second report of the same image replaces the first */
	assert_int_equal(output_dir_write(dir, &names, "two\n", 4, &why), 0);
	assert_int_equal(entries(dir, name, sizeof(name)), 1);
	file_is(dir, name, "two\n");
	/* another image of a pid with the same start second: the next number */
	other.pid = 4243;
	assert_int_equal(output_dir_write(dir, &other, "x\n", 2, &why), 0);
	assert_int_equal(entries(dir, name, sizeof(name)), 2);
	snprintf(path, sizeof(path), "rm -r %s", top);
	assert_int_equal(system(path), 0);
}

/*
 * Past RLIMIT_FSIZE: -EFBIG and no SIGXFSZ (its default action would end
 * the host, and this test), nothing published, the last report kept.
 */
/*
 * In @dir, @n's report "small\n", then one of 300 bytes under an
 * RLIMIT_FSIZE of 100 (94 bytes more fit: a short write, no SIGXFSZ; a file
 * rewritten whole from 0 does not fit at all), written noted in the
 * directory's ledger when @noted is given. Return: that write's result.
 */
static int write_past_fsize(const char *dir, const struct output_names *n, bool *noted)
{
	struct rlimit old, rl;
	char big[300];
	const char *why;
	int err;

	memset(big, 'r', sizeof(big));
	assert_int_equal(output_dir_write(dir, n, "small\n", 6, &why), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	rl = old;
	rl.rlim_cur = 100;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
	err = noted ? output_dir_write_noted(dir, n, big, sizeof(big), &why, noted) :
		      output_dir_write(dir, n, big, sizeof(big), &why);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	return err;
}

static void test_file_size_limit(void **state)
{
	char top[] = "/tmp/pfshim-test-dir.XXXXXX", dir[128], name[128], path[256];
	struct output_names n = names;

	(void)state;
	n.pid = 4244;	/* an image of its own: test_write_publish_replace published 4242 */
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/", top);
	assert_int_equal(write_past_fsize(dir, &n, NULL), -EFBIG);
	assert_int_equal(entries(dir, name, sizeof(name)), 1);
	file_is(dir, name, "small\n");
	snprintf(path, sizeof(path), "rm -r %s", top);
	assert_int_equal(system(path), 0);
}

/*
 * output_dir_remove(): only this image's own published file, by pid and
 * directory; nothing published is nothing removed; errno kept; the next
 * report after a removal (a failed exec goes on) publishes a new file.
 */
static void test_remove(void **state)
{
	char top[] = "/tmp/pfshim-test-dir.XXXXXX", dir[128], elsewhere[128], name[128], cmd[256];
	struct output_names other = names;
	const char *why;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/d/", top);
	snprintf(elsewhere, sizeof(elsewhere), "%s/e/", top);
	other.pid = 4299;
	assert_int_equal(output_dir_write(dir, &other, "theirs\n", 7, &why), 0);
	assert_int_equal(output_dir_remove(dir, &names), 0);	/* we published nothing */
	assert_int_equal(output_dir_write(dir, &names, "ours\n", 5, &why), 0);
	assert_int_equal(entries(dir, name, sizeof(name)), 2);
	assert_int_equal(output_dir_remove(elsewhere, &names), 0);	/* not that directory */
	assert_int_equal(entries(dir, name, sizeof(name)), 2);
	errno = 1234;
	assert_int_equal(output_dir_remove(dir, &names), 0);
	assert_int_equal(errno, 1234);
	assert_int_equal(entries(dir, name, sizeof(name)), 1);
	file_is(dir, name, "theirs\n");
	assert_int_equal(output_dir_remove(dir, &names), 0);	/* once only */
	assert_int_equal(entries(dir, name, sizeof(name)), 1);
	assert_int_equal(output_dir_write(dir, &names, "again\n", 6, &why), 0);
	assert_int_equal(entries(dir, name, sizeof(name)), 2);
	snprintf(cmd, sizeof(cmd), "rm -r %s", top);
	assert_int_equal(system(cmd), 0);
}

/*
 * output_dir_reserve(): the directory and the unnamed file made before the
 * write, which takes them: the report published as without it, no
 * descriptor left, nothing else in the directory. A reservation the write
 * does not take (another directory) is closed by output_dir_release(); one
 * whose descriptor the program closed and reused meanwhile is left alone,
 * and the program's file never receives the report.
 */
static void test_reserve(void **state)
{
	char top[] = "/tmp/pfshim-test-dir.XXXXXX", dir[128], other[128], name[128], cmd[256];
	char mine[160], got[16] = "";
	struct output_names n = names;
	const char *why;
	bool held[256];
	int before = fds_open(), fd, victim, closed = 0;

	(void)state;
	n.pid = 4250;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/r/", top);
	snprintf(other, sizeof(other), "%s/o/", top);
	errno = 1234;
	assert_int_equal(output_dir_reserve(dir, 0755), 0);
	assert_int_equal(errno, 1234);
	assert_int_equal(fds_open(), before + 2);
	assert_int_equal(output_dir_write(dir, &n, "one\n", 4, &why), 0);
	assert_int_equal(fds_open(), before);
	assert_int_equal(entries(dir, name, sizeof(name)), 1);
	file_is(dir, name, "one\n");
	output_dir_release();
	assert_int_equal(fds_open(), before);

	/* reserved in one directory, written into another: made there, the reservation closed */
	n.pid = 4251;
	assert_int_equal(output_dir_reserve(dir, 0755), 0);
	assert_int_equal(output_dir_write(other, &n, "two\n", 4, &why), 0);
	assert_int_equal(entries(other, name, sizeof(name)), 1);
	file_is(other, name, "two\n");
	output_dir_release();
	assert_int_equal(fds_open(), before);
	assert_int_equal(entries(dir, name, sizeof(name)), 1);

	/* the program closed the reserved descriptors and opened a file of its own at the number */
	n.pid = 4252;
	snprintf(mine, sizeof(mine), "%s/mine", top);
	for (int f = 0; f < 256; f++)
		held[f] = fcntl(f, F_GETFD) >= 0;
	assert_int_equal(output_dir_reserve(other, 0755), 0);
	for (int f = 0; f < 256; f++)
		if (!held[f] && fcntl(f, F_GETFD) >= 0)
			close(f), closed++;
	assert_int_equal(closed, 2);
	fd = open(mine, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	victim = dup(fd);	/* both numbers the reservation had are the program's now */
	assert_true(victim >= 0);
	assert_int_equal(output_dir_write(other, &n, "three\n", 6, &why), 0);
	output_dir_release();
	/* left open, and empty: they are the program's */
	assert_true(fcntl(fd, F_GETFD) >= 0 && fcntl(victim, F_GETFD) >= 0);
	assert_int_equal(pread(fd, got, sizeof(got), 0), 0);
	close(fd);
	close(victim);
	assert_int_equal(entries(other, name, sizeof(name)), 2);
	snprintf(cmd, sizeof(cmd), "rm -r %s", top);
	assert_int_equal(system(cmd), 0);
}

/* Another thread's whole report into @arg's directory, while the main thread holds its spare. */
static void *report_elsewhere(void *arg)
{
	struct output_names n = names;
	const char *why;
	intptr_t err;

	n.pid = 4261;
	err = output_dir_reserve(arg, 0755);
	if (err == 0 || err == -EBUSY)
		err = output_dir_write(arg, &n, "theirs\n", 7, &why);
	output_dir_release();
	return (void *)err;
}

/*
 * Two threads' reports at once (explicit reports may be: process.c): the
 * spare is one thread's. Another thread's reserve, write and release
 * neither close nor take it: it closed them, and, run concurrently
 * (markers_report_race 16 200, 30 times), a thread wrote through or closed
 * a number that another's report or the program held (EBADF, ENOTDIR, EPERM).
 */
static void test_reserve_threads(void **state)
{
	char top[] = "/tmp/pfshim-test-dir.XXXXXX", dir[128], other[128], name[128], cmd[256];
	struct output_names n = names;
	const char *why;
	bool held[256];
	int spare[2], nr = 0, before = fds_open();
	struct stat st;
	pthread_t t;
	void *err;

	(void)state;
	n.pid = 4260;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/r/", top);
	snprintf(other, sizeof(other), "%s/o/", top);
	for (int f = 0; f < 256; f++)
		held[f] = fcntl(f, F_GETFD) >= 0;
	assert_int_equal(output_dir_reserve(dir, 0755), 0);
	for (int f = 0; f < 256 && nr < 2; f++)
		if (!held[f] && fcntl(f, F_GETFD) >= 0)
			spare[nr++] = f;
	assert_int_equal(nr, 2);
	assert_int_equal(pthread_create(&t, NULL, report_elsewhere, other), 0);
	assert_int_equal(pthread_join(t, &err), 0);
	assert_int_equal((intptr_t)err, 0);
	assert_int_equal(entries(other, name, sizeof(name)), 1);
	file_is(other, name, "theirs\n");
	/* the main thread's spare still open, still its unnamed file */
	assert_int_equal(fds_open(), before + 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(fstat(spare[i], &st), 0);
		assert_true(S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_nlink == 0));
	}
	assert_int_equal(output_dir_write(dir, &n, "mine\n", 5, &why), 0);
	output_dir_release();
	assert_int_equal(fds_open(), before);
	assert_int_equal(entries(dir, name, sizeof(name)), 1);
	file_is(dir, name, "mine\n");
	snprintf(cmd, sizeof(cmd), "rm -r %s", top);
	assert_int_equal(system(cmd), 0);
}

#define RACE_THREADS 8
#define RACE_REPORTS 200

static pthread_barrier_t race_start;
static char race_dir[128];	/* not on the test's stack: a failed assert leaves it */

/* RACE_REPORTS reports of the image 4264 into race_dir, at once with the other threads'. */
static void *report_race(void *arg)
{
	struct output_names n = names;
	const char *why;
	intptr_t failed = 0;

	(void)arg;
	n.pid = 4264;
	n.series = true;
	pthread_barrier_wait(&race_start);
	for (int i = 0; i < RACE_REPORTS; i++)
		failed += output_dir_write(race_dir, &n, "{\"r\":1}\n", 8, &why) != 0;
	return (void *)failed;
}

/*
 * Threads' reports of one image at once (explicit ones: process.c): every
 * one written, each in the image's one series, and one file replaced by
 * each, nothing hidden left. Before, the threads shared the hidden name a
 * report is renamed from (ENOENT, EEXIST) and the image's published name
 * (two first reports each published a file).
 */
static void test_write_threads(void **state)
{
	char top[] = "/tmp/pfshim-test-dir.XXXXXX", name[128], path[256];
	char *dir = race_dir, *line = NULL;
	size_t size = 0;
	pthread_t t[RACE_THREADS];
	intptr_t failed = 0;
	int lines = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(race_dir), "%s/", top);
	assert_int_equal(pthread_barrier_init(&race_start, NULL, RACE_THREADS), 0);
	for (int i = 0; i < RACE_THREADS; i++)
		if (pthread_create(&t[i], NULL, report_race, NULL) != 0)
			abort();	/* the others would wait at the barrier for ever */
	/* every thread joined before any assert: one left running would write on */
	for (int i = 0; i < RACE_THREADS; i++) {
		void *n;

		pthread_join(t[i], &n);
		failed += (intptr_t)n;
	}
	pthread_barrier_destroy(&race_start);
	assert_int_equal(failed, 0);
	assert_int_equal(entries(dir, name, sizeof(name)), 2);	/* the file and its series */
	file_is(dir, "vm.r000003.p0004264.20231114T221320Z.0.json", "{\"r\":1}\n");
	snprintf(path, sizeof(path), "%svm.r000003.p0004264.20231114T221320Z.0.series.jsonl", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (getline(&line, &size, f) > 0) {
		assert_string_equal(line, "{\"r\":1}\n");
		lines++;
	}
	free(line);
	fclose(f);
	assert_int_equal(lines, RACE_THREADS * RACE_REPORTS);
	snprintf(path, sizeof(path), "rm -r %s", top);
	assert_int_equal(system(path), 0);
}

/* The text of @dir's file @name, or "" when it cannot be read. */
static void file_text(const char *dir, const char *name, char *got, size_t size)
{
	char path[256];
	int fd, n;

	snprintf(path, sizeof(path), "%s%s", dir, name);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? (int)read(fd, got, size - 1) : 0;
	got[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/*
 * output_dir_write_noted(): pfshim run's ledger (ledger.h) gets "PID ERRNO"
 * for each report, written (0) or not (EFBIG past RLIMIT_FSIZE); a
 * directory without one, or with a symbolic link at its name, is not
 * noted, and the link's target keeps its bytes.
 */
static void test_ledger(void **state)
{
	char top[] = "/tmp/pfshim-test-dir.XXXXXX", dir[128], path[256], got[128];
	struct output_names n = names;
	const char *why;
	bool noted = true;
	int fd;

	(void)state;
	n.pid = 4260;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/", top);
	assert_int_equal(output_dir_write_noted(dir, &n, "a\n", 2, &why, &noted), 0);
	assert_false(noted);
	snprintf(path, sizeof(path), "%s" LEDGER_FILE, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	n.pid = 4261;
	assert_int_equal(output_dir_write_noted(dir, &n, "b\n", 2, &why, &noted), 0);
	assert_true(noted);
	n.pid = 4262;
	assert_int_equal(write_past_fsize(dir, &n, &noted), -EFBIG);	/* its "small" not noted */
	assert_true(noted);
	file_text(dir, LEDGER_FILE, got, sizeof(got));
	assert_string_equal(got, "4261 0\n4262 27\n");
	/* a link at the name: not followed, not noted */
	assert_int_equal(unlink(path), 0);
	snprintf(got, sizeof(got), "%s/target", top);
	fd = open(got, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(symlink(got, path), 0);
	n.pid = 4263;
	assert_int_equal(output_dir_write_noted(dir, &n, "c\n", 2, &why, &noted), 0);
	assert_false(noted);
	file_text(top, "/target", got, sizeof(got));
	assert_string_equal(got, "");
	snprintf(path, sizeof(path), "rm -r %s", top);
	assert_int_equal(system(path), 0);
}

/*
 * The series file is opened O_NOFOLLOW: a symbolic link put at
 * NAME.series.EXT between two interval reports is refused (ELOOP), and
 * its target, a regular file of our own, keeps its bytes.
 */
static void test_series_symlink(void **state)
{
	char top[] = "/tmp/pfshim-test-dir.XXXXXX", dir[128], name[128], path[512], target[256];
	struct output_names n = names;
	const char *why;
	int fd;

	(void)state;
	n.pid = 4246;	/* an image of its own (the others published 4242 and 4244) */
	n.series = true;
	n.series_only = true;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/d/", top);
	snprintf(target, sizeof(target), "%s/target", top);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "mine\n", 5), 5);
	close(fd);
	assert_int_equal(output_dir_write(dir, &n, "1\n", 2, &why), 0);
	assert_int_equal(entries(dir, name, sizeof(name)), 1);
	assert_string_equal(name, "vm.r000003.p0004246.20231114T221320Z.0.series.jsonl");
	file_is(dir, name, "1\n");
	snprintf(path, sizeof(path), "%s%s", dir, name);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(output_dir_write(dir, &n, "2\n", 2, &why), -ELOOP);
	file_is(top, "target", "mine\n");
	snprintf(path, sizeof(path), "rm -r %s", top);
	assert_int_equal(system(path), 0);
}

/*
 * A series append cut short (RLIMIT_FSIZE here, a full disk elsewhere) is
 * an error, -ENOSPC, not a report written: the series' last line lacks
 * its end, and the caller says so.
 */
static void test_series_short_write(void **state)
{
	char top[] = "/tmp/pfshim-test-dir.XXXXXX", dir[128], path[256];
	struct output_names n = names;

	(void)state;
	n.pid = 4247;
	n.series = true;
	n.series_only = true;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/", top);
	assert_int_equal(write_past_fsize(dir, &n, NULL), -ENOSPC);
	snprintf(path, sizeof(path), "rm -r %s", top);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_name_hostile_host),
		cmocka_unit_test(test_write_publish_replace),
		cmocka_unit_test(test_file_size_limit),
		cmocka_unit_test(test_remove),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_reserve_threads),
		cmocka_unit_test(test_write_threads),
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_series_symlink),
		cmocka_unit_test(test_series_short_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
