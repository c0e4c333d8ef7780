#!/bin/sh
# SPDX-License-Identifier: MIT
# demo-mpi.sh BUILD: an MPI job of 4 ranks under mpirun, the shim in every
# rank and in nothing else, one report per rank in a directory; then each
# rank's regions side by side, and `pfshim report --by rank`: the job's sums
# per rank, and each region's imbalance over the ranks.
# docs/jobs.md explains each step.
set -eu
build=${1:-build}
lib=$(cd "$build" && pwd)/libpfshim.so
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfshim-mpi.XXXXXX")

# Open MPI refuses root unless told twice; 4 ranks may be more than the cores.
root=
[ "$(id -u)" -ne 0 ] || root=--allow-run-as-root
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

show() {
	printf '\n$ %s\n' "$*"
	sh -c "$*"
}

echo "pfshim demo: an MPI job. -x puts the shim into the ranks' environment only: mpirun"
echo "and its helpers are not counted. Rank r does (r+1) times the work of rank 0."
show "mpirun -np 4 --oversubscribe $root --mca btl self,vader -x LD_PRELOAD=$lib" \
	"-x PFSHIM_OUTPUT=$dir/ -x PFSHIM_FORMAT=json -x PFSHIM_EVENTS=task-clock,page-faults" \
	"$build/examples/mpi_halo"
show "ls $dir"

# Each rank's regions from its JSON report: compute grows with the rank (page-faults to the
# page); waiting shows in exchange's wall time (with more ranks than cores, waiting for a core too).
if command -v python3 >/dev/null; then
	printf '\n# each rank'"'"'s regions, from the JSON reports in %s\n' "$dir"
	python3 - "$dir" <<'PY'
import json, os, sys

d = sys.argv[1]
reports = [json.load(open(os.path.join(d, f))) for f in sorted(os.listdir(d))
           if f.endswith(".json") and not f.startswith(".")]
print(f"{'rank':>4}  {'region':<9} {'calls':>5} {'wall msec':>10} {'task-clock msec':>16} {'page-faults':>12}")
for r in sorted(reports, key=lambda r: r["rank"]):
    for t in r["regions"]["totals"]:
        s = {e["name"]: e["sum"] for e in t["events"]}
        print(f"{r['rank']:>4}  {t['name']:<9} {t['calls']:>5} {t['wall_ns']['sum'] / 1e6:>10.2f}"
              f" {s['task-clock'] / 1e6:>16.2f} {s['page-faults']:>12}")
PY
fi
[ ! -x "$build/pfshim" ] || show "$build/pfshim report --by rank $dir"
echo "The reports stay in $dir."
