/* SPDX-License-Identifier: MIT */
/*
 * libearly_handler.so: a library whose constructor installs a SIGTERM
 * handler before pfshim's constructor runs (LD_PRELOAD="libpfshim.so
 * libearly_handler.so": glibc runs the later one's constructor first), as
 * a crash reporter or a runtime would. EARLY_HANDLER chooses it:
 *   return     plain handler, prints "early handler" and returns
 *   reraise    SA_SIGINFO handler, prints "early handler", restores the
 *              default and raises the signal again
 *   resethand  plain handler with SA_RESETHAND, prints and returns
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void say(void)
{
	static const char msg[] = "early handler\n";

	write(STDOUT_FILENO, msg, sizeof(msg) - 1);
}

static void plain(int signo)
{
	(void)signo;
	say();
}

static void reraise(int signo, siginfo_t *info, void *context)
{
	(void)info;
	(void)context;
	say();
	signal(signo, SIG_DFL);
	raise(signo);
}

__attribute__((constructor)) static void early_handler_install(void)
{
	const char *how = getenv("EARLY_HANDLER");
	struct sigaction sa = { .sa_handler = plain };

	if (!how)
		return;
	sigemptyset(&sa.sa_mask);
	if (!strcmp(how, "reraise")) {
		sa.sa_sigaction = reraise;
		sa.sa_flags = SA_SIGINFO;
	} else if (!strcmp(how, "resethand")) {
		sa.sa_flags = SA_RESETHAND;
	}
	sigaction(SIGTERM, &sa, NULL);
}
