/* SPDX-License-Identifier: MIT */
/*
 * late_handler: a program that sets its signal actions in main, after the
 * shim's constructor took the fatal signals (PFSHIM_ON_FATAL=1).
 *   late_handler STYLE return SIGNO N   a handler that prints "handler" and
 *       returns; SIGNO raised N times, "survived I" after each lived through
 *   late_handler STYLE reraise SIGNO    a handler that prints "handler",
 *       restores the default (in the same STYLE) and raises SIGNO again
 *   late_handler STYLE fault            a SIGSEGV handler that restores the
 *       default and returns: the faulting write runs again, and kills
 *   late_handler STYLE ignore SIGNO     SIG_IGN, then SIGNO raised; "survived"
 *   late_handler STYLE read SIGNO       SIG_DFL (STYLE "default": nothing
 *       set), then blocked in read(2) on a pipe, where another thread sends
 *       it SIGNO and then writes a byte: "read 1", or "read: " and the
 *       error (EINTR: no SA_RESTART)
 *   late_handler old SIGNO              sets two actions with sigaction(),
 *       then signal(), printing each old action it is given back
 *   late_handler interrupt SIGNO        signal(), siginterrupt() on and off,
 *       signal() after each, printing the action after each call
 *   late_handler ignore-exec SIGNO PROGRAM ARGS...  SIG_IGN, then exec
 *   late_handler overflow ALTSIZE       overflows its stack; a SIGSEGV
 *       handler on an ALTSIZE-byte alternate stack prints "caught overflow"
 *       and _exit(5)s
 * STYLE: sigaction (SA_SIGINFO), signal, bsd_signal, sysv_signal, sigset;
 * any other sets nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Declared by glibc only for XPG4.2 programs; still in libc. */
extern __sighandler_t bsd_signal(int signo, __sighandler_t handler);
/* sigset() is obsolescent: it is what is tested here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static const char *style;

static void say(const char *msg)
{
	write(STDOUT_FILENO, msg, strlen(msg));
}

static void set(int signo, void (*handler)(int))
{
	if (!strcmp(style, "sigaction")) {
		struct sigaction sa = { .sa_handler = handler };

		sigemptyset(&sa.sa_mask);
		if (handler != SIG_DFL && handler != SIG_IGN)
			sa.sa_flags = SA_SIGINFO;
		sigaction(signo, &sa, NULL);
	} else if (!strcmp(style, "signal")) {
		signal(signo, handler);
	} else if (!strcmp(style, "bsd_signal")) {
		bsd_signal(signo, handler);
	} else if (!strcmp(style, "sysv_signal")) {
		sysv_signal(signo, handler);
	} else if (!strcmp(style, "sigset")) {
		sigset(signo, handler);
	}
}

/* One handler for both conventions: with SA_SIGINFO the extra arguments are ignored. */
static void on_return(int signo)
{
	(void)signo;
	say("handler\n");
}

static void on_reraise(int signo)
{
	say("handler\n");
	set(signo, SIG_DFL);
	raise(signo);
}

static void on_fault(int signo)
{
	say("handler\n");
	set(signo, SIG_DFL);
}

static void on_overflow(int signo)
{
	(void)signo;
	say("caught overflow\n");
	_exit(5);
}

static void h1(int signo) { (void)signo; }
static void h2(int signo) { (void)signo; }

static void print_action(const char *what, const struct sigaction *sa)
{
	void (*h)(int) = sa->sa_handler;

	printf("%s: %s flags=%#x mask=", what,
	       h == SIG_DFL ? "default" : h == SIG_IGN ? "ignored" : h == h1 ? "h1" :
	       h == h2 ? "h2" : "other", (unsigned)sa->sa_flags);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&sa->sa_mask, s))
			printf("%d,", s);
	printf("\n");
}

/* Out of the compiler's sight: act and oldact restrict-qualified, and one struct here on purpose. */
static struct sigaction *same_struct(struct sigaction *a)
{
	struct sigaction *volatile p = a;

	return p;
}

static int old_actions(int signo)
{
	struct sigaction a = { .sa_handler = h1, .sa_flags = SA_RESTART | SA_NODEFER }, old;

	sigemptyset(&a.sa_mask);
	sigaddset(&a.sa_mask, SIGUSR1);
	sigaddset(&a.sa_mask, SIGKILL);		/* the kernel drops it */
	sigaction(signo, &a, &old);
	print_action("before", &old);
	a = (struct sigaction){ .sa_sigaction = (void (*)(int, siginfo_t *, void *))h2,
				.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK };
	sigfillset(&a.sa_mask);
	sigaction(signo, &a, &old);
	print_action("after h1", &old);
	sigaction(signo, NULL, &old);
	print_action("now", &old);
	printf("signal gave back %s\n", signal(signo, SIG_IGN) == (void (*)(int))h2 ? "h2" : "?");
	sigaction(signo, NULL, &old);
	print_action("after signal", &old);
	/* The same struct for act and oldact: given back the previous one. */
	a.sa_handler = SIG_DFL;
	a.sa_flags = 0;
	sigemptyset(&a.sa_mask);
	sigaction(signo, &a, same_struct(&a));
	print_action("after same struct", &a);
	return 0;
}

static volatile int forever = 1;

static int interrupt_flags(int signo)
{
	struct sigaction now;

	signal(signo, h1);
	sigaction(signo, NULL, &now);
	print_action("signal", &now);
	for (int on = 1; on >= 0; on--) {
		siginterrupt(signo, on);
		sigaction(signo, NULL, &now);
		print_action(on ? "siginterrupt 1" : "siginterrupt 0", &now);
		signal(signo, h2);
		sigaction(signo, NULL, &now);
		print_action("then signal", &now);
	}
	return 0;
}

static void recurse(volatile char *above)
{
	volatile char frame[4096];

	frame[0] = above ? above[0] + 1 : 0;
	if (forever)
		recurse(frame);
	frame[1] = 0;		/* not a tail call */
}

static int overflow(size_t size)
{
	stack_t ss = { .ss_size = size };
	struct sigaction sa = { .sa_handler = on_overflow, .sa_flags = SA_ONSTACK | SA_SIGINFO };

	ss.ss_sp = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) < 0)
		return 2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	recurse(NULL);
	return 0;
}

static struct { pid_t tid; int signo; int fds[2]; } reader;

/* The reader's state in /proc: 'S' once it sleeps in read(2), its only wait. */
static char reader_state(void)
{
	char path[64], stat[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)reader.tid);
	if (!(f = fopen(path, "r")))
		return '?';
	p = fgets(stat, sizeof(stat), f) ? strrchr(stat, ')') : NULL;
	fclose(f);
	return p && p[1] ? p[2] : '?';
}

static void *interrupt_reader(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10000 && reader_state() != 'S'; i++)
		usleep(1000);
	syscall(SYS_tgkill, getpid(), reader.tid, reader.signo);
	usleep(100000);		/* the handler has run (or the read was restarted) by now */
	write(reader.fds[1], "x", 1);
	return NULL;
}

static int read_interrupted(int signo)
{
	pthread_t t;
	char c;
	ssize_t n;

	set(signo, SIG_DFL);
	reader.tid = gettid();
	reader.signo = signo;
	if (pipe(reader.fds) < 0 || pthread_create(&t, NULL, interrupt_reader, NULL) != 0)
		return 2;
	n = read(reader.fds[0], &c, 1);
	if (n < 0)
		printf("read: %s\n", strerror(errno));
	else
		printf("read %zd\n", n);
	pthread_join(t, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 2 ? argv[2] : "";
	int signo = argc > 3 ? atoi(argv[3]) : 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	style = argc > 1 ? argv[1] : "";
	if (!strcmp(style, "old") && argc > 2)
		return old_actions(atoi(argv[2]));
	if (!strcmp(style, "interrupt") && argc > 2)
		return interrupt_flags(atoi(argv[2]));
	if (!strcmp(style, "ignore-exec") && argc > 3) {
		signal(atoi(argv[2]), SIG_IGN);
		execvp(argv[3], argv + 3);
		return 127;
	}
	if (!strcmp(style, "overflow") && argc > 2)
		return overflow(strtoul(argv[2], NULL, 0));
	if (!strcmp(how, "return") && argc > 4) {
		set(signo, on_return);
		for (int i = 1; i <= atoi(argv[4]); i++) {
			raise(signo);
			printf("survived %d\n", i);
		}
		return 0;
	}
	if (!strcmp(how, "reraise")) {
		set(signo, on_reraise);
		raise(signo);
		printf("survived\n");
		return 0;
	}
	if (!strcmp(how, "ignore")) {
		set(signo, SIG_IGN);
		raise(signo);
		printf("survived\n");
		return 0;
	}
	if (!strcmp(how, "read"))
		return read_interrupted(signo);
	if (!strcmp(how, "fault")) {
		volatile int zero = 0;

		set(SIGSEGV, on_fault);
		*(volatile int *)(long)zero = 1;
		printf("survived\n");
		return 0;
	}
	return 2;
}
