#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# mpi.bats: an MPI job under Open MPI's mpirun, the shim given to the ranks
# with -x: one report per rank, named by its rank, carrying the regions the
# program ran (examples/mpi_halo.c) with the calls it made and the imbalance
# built into it, counted to the page; and pfshim report sums the job.

load helpers

HALO="$BUILD/examples/mpi_halo"
ITER=100	# compute and exchange: ITER calls per rank; reduce: ITER/10
PAGES=64	# rank r's compute call faults in (r+1)*PAGES fresh pages

setup_file() {
	# Open MPI refuses root unless told twice (and --allow-run-as-root).
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

setup() {
	need_perf
	command -v mpirun >/dev/null || skip "Open MPI is not installed (make mpi-deps)"
	[ -x "$HALO" ] || skip "$HALO is not built (make mpi)"
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	rm -rf "${NOBODY_DIR:-/nonexistent}"
}

# 4 ranks on this machine, whatever its cores (--oversubscribe, no binding),
# over shared memory only (no network needed).
MPIRUN=(mpirun -np 4 --oversubscribe --allow-run-as-root --bind-to none
	--mca btl self,vader --mca btl_vader_single_copy_mechanism none)

# ranks ARGS...: mpi_halo ITER PAGES on 4 ranks, ARGS before the program.
# timeout: a stuck launcher fails the test instead of hanging it.
ranks() {
	timeout 120 "${MPIRUN[@]}" "$@" "$HALO" "$ITER" "$PAGES"
}

# shim_ranks DIR ARGS...: ranks with the shim in the ranks' environment only
# (-x exports to the ranks; mpirun's own environment has no LD_PRELOAD).
shim_ranks() {
	local dir=$1
	shift
	ranks -x LD_PRELOAD="$SHIM" -x PFSHIM_OUTPUT="$dir/" -x PFSHIM_FORMAT=json \
		-x PFSHIM_EVENTS=task-clock,page-faults "$@"
}

@test "mpi_halo runs without the shim, and prints the same under it" {
	# stdout only: a launcher may warn on stderr (hwloc, a network probe), run to run
	run -0 --separate-stderr ranks
	without=$output
	[[ "$without" == "mpi_halo: 4 ranks, $ITER iterations, $PAGES..$((4 * PAGES)) pages per rank, sum "* ]]
	run -0 --separate-stderr shim_ranks "$BATS_TEST_TMPDIR/rep"
	[ "$output" = "$without" ]
}

@test "mpirun -x: one report per rank, named and tagged with its rank, and nothing else" {
	run -0 shim_ranks rep
	# exactly 4 files, r000000..r000003, none hidden (no torn report left over)
	[ "$(ls -A rep | wc -l)" -eq 4 ]
	for r in 0 1 2 3; do
		ls rep | grep -Eq "\.r00000$r\.p[0-9]{7}\.[0-9]{8}T[0-9]{6}Z\.[0-9]+\.json$"
	done
	python3 - rep <<'PY'
import json, os, re, sys

d = sys.argv[1]
pids = set()
for f in os.listdir(d):
    r = json.load(open(os.path.join(d, f)))
    rank = int(re.search(r"\.r(\d{6})\.p", f).group(1))
    assert r["schema"] == "pfshim.report", f
    assert (r["program"], r["rank"], r["reason"]) == ("mpi_halo", rank, "exit"), (f, r["program"], r["rank"])
    assert f".p{r['pid']:07d}." in f, f
    pids.add(r["pid"])
assert len(pids) == 4, pids
PY
}

@test "each rank's regions: the calls the program made, and its page faults to the page" {
	run -0 shim_ranks rep
	python3 - rep "$ITER" "$PAGES" <<'PY'
import json, os, sys

d, iterations, pages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
calls = {"compute": iterations, "exchange": iterations, "reduce": iterations // 10}
faults = {}
for f in sorted(os.listdir(d)):
    r = json.load(open(os.path.join(d, f)))
    rank, regions = r["rank"], r["regions"]
    assert regions["events"] == ["task-clock", "page-faults"], regions["events"]
    totals = {t["name"]: t for t in regions["totals"]}
    assert set(totals) == set(calls), (rank, set(totals))
    for name, n in calls.items():
        t = totals[name]
        # all in the main thread, each call closed
        assert (t["threads"], t["calls"], t["reentries"], t["unclosed"]) == (1, n, 0, 0), (rank, name, t)
    users = [t for t in regions["threads"] if t["regions"]]
    assert len(users) == 1 and users[0]["tid"] == r["pid"], (rank, users)
    ev = {e["name"]: e for e in totals["compute"]["events"]}
    assert ev["page-faults"]["status"] == "counted", ev
    faults[rank] = ev["page-faults"]["sum"]
    # every call maps (rank+1)*PAGES fresh pages and writes each once: one fault each;
    # a few more (the shim's own first touches) at most
    work = (rank + 1) * pages * iterations
    assert work <= faults[rank] <= work + 16, (rank, faults[rank], work)
assert sorted(faults) == [0, 1, 2, 3], faults
print("compute page-faults per rank:", faults)
PY
}

@test "pfshim report: the 4 ranks of one program, and its sums are the files' sums" {
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	run -0 shim_ranks rep
	summary_json rep
	python3 - rep summary.json <<'PY'
import json, os, sys

d, s = sys.argv[1], json.load(open(sys.argv[2]))
sums = {}
for f in os.listdir(d):
    for e in json.load(open(os.path.join(d, f)))["events"]:
        assert e["status"] == "counted", (f, e)
        sums[e["name"]] = sums.get(e["name"], 0) + e["value"]
assert (s["reports"], s["processes"], s["skipped"]) == (4, 4, 0), s
assert {e["name"]: e["value"] for e in s["events"]} == sums, (s["events"], sums)
assert s["by"] == "program"
assert [(g["group"], g["reports"]) for g in s["groups"]] == [("mpi_halo", 4)], s["groups"]
assert {e["name"]: e["value"] for e in s["groups"][0]["events"]} == sums
PY
}

@test "pfshim report --by rank: ranks 0..3, each rank's region calls, and the imbalance built in" {
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	run -0 shim_ranks rep
	summary_json --by rank rep
	python3 - rep summary.json "$ITER" "$PAGES" <<'PY'
import json, os, sys

d, s = sys.argv[1], json.load(open(sys.argv[2]))
iterations, pages = int(sys.argv[3]), int(sys.argv[4])
assert s["by"] == "rank"
assert [g["group"] for g in s["groups"]] == ["0", "1", "2", "3"], s["groups"]
# each rank's sums are its own file's values
for f in os.listdir(d):
    r = json.load(open(os.path.join(d, f)))
    g = [g for g in s["groups"] if g["group"] == str(r["rank"])][0]
    assert {e["name"]: e["value"] for e in g["events"]} == \
        {e["name"]: e["value"] for e in r["events"]}, (g, r["events"])
regions = {r["name"]: r for r in s["regions"]}
want = {"compute": iterations, "exchange": iterations, "reduce": iterations // 10}
for name, calls in want.items():
    per = {c["group"]: c["calls"] for c in regions[name]["group_calls"]}
    assert per == {str(k): calls for k in range(4)}, (name, per)
    assert regions[name]["calls"] == 4 * calls
# compute faults in (rank+1)*PAGES pages a call: ranks 1:2:3:4, so max/mean = 4/2.5 = 1.6
m = [m for m in regions["compute"]["metrics"] if m["name"] == "page-faults"][0]
per = {v["group"]: v["value"] for v in m["values"]}
for k in range(4):
    work = (k + 1) * pages * iterations
    assert work <= per[str(k)] <= work + 16, (k, per)
assert abs(m["imbalance"] - max(per.values()) / (sum(per.values()) / 4)) < 1e-9, m
assert 1.59 < m["imbalance"] < 1.61, m["imbalance"]
print("compute page-faults imbalance:", m["imbalance"])
PY
}

@test "README's recipe as written (no PFSHIM_FORMAT): a JSON file per rank, and pfshim report reads the directory" {
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	run -0 ranks -x LD_PRELOAD="$SHIM" -x PFSHIM_OUTPUT="$PWD/rep/" -x PFSHIM_EVENTS=page-faults
	[ "$(ls rep | grep -c '\.json$')" -eq 4 ] && [ "$(ls -A rep | wc -l)" -eq 4 ]
	run -0 --separate-stderr "$BUILD/pfshim" report --by rank --html job.html rep
	[ -z "$stderr" ]
	[[ "$output" == *"stats for the job (4 processes, 4 images, 4 reports, 4 ranks):"* ]]
	grep -q '<svg' job.html
}

@test "PFSHIM_OUTPUT with %r: one file per rank, named by the launcher's rank" {
	run -0 ranks -x LD_PRELOAD="$SHIM" -x PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/rank-%r.json" \
		-x PFSHIM_FORMAT=json -x PFSHIM_EVENTS=page-faults
	[ "$(ls rank-*.json | tr '\n' ' ')" = "rank-0.json rank-1.json rank-2.json rank-3.json " ]
	for r in 0 1 2 3; do
		[ "$(jq -s "map(select(.rank == $r and .program == \"mpi_halo\")) | length" "rank-$r.json")" -eq 1 ]
	done
}

# The other way to do it, and why the docs say -x: with LD_PRELOAD in
# mpirun's own environment, mpirun is counted too, and so is each child it
# forks before that child execs the rank (a report "before exec", without a
# rank: the rank variables are set only in the environment of the exec).
@test "LD_PRELOAD on mpirun itself: the 4 rank files are the same, beside the launcher's reports" {
	run -0 timeout 120 env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/rep/" \
		PFSHIM_FORMAT=json PFSHIM_EVENTS=page-faults "${MPIRUN[@]}" "$HALO" "$ITER" "$PAGES"
	python3 - rep <<'PY'
import json, os, sys

d = sys.argv[1]
reports = [(f, json.load(open(os.path.join(d, f)))) for f in os.listdir(d)]
ranked = sorted((r["rank"], r["program"]) for f, r in reports if ".r-." not in f)
assert ranked == [(i, "mpi_halo") for i in range(4)], ranked
others = [r for f, r in reports if ".r-." in f]
assert others and all(r["rank"] is None and r["program"] != "mpi_halo" for r in others), others
# each rank's process also left a report before its exec, under the launcher's name
pids = {r["pid"] for f, r in reports if r["program"] == "mpi_halo"}
assert pids <= {r["pid"] for r in others if r["reason"] == "exec"}, (pids, others)
PY
}

# How most users run: not root, at Debian's perf_event_paranoid 2 (user space
# only). The page faults of user-space writes are still counted, to the page.
@test "an unprivileged user at perf_event_paranoid 2: the same 4 rank files, user-only" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch user and set perf_event_paranoid"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	saved=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo 2 >/proc/sys/kernel/perf_event_paranoid
	# outside the test's directory, which another user may not enter
	NOBODY_DIR=$(mktemp -d /tmp/pfshim-mpi.XXXXXX)
	dir=$NOBODY_DIR
	cp "$SHIM_LIB" "$HALO" "$dir/"
	chmod 755 "$dir/libpfshim.so" "$dir/mpi_halo"
	# the user's own directory: one others may write in (0777, not sticky) is refused (security.md)
	chown 65534:65534 "$dir"
	# HOME: Open MPI reads its per-user settings there
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM HOME="$dir" \
		timeout 120 mpirun -np 4 --oversubscribe --bind-to none --mca btl self,vader \
		--mca btl_vader_single_copy_mechanism none \
		-x LD_PRELOAD="${PFSHIM_PRELOAD:+$PFSHIM_PRELOAD }$dir/libpfshim.so" \
		-x PFSHIM_OUTPUT="$dir/rep/" -x PFSHIM_FORMAT=json -x PFSHIM_EVENTS=task-clock,page-faults \
		"$dir/mpi_halo" "$ITER" "$PAGES"
	echo "$saved" >/proc/sys/kernel/perf_event_paranoid
	echo "$output"
	[ "$status" -eq 0 ]
	python3 - "$dir/rep" "$ITER" "$PAGES" <<'PY'
import json, os, sys

d, iterations, pages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ranks = []
for f in os.listdir(d):
    r = json.load(open(os.path.join(d, f)))
    ranks.append(r["rank"])
    assert all(e["status"] == "counted" and e["user_only"] for e in r["events"]), r["events"]
    compute = next(t for t in r["regions"]["totals"] if t["name"] == "compute")
    faults = next(e["sum"] for e in compute["events"] if e["name"] == "page-faults")
    work = (r["rank"] + 1) * pages * iterations
    assert compute["calls"] == iterations and work <= faults <= work + 16, (r["rank"], compute)
assert sorted(ranks) == [0, 1, 2, 3], ranks
PY
}

# make demo-mpi: its last step is pfshim report by rank, so the imbalance it
# prints is over the ranks (by program, the one group's was 1.00 right below
# a table showing 4x between ranks).
@test "make demo-mpi's script: pfshim report --by rank, compute's page-faults imbalance 1.60" {
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	run -0 env TMPDIR="$BATS_TEST_TMPDIR" timeout 120 "$ROOT/examples/demo-mpi.sh" "$BUILD"
	[[ "$output" == *"pfshim report --by rank "* ]]
	# region 'compute', its page-faults line: 64, 128, 192, 256 pages x 100 calls (+ at most
	# 16 of the shim's own first touches a rank): max 25,600 / mean 16,000
	line=$(sed -n "/region 'compute'/,/^\$/p" <<<"$output" | grep ' page-faults$')
	[ "$(awk '{ print $5 }' <<<"$line")" = 1.60 ]
}
