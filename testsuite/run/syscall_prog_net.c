/*
 * syscall_prog_net: socket system calls with fixed arguments: setsockopt
 * and getsockopt at SOL_SOCKET, SOL_IP, SOL_TCP and an unknown level,
 * sendto/recvfrom and sendmsg/recvmsg on an AF_UNIX datagram pair, and
 * sendto a UDP address on the loopback, brought up here and left up as
 * tapset_netdev and tapset_tcp leave it (put down again, it would keep
 * 127.0.0.1 and drop what later tests send there).  Raw syscall() so that
 * libc cannot swap in another call or argument layout.
 * Descriptors: 3 and 4 the pair, 5 the UDP socket, 6 the TCP one.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static int loopback_up(int fd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		return -1;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(fd, SIOCSIFFLAGS, &ifr);
}

int main(void)
{
	int s[2], u, t, v = 65536, tos = 0x10, one = 1;
	socklen_t len = sizeof(v);
	char buf[64];
	struct iovec iov = { "pong!", 5 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct iovec riov = { buf, sizeof(buf) };
	struct msghdr rmsg = { .msg_iov = &riov, .msg_iovlen = 1 };
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(4242) };

	/* Set-up failures show in the test's stdout diff. */
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, s)) {
		printf("set-up: %s: %m\n", "socketpair");
		return 1;
	}
	u = socket(AF_INET, SOCK_DGRAM, 0);
	t = socket(AF_INET, SOCK_STREAM, 0);
	if (s[0] != 3 || u != 5 || t != 6) {
		printf("set-up: descriptors %d %d %d %d, not 3 4 5 6\n", s[0], s[1], u, t);
		return 1;
	}
	if (loopback_up(u)) {
		printf("set-up: %s: %m\n", "loopback up");
		return 1;
	}
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

	syscall(SYS_setsockopt, s[0], SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	syscall(SYS_getsockopt, s[0], SOL_SOCKET, SO_RCVBUF, &v, &len);
	syscall(SYS_setsockopt, u, SOL_IP, IP_TOS, &tos, sizeof(tos));
	syscall(SYS_setsockopt, t, SOL_TCP, TCP_NODELAY, &one, sizeof(one));
	syscall(SYS_getsockopt, t, 999, 1, &v, &len); /* not a level TCP knows: EOPNOTSUPP */

	syscall(SYS_sendto, s[1], "ping", 4, MSG_DONTWAIT, NULL, 0);
	syscall(SYS_recvfrom, s[0], buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT, NULL, NULL);
	syscall(SYS_sendmsg, s[1], &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	syscall(SYS_recvmsg, s[0], &rmsg, MSG_CMSG_CLOEXEC);
	syscall(SYS_recvmsg, s[0], &rmsg, MSG_DONTWAIT);
	syscall(SYS_recvfrom, s[0], buf, sizeof(buf), MSG_DONTWAIT, NULL, NULL); /* EAGAIN */

	syscall(SYS_sendto, u, "udp", 3, 0, &to, sizeof(to));
	return 0;
}
