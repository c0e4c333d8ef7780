/* SPDX-License-Identifier: MIT */
/*
 * fastread/topdown.c: a group with Intel's top-down metric events (slots and
 * topdown-*, Ice Lake and later), read from user space as the kernel counts
 * them: each metric is one byte of the PERF_METRICS register, its share of
 * the slots counted since the two registers were last cleared, so its count
 * is a base plus slots * byte / 0xff. read.c sends such a group here, and
 * here is the read(2) that clears the registers and the rebase after it.
 *
 * ASYNC-SIGNAL-SAFE as fastread/read.c: no allocation, lock or stdio; the
 * one system call is the read(2) fallback.
 *
 * The kernel's rules (docs/kernel-notes.md "Intel's top-down registers"):
 * the group's first enable clears both registers; a read(2) of the group
 * while it is on the PMU adds each event's share to its count and clears
 * them again; a context switch saves them and writes them back at the next
 * switch in, and updates the pages, whose offset is then of no use (it
 * already holds the saved share). So a count here is base +
 * share(registers), with base the count at the last clearing this file
 * knows of, and never the page's offset.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fastread/arch.h"
#include "fastread/internal.h"

/* In the place of the cache a top-down group never has: no group grows for it. */
_Static_assert(sizeof(struct fastread_topdown) <=
		       FASTREAD_MAX_EVENTS * sizeof(struct fastread_page_cache),
	       "the top-down state fits in the cache's pages");

#if FASTREAD_ARCH_TOPDOWN && FASTREAD_ARCH_USER_READ

/* An attr's kind: Intel's encodings (event 0x00) on a core PMU, raw or its own type. */
static int attr_kind(const struct perf_event_attr *a)
{
	uint64_t code = a->config & 0xffff;	/* event select and unit mask */

	if (a->type != PERF_TYPE_RAW && a->type < PERF_TYPE_MAX)
		return FASTREAD_TOPDOWN_OTHER;
	if (code == FASTREAD_TOPDOWN_SLOTS_CONFIG)
		return FASTREAD_TOPDOWN_SLOTS;
	if (code >= FASTREAD_TOPDOWN_METRIC_CONFIG(0) && code <= FASTREAD_TOPDOWN_METRIC_CONFIG(7) &&
	    (code & 0xff) == 0)
		return (int)(code - FASTREAD_TOPDOWN_METRIC_CONFIG(0)) >> 8;
	return FASTREAD_TOPDOWN_OTHER;
}

void fastread_topdown_setup(struct fastread_group *g, const struct perf_event_attr *attrs, int nr)
{
	struct fastread_topdown *td = &g->cache.topdown;
	bool slots = false, metric = false;

	g->topdown = 0;
	g->cache.valid = 0;
	memset(td, 0, sizeof(*td));
	for (int i = 0; i < nr && i < FASTREAD_MAX_EVENTS; i++) {
		td->kind[i] = (int8_t)attr_kind(&attrs[i]);
		slots |= td->kind[i] == FASTREAD_TOPDOWN_SLOTS;
		metric |= td->kind[i] >= 0;
	}
	/* Without a metric event the kernel counts slots as any fixed counter. */
	g->topdown = slots && metric;
	/* The first enable clears both registers: every count starts at base 0. */
	td->based = (uint8_t)g->topdown;
}

/* What one consistent pass over the group's pages saw. */
struct pass {
	uint64_t slots, metrics;	/* the two registers, raw */
	struct fastread_count c[FASTREAD_MAX_EVENTS];	/* other events' values; every time */
};

/*
 * One seqlock pass, as read.c's: each page's lock, index and capabilities,
 * its register, its times; again while a lock was odd or moved. The slots
 * page must name fixed counter 3 and each metric page PERF_METRICS (read
 * once: one register holds every byte), anything else is read as read.c
 * reads it. Return: 0, or -EAGAIN when some counter is not on the PMU now.
 */
static int pass_take(const struct fastread_group *g, const struct fastread_hooks *h,
		     struct pass *p)
{
	uint32_t begin, seq, sum;
	uint64_t cyc;
	bool have_cyc, have_metrics;
	int i;

again:
	begin = 0;
	cyc = 0;
	have_cyc = have_metrics = false;
	for (i = 0; i < g->nr; i++) {
		const struct perf_event_mmap_page *pc = g->page[i];
		const int kind = g->cache.topdown.kind[i];
		struct fastread_count *c = &p->c[i];
		uint32_t index, width;
		uint64_t caps, raw;

		if (!pc)
			return -EAGAIN;
		seq = fastread_lock_begin(pc);
		if (seq & 1)
			goto again;
		begin += seq;
		index = FASTREAD_READ_ONCE(pc->index);
		width = FASTREAD_READ_ONCE(pc->pmc_width);
		caps = FASTREAD_READ_ONCE(pc->capabilities);
		if (!(caps & FASTREAD_CAP_USER_RDPMC) || width < 1 || width > 64)
			return -EAGAIN;
		if (kind == FASTREAD_TOPDOWN_SLOTS) {
			if (index != FASTREAD_TOPDOWN_SLOTS_INDEX)
				return -EAGAIN;
			raw = fastread_hooks_counter(h, index, arch_counter_slot(index));
			/* An unsigned count of pmc_width bits: never sign-extended. */
			p->slots = width == 64 ? raw : raw & ((UINT64_C(1) << width) - 1);
		} else if (kind >= 0) {
			if (index != FASTREAD_TOPDOWN_METRICS_INDEX)
				return -EAGAIN;
			/* All 64 bits: the level-2 bytes 4 to 7 are above pmc_width. */
			if (!have_metrics)
				p->metrics = fastread_hooks_counter(h, index, arch_counter_slot(index));
			have_metrics = true;
		} else {
			if (arch_counter_slot(index) == FASTREAD_SLOT_NONE)
				return -EAGAIN;
			raw = fastread_hooks_counter(h, index, arch_counter_slot(index));
			c->value = (uint64_t)FASTREAD_READ_ONCE(pc->offset) +
				   fastread_counter_extend(raw, width);
		}
		c->enabled = pc->time_enabled;
		c->running = pc->time_running;
		if (fastread_times_stale(caps, c)) {
			if (!have_cyc) {
				cyc = h->read_timestamp();
				have_cyc = true;
			}
			fastread_times_advance(pc, caps, cyc, c);
		}
	}
	sum = 0;
	__asm__ volatile("" ::: "memory");
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (i = 0; i < g->nr; i++)
		sum += FASTREAD_READ_ONCE(g->page[i]->lock);
	if (sum != begin)
		goto again;
	return 0;
}

/*
 * Event @kind's share of the registers: the slots, or the kernel's
 * icl_get_metrics_event_value(): slots * byte / 0xff, rounded down
 * (mul_u64_u32_div). A byte is at most 0xff: the quotient fits.
 */
static uint64_t share(const struct pass *p, int kind)
{
	uint64_t byte, out;

	if (kind == FASTREAD_TOPDOWN_SLOTS)
		return p->slots;
	byte = p->metrics >> (8 * kind) & 0xff;
	(void)fastread_mul_div(p->slots, byte, 0xff, &out);
	return out;
}

/*
 * Never a value below the last one returned: a byte may shrink while slots
 * grow (8 bits of a larger count), and the kernel then keeps its count
 * rather than take it back (__icl_update_topdown_event(): "delta > last");
 * a region's difference must not wrap.
 */
static void values_hold(struct fastread_topdown *td, int nr, struct fastread_count *out)
{
	for (int i = 0; i < nr; i++) {
		if (td->kind[i] == FASTREAD_TOPDOWN_OTHER)
			continue;
		if (out[i].value < td->last[i])
			out[i].value = td->last[i];
		else
			td->last[i] = out[i].value;
	}
}

int fastread_topdown_read(struct fastread_group *g, const struct fastread_hooks *h,
			  struct fastread_count *out)
{
	struct fastread_topdown *td = &g->cache.topdown;
	struct pass p;
	int err, i;

	/*
	 * Slots below the last read's: the registers were cleared under us (the
	 * kernel does so at a PERF_METRICS overflow interrupt, without a page
	 * update), so the bases no longer hold: read(2) and rebase.
	 */
	if (td->based && pass_take(g, h, &p) == 0 && p.slots >= td->slots) {
		for (i = 0; i < g->nr; i++) {
			out[i] = p.c[i];
			if (td->kind[i] != FASTREAD_TOPDOWN_OTHER)
				out[i].value = td->base[i] + share(&p, td->kind[i]);
		}
		td->slots = p.slots;
		values_hold(td, g->nr, out);
		g->nr_user_reads++;
		return 0;
	}
	err = fastread_group_read_syscall(g, out);
	if (err < 0)
		return err;
	/*
	 * The rebase: that read(2) cleared the registers if the group was on
	 * the PMU, and left them to be written back if it was not; a pass now
	 * sees either what counted since the clearing or the saved registers,
	 * and the count minus that share is the base in both cases (the slots
	 * between the read(2) and the pass aside). When no pass can be taken,
	 * the next read takes read(2) again.
	 */
	td->based = 0;
	if (pass_take(g, h, &p) == 0) {
		for (i = 0; i < g->nr; i++)
			if (td->kind[i] != FASTREAD_TOPDOWN_OTHER)
				td->base[i] = out[i].value - share(&p, td->kind[i]);
		td->slots = p.slots;
		td->based = 1;
	}
	values_hold(td, g->nr, out);
	return 0;
}

#else

void fastread_topdown_setup(struct fastread_group *g, const struct perf_event_attr *attrs, int nr)
{
	(void)attrs;
	(void)nr;
	g->topdown = 0;
}

int fastread_topdown_read(struct fastread_group *g, const struct fastread_hooks *h,
			  struct fastread_count *out)
{
	(void)h;
	return fastread_group_read_syscall(g, out);
}

#endif
