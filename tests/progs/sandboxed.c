/* SPDX-License-Identifier: MIT */
/*
 * sandboxed ACTION [HOW [SPINS [segv]]]: sandbox itself as Chromium's and
 * systemd's sandboxes do, with a seccomp filter that allows exactly what
 * this program needs from then on (read, write, exit_group) and answers
 * anything else with ACTION: "kill" (SECCOMP_RET_KILL_PROCESS: SIGSYS, exit
 * 159) or "eperm" (SECCOMP_RET_ERRNO: EPERM). HOW installs it: "seccomp"
 * (seccomp(2) through syscall(), as libseccomp does), "tsync" (the same on
 * all threads), "prctl" (prctl(PR_SET_SECCOMP)). Then it burns SPINS loop
 * rounds without a system call, prints "done" and returns 0 from main;
 * with "segv", it writes through a null pointer instead (SIGSEGV: 139).
 * Whatever a preloaded library does after the filter goes through it too.
 * No libseccomp: the BPF is written here.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "sandboxed.c: an architecture of the tests (x86_64, aarch64)"
#endif

#define ALLOW(nr)                                               \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),        \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static void say(const char *s)
{
	(void)!write(STDOUT_FILENO, s, strlen(s));
}

int main(int argc, char **argv)
{
	const char *action = argc > 1 ? argv[1] : "kill";
	const char *how = argc > 2 ? argv[2] : "seccomp";
	long spins = argc > 3 ? atol(argv[3]) : 0;
	unsigned int otherwise = strcmp(action, "eperm") == 0 ?
		SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA) : SECCOMP_RET_KILL_PROCESS;
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(__NR_read),
		ALLOW(__NR_write),
		ALLOW(__NR_exit_group),
		BPF_STMT(BPF_RET | BPF_K, otherwise),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
	long ret;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		say("no PR_SET_NO_NEW_PRIVS\n");
		return 2;
	}
	if (strcmp(how, "prctl") == 0)
		ret = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	else
		ret = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			      strcmp(how, "tsync") == 0 ? SECCOMP_FILTER_FLAG_TSYNC : 0, &prog);
	if (ret != 0) {
		say("no seccomp filter\n");
		return 2;
	}
	for (volatile long i = 0; i < spins; i++)
		;
	if (argc > 4 && strcmp(argv[4], "segv") == 0)
		*(volatile int *)NULL = 1;
	say("done\n");
	return 0;
}
