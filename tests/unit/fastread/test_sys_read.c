/* SPDX-License-Identifier: MIT */
/*
 * test_sys_read.c: fastread/sys_read.h, the read(2) of a group's fallback
 * as one system-call instruction: its length, its -errno, errno untouched,
 * and the caller's registers kept across it (the clobbers of its asm).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fastread/sys_read.h"

static void test_length_and_errors(void **state)
{
	char buf[16] = "";
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "hello", 5), 5);
	errno = EDOM;
	assert_int_equal(sys_read(p[0], buf, sizeof(buf)), 5);
	assert_memory_equal(buf, "hello", 5);
	assert_int_equal(sys_read(-1, buf, sizeof(buf)), -EBADF);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(sys_read(p[0], (void *)1, 1), -EFAULT);	/* the byte stays */
	assert_int_equal(sys_read(p[0], buf, sizeof(buf)), 1);
	close(p[1]);
	assert_int_equal(sys_read(p[0], buf, sizeof(buf)), 0);
	assert_int_equal(errno, EDOM);
	close(p[0]);
}

/*
 * Eleven values live across the read, each pinned in a register of its own:
 * with every register the call's arguments leave, an asm that did not name
 * what the instruction clobbers (rcx and r11 on x86_64) would lose some.
 */
static __attribute__((noinline)) uint64_t live_across(int fd, char *buf, long *got)
{
	uint64_t a = (uint64_t)fd * 3 + 1, b = a * 5, c = b ^ 0x55, d = c + a, e = d * 7,
		 f = e ^ b, g = f + 11, h = g * 13, i = h ^ c, j = i + 17, k = j * 19;

	__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g),
			 "+r"(h), "+r"(i), "+r"(j), "+r"(k));
	*got = sys_read(fd, buf, 4);
	__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g),
			 "+r"(h), "+r"(i), "+r"(j), "+r"(k));
	return a + 3 * b + 5 * c + 7 * d + 11 * e + 13 * f + 17 * g + 19 * h + 23 * i + 29 * j +
	       31 * k;
}

static uint64_t live_expected(int fd)
{
	uint64_t a = (uint64_t)fd * 3 + 1, b = a * 5, c = b ^ 0x55, d = c + a, e = d * 7,
		 f = e ^ b, g = f + 11, h = g * 13, i = h ^ c, j = i + 17, k = j * 19;

	return a + 3 * b + 5 * c + 7 * d + 11 * e + 13 * f + 17 * g + 19 * h + 23 * i + 29 * j +
	       31 * k;
}

static void test_registers_kept(void **state)
{
	char buf[4];
	long got;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	for (int round = 0; round < 3; round++) {
		assert_int_equal(write(p[1], "abcd", 4), 4);
		assert_int_equal(live_across(p[0], buf, &got), live_expected(p[0]));
		assert_int_equal(got, 4);
		assert_memory_equal(buf, "abcd", 4);
	}
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_length_and_errors),
		cmocka_unit_test(test_registers_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
