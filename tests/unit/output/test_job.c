/* SPDX-License-Identifier: MIT */
/*
 * test_job.c: preload/output/job.c in this very process: a process whose parent
 * left no crumb is a root, which leaves its crumb only when it first starts a
 * child or an image (job_crumb_ensure()); its fork child is a descendant that
 * writes into the job directory, with a crumb of its own once it too starts
 * one, and none left after its exit; a runtime
 * directory open to others or not ours is refused; PFSHIM_OUTPUT or
 * PFSHIM_DISABLE keep the job out of the way. (Run without LD_PRELOAD, as
 * `make unit` does: under the shim this process would be a descendant.)
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/output/job.h"

static char runtime[64];
static const char *output_value, *disable_value;

static const char *env_lookup(const char *name)
{
	if (strcmp(name, "XDG_RUNTIME_DIR") == 0)
		return runtime;
	if (strcmp(name, "PFSHIM_OUTPUT") == 0)
		return output_value;
	if (strcmp(name, "PFSHIM_DISABLE") == 0)
		return disable_value;
	return NULL;
}

/* Entries of DIR whose names begin with @prefix. */
static int entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

static int setup(void **state)
{
	(void)state;
	snprintf(runtime, sizeof(runtime), "/tmp/pfshim-test-job.XXXXXX");
	assert_non_null(mkdtemp(runtime));
	output_value = NULL;
	disable_value = NULL;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", runtime);
	return system(cmd);
}

static void test_root_then_descendant(void **state)
{
	static const struct output_names names = { .pid = 1, .host = "vm", .ext = ".json" };
	char base[128];
	pid_t child;
	int status;

	(void)state;
	snprintf(base, sizeof(base), "%s/pfshim", runtime);
	job_start(env_lookup, 1700000000000000000ULL);
	assert_int_equal(job_role(), JOB_ROOT);
	assert_int_equal(entries(base, "p"), 0);		/* no crumb until one could serve */
	assert_int_equal(entries(base, "job-"), 1);		/* made at start, held for the children */
	job_crumb_ensure();					/* before a fork, an exec, a spawn */
	assert_int_equal(entries(base, "p"), 1);		/* the root's crumb */
	job_crumb_ensure();					/* once */
	assert_int_equal(entries(base, "p"), 1);

	child = fork();
	if (child == 0) {
		struct output_names mine = names;

		job_restart_in_child();
		mine.pid = getpid();
		if (job_role() != JOB_DESCENDANT || entries(base, "p") != 1)
			_exit(1);
		job_crumb_ensure();
		if (entries(base, "p") != 2)			/* its own, not its parent's again */
			_exit(3);
		job_write(&mine, "{}\n", 3);
		job_finish(REPORT_EXIT);
		_exit(entries(base, "p") == 1 ? 0 : 2);		/* its crumb is gone */
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(entries(base, "job-20231114T221320Z-"), 1);
	job_finish(REPORT_EXEC);				/* an exec keeps the crumb */
	assert_int_equal(entries(base, "p"), 1);
}

static void test_explicit_output_or_disable_means_no_job(void **state)
{
	(void)state;
	output_value = "stderr";
	job_start(env_lookup, 0);
	assert_int_equal(job_role(), JOB_NONE);
	assert_int_equal(entries(runtime, "pfshim"), 0);
	output_value = NULL;
	disable_value = "1";
	job_start(env_lookup, 0);
	assert_int_equal(job_role(), JOB_NONE);
	assert_int_equal(entries(runtime, "pfshim"), 0);
}

static void test_open_runtime_directory_refused(void **state)
{
	char base[128];

	(void)state;
	snprintf(base, sizeof(base), "%s/pfshim", runtime);
	assert_int_equal(mkdir(base, 0700), 0);
	assert_int_equal(chmod(base, 0777), 0);
	job_start(env_lookup, 0);
	/* our parent (the test runner) has no shim: a root, with no job directory */
	assert_int_equal(job_role(), JOB_ROOT);
	assert_int_equal(entries(base, "p"), 0);
}

static void test_runtime_link_refused(void **state)
{
	char base[128], target[128];

	(void)state;
	snprintf(base, sizeof(base), "%s/pfshim", runtime);
	snprintf(target, sizeof(target), "%s/elsewhere", runtime);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, base), 0);
	job_start(env_lookup, 0);
	assert_int_equal(job_role(), JOB_ROOT);
	assert_int_equal(entries(target, "p"), 0);
}

/* Field 22 of /proc/PID/stat: the start the crumbs are named by. */
static unsigned long long start_of(int pid)
{
	char path[64], text[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	for (p = strrchr(text, ')'); *p && field < 22; p++)
		field += *p == ' ';
	sscanf(p, "%llu", &start);
	return start;
}

/*
 * A crumb names a job directory in the runtime directory, never a path: one
 * planted with a path (the old "D/abs/path/" form, or a name climbing out)
 * is not believed, and the process is a root of its own job.
 */
static void test_crumb_with_a_path_not_believed(void **state)
{
	static const char *const targets[] = { "D/tmp/evil/", "D/job-x/../../evil", "R/../evil" };
	char base[128], crumb[192];

	(void)state;
	snprintf(base, sizeof(base), "%s/pfshim", runtime);
	assert_int_equal(mkdir(base, 0700), 0);
	snprintf(crumb, sizeof(crumb), "%s/p%d.%llu", base, getppid(), start_of(getppid()));
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		unlink(crumb);
		assert_int_equal(symlink(targets[i], crumb), 0);
		job_start(env_lookup, 0);
		assert_int_equal(job_role(), JOB_ROOT);
		job_finish(REPORT_EXIT);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_root_then_descendant, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explicit_output_or_disable_means_no_job, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_runtime_directory_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_link_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crumb_with_a_path_not_believed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
