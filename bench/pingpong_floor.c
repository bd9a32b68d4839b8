// SPDX-License-Identifier: MIT
/*
 * The floor of a ping-pong client on this machine, as minimal C loops: one 64-byte sockperf
 * message in flight against `sockperf server` (UDP, or TCP with TCP_NODELAY), round-trip p50.
 * It separates what an event loop costs from what a load generator adds (bench/pingpong.py
 * runs it beside sockperf and the driver).
 *
 *   pingpong_floor udp|tcp PORT SECONDS recv|timeo|epoll [FILE]
 *
 * recv: block in recv() on the socket; timeo: the same with a receive timeout of 1 ms
 * (SO_RCVTIMEO, set once), as the driver's closed loop with one slot did before its tick
 * (driver/scheduling/pingpong.h); epoll: block in epoll_wait() (no timeout) on the socket, then
 * recv() without blocking, as any event loop (libuv) must. Prints the round-trip p50 in us;
 * with FILE, also writes every round trip there, in ns, one a line (sorted).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "floor.h"

#define X_MSG 64
#define X_MAX 20000000

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	struct epoll_event ev = {.events = EPOLLIN}, e;
	/* a sockperf message: 8-byte sequence, flags "client, pong request", 4-byte size */
	unsigned char m[X_MSG] = {[7] = 1, [9] = 3, [13] = X_MSG}, r[65536];
	uint64_t end, t0, *v;
	size_t n = 0, got;
	struct timeval tv = {.tv_usec = 1000};
	int tcp, use_epoll, fd, ep, one = 1;
	ssize_t k;

	if (argc < 5) {
		fprintf(stderr, "usage: pingpong_floor udp|tcp PORT SECONDS recv|timeo|epoll [FILE]\n");
		return 64;
	}
	tcp = !strcmp(argv[1], "tcp");
	use_epoll = !strcmp(argv[4], "epoll");
	a.sin_port = htons((uint16_t)atoi(argv[2]));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	fd = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	ep = epoll_create1(0);
	v = malloc(X_MAX * sizeof(*v));
	/* only the epoll client's socket is in an epoll set: its callback runs on every reply */
	if (fd < 0 || ep < 0 || !v || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    (use_epoll && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))) {
		perror("pingpong_floor");
		return 1;
	}
	if (tcp)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!strcmp(argv[4], "timeo") && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		perror("SO_RCVTIMEO");
		return 1;
	}
	end = floor_ns(CLOCK_MONOTONIC) + (uint64_t)(strtod(argv[3], NULL) * 1e9);
	while ((t0 = floor_ns(CLOCK_MONOTONIC)) < end && n < X_MAX) {
		m[0]++;
		if (send(fd, m, X_MSG, 0) != X_MSG) {
			perror("send");
			return 1;
		}
		for (got = 0; got < X_MSG; got += tcp ? (size_t)k : k ? X_MSG : 0) {
			if (use_epoll)
				while (epoll_wait(ep, &e, 1, -1) < 1)
					;
			k = recv(fd, r, sizeof(r), use_epoll ? MSG_DONTWAIT : 0);
			if (k < 0 && errno == EAGAIN && !use_epoll) { /* the 1 ms timeout: wait again */
				k = 0;
				continue;
			}
			if (k <= 0) {
				perror("recv");
				return 1;
			}
		}
		v[n++] = floor_ns(CLOCK_MONOTONIC) - t0;
	}
	qsort(v, n, sizeof(*v), floor_cmp);
	printf("%.3f\n", n ? v[n / 2] / 1e3 : 0);
	if (argc > 5) {
		FILE *f = fopen(argv[5], "w");
		size_t i;

		for (i = 0; f && i < n; i++)
			fprintf(f, "%llu\n", (unsigned long long)v[i]);
		if (!f || fclose(f)) {
			perror(argv[5]);
			return 1;
		}
	}
	free(v);
	return 0;
}
