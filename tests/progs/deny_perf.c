/* SPDX-License-Identifier: MIT */
/*
 * deny_perf COMMAND [ARG...]: run COMMAND with perf_event_open(2) refused
 * EPERM by a seccomp filter, as Docker's default profile refuses it (a
 * system call off its allow list: SCMP_ACT_ERRNO, EPERM). Every other call
 * is allowed. The filter is inherited across fork and exec, so COMMAND and
 * all it starts run under it.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#else
#error "deny_perf: no audit arch for this target"
#endif

int main(int argc, char **argv)
{
	struct sock_filter code[] = {
		/* another ABI's call numbers (i386 on x86_64) are not ours: allow them */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	if (argc < 2) {
		fprintf(stderr, "usage: deny_perf COMMAND [ARG...]\n");
		return 2;
	}
	/* an unprivileged process may install a filter only with no_new_privs */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		fprintf(stderr, "deny_perf: seccomp: %s\n", strerror(errno));
		return 126;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "deny_perf: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
