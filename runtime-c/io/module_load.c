/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-run: the module in and out of the kernel (debugfs mounted, the
 * module inserted with the session's parameters, removed at the end).
 */
#include "stapx-run.h"

/* ------------------------------------------------------------------ */
/* Module loading                                                     */
/* ------------------------------------------------------------------ */

int ensure_debugfs(void)
{
	struct statfs sfs;

	if (statfs(DEBUGFS_PATH, &sfs) == 0 &&
	    (unsigned long)sfs.f_type == DEBUGFS_MAGIC)
		return 0;
	vlog("mounting debugfs on %s", DEBUGFS_PATH);
	if (mount("debugfs", DEBUGFS_PATH, "debugfs", 0, NULL) != 0) {
		fprintf(stderr, "ERROR: Couldn't mount debugfs on %s: %s\n",
			DEBUGFS_PATH, strerror(errno));
		return -1;
	}
	return 0;
}

char *module_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;
	char *name, *p;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 3 && strcmp(base + n - 3, ".ko") == 0)
		n -= 3;
	name = strndup(base, n);
	if (!name)
		return NULL;
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/*
 * The module parameters the daemon always sets (protocol.h): the local
 * time zone now, for tz_gmtoff() and tz_name(), as seconds west of UTC and
 * the zone's name (from TZ or /etc/localtime; UTC without them); and the
 * daemon's real user ID, for is_myproc().
 */
static void session_params(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;
	char name[STPX_TZ_NAME_MAX];
	size_t i, n = 0;
	long gmtoff = 0;

	if (localtime_r(&now, &tm)) {
		/* A name such as "<+0530>" in TZ comes through as "+0530":
		 * keep only characters a module parameter can hold. */
		for (i = 0; tm.tm_zone && tm.tm_zone[i] && n < sizeof(name) - 1; i++)
			if (tm.tm_zone[i] > ' ' && tm.tm_zone[i] < 127 &&
			    tm.tm_zone[i] != '"')
				name[n++] = tm.tm_zone[i];
		gmtoff = -(long)tm.tm_gmtoff;
	}
	name[n] = '\0';
	snprintf(buf, size, "%s=%ld %s=%s %s=%ld", STPX_PARAM_TZ_GMTOFF, gmtoff,
		 STPX_PARAM_TZ_NAME, n ? name : "UTC", STPX_PARAM_USER_UID,
		 (long)getuid());
}

int insert_module(const char *path, const char *name, char **params,
			 int nparams)
{
	char session[192];
	size_t len;
	char *args, *p;
	int fd, i, rc, err;

	session_params(session, sizeof(session));
	len = strlen(session) + 1;
	for (i = 0; i < nparams; i++)
		len += strlen(params[i]) + 1;
	args = malloc(len);
	if (!args) {
		perror("malloc");
		return -1;
	}
	p = stpcpy(args, session);
	for (i = 0; i < nparams; i++) {
		*p++ = ' ';
		p = stpcpy(p, params[i]);
	}
	vlog("module parameters: %s", args);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		rc = -1;
	} else {
		rc = syscall(SYS_finit_module, fd, args, 0);
		err = errno;
		close(fd);
	}
	free(args);
	if (rc != 0) {
		if (err == EEXIST)
			fprintf(stderr, "ERROR: Couldn't insert module '%s': "
				"%s (module '%s' is already loaded)\n",
				path, strerror(err), name);
		else
			fprintf(stderr,
				"ERROR: Couldn't insert module '%s': %s\n",
				path, strerror(err));
		if (err == ENOSYS || err == EPERM)
			fprintf(stderr, "stapx-run: hint: this kernel does not "
				"let us load modules (no CONFIG_MODULES, a "
				"container, or not root); 'stapx --vm' runs "
				"scripts in a QEMU guest instead\n");
		return -1;
	}
	vlog("inserted module '%s' as %s", path, name);
	return 0;
}

int remove_module(const char *name)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0) {
			vlog("removed module %s", name);
			return 0;
		}
		if (errno != EAGAIN && errno != EBUSY && errno != EINTR)
			break;
		usleep(10000);
	}
	fprintf(stderr, "ERROR: Couldn't remove module '%s': %s\n", name,
		strerror(errno));
	return -1;
}
