/* The program process_thread_exit.stp watches: 32 threads that are
 * still running when the main thread calls exit(), which kills them all. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS 32

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;
static int running;

static void *thread_main(void *arg)
{
	pthread_mutex_lock(&lock);
	running++;
	pthread_cond_signal(&started);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
	return arg;
}

int main(void)
{
	pthread_t t;
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_create(&t, NULL, thread_main, NULL);
	pthread_mutex_lock(&lock);
	while (running < THREADS)
		pthread_cond_wait(&started, &lock);
	pthread_mutex_unlock(&lock);
	exit(0);
}
