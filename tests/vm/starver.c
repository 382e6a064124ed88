// SPDX-License-Identifier: GPL-2.0-only
/*
 * starver - an unprivileged user that gets its own AF_ALG submitters
 * preempted in the middle of gpu_aes's copy-in and keeps them off the
 * CPU there.
 *
 *   starver [--cpu C] [--submitters N] [--holders K] [--hold MS]
 *           [--gap MS] [--triggered T] [--trigger-hold MS]
 *           [--trigger-window US] [--len LEN] SECONDS READY
 *
 * As root it binds an AF_ALG ctr(aes) tfm (on whatever driver the crypto
 * API picks: gpu_aes while loaded), then drops to uid/gid 65534 for good
 * and pins itself to CPU C.  N submitting threads run SCHED_IDLE there,
 * each sending LEN-byte requests one after the other.  A normal task that
 * wakes preempts a SCHED_IDLE one at once, wherever it is: on a fully
 * preemptible kernel, in the middle of the ring's copy of its request if
 * it wakes then, holding a reserved tag that no deadline covers.  Two
 * kinds of normal-priority threads wake beside them:
 *
 *  - K holders sleep GAP ms, then spin HOLD ms, over and over: a
 *    wake-up at a random point of the submitters' work;
 *  - for each submitter, T triggered threads wait on a timer that the
 *    submitter arms, just before each request enters the kernel, for a
 *    random delay of up to WINDOW us, and spin TRIGGER-HOLD ms when it
 *    fires: a wake-up aimed at the copy.  The time a request takes to
 *    reach its copy and the copy itself are a fraction of a millisecond,
 *    so a wake-up at a random moment (the holders') rarely lands there,
 *    and how long the preempted thread then stays off the CPU is the
 *    scheduler's (6.1's CFS places each woken thread at most half a
 *    scheduling latency, a few ms, ahead of it: hence several wake at
 *    once).
 *
 * Input is spliced from the caller's pages, not copied by sendmsg(), and
 * each submitter keeps one request socket, so what a submitter spends in
 * the kernel is mostly the ring's copies.  Everything a local user may do;
 * no privilege is kept.
 *
 * Writes READY once a first request completed, then runs for SECONDS (or
 * until SIGTERM) and prints "stat requests=N max_ms=M triggers=F": how
 * many requests its submitters got through, the longest one (they are
 * the starved ones) and how many of the timers fired (the others were
 * disarmed when their request came back first).  Exits 1 if setting
 * itself up failed.
 */
#define _GNU_SOURCE	/* sched_setaffinity, CPU_SET */
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>

#include "alg.h"

/* Within what an unprivileged SO_SNDBUF and SO_RCVBUF allow. */
#define MAX_LEN		(3U << 16)
#define PIPE_LEN	(1U << 16)	/* a pipe's 16 pages a splice */
#define MAX_THREADS	16U
#define MAX_TRIGGERED	8U

static volatile sig_atomic_t stop;
static unsigned int len = MAX_LEN;
static int tfm;
static const char *ready_path;
static unsigned long requests;	/* atomic */
static double worst_ms;		/* under worst_lock */
static pthread_mutex_t worst_lock = PTHREAD_MUTEX_INITIALIZER;
static int ready_done;		/* atomic */
static unsigned long triggers;	/* atomic */
static unsigned int triggered, trigger_hold_ms = 50, window_us = 1000;
static int timer_fd[MAX_THREADS];

static unsigned int number(const char *s, unsigned int max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > max) {
		fprintf(stderr, "starver: bad number '%s' (max %u)\n", s, max);
		exit(2);
	}
	return (unsigned int)v;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static unsigned int hold_ms = 1500, gap_ms = 20;

static void spin_ms(unsigned int ms)
{
	volatile unsigned long n = 0;
	double until;

	for (until = now_ms() + ms; !stop && now_ms() < until;)
		n++;
}

static void *holder(void *arg)
{
	struct timespec gap = { gap_ms / 1000, (long)(gap_ms % 1000) * 1000000 };

	(void)arg;
	while (!stop) {
		nanosleep(&gap, NULL);
		spin_ms(hold_ms);
	}
	return NULL;
}

/*
 * Woken, with the others on the same timer, when it fires: poll()'s wait
 * is not exclusive.  The scheduler credits each woken thread with a
 * little CPU time ahead of the submitter it preempted, and the credits
 * add up.  One of them counts the expiry; all spin.
 */
static void *triggered_holder(void *arg)
{
	int fd = timer_fd[(uintptr_t)arg];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t expiries;

	while (!stop) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (read(fd, &expiries, sizeof(expiries)) == sizeof(expiries))
			__atomic_add_fetch(&triggers, 1, __ATOMIC_RELAXED);
		spin_ms(trigger_hold_ms);
	}
	return NULL;
}

static void arm(unsigned int me, uint64_t *seed, bool on)
{
	struct itimerspec it = { 0 };

	if (!triggered)
		return;
	if (on)
		it.it_value.tv_nsec = 1000L * (long)(1 + rnd(seed) % window_us);
	if (timerfd_settime(timer_fd[me], 0, &it, NULL))
		die("starver: timerfd_settime");
}

/*
 * One request on the submitter's socket @op, its input spliced through
 * the pipe @p in pieces of a pipe's size; the trigger armed just before
 * the read that submits it.  0 or -errno.
 */
static int op_spliced(int op, const int p[2], unsigned int me, uint64_t *seed,
		      const uint8_t *iv, uint8_t *in, uint8_t *out)
{
	struct msghdr msg = { 0 };
	char cbuf[ALG_CBUF];
	unsigned int off, n;
	struct iovec iov;
	ssize_t got;

	alg_cmsg(&msg, cbuf, 1, iv);
	if (sendmsg(op, &msg, MSG_MORE) < 0)
		return -errno;
	for (off = 0; off < len; off += n) {
		n = len - off < PIPE_LEN ? len - off : PIPE_LEN;
		iov.iov_base = in + off;
		iov.iov_len = n;
		errno = 0;
		if (vmsplice(p[1], &iov, 1, SPLICE_F_GIFT) != (ssize_t)n ||
		    splice(p[0], NULL, op, NULL, n,
			   off + n < len ? SPLICE_F_MORE : 0) != (ssize_t)n)
			return errno ? -errno : -EIO;
	}
	arm(me, seed, true);
	got = read(op, out, len);
	arm(me, seed, false);
	if (got != (ssize_t)len)
		return got < 0 ? -errno : -EIO;
	return 0;
}

static void *submit(void *arg)
{
	/* Page-aligned: 16 pages fill the pipe vmsplice() goes through. */
	static uint8_t in[MAX_THREADS][MAX_LEN] __attribute__((aligned(4096)));
	static uint8_t out[MAX_THREADS][MAX_LEN];
	unsigned int me = (unsigned int)(uintptr_t)arg;
	struct sched_param sp = { 0 };
	int op, p[2], sz = 2 * MAX_LEN;
	uint8_t iv[16] = { (uint8_t)me };
	uint64_t seed = 42 + me;
	double t0, t;
	FILE *f;
	int err;

	rnd_fill(&seed, in[me], len);
	op = accept(tfm, NULL, NULL);
	if (op < 0 || pipe(p))
		die("starver: request socket");
	/* Capped at wmem_max and rmem_max (208 KiB by default), doubled. */
	if (setsockopt(op, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)) ||
	    setsockopt(op, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz)))
		die("starver: socket buffers");
	/* Any user may lower its own thread's class. */
	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		die("starver: SCHED_IDLE");
	for (t = now_ms(); !stop;) {
		iv[15]++;
		err = op_spliced(op, p, me, &seed, iv, in[me], out[me]);
		if (err) {
			errno = -err;
			die("starver: request");
		}
		t0 = t;
		t = now_ms();
		__atomic_add_fetch(&requests, 1, __ATOMIC_RELAXED);
		pthread_mutex_lock(&worst_lock);
		if (t - t0 > worst_ms)
			worst_ms = t - t0;
		pthread_mutex_unlock(&worst_lock);
		if (__atomic_exchange_n(&ready_done, 1, __ATOMIC_ACQ_REL))
			continue;
		f = fopen(ready_path, "w");
		if (!f || fprintf(f, "%u\n", getpid()) < 0 || fclose(f))
			die("starver: writing the ready file");
	}
	return NULL;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	unsigned int cpu = 1, submitters = 1, holders = 1, seconds;
	static pthread_t tid[MAX_THREADS * (2 + MAX_TRIGGERED)];
	struct sigaction sa = { 0 };
	struct timespec ts = { 0, 100000000 };
	uint64_t seed = 42;
	uint8_t key[16];
	unsigned int i, k, n = 0;
	double end;
	cpu_set_t set;

	while (argc > 3 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--cpu"))
			cpu = number(argv[2], 1023);
		else if (!strcmp(argv[1], "--submitters"))
			submitters = number(argv[2], MAX_THREADS);
		else if (!strcmp(argv[1], "--holders"))
			holders = number(argv[2], MAX_THREADS);
		else if (!strcmp(argv[1], "--hold"))
			hold_ms = number(argv[2], 60000);
		else if (!strcmp(argv[1], "--gap"))
			gap_ms = number(argv[2], 60000);
		else if (!strcmp(argv[1], "--triggered"))
			triggered = number(argv[2], MAX_TRIGGERED);
		else if (!strcmp(argv[1], "--trigger-hold"))
			trigger_hold_ms = number(argv[2], 60000);
		else if (!strcmp(argv[1], "--trigger-window"))
			window_us = number(argv[2], 999999);
		else if (!strcmp(argv[1], "--len"))
			len = number(argv[2], MAX_LEN);
		else
			break;
		argc -= 2;
		argv += 2;
	}
	if (argc != 3 || !len || !submitters || !window_us) {
		fprintf(stderr,
			"usage: starver [--cpu C] [--submitters N] [--holders K] [--hold MS]\n"
			"               [--gap MS] [--triggered T] [--trigger-hold MS]\n"
			"               [--trigger-window US] [--len LEN] SECONDS READY\n");
		return 2;
	}
	seconds = number(argv[1], 3600);
	ready_path = argv[2];

	rnd_fill(&seed, key, sizeof(key));
	tfm = alg_tfm("ctr(aes)", key, sizeof(key));
	if (tfm < 0) {
		errno = -tfm;
		die("starver: AF_ALG ctr(aes)");
	}
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		die("starver: dropping to uid 65534");
	if (!setuid(0)) {
		fprintf(stderr, "starver: still able to become root\n");
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("starver: pinning to the CPU");
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < holders; i++)
		if (pthread_create(&tid[n++], NULL, holder, NULL))
			die("starver: holder");
	for (i = 0; triggered && i < submitters; i++) {
		timer_fd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		if (timer_fd[i] < 0)
			die("starver: timerfd_create");
		for (k = 0; k < triggered; k++)
			if (pthread_create(&tid[n++], NULL, triggered_holder,
					   (void *)(uintptr_t)i))
				die("starver: triggered holder");
	}
	for (i = 0; i < submitters; i++)
		if (pthread_create(&tid[n++], NULL, submit,
				   (void *)(uintptr_t)i))
			die("starver: submitter");
	/* The main thread only keeps time, SCHED_IDLE too: it takes nothing. */
	sched_setscheduler(0, SCHED_IDLE, &(struct sched_param){ 0 });
	for (end = now_ms() + seconds * 1e3; !stop && now_ms() < end;)
		nanosleep(&ts, NULL);
	stop = 1;
	/* Submitters may sit starved in the kernel: exit does not wait. */
	pthread_mutex_lock(&worst_lock);
	printf("stat requests=%lu max_ms=%.0f triggers=%lu\n",
	       __atomic_load_n(&requests, __ATOMIC_RELAXED), worst_ms,
	       __atomic_load_n(&triggers, __ATOMIC_RELAXED));
	pthread_mutex_unlock(&worst_lock);
	fflush(stdout);
	_exit(0);
}
