# SPDX-License-Identifier: MIT
"""pfshim for Python: marker regions around Python code, and a job's reports
as pandas DataFrames.

    import pfshim

    with pfshim.region("solve"):          # or @pfshim.region("solve") on a function
        solve()

    job = pfshim.read("reports/")         # a directory, a file, or pfshim run -o's
    job.processes, job.regions, job.series

The markers count only under the preloaded library (LD_PRELOAD=libpfshim.so
or pfshim run); without it they do nothing and cost a dictionary lookup.
Reading needs Debian's python3-pandas; the markers need nothing.
"""
from .markers import active, read_counts, region, report
from .reports import Job, read
from .hatchet import to_hatchet

__all__ = ["active", "read_counts", "region", "report", "Job", "read", "to_hatchet"]
__version__ = "0.1.0"
