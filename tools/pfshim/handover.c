/*
 * handover.c: `pfshim run` opens the job's first counters itself, in the
 * child before exec, so that the command's count starts at its exec (the
 * dynamic loader's work included), and hands them to the shim through
 * PFSHIM_ADOPT. It does so only where a shim will be there to adopt them:
 * the descriptors are not close-on-exec, and in an image without the shim
 * they would stay open, counting it, for its whole life.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "preload/config.h"
#include "preload/counters/handover.h"
#include "preload/fd.h"
#include "tools/pfshim/handover.h"

#if __SIZEOF_POINTER__ == 8
#define OUR_CLASS ELFCLASS64
typedef Elf64_Ehdr ehdr_t;
typedef Elf64_Phdr phdr_t;
#else
#define OUR_CLASS ELFCLASS32
typedef Elf32_Ehdr ehdr_t;
typedef Elf32_Phdr phdr_t;
#endif

#if defined(__x86_64__)
#define OUR_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OUR_MACHINE EM_AARCH64
#elif defined(__i386__)
#define OUR_MACHINE EM_386
#elif defined(__arm__)
#define OUR_MACHINE EM_ARM
#elif defined(__riscv)
#define OUR_MACHINE EM_RISCV
#else
#define OUR_MACHINE EM_NONE	/* no hand-over: the check below never passes */
#endif

static struct counter_set handed;
static struct event_list events;

/* An ELF file of our class and machine with a PT_INTERP: the loader, so the preload. */
static bool elf_dynamic(int fd)
{
	ehdr_t eh;
	phdr_t ph;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != OUR_CLASS ||
	    eh.e_machine != OUR_MACHINE || OUR_MACHINE == EM_NONE ||
	    eh.e_phentsize != sizeof(ph))
		return false;
	for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return false;
		if (ph.p_type == PT_INTERP)
			return true;
	}
	return false;
}

static bool path_ok(const char *path, int depth)
{
	char line[PATH_MAX + 3], *interp, *end;
	struct stat st;
	bool ok = false;
	ssize_t n;
	int fd;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & (S_ISUID | S_ISGID)) ||
	    getxattr(path, "security.capability", NULL, 0) >= 0 || access(path, X_OK) < 0)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = pread(fd, line, sizeof(line) - 1, 0);
	if (n > 2 && line[0] == '#' && line[1] == '!' && depth == 0) {
		/* The kernel runs the interpreter: the first word after "#!". */
		line[n] = '\0';
		interp = line + 2 + strspn(line + 2, " \t");
		end = interp + strcspn(interp, " \t\n");
		*end = '\0';
		ok = *interp == '/' && path_ok(interp, 1);
	} else {
		ok = elf_dynamic(fd);
	}
	close(fd);
	return ok;
}

bool run_handover_target_ok(const char *file)
{
	const char *path = getenv("PATH"), *dir, *end;
	char candidate[PATH_MAX];

	if (!*file)
		return false;
	if (strchr(file, '/'))
		return path_ok(file, 0);
	/* As execvp() searches: glibc's default PATH, "" is the working directory. */
	for (dir = path ? path : "/bin:/usr/bin"; ; dir = end + 1) {
		size_t len, name = strlen(file);

		end = strchrnul(dir, ':');
		len = (size_t)(end - dir);
		if (len + 1 + name < sizeof(candidate)) {
			memcpy(candidate, dir, len);
			if (len)
				candidate[len++] = '/';
			memcpy(candidate + len, file, name + 1);
			if (access(candidate, X_OK) == 0)
				return path_ok(candidate, 0);
		}
		if (!*end)
			return false;
	}
}

static const char *env_real(const char *name)
{
	return getenv(name);
}

/* The shim says what is wrong with the events, once, in the command itself. */
static void quiet(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

void run_handover_open(void)
{
	static char value[HANDOVER_MAX];
	struct config config;

	config_read(&config, env_real, quiet);
	if (config.disabled || config.interval_ns || !fd_room_away())
		return;
	events_parse(config.events, config.sysfs_root, config.tracefs_root, &events, quiet, NULL);
	if (events.nr == 0)
		return;
	if (counters_open_for_exec(&handed, &events) == 0 ||
	    handover_format(&handed, config.events, getpid(), value, sizeof(value)) < 0 ||
	    setenv(HANDOVER_VAR, value, 1) < 0) {
		run_handover_close();
		return;
	}
}

void run_handover_close(void)
{
	counters_close(&handed);
	unsetenv(HANDOVER_VAR);
}
