/* SPDX-License-Identifier: MIT */
/*
 * scheduler.h: the batch job a process runs in (Slurm, Flux, LSF, PBS), as
 * the scheduler's own documented variables name it, so that every report of
 * a job can be told from another job's: part of reading the environment
 * (preload/config.c), carried into each report unchanged.
 */
#ifndef PFSHIM_PRELOAD_SCHEDULER_H
#define PFSHIM_PRELOAD_SCHEDULER_H

/* Job ids are short (Slurm: digits; PBS: "1234[5].server"): a longer value is not taken. */
#define SCHEDULER_ID_MAX 64

struct scheduler_job {
	const char *scheduler;		/* "slurm", "flux", "lsf", "pbs"; NULL: no job */
	char id[SCHEDULER_ID_MAX];	/* as the scheduler prints it; LSF arrays: "123[4]" */
	char step[SCHEDULER_ID_MAX];	/* Slurm's SLURM_STEP_ID; "" when none */
};

/*
 * scheduler_job_read - fill @job from the variables @get_env returns. The
 * first scheduler whose job id is set (non-empty, shorter than
 * SCHEDULER_ID_MAX) is taken, Flux first: a Flux instance started inside a
 * Slurm (or LSF) allocation can pass the outer job's variables on to its own
 * jobs (a job copies the environment it was submitted from), and the inner
 * job is the one the process belongs to.
 */
void scheduler_job_read(struct scheduler_job *job, const char *(*get_env)(const char *name));

#endif
