/* The program process_events.stp watches: it forks a child that exits,
 * and starts a thread that ends, then exits itself. */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static void *thread_main(void *arg)
{
	return arg;
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
	return 0;
}
