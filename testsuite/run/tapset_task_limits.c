/* tapset_task_limits.stp's program: sets every resource limit to a soft
 * value of 1000 + its number and a hard one of 2000 + its number, except
 * RLIMIT_RSS, unlimited both; then lseek(-1, 0x11517, SEEK_SET) for the
 * probe, and exits. Nothing it does after setting the limits allocates,
 * maps or writes a file, so the small limits do not get in its way. */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

int main(void)
{
	struct rlimit r;
	int i;

	for (i = 0; i < RLIM_NLIMITS; i++) {
		r.rlim_cur = i == RLIMIT_RSS ? RLIM_INFINITY : 1000 + i;
		r.rlim_max = i == RLIMIT_RSS ? RLIM_INFINITY : 2000 + i;
		if (setrlimit(i, &r)) {
			perror("setrlimit");
			return 1;
		}
	}
	lseek(-1, 0x11517, SEEK_SET);
	return 0;
}
