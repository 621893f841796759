/* The program process_events.stp watches: it forks a child that exits,
 * and starts a thread that ends, then exits itself. */
#include <dirent.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static void *thread_main(void *arg)
{
	return arg;
}

/* The threads of this process (entries of /proc/self/task). */
static int thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int main(void)
{
	pthread_t t;
	pid_t child = fork();

	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);
	/*
	 * pthread_join returns as the thread leaves its memory, before the
	 * kernel reports its exit; the thread is gone from /proc once the
	 * kernel has reaped it, after that report. Our own end comes next.
	 */
	while (thread_count() > 1)
		;
	return 0;
}
