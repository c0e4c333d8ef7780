/* SPDX-License-Identifier: MIT */
/*
 * scheduler.c: which batch job this process is in, from the variables each
 * scheduler documents for its jobs' processes:
 *   Flux   FLUX_JOB_ID (flux-environment(7))
 *   Slurm  SLURM_JOB_ID, and SLURM_STEP_ID in a step (srun; the batch
 *          script itself has no step id) (sbatch(1), srun(1))
 *   LSF    LSB_JOBID, and LSB_JOBINDEX in a job array (0 outside one):
 *          written "123[4]" as bjobs writes an array element
 *   PBS    PBS_JOBID ("1234.server", an array's "1234[5].server")
 * The values are taken as they are, bytes and all: each report writer
 * escapes what its format needs (export/buf.h).
 */
#include <stdbool.h>
#include <string.h>

#include "preload/scheduler.h"

/* @value into @out when it is set, not empty and fits; else false. */
static bool take(char *out, const char *value)
{
	size_t n = value ? strnlen(value, SCHEDULER_ID_MAX) : 0;

	if (n == 0 || n >= SCHEDULER_ID_MAX)
		return false;
	memcpy(out, value, n + 1);
	return true;
}

/* LSF: "JOBID" or, for an element of a job array, "JOBID[INDEX]". */
static bool take_lsf(char *out, const char *id, const char *index)
{
	size_t n = id ? strlen(id) : 0, k = index ? strspn(index, "0123456789") : 0;

	if (!take(out, id))
		return false;
	if (k == 0 || index[k] || strspn(index, "0") == k)	/* not digits, or 0: no array */
		return true;
	if (n + k + 2 >= SCHEDULER_ID_MAX)	/* the id alone, rather than none */
		return true;
	out[n] = '[';
	memcpy(out + n + 1, index, k);
	out[n + k + 1] = ']';
	out[n + k + 2] = '\0';
	return true;
}

void scheduler_job_read(struct scheduler_job *job, const char *(*get_env)(const char *name))
{
	memset(job, 0, sizeof(*job));
	if (take(job->id, get_env("FLUX_JOB_ID")))
		job->scheduler = "flux";
	else if (take(job->id, get_env("SLURM_JOB_ID"))) {
		job->scheduler = "slurm";
		take(job->step, get_env("SLURM_STEP_ID"));
	} else if (take_lsf(job->id, get_env("LSB_JOBID"), get_env("LSB_JOBINDEX")))
		job->scheduler = "lsf";
	else if (take(job->id, get_env("PBS_JOBID")))
		job->scheduler = "pbs";
}
