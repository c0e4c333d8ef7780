/* SPDX-License-Identifier: MIT */
/*
 * likwid_group_eval VALUES GROUPFILE...: every metric of each LIKWID group
 * file, as pfshim reads and computes it, for tests/tools/likwid_groups.py
 * to compare with its own reading of the same files.
 *
 * VALUES holds "NAME VALUE" lines: the value of each name a formula uses
 * (counters with their options, time, inverseClock, ...). Prints, per
 * metric, "FILE<TAB>NAME<TAB>UNIT<TAB>VALUE" with VALUE as %.17g (exact
 * when read back) or "n/a" after a division by zero; a group that does
 * not parse prints "FILE<TAB>error line N".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/metrics/likwid_group.h"

struct value {
	char *name;
	double value;
};

static struct value *values;
static size_t nr_values;

static int read_values(const char *path)
{
	FILE *f = fopen(path, "r");
	char name[1024];
	double v;

	if (!f)
		return -errno;
	while (fscanf(f, "%1023s %lf", name, &v) == 2) {
		values = realloc(values, (nr_values + 1) * sizeof(*values));
		if (!values)
			abort();
		values[nr_values].name = strdup(name);
		values[nr_values++].value = v;
	}
	fclose(f);
	return 0;
}

static int lookup(const struct formula_name *n, double *out)
{
	for (size_t i = 0; i < nr_values; i++)
		if (strlen(values[i].name) == n->len && !memcmp(values[i].name, n->text, n->len)) {
			*out = values[i].value;
			return 0;
		}
	return -ENOENT;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

static void print_group(const char *path)
{
	struct likwid_group g;
	char *text = slurp(path);
	int line = 0;

	if (!text || likwid_group_parse(text, &g, &line)) {
		printf("%s\terror line %d\n", path, line);
		free(text);
		return;
	}
	for (int i = 0; i < g.nr_metrics; i++) {
		const struct likwid_group_metric *m = &g.metrics[i];
		double v[FORMULA_MAX_NAMES], out;
		int err = 0;

		for (unsigned n = 0; n < m->formula.nr_names && !err; n++)
			err = lookup(&m->formula.names[n], &v[n]);
		if (!err)
			err = formula_eval(&m->formula, v, &out);
		printf("%s\t%s\t%s\t", path, m->name, m->unit);
		if (err == -EDOM)
			printf("n/a\n");
		else if (err)
			printf("unknown name\n");
		else
			printf("%.17g\n", out);
	}
	likwid_group_free(&g);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc < 3 || read_values(argv[1])) {
		fprintf(stderr, "usage: likwid_group_eval VALUES GROUPFILE...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		print_group(argv[i]);
	return 0;
}
