// SPDX-License-Identifier: GPL-2.0-only
/*
 * starver - an unprivileged user that gets its own AF_ALG submitters
 * preempted in the middle of gpu_aes's copy-in and keeps them off the
 * CPU there.
 *
 *   starver [--cpu C] [--submitters N] [--holders K] [--hold MS]
 *           [--gap MS] [--len LEN] SECONDS READY
 *
 * As root it binds an AF_ALG ctr(aes) tfm (on whatever driver the crypto
 * API picks: gpu_aes while loaded), then drops to uid/gid 65534 for good
 * and pins itself to CPU C.  N submitting threads run SCHED_IDLE there,
 * each sending LEN-byte requests one after the other, beside K threads at
 * normal priority that sleep GAP ms, then spin HOLD ms, over and over.  A
 * normal task that wakes preempts a SCHED_IDLE one at once, wherever it
 * is: on a fully preemptible kernel, often in the middle of the ring's
 * copy of its request, holding a reserved tag that no deadline covers;
 * the spinning then keeps it there for HOLD ms.  Everything a local user
 * may do; no privilege is kept.
 *
 * Writes READY once a first request completed, then runs for SECONDS (or
 * until SIGTERM) and prints "stat requests=N max_ms=M": how many requests
 * its submitters got through and the longest one (they are the starved
 * ones).  Exits 1 if setting itself up failed.
 */
#define _GNU_SOURCE	/* sched_setaffinity, CPU_SET */
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/uio.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>

#include "alg.h"

#define MAX_LEN		(1U << 16)	/* AF_ALG's 16 pages */
#define MAX_THREADS	16U

static volatile sig_atomic_t stop;
static unsigned int len = MAX_LEN;
static int tfm;
static const char *ready_path;
static unsigned long requests;	/* atomic */
static double worst_ms;		/* under worst_lock */
static pthread_mutex_t worst_lock = PTHREAD_MUTEX_INITIALIZER;
static int ready_done;		/* atomic */

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

static unsigned int hold_ms = 1500, gap_ms = 20;

static void *holder(void *arg)
{
	struct timespec gap = { gap_ms / 1000, (long)(gap_ms % 1000) * 1000000 };
	volatile unsigned long n = 0;
	double until;

	(void)arg;
	while (!stop) {
		nanosleep(&gap, NULL);
		for (until = now_ms() + hold_ms; !stop && now_ms() < until;)
			n++;
	}
	return NULL;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/*
 * One request whose input is spliced from the caller's pages rather than
 * copied by sendmsg(), so what the thread spends in the kernel is mostly
 * the ring's copies in and out: it is preempted there more often.
 * 0 or -errno.
 */
static int op_spliced(const uint8_t *iv, uint8_t *in, uint8_t *out)
{
	struct iovec iov = { in, len };
	struct msghdr msg = { 0 };
	char cbuf[ALG_CBUF];
	int op, p[2], err = 0;
	ssize_t n;

	op = accept(tfm, NULL, NULL);
	if (op < 0)
		return -errno;
	if (pipe(p)) {
		err = -errno;
		close(op);
		return err;
	}
	alg_cmsg(&msg, cbuf, 1, iv);
	errno = 0;
	if (sendmsg(op, &msg, MSG_MORE) < 0 ||
	    vmsplice(p[1], &iov, 1, SPLICE_F_GIFT) != (ssize_t)len ||
	    splice(p[0], NULL, op, NULL, len, 0) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	if (!err) {
		n = read(op, out, len);
		if (n != (ssize_t)len)
			err = n < 0 ? -errno : -EIO;
	}
	close(p[0]);
	close(p[1]);
	close(op);
	return err;
}

static void *submit(void *arg)
{
	/* Page-aligned: 16 pages fill the pipe vmsplice() goes through. */
	static uint8_t in[MAX_THREADS][MAX_LEN] __attribute__((aligned(4096)));
	static uint8_t out[MAX_THREADS][MAX_LEN];
	unsigned int me = (unsigned int)(uintptr_t)arg;
	struct sched_param sp = { 0 };
	uint8_t iv[16] = { (uint8_t)me };
	uint64_t seed = 42 + me;
	double t0, t;
	FILE *f;
	int err;

	rnd_fill(&seed, in[me], len);
	/* Any user may lower its own thread's class. */
	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		die("starver: SCHED_IDLE");
	for (t = now_ms(); !stop;) {
		iv[15]++;
		err = op_spliced(iv, in[me], out[me]);
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
	pthread_t tid[2 * MAX_THREADS];
	struct sigaction sa = { 0 };
	struct timespec ts = { 0, 100000000 };
	uint64_t seed = 42;
	uint8_t key[16];
	unsigned int i, n = 0;
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
		else if (!strcmp(argv[1], "--len"))
			len = number(argv[2], MAX_LEN);
		else
			break;
		argc -= 2;
		argv += 2;
	}
	if (argc != 3 || !len || !submitters) {
		fprintf(stderr,
			"usage: starver [--cpu C] [--submitters N] [--holders K] [--hold MS]\n"
			"               [--gap MS] [--len LEN] SECONDS READY\n");
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
	printf("stat requests=%lu max_ms=%.0f\n",
	       __atomic_load_n(&requests, __ATOMIC_RELAXED), worst_ms);
	pthread_mutex_unlock(&worst_lock);
	fflush(stdout);
	_exit(0);
}
