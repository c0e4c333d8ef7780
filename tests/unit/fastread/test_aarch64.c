/* SPDX-License-Identifier: MIT */
/*
 * test_aarch64.c: the arm64 counter dispatch of fastread/arch/aarch64.h,
 * on any machine. The header's asm never runs here: the test reads back the
 * very text the compiler hands the assembler (FASTREAD_ARM64_STUBS, the
 * table of "mrs; b" stubs) and checks that the slot arch_counter_slot()
 * gives each of the 32 indexes lands on that index's register: index n + 1
 * on PMEVCNTR<n>_EL0 (n = 0..30), 32 on PMCCNTR_EL0, and every other index
 * on no slot at all (the read then falls back to read(2)).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fastread/arch/aarch64.h"

#define INSN_SIZE 4
#define STUB_INSNS (FASTREAD_ARM64_STUB_SIZE / INSN_SIZE)
#define MAX_INSNS 256

/* The stub table's text split into instructions, as the assembler will lay them out. */
static int stub_insns(char insn[][64], int max)
{
	const char *p = FASTREAD_ARM64_STUBS;
	int n = 0;

	while (*p && n < max) {
		size_t len;

		p += strspn(p, "\n\t ");
		len = strcspn(p, "\n");
		if (len == 0)
			break;
		assert_true(len < 64);
		memcpy(insn[n], p, len);
		insn[n][len] = '\0';
		n++;
		p += len;
	}
	return n;
}

/* The register the stub at byte offset @slot reads, or "" when it reads none. */
static const char *slot_register(char insn[][64], int nr, uint32_t slot)
{
	static char reg[64];
	int first = (int)(slot / INSN_SIZE);

	assert_int_equal(slot % FASTREAD_ARM64_STUB_SIZE, 0);
	assert_true(first + STUB_INSNS <= nr);
	reg[0] = '\0';
	for (int k = first; k < first + STUB_INSNS; k++)
		if (sscanf(insn[k], "mrs %%[v], %63s", reg) == 1)
			break;
	/* Every stub ends by leaving the table. */
	assert_string_equal(insn[first + STUB_INSNS - 1], "b 9f");
	return reg;
}

/* Every stub is the same size, one mrs each: 32 stubs, nothing in between. */
static void test_stub_table_shape(void **state)
{
	char insn[MAX_INSNS][64];
	int nr = stub_insns(insn, MAX_INSNS), mrs = 0;

	(void)state;
	assert_int_equal(nr, FASTREAD_ARM64_NR_COUNTERS * STUB_INSNS);
	for (int k = 0; k < nr; k++)
		mrs += strncmp(insn[k], "mrs ", 4) == 0;
	assert_int_equal(mrs, FASTREAD_ARM64_NR_COUNTERS);
}

/* Each of the 32 indexes reaches its own register; no two reach the same. */
static void test_every_index_reads_its_register(void **state)
{
	char insn[MAX_INSNS][64], want[64];
	int nr = stub_insns(insn, MAX_INSNS);

	(void)state;
	for (uint32_t index = 1; index <= 32; index++) {
		uint32_t slot = arch_counter_slot(index);

		assert_int_not_equal(slot, FASTREAD_SLOT_NONE);
		if (index == 32)
			snprintf(want, sizeof(want), "pmccntr_el0");
		else
			snprintf(want, sizeof(want), "pmevcntr%u_el0", index - 1);
		assert_string_equal(slot_register(insn, nr, slot), want);
		for (uint32_t other = 1; other < index; other++)
			assert_int_not_equal(arch_counter_slot(other), slot);
	}
}

/* Index 0 (not on a counter) and anything past the cycle counter: no slot, read(2). */
static void test_other_indexes_have_no_slot(void **state)
{
	static const uint32_t others[] = { 0, 33, 34, 64, 0x40000000u, UINT32_MAX };

	(void)state;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		assert_int_equal(arch_counter_slot(others[i]), FASTREAD_SLOT_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stub_table_shape),
		cmocka_unit_test(test_every_index_reads_its_register),
		cmocka_unit_test(test_other_indexes_have_no_slot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
