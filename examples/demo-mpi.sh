#!/bin/sh
# demo-mpi.sh BUILD: an MPI job of 4 ranks under mpirun, the shim in every
# rank and in nothing else, one report per rank in a directory; then each
# rank's regions side by side, and the job summed by `pfshim report`.
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

# Each rank's regions from its JSON report.
if command -v python3 >/dev/null; then
	printf '\n# each rank'"'"'s regions (task-clock msec / page-faults), from the JSON reports\n'
	python3 - "$dir" <<'PY'
import json, os, sys

d = sys.argv[1]
reports = [json.load(open(os.path.join(d, f))) for f in sorted(os.listdir(d))
           if f.endswith(".json") and not f.startswith(".")]
names = [t["name"] for t in reports[0]["regions"]["totals"]]
print("rank  process msec   faults" + "".join(f"  {n + ' (calls)':>28}" for n in names))
for r in sorted(reports, key=lambda r: r["rank"]):
    ev = {e["name"]: e["value"] for e in r["events"]}
    cells = []
    for t in r["regions"]["totals"]:
        s = {e["name"]: e["sum"] for e in t["events"]}
        cells.append(f"{s['task-clock'] / 1e6:9.2f} / {s['page-faults']:6d} ({t['calls']:4d})")
    print(f"{r['rank']:4d} {ev['task-clock'] / 1e6:13.2f} {ev['page-faults']:8d}"
          + "".join(f"  {c:>28}" for c in cells))
PY
fi
[ ! -x "$build/pfshim" ] || show "$build/pfshim report $dir"
echo "The reports stay in $dir."
