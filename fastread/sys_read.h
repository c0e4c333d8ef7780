/* SPDX-License-Identifier: MIT */
/*
 * fastread/sys_read.h: the read(2) of a group's fallback (fastread/read.c),
 * made as the one system-call instruction of this architecture rather than
 * through libc's read(): errno is not touched, and the read is no
 * cancellation point. Not installed (fastread/arch/ is, for inline.h): no
 * program that includes fastread's headers gets <sys/syscall.h> from them.
 */
#ifndef PFSHIM_FASTREAD_SYS_READ_H
#define PFSHIM_FASTREAD_SYS_READ_H

#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/* sys_read - read(2) of @fd: the length read, or -errno. */
#if defined(__x86_64__) && !defined(FASTREAD_FORCE_GENERIC)
static inline __attribute__((always_inline)) long sys_read(int fd, void *buf, size_t len)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(len)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__) && !defined(FASTREAD_FORCE_GENERIC)
static inline __attribute__((always_inline)) long sys_read(int fd, void *buf, size_t len)
{
	register long x8 __asm__("x8") = SYS_read;
	register long x0 __asm__("x0") = fd;
	register long x1 __asm__("x1") = (long)buf;
	register long x2 __asm__("x2") = (long)len;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
}
#else
/* libc's syscall(), no cancellation point either; errno put back as it was. */
static inline long sys_read(int fd, void *buf, size_t len)
{
	int saved = errno;
	long ret = syscall(SYS_read, fd, buf, len);

	if (ret < 0)
		ret = -errno;
	errno = saved;
	return ret;
}
#endif

#endif
