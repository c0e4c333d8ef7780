/* SPDX-License-Identifier: MIT */
/*
 * tree.c: the process tree of a job from its images' pid and ppid. A
 * process is (machine, pid namespace, pid); its images in start order are its
 * exec chain. A child hangs under its parent's image that was running when
 * it started (the shell that forked it, not the program the shell exec'd
 * later). A process whose parent left no report (or is another tree's: a
 * reused pid that started later) is a root. Inputs are anything: a cycle of
 * ppids is cut where it closes.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/model/summary.h"

static const struct summary *tree_s;	/* qsort has no context argument */

static int image_cmp(const void *a, const void *b)
{
	const struct summary_image *x = &tree_s->image_list[*(const int *)a];
	const struct summary_image *y = &tree_s->image_list[*(const int *)b];

	if (x->machine != y->machine)
		return x->machine < y->machine ? -1 : 1;
	if (x->pid_ns != y->pid_ns)
		return x->pid_ns < y->pid_ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

struct process {
	int first, nr;		/* its images: by_pid[first .. first + nr - 1] */
	int parent;		/* process, or -1 */
	int *child;		/* processes, by start */
	int nr_child;
	bool done;
};

struct walk {
	const struct summary *s;
	const int *by_pid;
	struct process *proc;
	int nr_proc;
	int *order, *depth, n;
};

static uint64_t start_of(const struct walk *w, int p)
{
	return w->s->image_list[w->by_pid[w->proc[p].first]].start_ns;
}

static const struct walk *child_w;

static int child_cmp(const void *a, const void *b)
{
	uint64_t x = start_of(child_w, *(const int *)a), y = start_of(child_w, *(const int *)b);

	return x < y ? -1 : x > y;
}

/* The process with (machine, ns, pid), by bisection of the sorted runs; -1 when none. */
static int process_find(const struct walk *w, int machine, uint64_t ns, int pid)
{
	int lo = 0, hi = w->nr_proc - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const struct summary_image *m = &w->s->image_list[w->by_pid[w->proc[mid].first]];
		int c = machine != m->machine ? (machine < m->machine ? -1 : 1) :
			ns != m->pid_ns ? (ns < m->pid_ns ? -1 : 1) :
			pid != m->pid ? (pid < m->pid ? -1 : 1) : 0;

		if (!c)
			return mid;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

static void walk(struct walk *w, int p, int depth)
{
	struct process *pr = &w->proc[p];
	int c = 0;

	pr->done = true;
	for (int i = 0; i < pr->nr; i++) {
		uint64_t next = i + 1 < pr->nr ? w->s->image_list[w->by_pid[pr->first + i + 1]].start_ns
					       : UINT64_MAX;

		w->order[w->n] = w->by_pid[pr->first + i];
		w->depth[w->n++] = depth;
		/* children started while image i ran; the first image takes the earlier ones too */
		for (; c < pr->nr_child && (start_of(w, pr->child[c]) < next || i + 1 == pr->nr); c++)
			if (!w->proc[pr->child[c]].done)
				walk(w, pr->child[c], depth + 1);
	}
}

bool summary_images_one_process(const struct summary_image *a, const struct summary_image *b)
{
	return a->machine == b->machine && a->pid_ns == b->pid_ns && a->pid == b->pid;
}

int *summary_images_by_pid(const struct summary *s)
{
	int *by_pid = xrealloc(NULL, ((size_t)s->nr_images + 1) * sizeof(int));

	for (int i = 0; i < s->nr_images; i++)
		by_pid[i] = i;
	tree_s = s;
	qsort(by_pid, (size_t)s->nr_images, sizeof(int), image_cmp);
	return by_pid;
}

int summary_tree(const struct summary *s, int **order, int **depth)
{
	struct walk w = { .s = s };
	int *by_pid = summary_images_by_pid(s);

	w.by_pid = by_pid;
	w.proc = xrealloc(NULL, (size_t)s->nr_images * sizeof(*w.proc));
	for (int i = 0; i < s->nr_images; i++) {
		const struct summary_image *a = &s->image_list[by_pid[i]];
		const struct summary_image *b = i ? &s->image_list[by_pid[i - 1]] : NULL;

		if (b && summary_images_one_process(a, b)) {
			w.proc[w.nr_proc - 1].nr++;
			continue;
		}
		w.proc[w.nr_proc++] = (struct process){ .first = i, .nr = 1, .parent = -1 };
	}
	for (int p = 0; p < w.nr_proc; p++) {
		const struct summary_image *im = &s->image_list[by_pid[w.proc[p].first]];
		int parent = process_find(&w, im->machine, im->pid_ns, im->ppid);
		struct process *pp;

		if (parent < 0 || parent == p || start_of(&w, parent) > im->start_ns)
			continue;
		pp = &w.proc[parent];
		w.proc[p].parent = parent;
		pp->child = xrealloc(pp->child, (size_t)(pp->nr_child + 1) * sizeof(int));
		pp->child[pp->nr_child++] = p;
	}
	child_w = &w;
	for (int p = 0; p < w.nr_proc; p++)
		if (w.proc[p].nr_child > 1)
			qsort(w.proc[p].child, (size_t)w.proc[p].nr_child, sizeof(int), child_cmp);
	w.order = xrealloc(NULL, (size_t)s->nr_images * sizeof(int));
	w.depth = xrealloc(NULL, (size_t)s->nr_images * sizeof(int));
	/* roots by start; then whatever a cycle of ppids left unreached */
	{
		int *roots = xrealloc(NULL, (size_t)w.nr_proc * sizeof(int)), nr_roots = 0;

		for (int p = 0; p < w.nr_proc; p++)
			if (w.proc[p].parent < 0)
				roots[nr_roots++] = p;
		qsort(roots, (size_t)nr_roots, sizeof(int), child_cmp);
		for (int r = 0; r < nr_roots; r++)
			walk(&w, roots[r], 0);
		for (int p = 0; p < w.nr_proc; p++)
			if (!w.proc[p].done)
				walk(&w, p, 0);
		free(roots);
	}
	for (int p = 0; p < w.nr_proc; p++)
		free(w.proc[p].child);
	free(w.proc);
	free(by_pid);
	*order = w.order;
	*depth = w.depth;
	return w.n;
}
