/*
 * For tapset_env_indent: run with a known environment; opens a marker path
 * (the probe reads the environment then), then reads 2345 bytes of
 * /dev/zero (the probes indent around ksys_read and vfs_read).
 */
#include <fcntl.h>
#include <unistd.h>

int main(void)
{
	static char buf[2345];
	int fd;

	open("/stapx-env-marker", O_RDONLY);
	fd = open("/dev/zero", O_RDONLY);
	return read(fd, buf, sizeof(buf)) == sizeof(buf) ? 0 : 1;
}
