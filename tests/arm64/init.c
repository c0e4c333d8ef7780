/* SPDX-License-Identifier: MIT */
/*
 * init.c: /init of the arm64 QEMU guest. Turns on user-space counter access,
 * runs the tests /etc/pfshim-tests lists, one at a time, prints one parseable
 * line per test and a summary on the console, and powers the machine off.
 * The host (run.sh) decides pass/fail from those lines only.
 *
 * /etc/pfshim-tests, one test a line:   NAME CPUS [VAR=value...] PROGRAM [ARG...]
 *   CPUS is "*" or a comma list of QEMU CPU models (pfshim_cpu= on the kernel
 *   command line says which one this boot is); PROGRAM "-skip" prints the rest
 *   of the line as the reason. Exit status 0 is ok, 77 SKIP, anything else FAIL.
 * Kernel command line words (they arrive in the environment): pfshim_cpu=MODEL,
 * pfshim_only=NAME[,NAME...], pfshim_timeout=SECONDS (per test, default 120).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu_arm64.h"

#define TESTS_LIST "/etc/pfshim-tests"
#define TEST_SKIP_STATUS 77
#define TEST_ARGS_MAX 32

struct totals {
	int passed, failed, skipped;
};

/*
 * The kernel opens /dev/console as fds 0-2 for init only if the initramfs
 * (or the kernel's built-in one) has that node: make sure, so that a missing
 * node costs a devtmpfs mount instead of a silent guest.
 */
static void console_open(void)
{
	int fd;

	if (fcntl(1, F_GETFD) >= 0)
		return;
	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static void file_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Unit tests build fixture trees with system(): give them /bin/sh and the
 * usual commands, as links to the static busybox the initramfs carries. */
static void shell_install(void)
{
	pid_t pid;

	if (access("/bin/busybox", X_OK) != 0)
		return;
	pid = fork();
	if (pid == 0) {
		execl("/bin/busybox", "busybox", "--install", "-s", "/bin", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/*
 * The events the emulated PMU lists, and its slot count: whether this QEMU
 * CPU has what Arm's top-down level 1 takes (STALL_SLOT_*, OP_SPEC,
 * OP_RETIRED, caps/slots), said on the console (docs/metrics.md).
 */
static void pmu_events_print(void)
{
	static const char dir[] = "/sys/bus/event_source/devices/armv8_pmuv3";
	struct dirent **names;
	char path[128], slots[32];
	int n;

	snprintf(path, sizeof(path), "%s/caps/slots", dir);
	file_read_line(path, slots, sizeof(slots));
	snprintf(path, sizeof(path), "%s/events", dir);
	n = scandir(path, &names, NULL, alphasort);
	printf("ARM64-BOOT %s: caps/slots=%s events:", dir, slots[0] ? slots : "none");
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			printf(" %s", names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	printf("\n");
}

static void system_setup(void)
{
	char pmu_type[32];
	struct utsname u;
	int err;

	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/tmp", 01777);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	shell_install();
	/* arm64 refuses EL0 counter access unless this sysctl is 1, whatever
	 * the event asks for (Documentation/arm64/perf.rst). */
	err = pmu_sysctl_write("/proc/sys/kernel/perf_user_access", "1");
	if (err)
		printf("ARM64-WARN cannot enable /proc/sys/kernel/perf_user_access: %s\n",
		       strerror(-err));
	uname(&u);
	file_read_line("/sys/bus/event_source/devices/armv8_pmuv3/type", pmu_type,
		       sizeof(pmu_type));
	printf("ARM64-BOOT cpu=%s kernel=%s pmu_type=%s\n", getenv("pfshim_cpu") ?: "?",
	       u.release, pmu_type[0] ? pmu_type : "none");
	pmu_events_print();
	fflush(stdout);
}

/* Is @word one of the comma-separated names in @list? */
static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* Split @line in place into at most TEST_ARGS_MAX words. Return: how many. */
static int line_split(char *line, char **words)
{
	int n = 0;

	for (char *w = strtok(line, " \t\n"); w && n < TEST_ARGS_MAX; w = strtok(NULL, " \t\n"))
		words[n++] = w;
	words[n] = NULL;
	return n;
}

static void child_exec(char **words, int nr)
{
	unsigned timeout = 120;
	int i = 0;

	if (getenv("pfshim_timeout"))
		timeout = (unsigned)atoi(getenv("pfshim_timeout"));
	for (; i < nr && strchr(words[i], '=') && words[i][0] != '/'; i++)
		putenv(words[i]);
	/* Unit tests find their fixtures relative to the source tree's root. */
	if (chdir("/src") < 0 && chdir("/") < 0)
		_exit(127);
	/* SIGALRM's default action ends a test that hangs; the alarm survives exec. */
	alarm(timeout);
	execv(words[i], &words[i]);
	printf("  cannot exec %s: %s\n", words[i], strerror(errno));
	fflush(stdout);
	_exit(127);
}

/* Run one test; print its ARM64-TEST line. */
static void test_run(char **words, int nr, struct totals *t)
{
	const char *name = words[0];
	int status;
	pid_t pid;

	printf("ARM64-START %s\n", name);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("ARM64-TEST %s FAIL fork: %s\n", name, strerror(errno));
		t->failed++;
		return;
	}
	if (pid == 0)
		child_exec(words + 2, nr - 2);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ARM64-TEST %s ok\n", name);
		t->passed++;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == TEST_SKIP_STATUS) {
		printf("ARM64-TEST %s SKIP (the test said so)\n", name);
		t->skipped++;
	} else if (WIFEXITED(status)) {
		printf("ARM64-TEST %s FAIL exit %d\n", name, WEXITSTATUS(status));
		t->failed++;
	} else {
		printf("ARM64-TEST %s FAIL signal %d%s\n", name, WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
		t->failed++;
	}
	fflush(stdout);
}

static void tests_run(struct totals *t)
{
	const char *cpu = pmu_cpu_model();
	const char *only = getenv("pfshim_only");
	char line[1024], *words[TEST_ARGS_MAX + 1];
	FILE *f = fopen(TESTS_LIST, "r");
	int nr;

	if (!f) {
		printf("ARM64-TEST list FAIL cannot open %s: %s\n", TESTS_LIST, strerror(errno));
		t->failed++;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		nr = line_split(line, words);
		if (nr < 3)
			continue;
		if (strcmp(words[1], "*") != 0 && !list_has(words[1], cpu))
			continue;
		if (only && !list_has(only, words[0]))
			continue;
		if (strcmp(words[2], "-skip") == 0) {
			printf("ARM64-TEST %s SKIP", words[0]);
			for (int i = 3; i < nr; i++)
				printf(" %s", words[i]);
			printf("\n");
			t->skipped++;
			continue;
		}
		test_run(words, nr, t);
	}
	fclose(f);
}

int main(void)
{
	struct totals t = { 0 };

	console_open();
	system_setup();
	tests_run(&t);
	printf("ARM64-SUMMARY cpu=%s passed=%d failed=%d skipped=%d\n",
	       pmu_cpu_model(), t.passed, t.failed, t.skipped);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	/* Only reached if power-off failed: returning from init panics, and
	 * panic=-1 with -no-reboot ends QEMU anyway. */
	return 1;
}
