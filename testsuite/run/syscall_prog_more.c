/*
 * syscall_prog_more: system calls busybox never makes, with fixed
 * arguments, for the aliases added for stap parity: scheduling queries,
 * getcpu, unshare/setns, membarrier, ioprio, personality, System V
 * message queues, a POSIX timer, utime/utimes and setresuid with "no
 * change".  Raw syscall() so that libc cannot swap in another call.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

int main(void)
{
	struct sched_param sp;
	unsigned cpu, node;
	struct utimbuf ut = { 1000, 2000 };
	struct timeval tv[2] = { { 3, 4 }, { 5, 6 } };
	timer_t timer;
	int q;

	syscall(SYS_sched_getscheduler, 0);
	syscall(SYS_sched_getparam, 0, &sp);
	syscall(SYS_sched_get_priority_max, SCHED_FIFO);
	syscall(SYS_getcpu, &cpu, &node, NULL);
	syscall(SYS_unshare, CLONE_NEWUTS);
	syscall(SYS_setns, -1, CLONE_NEWNET); /* EBADF */
	syscall(SYS_membarrier, 0, 0);
	syscall(SYS_ioprio_get, 1, 0);
	syscall(SYS_personality, 0xffffffff);
	q = syscall(SYS_msgget, IPC_PRIVATE, IPC_CREAT | 0600);
	syscall(SYS_msgctl, q, IPC_RMID, NULL);
	syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &timer);
	syscall(SYS_timer_delete, timer);
	close(open("stapx-more", O_CREAT | O_WRONLY, 0644));
	syscall(SYS_utime, "stapx-more", &ut);
	syscall(SYS_utimes, "stapx-more", tv);
	syscall(SYS_setresuid, -1, -1, -1);
	unlink("stapx-more");
	return 0;
}
