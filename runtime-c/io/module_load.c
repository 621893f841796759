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

/* The ELF machine stapx-run was built for: modules must match it. */
#if defined(__x86_64__)
#define HOST_EM EM_X86_64
#elif defined(__aarch64__)
#define HOST_EM EM_AARCH64
#endif

/*
 * The value of .modinfo's "key=value" string for key in [info, end), or
 * NULL; strings are NUL-separated (padding NULs between them).
 */
static const char *modinfo_get(const char *info, const char *end,
			       const char *key)
{
	size_t klen = strlen(key);
	const char *p = info;

	while (p < end) {
		const char *nul = memchr(p, '\0', end - p);

		if (!nul)
			return NULL;	/* not terminated: not a string */
		if ((size_t)(nul - p) > klen && !memcmp(p, key, klen) &&
		    p[klen] == '=')
			return p + klen + 1;
		p = nul + 1;
	}
	return NULL;
}

/*
 * Refuses (one line on stderr, -1) a file that is not a whole ELF module
 * for this machine, not stapx's (no stapx=VERSION in .modinfo, see
 * protocol.h), of another protocol version, or for another kernel
 * release, before the kernel is asked to load it.
 */
int check_module(const char *path)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *base, *names, *info = NULL, *end = NULL, *v;
	struct utsname un;
	struct stat st;
	size_t size, i, rlen;
	int fd, rc = -1;
	void *map;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "ERROR: Couldn't open module '%s': %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "ERROR: '%s' is not a kernel module (not a "
			"regular file)\n", path);
		close(fd);
		return -1;
	}
	size = st.st_size;
	if (size < sizeof(*eh)) {
		map = NULL;
	} else {
		map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			fprintf(stderr, "ERROR: Couldn't read module '%s': %s\n",
				path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	base = map;
	eh = map;
	if (!map || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
		fprintf(stderr, "ERROR: '%s' is not a kernel module (not an ELF "
			"file)\n", path);
		goto out;
	}
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_type != ET_REL
#ifdef HOST_EM
	    || eh->e_machine != HOST_EM
#endif
	    ) {
		fprintf(stderr, "ERROR: '%s' is not a kernel module for this "
			"machine (ELF class %d, type %d, machine %d)\n", path,
			eh->e_ident[EI_CLASS], eh->e_type, eh->e_machine);
		goto out;
	}
	/* Every header and section within the file: else it was cut short. */
	if (eh->e_shentsize != sizeof(*sh) || eh->e_shoff > size ||
	    eh->e_shnum > (size - eh->e_shoff) / sizeof(*sh) ||
	    eh->e_shstrndx >= eh->e_shnum)
		goto truncated;
	sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type != SHT_NOBITS &&
		    (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset))
			goto truncated;
	names = base + sh[eh->e_shstrndx].sh_offset;
	for (i = 0; i < eh->e_shnum; i++) {
		size_t n = sh[i].sh_name;

		if (n < sh[eh->e_shstrndx].sh_size &&
		    sh[eh->e_shstrndx].sh_size - n > strlen(".modinfo") &&
		    !strcmp(names + n, ".modinfo")) {
			info = base + sh[i].sh_offset;
			end = info + sh[i].sh_size;
		}
	}
	if (!info) {
		fprintf(stderr, "ERROR: '%s' is not a kernel module (no .modinfo "
			"section)\n", path);
		goto out;
	}
	v = modinfo_get(info, end, STPX_MODINFO_TAG);
	if (!v) {
		fprintf(stderr, "ERROR: '%s' is not a stapx module (no %s= in its "
			".modinfo): stapx-run loads only modules stapx built\n",
			path, STPX_MODINFO_TAG);
		goto out;
	}
	if (strcmp(v, STPX_PROTOCOL_VERSION) != 0) {
		fprintf(stderr, "ERROR: '%s' speaks stapx protocol %s, this "
			"stapx-run %s: build it again with the stapx of this "
			"stapx-run\n", path, v, STPX_PROTOCOL_VERSION);
		goto out;
	}
	v = modinfo_get(info, end, "vermagic");
	if (uname(&un) == 0 && v) {
		rlen = strcspn(v, " ");
		if (rlen != strlen(un.release) || memcmp(v, un.release, rlen)) {
			fprintf(stderr, "ERROR: module release mismatch (%.*s vs "
				"%s): build '%s' again for this kernel "
				"(stapx -r %s)\n", (int)rlen, v, un.release, path,
				un.release);
			goto out;
		}
	}
	rc = 0;
	goto out;
truncated:
	fprintf(stderr, "ERROR: '%s' is truncated or corrupt (%zu bytes; its "
		"ELF headers point past the end)\n", path, size);
out:
	if (map)
		munmap(map, size);
	return rc;
}

/*
 * What the module said in the kernel log while its init failed (records
 * after kmsg's position when the load began): its "NAME: ERROR: ..." and
 * "NAME: WARNING: ..." lines, to stderr without the prefix, so that "the
 * script needs ... at load" is read where the failure is. Nothing if
 * /dev/kmsg cannot be read.
 */
static void print_init_messages(int kmsg, const char *name)
{
	char rec[2048];
	size_t nlen = strlen(name);
	ssize_t n;

	if (kmsg < 0)
		return;
	/* One record per read: "PRI,SEQ,TS,FLAGS;TEXT\n", then any
	 * " KEY=VALUE" continuation lines. */
	while ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		char *text, *nl;

		if (n <= 0)
			continue;	/* (EPIPE: records were overwritten) */
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		nl = strchr(text, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(text, name, nlen) || strncmp(text + nlen, ": ", 2))
			continue;
		/* (Not the kernel's own "loading out-of-tree module ...".) */
		text += nlen + 2;
		if (!strncmp(text, "ERROR: ", 7) || !strncmp(text, "WARNING: ", 9))
			fprintf(stderr, "%s\n", text);
		/* A NAME=VALUE the kernel refused: "`seven' invalid for
		 * parameter `n'". */
		else if (strstr(text, " invalid for parameter "))
			fprintf(stderr, "ERROR: %s\n", text);
	}
}

int insert_module(const char *path, const char *name, char **params,
			 int nparams)
{
	char session[192];
	size_t len;
	char *args, *p;
	int fd, i, rc, err, kmsg;

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

	/* From here on, the kernel log is the module's to explain a failure. */
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
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
	if (rc != 0)
		print_init_messages(kmsg, name);
	if (kmsg >= 0)
		close(kmsg);
	if (rc != 0) {
		if (err == EEXIST)
			fprintf(stderr, "ERROR: Couldn't insert module '%s': "
				"%s (module '%s' is already loaded)\n",
				path, strerror(err), name);
		else
			fprintf(stderr,
				"ERROR: Couldn't insert module '%s': %s\n",
				path, strerror(err));
		if (err == EKEYREJECTED || err == ENOKEY)
			fprintf(stderr, "stapx-run: hint: this kernel loads only "
				"modules signed with a key it trusts (Secure "
				"Boot or module.sig_enforce=1): build with "
				"'stapx --sign-module' and enroll its "
				"certificate with mokutil\n");
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
