# SPDX-License-Identifier: MIT
# mutate: owned by tests/mutate/. Mutation testing (docs/testing.md
# "Mutation testing"): each mutant of tests/mutate/mutants.txt applied alone
# to a scratch copy of the tree, rebuilt, run against the tests it names.
# make mutate: every mutant (12 to 23 min on the shared 2-core machine);
# make mutate-sample: the ones marked `sample: yes` (.ci/run, ~75 s);
# MUTANTS=id,id: those alone.
# MUTATE_MIN: the score below which the run fails (percent).

MUTATE_MIN ?= 95
MUTATE := tests/mutate/mutate.py --min $(MUTATE_MIN)

.PHONY: mutate mutate-sample mutate-check e2e-progs
mutate: deps
	$(Q)$(MUTATE) $(if $(MUTANTS),--only $(MUTANTS))

mutate-sample: deps
	$(Q)$(MUTATE) --sample

# Only the list: every mutant's fragment found exactly once (no build, no test).
mutate-check:
	$(Q)$(MUTATE) --check

# What the end-to-end suites run, without running them (the mutation run builds this).
e2e-progs: $(LIB) $(PROG_BIN) $(EXAMPLE_BIN) $(GROUP_EVAL) $(GROUP_RESOLVE) $(if $(HAVE_JANSSON),$(TOOL))
