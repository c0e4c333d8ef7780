/* SPDX-License-Identifier: MIT */
/*
 * shim.c: where libpfshim.so meets the host program: the constructor, the
 * entry to main (for exit()'s status), the exit paths (destructor, _exit,
 * _Exit, quick_exit, daemon's parent), the interposed exec*() functions,
 * fork() and forkpty() (the child's handler registered by the first fork),
 * abort(), sigaction() and its kin,
 * which change only the signals the shim takes (PFSHIM_SIGNAL's,
 * PFSHIM_ON_FATAL's: actions.c keeps the program's actions for them), and
 * prctl() and syscall(), where the program installs a seccomp filter. Each
 * entry point does as little as it can and hands over to process.c,
 * actions.c, fatal.c or report_signal.c.
 *
 * glibc's exec functions call each other through internal aliases that no
 * preload can see, so every variant is interposed on its own. The real
 * functions are looked up in the constructor: dlsym() is not
 * async-signal-safe, exec may be called in a child of a threaded fork, and
 * sigaction() in a signal handler.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <pty.h>
#include <spawn.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/auxv.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <linux/nsfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/actions.h"
#include "preload/exec_search.h"
#include "preload/fatal.h"
#include "preload/fd.h"
#include "preload/interval.h"
#include "preload/process.h"
#include "preload/report_signal.h"
#include "preload/prefault.h"
#include "preload/proc_stat.h"
#include "preload/sandbox.h"
#include "preload/share.h"
#include "preload/warn.h"

#define PFSHIM_EXPORT __attribute__((visibility("default")))
/*
 * A sanitizer's runtime (make check-sanitize) sets its own signal handlers
 * while it starts, through the first sigaction() after it: ours. Code on
 * that path runs before the runtime can take instrumented calls.
 */
#define UNINSTRUMENTED __attribute__((no_sanitize_address, no_sanitize_thread, no_sanitize_undefined))

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef void (*exit_fn)(int);
typedef int (*daemon_fn)(int, int);
typedef pid_t (*fork_fn)(void);
typedef pid_t (*forkpty_fn)(int *, char *, const struct termios *, const struct winsize *);
typedef int (*posix_spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			      const posix_spawnattr_t *, char *const[], char *const[]);
typedef int (*system_fn)(const char *);
typedef FILE *(*popen_fn)(const char *, const char *);
typedef __sighandler_t (*signal_fn)(int, __sighandler_t);
typedef int (*unshare_fn)(int);
typedef int (*setns_fn)(int, int);
typedef int (*prctl_fn)(int, ...);
typedef long (*syscall_fn)(long, ...);
typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
			     void (*)(void), void *);

static struct {
	execve_fn execve, execvpe;
	execv_fn execv, execvp;
	fexecve_fn fexecve;
	execveat_fn execveat;
	exit_fn _exit, _Exit;
	void (*abort)(void);
	daemon_fn daemon;
	fork_fn fork;
	forkpty_fn forkpty;
	posix_spawn_fn posix_spawn, posix_spawnp;
	system_fn system;
	popen_fn popen;
	actions_sigaction_fn sigaction;
	signal_fn signal, bsd_signal, ssignal, sysv_signal, __sysv_signal, sigset;
	int (*siginterrupt)(int, int);
	unshare_fn unshare;
	setns_fn setns;
	prctl_fn prctl;
	syscall_fn syscall;
	start_main_fn __libc_start_main;
	main_fn main;
} real;

UNINSTRUMENTED static void *real_lookup(void **slot, const char *name)
{
	/*
	 * Reached before the constructor ran (another library's constructor
	 * execs), and for the spawn functions, looked up at their first call.
	 */
	if (!*slot)
		*slot = dlsym(RTLD_NEXT, name);
	return *slot;
}

#define REAL(name) ((__typeof__(real.name))real_lookup((void **)&real.name, #name))

/*
 * The constructor's lookups: written without a read first. real_lookup()'s
 * test of the slot would map the zero page and the write then fault again:
 * one page fault more in every process (docs/performance.md).
 */
#define LOOKUP(name) (real.name = (__typeof__(real.name))dlsym(RTLD_NEXT, #name))

/*
 * The environment, and for a PFSHIM_* variable it does not hold, what the
 * compat library derives from LIKWID's and PAPI's when the user preloads
 * it (config.h); never in secure-execution mode, where the environment is
 * not to be believed (config.c).
 */
#pragma weak pfshim_compat_v1_getenv

extern char **environ;

/*
 * getenv(), written out (no libc call): glibc's lies in a stretch of libc's
 * text a small program never runs, and its first call mapped up to 48 KiB
 * of it into every process (fault-around; docs/performance.md, "Memory").
 */
static const char *env_real(const char *name)
{
	for (char **e = environ; e && *e; e++) {
		const char *a = *e, *b = name;

		while (*b && *a == *b)
			a++, b++;
		if (!*b && *a == '=')
			return a + 1;
	}
	return NULL;
}

static const char *env_get(const char *name)
{
	const char *value = env_real(name);

	if (!value && pfshim_compat_v1_getenv && !getauxval(AT_SECURE))
		value = pfshim_compat_v1_getenv(name, env_real, warn_message);
	return value;
}

/* fork() succeeded and set no errno: reopening the counters must not set one either. */
static void after_fork_in_child(void)
{
	int saved_errno = errno;

	fd_limits_hold();	/* the child's one thread: no code of the program runs until we return */
	process_restart_in_child();
	fd_limits_release();
	errno = saved_errno;
}

/*
 * The fork child's handler, registered by the first fork, not by the
 * constructor: glibc's first pthread_atfork() reads a constant in a stretch
 * of libc's .rodata nothing else reads, and that fault mapped 64 KiB
 * (fault-around) into every process, forked or not (docs/performance.md,
 * "Memory"). So each libc function that runs fork handlers registers it
 * first: fork(), forkpty() and daemon() (both call glibc's internal __fork,
 * which no preload sees). A child made by another (wordexp's command
 * substitution) ran no handler: process_is_unforked_copy() says what it is.
 * pthread_once: a thread's first fork waits for another's registration.
 */
static void atfork_register_once(void)
{
	if (process.active)
		pthread_atfork(NULL, NULL, after_fork_in_child);
}

static void atfork_register(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, atfork_register_once);
}

/* quick_exit() runs no destructor: its handlers are the last word (ours, registered first, runs last). */
static void shim_quick_exit(void)
{
	process_report_final(REPORT_EXIT);
}

/* glibc passes argc, argv and envp to the constructors of shared objects. */
__attribute__((constructor)) static void shim_init(int argc, char **argv, char **envp)
{
	int saved_errno = errno;

	(void)envp;
	/*
	 * real's page, and the code and constants a report may run (all but
	 * layout.ld's cold part, which the report maps too), each in one
	 * system call rather than a fault per page or fault-around window
	 * (prefault.h).
	 */
	prefault_populate(&real, sizeof(real));
	prefault_self_populate();
	/* Always: sigaction() and its kin, and abort(), forward even when the shim is off. */
	LOOKUP(sigaction); LOOKUP(signal); LOOKUP(bsd_signal); LOOKUP(ssignal);
	LOOKUP(sysv_signal); LOOKUP(__sysv_signal); LOOKUP(sigset); LOOKUP(siginterrupt);
	LOOKUP(abort); LOOKUP(prctl); LOOKUP(syscall); LOOKUP(__libc_start_main);
	actions_init(real.sigaction);
	fd_limits_hold();
	process_start(argc, argv, env_get);
	fd_limits_release();
	if (process.active) {
		LOOKUP(execve); LOOKUP(execvpe); LOOKUP(execv); LOOKUP(execvp);
		LOOKUP(fexecve); LOOKUP(execveat); LOOKUP(_exit); LOOKUP(_Exit); LOOKUP(daemon);
		LOOKUP(unshare); LOOKUP(setns); LOOKUP(fork); LOOKUP(forkpty);
		at_quick_exit(shim_quick_exit);
		/*
		 * The report signal's handler is in from here on: a signal sent
		 * before this (the loader's work, other libraries' constructors
		 * that ran first) does what it does without the shim
		 * (docs/usage.md: wait for SigCgt in /proc/PID/status).
		 */
		if (process.config.on_fatal)
			fatal_install(process.config.signal);
		if (process.config.signal)
			report_signal_install(process.config.signal);
		share_setup_end(false);
	}
	errno = saved_errno;
}

/* Return from main and exit(): the last destructor to run (we were loaded first). */
__attribute__((destructor)) static void shim_fini(void)
{
	process_report_final(REPORT_EXIT);
}

/* exit(), or main's return: glibc passes the status to on_exit() handlers alone. */
static void main_exit_status(int status, void *arg)
{
	int saved_errno = errno;

	(void)arg;
	process_exit_status(status);
	errno = saved_errno;
}

/*
 * main, entered through us: the exit status handler is registered here,
 * after __libc_start_main() registered the loader's destructors' runner
 * (rtld_fini), so that it runs before it: registered by the constructor,
 * it would run after our destructor had written the exit report.
 */
static int main_entered(int argc, char **argv, char **envp)
{
	int saved_errno = errno;

	if (process.active)
		on_exit(main_exit_status, NULL);
	errno = saved_errno;
	return real.main(argc, argv, envp);
}

/* Where a dynamically linked program's _start hands over to libc. */
UNINSTRUMENTED PFSHIM_EXPORT int __libc_start_main(main_fn main, int argc, char **argv,
						   void (*init)(void), void (*fini)(void),
						   void (*rtld_fini)(void), void *stack_end)
{
	real.main = main;
	if (!REAL(__libc_start_main))
		syscall(SYS_exit_group, 127);
	return real.__libc_start_main(main_entered, argc, argv, init, fini, rtld_fini,
				      stack_end);
}

PFSHIM_EXPORT void _exit(int status)
{
	process_report_exit(status);
	if (REAL(_exit))
		real._exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

PFSHIM_EXPORT void _Exit(int status)
{
	process_report_exit(status);
	if (REAL(_Exit))
		real._Exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

/*
 * abort() with a SIGABRT handler that returns restores the default by an
 * internal call no preload sees, and raises again: fatal.c is told first,
 * so that the report comes before that death (PFSHIM_ON_FATAL=1). glibc's
 * own aborts (assert(), malloc's checks, stack protector) call it by an
 * internal alias: those with a handler that returns die unreported
 * (docs/usage.md).
 */
PFSHIM_EXPORT void abort(void)
{
	fatal_abort_begins();
	if (REAL(abort))
		real.abort();
	syscall(SYS_tgkill, getpid(), gettid(), SIGABRT);
	syscall(SYS_exit_group, 127);
	__builtin_unreachable();
}

/*
 * daemon() forks, and its parent half leaves by glibc's internal _exit(),
 * which no preload sees: that half's report is written before the call,
 * and taken back if the fork fails (the caller goes on). The child counts
 * afresh through the atfork handler, as after any fork().
 */
PFSHIM_EXPORT int daemon(int nochdir, int noclose)
{
	int ret, saved_errno;

	process_report_final(REPORT_EXIT);
	atfork_register();
	process_before_spawn();
	if (!REAL(daemon)) {
		errno = ENOSYS;
		ret = -1;
	} else {
		ret = real.daemon(nochdir, noclose);
	}
	saved_errno = errno;
	if (ret < 0)
		process_report_final_undo();
	errno = saved_errno;
	return ret;
}

PFSHIM_EXPORT pid_t fork(void)
{
	pid_t pid;

	atfork_register();
	process_before_spawn();
	if (!REAL(fork)) {
		errno = ENOSYS;
		return -1;
	}
	pid = real.fork();
	if (pid > 0)
		share_fork_done();
	return pid;
}

PFSHIM_EXPORT pid_t forkpty(int *amaster, char *name, const struct termios *termp,
			    const struct winsize *winp)
{
	pid_t pid;

	atfork_register();
	process_before_spawn();
	if (!REAL(forkpty)) {
		errno = ENOSYS;
		return -1;
	}
	pid = real.forkpty(amaster, name, termp, winp);
	if (pid > 0)
		share_fork_done();
	return pid;
}

static size_t env_count(char *const envp[])
{
	size_t n = 0;

	for (char *const *e = envp; e && *e; e++)
		n++;
	return n;
}

/* Does @entry ("NAME=...") set the variable that @var ("NAME=...") sets? */
static bool env_same_name(const char *entry, const char *var)
{
	size_t len = (size_t)(strchr(var, '=') - var) + 1;

	return !strncmp(entry, var, len);
}

/*
 * @envp with @vars (each "NAME=value", NULL for none) in place of any
 * older values, into @env: room for env_count(envp) + 3 entries.
 */
static void env_with(char **env, char *const envp[], const char *const vars[2])
{
	size_t k = 0;

	for (char *const *e = envp; e && *e; e++)
		if (!(vars[0] && env_same_name(*e, vars[0])) &&
		    !(vars[1] && env_same_name(*e, vars[1])))
			env[k++] = *e;
	for (int v = 0; v < 2; v++)
		if (vars[v])
			env[k++] = (char *)vars[v];
	env[k] = NULL;
}

/*
 * posix_spawn(p) with libpfm4's answers for the child (process_answers_for;
 * @actions may change its working directory). A spawn that fails E2BIG
 * with them is tried again without: they are only worth its start-up.
 */
static int spawn_answering(posix_spawn_fn spawn, pid_t *pid, const char *file, bool search,
			   const posix_spawn_file_actions_t *actions,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	char answers[process_answers_size(envp) + 1];
	const char *const vars[2] = {
		NULL, process_answers_for(file, search, !actions, envp, answers, sizeof(answers)),
	};
	int err;

	if (!vars[1])
		return spawn(pid, file, actions, attr, argv, envp);

	char *env[env_count(envp) + 3];

	env_with(env, envp, vars);
	err = spawn(pid, file, actions, attr, argv, env);
	return err == E2BIG ? spawn(pid, file, actions, attr, argv, envp) : err;
}

/*
 * The ways libc makes a child that run no fork handler and exec by an
 * internal call no preload sees: only the parent's side is ours, where
 * what the child needs to find its job is left first, and posix_spawn()'s
 * environment gets libpfm4's answers (system() and popen() pass environ
 * itself, which is not ours to change: their shell asks again). Their real
 * functions are looked up at the first call, not in the constructor (1.4k
 * instructions each in every process, callgrind): none of them may be
 * called where dlsym() may not (a signal handler, a threaded fork's child).
 */
PFSHIM_EXPORT int posix_spawn(pid_t *pid, const char *path,
			      const posix_spawn_file_actions_t *actions,
			      const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	process_before_spawn();
	if (!REAL(posix_spawn))
		return ENOSYS;
	return spawn_answering(real.posix_spawn, pid, path, false, actions, attr, argv, envp);
}

PFSHIM_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			       const posix_spawn_file_actions_t *actions,
			       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	process_before_spawn();
	if (!REAL(posix_spawnp))
		return ENOSYS;
	return spawn_answering(real.posix_spawnp, pid, file, true, actions, attr, argv, envp);
}

PFSHIM_EXPORT int system(const char *command)
{
	process_before_spawn();
	if (!REAL(system)) {
		errno = ENOSYS;
		return -1;
	}
	return real.system(command);
}

PFSHIM_EXPORT FILE *popen(const char *command, const char *mode)
{
	process_before_spawn();
	if (!REAL(popen)) {
		errno = ENOSYS;
		return NULL;
	}
	return real.popen(command, mode);
}

/*
 * Before an exec replaces the image: its report, then the real call. If the
 * exec fails the image lives on, and its exit will report again.
 */
#define EXEC_FORWARD(call)                                   \
	do {                                                 \
		int ret_, errno_;                            \
		process_report_final(REPORT_EXEC);           \
		process_before_spawn();                      \
		ret_ = (call);                               \
		errno_ = errno;                              \
		process_report_final_undo();                 \
		errno = errno_;                              \
		return ret_;                                 \
	} while (0)

/*
 * An exec of a path that does not exist fails before anything is replaced:
 * it gets no report. Runtimes that search PATH themselves (Python's
 * os.execvp, dash) call execve() once per directory, and wrote one exec
 * report per directory tried; now only the one that can run does. stat(),
 * not access(): the effective ids decide, as they do for the exec.
 */
static bool exec_path_missing(const char *path)
{
	int saved_errno = errno;
	struct stat st;
	/* Under the program's seccomp filter stat() may kill it: every exec then reports. */
	bool missing = !sandbox_filtered() && stat(path, &st) < 0 &&
		       (errno == ENOENT || errno == ENOTDIR);

	errno = saved_errno;
	return missing;
}

/*
 * execvp() and its kin search PATH (glibc: "/bin:/usr/bin" when unset; an
 * empty element is the working directory): a name found in no directory
 * fails as a missing path does. A program that tries editors one by one
 * with execlp() gets one report, for the one that runs.
 */
static bool exec_path_present(const char *candidate, void *arg)
{
	(void)arg;
	return !exec_path_missing(candidate);
}

static bool exec_file_missing(const char *file)
{
	if (!*file)
		return true;
	if (sandbox_filtered())
		return false;
	if (strchr(file, '/'))
		return exec_path_missing(file);
	return !exec_search(file, getenv("PATH"), exec_path_present, NULL);
}

#define EXEC_FORWARD_PATH(path, call)                        \
	do {                                                 \
		if (exec_path_missing(path))                 \
			return (call);                       \
		EXEC_FORWARD(call);                          \
	} while (0)

#define EXEC_FORWARD_FILE(file, call)                        \
	do {                                                 \
		if (exec_file_missing(file))                 \
			return (call);                       \
		EXEC_FORWARD(call);                          \
	} while (0)

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

#define CALL_REAL(name, ...) (REAL(name) ? real.name(__VA_ARGS__) : no_real())


/*
 * The frames alive at a successful exec are never left. In a vfork()ed
 * child, which shares its parent's stack (dash makes its children so),
 * ASan's poison of their arrays' redzones would stay in the parent's
 * shadow, and a later frame of the parent there would read as an
 * overflow: those frames are not instrumented for addresses.
 */
#define EXEC_FRAME __attribute__((no_sanitize_address))

/* The exec, with @vars put in @envp's copy on the stack when there are any. */
EXEC_FRAME static int exec_with(const char *file, bool search, char *const argv[],
				char *const envp[], const char *const vars[2])
{
	if (!vars[0] && !vars[1])
		return search ? CALL_REAL(execvpe, file, argv, envp) :
				CALL_REAL(execve, file, argv, envp);

	char *env[env_count(envp) + 3];

	env_with(env, envp, vars);
	return search ? CALL_REAL(execvpe, file, argv, env) : CALL_REAL(execve, file, argv, env);
}

/*
 * The exec itself, with what the next image takes from ours in its
 * environment: PFSHIM_HANDOVER=1's counters (process_handover_open) and
 * libpfm4's answers (process_answers_for), put in a copy of @envp on the
 * stack, no allocation. An exec that fails E2BIG with the answers is tried
 * again without them (they are only worth the next image's start-up); the
 * counters are closed again if the exec fails.
 */
EXEC_FRAME static int exec_handing_over(const char *file, bool search, char *const argv[],
					char *const envp[])
{
	char answers[process_answers_size(envp) + 1];
	const char *vars[2] = {
		process_handover_open(file, search, envp),
		process_answers_for(file, search, true, envp, answers, sizeof(answers)),
	};
	int ret, saved_errno;

	ret = exec_with(file, search, argv, envp, vars);
	if (ret < 0 && errno == E2BIG && vars[1]) {
		vars[1] = NULL;
		ret = exec_with(file, search, argv, envp, vars);
	}
	if (!vars[0])
		return ret;
	saved_errno = errno;
	process_handover_close();
	errno = saved_errno;
	return ret;
}

PFSHIM_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	EXEC_FORWARD_PATH(path, exec_handing_over(path, false, argv, envp));
}

PFSHIM_EXPORT int execv(const char *path, char *const argv[])
{
	EXEC_FORWARD_PATH(path, exec_handing_over(path, false, argv, environ));
}

PFSHIM_EXPORT int execvp(const char *file, char *const argv[])
{
	EXEC_FORWARD_FILE(file, exec_handing_over(file, true, argv, environ));
}

PFSHIM_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	EXEC_FORWARD_FILE(file, exec_handing_over(file, true, argv, envp));
}

PFSHIM_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	EXEC_FORWARD(CALL_REAL(fexecve, fd, argv, envp));
}

PFSHIM_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			   int flags)
{
	EXEC_FORWARD(CALL_REAL(execveat, dirfd, path, argv, envp, flags));
}

/*
 * The execl family: the list becomes an array on the stack, and the call
 * goes on as its execv counterpart: execl -> execv, execlp -> execvp,
 * execle -> execve (whose envp follows the list's terminating NULL).
 */
enum exec_list { EXEC_LIST_L, EXEC_LIST_LP, EXEC_LIST_LE };

EXEC_FRAME static int exec_list_forward(enum exec_list kind, const char *path, const char *arg0,
					va_list ap)
{
	char *const *envp;
	va_list count;
	size_t n = 0;

	va_copy(count, ap);
	for (const char *a = arg0; a; a = va_arg(count, const char *))
		n++;
	va_end(count);

	char *argv[n + 1];

	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)		/* i == n reads the terminating NULL */
		argv[i] = va_arg(ap, char *);
	argv[n] = NULL;
	switch (kind) {
	case EXEC_LIST_LP:
		EXEC_FORWARD_FILE(path, exec_handing_over(path, true, argv, environ));
	case EXEC_LIST_LE:
		envp = va_arg(ap, char *const *);
		EXEC_FORWARD_PATH(path, exec_handing_over(path, false, argv, envp));
	case EXEC_LIST_L:
	default:
		EXEC_FORWARD_PATH(path, exec_handing_over(path, false, argv, environ));
	}
}

#define EXEC_LIST(kind, path, arg)                                       \
	do {                                                             \
		va_list ap_;                                             \
		int ret_;                                                \
		va_start(ap_, arg);                                      \
		ret_ = exec_list_forward(kind, path, arg, ap_);          \
		va_end(ap_);                                             \
		return ret_;                                             \
	} while (0)

PFSHIM_EXPORT int execl(const char *path, const char *arg, ...)
{
	EXEC_LIST(EXEC_LIST_L, path, arg);
}

PFSHIM_EXPORT int execlp(const char *file, const char *arg, ...)
{
	EXEC_LIST(EXEC_LIST_LP, file, arg);
}

PFSHIM_EXPORT int execle(const char *path, const char *arg, ...)
{
	EXEC_LIST(EXEC_LIST_LE, path, arg);
}

/*
 * The actions of the signals the shim takes (PFSHIM_SIGNAL's, and the nine
 * fatal ones under PFSHIM_ON_FATAL=1): actions.c keeps the program's, and
 * ours stays in the kernel. Any other call goes to libc unchanged. glibc's
 * signal() and its kin set the action by an internal call no preload sees:
 * each is interposed, and made from the sigaction() glibc makes of it.
 */
static __sighandler_t no_real_handler(void)
{
	errno = ENOSYS;
	return SIG_ERR;
}

#define CALL_REAL_SIGNAL(name, ...) (REAL(name) ? real.name(__VA_ARGS__) : no_real_handler())

UNINSTRUMENTED PFSHIM_EXPORT int sigaction(int signo, const struct sigaction *act,
					   struct sigaction *oldact)
{
	if (actions_manages(signo))
		return actions_sigaction(signo, act, oldact);
	return CALL_REAL(sigaction, signo, act, oldact);
}

static __sighandler_t signal_as_sigaction(int signo, __sighandler_t handler, int flags,
					  bool block_self)
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = flags }, old;

	if (handler == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigemptyset(&sa.sa_mask);
	if (block_self)
		sigaddset(&sa.sa_mask, signo);
	return actions_sigaction(signo, &sa, &old) < 0 ? SIG_ERR : old.sa_handler;
}

/*
 * glibc's siginterrupt(sig, 1) also makes later signal() calls on sig set
 * no SA_RESTART (its hidden _sigintr set): the same, here, for the signals
 * whose siginterrupt() came to us.
 */
static atomic_bool signal_interrupts[NSIG];

/* BSD semantics (signal, bsd_signal, ssignal): blocked in its own handler, calls restart. */
#define SIGNAL_BSD(name, signo, handler)                                                  \
	(actions_manages(signo) ?                                                           \
		 signal_as_sigaction(signo, handler,                                      \
				     atomic_load(&signal_interrupts[signo]) ? 0 : SA_RESTART, \
				     true) :                                              \
		 CALL_REAL_SIGNAL(name, signo, handler))

/* System V semantics (sysv_signal, and signal() under strict ISO C): run once, not blocked. */
#define SIGNAL_SYSV(name, signo, handler)                                                 \
	(actions_manages(signo) ?                                                           \
		 signal_as_sigaction(signo, handler, SA_RESETHAND | SA_NODEFER, false) :  \
		 CALL_REAL_SIGNAL(name, signo, handler))

PFSHIM_EXPORT __sighandler_t signal(int signo, __sighandler_t handler)
{
	return SIGNAL_BSD(signal, signo, handler);
}

PFSHIM_EXPORT __sighandler_t bsd_signal(int signo, __sighandler_t handler)
{
	return SIGNAL_BSD(bsd_signal, signo, handler);
}

PFSHIM_EXPORT __sighandler_t ssignal(int signo, __sighandler_t handler)
{
	return SIGNAL_BSD(ssignal, signo, handler);
}

PFSHIM_EXPORT __sighandler_t sysv_signal(int signo, __sighandler_t handler)
{
	return SIGNAL_SYSV(sysv_signal, signo, handler);
}

PFSHIM_EXPORT __sighandler_t __sysv_signal(int signo, __sighandler_t handler)
{
	return SIGNAL_SYSV(__sysv_signal, signo, handler);
}

/* System V's sigset(): SIG_HOLD blocks the signal; anything else is set, and unblocks it. */
PFSHIM_EXPORT __sighandler_t sigset(int signo, __sighandler_t disp)
{
	struct sigaction sa = { .sa_handler = disp }, old;
	sigset_t set, oset;

	if (!actions_manages(signo))
		return CALL_REAL_SIGNAL(sigset, signo, disp);
	sigemptyset(&set);
	sigaddset(&set, signo);
	if (disp == SIG_HOLD) {
		if (pthread_sigmask(SIG_BLOCK, &set, &oset) != 0)
			return SIG_ERR;
		if (sigismember(&oset, signo))
			return SIG_HOLD;
		actions_sigaction(signo, NULL, &old);
		return old.sa_handler;
	}
	sigemptyset(&sa.sa_mask);
	if (actions_sigaction(signo, &sa, &old) < 0 || pthread_sigmask(SIG_UNBLOCK, &set, &oset) != 0)
		return SIG_ERR;
	return sigismember(&oset, signo) ? SIG_HOLD : old.sa_handler;
}

/* The program's action with SA_RESTART off (@interrupt) or on, as glibc's. */
PFSHIM_EXPORT int siginterrupt(int signo, int interrupt)
{
	struct sigaction sa;

	if (!actions_manages(signo))
		return REAL(siginterrupt) ? real.siginterrupt(signo, interrupt) : no_real();
	actions_sigaction(signo, NULL, &sa);
	atomic_store(&signal_interrupts[signo], interrupt != 0);
	if (interrupt)
		sa.sa_flags &= ~SA_RESTART;
	else
		sa.sa_flags |= SA_RESTART;
	return actions_sigaction(signo, &sa, NULL);
}

/*
 * unshare() and setns() that need a single-threaded process (a new or
 * another user namespace; CLONE_VM, CLONE_SIGHAND, CLONE_THREAD) would
 * fail with EINVAL because of the interval thread alone: it is stopped for
 * good first, so the program sees what it would see without pfshim. A
 * program with threads of its own fails as it always did, and keeps its
 * interval reports. Stopped means for the rest of this image: a new thread
 * would inherit the counters (interval.c); the final report still comes.
 */
#define NEEDS_ONE_THREAD (CLONE_NEWUSER | CLONE_VM | CLONE_SIGHAND | CLONE_THREAD)

/* The program's own threads, besides ours: /proc/self/stat's num_threads. */
static bool program_is_single_threaded(void)
{
	struct proc_stat st;

	return proc_stat_read(0, &st) < 0 || st.threads <= 2;
}

static void interval_make_way(void)
{
	int saved_errno = errno;

	if (interval_running() && program_is_single_threaded() && interval_stop_for_good())
		warn_line("PFSHIM_INTERVAL: interval reports stop here: unshare()/setns() into a "
			  "user namespace needs a single-threaded process; the final report still "
			  "comes", NULL);
	errno = saved_errno;
}

PFSHIM_EXPORT int unshare(int flags)
{
	if (flags & NEEDS_ONE_THREAD)
		interval_make_way();
	return CALL_REAL(unshare, flags);
}

/* nstype 0 takes any namespace: NS_GET_NSTYPE says whether @fd is a user namespace. */
PFSHIM_EXPORT int setns(int fd, int nstype)
{
	int saved_errno = errno;

	if (interval_running() && ((nstype & CLONE_NEWUSER) ||
				   (nstype == 0 && ioctl(fd, NS_GET_NSTYPE) == CLONE_NEWUSER)))
		interval_make_way();
	errno = saved_errno;
	return CALL_REAL(setns, fd, nstype);
}

/*
 * Where the program installs a seccomp filter: prctl(PR_SET_SECCOMP), and
 * seccomp(2), which glibc has no function for (libseccomp and Chromium call
 * syscall()). The shim takes what its reports will need first, while every
 * system call still works (process_before_filter()); the call itself goes
 * on unchanged. A filter installed by a system call instruction of the
 * program's own is not seen (docs/usage.md). The arguments are read as
 * the six registers every caller passes them in.
 */
static void before_call(long nr, unsigned long a0, unsigned long a1)
{
	bool all_threads;

	/* A new image or child by a system call, or a parent whose descriptors no child may read */
	if (nr == SYS_execve || nr == SYS_execveat || nr == SYS_clone || nr == SYS_clone3 ||
#ifdef SYS_fork
	    nr == SYS_fork || nr == SYS_vfork ||
#endif
	    (nr == SYS_prctl && a0 == PR_SET_DUMPABLE))
		process_before_spawn();

	if (!process.active || !sandbox_is_install(nr, a0, a1, &all_threads))
		return;
	/* Dying by a signal after its report needs rt_sigaction and tgkill: the program's again. */
	if (!sandbox_filtered() && process_is_self())
		fatal_step_back(process.config.signal);
	process_before_filter(all_threads);
}

/* The @n arguments after @last, each as an unsigned long. */
#define ARGS_READ(last, a, n)                                        \
	do {                                                         \
		va_list ap_;                                         \
		va_start(ap_, last);                                 \
		for (int i_ = 0; i_ < (n); i_++)                     \
			(a)[i_] = va_arg(ap_, unsigned long);        \
		va_end(ap_);                                         \
	} while (0)

UNINSTRUMENTED PFSHIM_EXPORT int prctl(int option, ...)
{
	unsigned long a[4];

	ARGS_READ(option, a, 4);
	before_call(SYS_prctl, (unsigned long)option, a[0]);
	return REAL(prctl) ? real.prctl(option, a[0], a[1], a[2], a[3]) : no_real();
}

/*
 * Six arguments read whatever the caller passed, as glibc's own syscall()
 * does: the sixth is on the caller's stack (x86_64), past what a caller of
 * fewer wrote, and a sanitizer would call that read an underflow.
 */
UNINSTRUMENTED PFSHIM_EXPORT long syscall(long nr, ...)
{
	unsigned long a[6];

	ARGS_READ(nr, a, 6);
	before_call(nr, a[0], a[1]);
	if (!REAL(syscall))
		return no_real();
	return real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
