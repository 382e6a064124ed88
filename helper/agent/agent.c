// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpu-aes-guest-agent: in a qemu guest, attaches a region to the guest's
 * gpu_aes.ko as a helper would, and lets gpu-aes-helper on the host serve
 * it out of the guest's RAM (helper/src/guest_proto.h): tells the host
 * which guest pages hold the region, forwards the module's doorbells, and
 * hands the host's completions to the module (GPU_AES_IOC_COMPLETE).
 *
 * The host is untrusted for the module as a local helper is; what this
 * agent adds is one duty: the region's pages must stay the region's while
 * the host may write them.  The kernel holds them pinned while
 * /dev/gpu_aes is open, so the device is opened by the parent and a child
 * serves each session on it: if the child dies, the parent keeps the
 * device open until the host says it unmapped the pages (RELEASED) or is
 * gone (the port hangs up), and only then closes it, which lets the
 * kernel recompute what was left and unpin.  Meanwhile the module's
 * deadlines send requests to its CPU path, as for a stalled helper.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/guest_proto.h"
#include "../src/log.h"
#include "../src/region.h"

/* Exit statuses of a session's child; the parent's are in usage(). */
enum {
	SESSION_FREE = 0,	/* the host maps none of the region */
	SESSION_HELD = 1,	/* it may: release before closing */
};

#define IN_MAX		(2 * GPU_AES_GUEST_MSG_MAX)
#define HELLO_EVERY_MS	1000
#define RELEASE_WAIT_MS	10000

static volatile sig_atomic_t g_stop;
static pid_t g_child;

struct agent {
	int port;		/* the virtio-serial port, both processes */
	int dev;		/* /dev/gpu_aes, opened by the parent */
	uint64_t session;
	uint8_t in[IN_MAX];
	size_t in_len;
	/* Counts, for the log: what crossed the port this session. */
	unsigned long long doorbells, completes, reaps, arms;
};

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
	if (g_child > 0)
		kill(g_child, SIGTERM);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One message, one write(): virtio_console sends it whole or not at all. */
static int send_msg(struct agent *a, uint16_t type, const void *p, size_t len)
{
	uint8_t buf[GPU_AES_GUEST_MSG_MAX];
	struct gpu_aes_guest_hdr h = {
		.magic = GPU_AES_GUEST_MAGIC, .type = type,
		.len = (uint16_t)len, .session = a->session,
	};
	ssize_t n;

	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), p, len);
	do
		n = write(a->port, buf, sizeof(h) + len);
	while (n < 0 && errno == EINTR && !g_stop);
	if (n != (ssize_t)(sizeof(h) + len))
		return n < 0 ? -errno : -EIO;
	return 0;
}

static size_t host_payload(uint16_t type)
{
	switch (type) {
	case GPU_AES_GUEST_SETUP:
		return sizeof(struct gpu_aes_setup);
	case GPU_AES_GUEST_READY:
	case GPU_AES_GUEST_ARM:
	case GPU_AES_GUEST_RELEASED:
		return 0;
	case GPU_AES_GUEST_COMPLETE:
		return sizeof(struct gpu_aes_guest_complete);
	case GPU_AES_GUEST_ERROR:
		return sizeof(int32_t);
	}
	return SIZE_MAX;
}

/*
 * The next whole message of this session from the host; bytes that start
 * none are skipped, messages of other sessions dropped.  1 with *h and
 * *p set until consume(), else 0.
 */
static int next_msg(struct agent *a, struct gpu_aes_guest_hdr *h,
		    const uint8_t **p)
{
	for (;;) {
		size_t skip = 0;
		int found = 0;

		while (a->in_len - skip >= sizeof(*h)) {
			memcpy(h, a->in + skip, sizeof(*h));
			if (h->magic == GPU_AES_GUEST_MAGIC &&
			    host_payload(h->type) == h->len) {
				found = a->in_len - skip >= sizeof(*h) + h->len;
				break;
			}
			skip++;
		}
		memmove(a->in, a->in + skip, a->in_len - skip);
		a->in_len -= skip;
		if (!found)
			return 0;
		if (h->session == a->session) {
			*p = a->in + sizeof(*h);
			return 1;
		}
		memmove(a->in, a->in + sizeof(*h) + h->len,
			a->in_len - sizeof(*h) - h->len);
		a->in_len -= sizeof(*h) + h->len;
	}
}

static void consume(struct agent *a, const struct gpu_aes_guest_hdr *h)
{
	size_t n = sizeof(*h) + h->len;

	memmove(a->in, a->in + n, a->in_len - n);
	a->in_len -= n;
}

/*
 * Waits up to @ms for the host (-1: no limit), watching the device too
 * when @dev_events is POLLIN.  Returns the device's revents, or -EPIPE
 * when the host is not connected, -EINTR when asked to stop.
 */
static int wait_host(struct agent *a, short dev_events, int ms)
{
	struct pollfd pfd[2] = {
		{ .fd = a->port, .events = POLLIN },
		{ .fd = a->dev, .events = dev_events },
	};

	if (poll(pfd, dev_events ? 2 : 1, ms) < 0)
		return errno == EINTR ? (g_stop ? -EINTR : 0) : -errno;
	if (pfd[0].revents & POLLIN && a->in_len < sizeof(a->in)) {
		ssize_t n = read(a->port, a->in + a->in_len, sizeof(a->in) - a->in_len);
		if (n > 0)
			a->in_len += (size_t)n;
	}
	/* The host's end is closed: nothing there maps our pages. */
	if (pfd[0].revents & POLLHUP && !(pfd[0].revents & POLLIN))
		return -EPIPE;
	return dev_events ? pfd[1].revents : 0;
}

/*
 * The guest frame of every page of [base, base + size), as runs, sent as
 * PAGES messages.  /proc/self/pagemap shows frames to CAP_SYS_ADMIN only.
 */
static int send_pages(struct agent *a, const uint8_t *base, size_t size,
		      size_t page)
{
	uint8_t msg[GPU_AES_GUEST_MSG_MAX];
	struct gpu_aes_guest_pages *ph = (struct gpu_aes_guest_pages *)msg;
	struct gpu_aes_guest_run *runs = (struct gpu_aes_guest_run *)(ph + 1);
	uint32_t nr = (uint32_t)(size / page), i, first = 0, nruns = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	memset(msg, 0, sizeof(msg));
	for (i = 0; i < nr && !err; i++) {
		uint64_t e, vpn = (uint64_t)(uintptr_t)(base + (size_t)i * page) /
				  page, gfn;

		if (pread(fd, &e, sizeof(e), (off_t)(vpn * sizeof(e))) !=
		    sizeof(e)) {
			err = -EIO;
			break;
		}
		gfn = e & ((1ULL << 55) - 1);
		if (!(e >> 63) || !gfn) {
			log_err("no guest frame for page %u of the region (pagemap 0x%llx): run as root",
				i, (unsigned long long)e);
			err = -EPERM;
			break;
		}
		if (nruns && runs[nruns - 1].gfn + runs[nruns - 1].count == gfn) {
			runs[nruns - 1].count++;
		} else {
			if (nruns == GPU_AES_GUEST_RUNS_MAX) {
				ph->region_size = size;
				ph->first = first;
				ph->nr_runs = nruns;
				err = send_msg(a, GPU_AES_GUEST_PAGES, msg,
					       sizeof(*ph) + nruns * sizeof(*runs));
				first = i;
				nruns = 0;
			}
			runs[nruns].gfn = gfn;
			runs[nruns].count = 1;
			nruns++;
		}
	}
	close(fd);
	if (!err && nruns) {
		ph->region_size = size;
		ph->first = first;
		ph->nr_runs = nruns;
		err = send_msg(a, GPU_AES_GUEST_PAGES, msg,
			       sizeof(*ph) + nruns * sizeof(*runs));
	}
	return err;
}

/* SETUP as the host asked, with our memory.  0 or -errno (logged). */
static int attach(struct agent *a, const struct gpu_aes_setup *want,
		  struct gpu_aes_region *r)
{
	struct gpu_aes_setup s = *want;
	enum gpu_aes_region_pages pages;
	int err;

	/* The host's geometry is checked by the ABI's rule, then the kernel's. */
	err = gpu_aes_region_alloc(&s.geo, r, &pages);
	if (err) {
		log_err("cannot allocate the region the host asked for: %s",
			strerror(-err));
		return err;
	}
	s.region_addr = (uint64_t)(uintptr_t)r->base;
	s.region_size = r->size;
	if (ioctl(a->dev, GPU_AES_IOC_SETUP, &s) < 0) {
		err = -errno;
		log_err("GPU_AES_IOC_SETUP: %s", strerror(errno));
		return err;
	}
	log_info("attached a %zu-byte region (%u queues, %s)", r->size,
		 r->nr_queues, pages == GPU_AES_PAGES_SMALL ? "base pages" :
		 "huge pages");
	return send_pages(a, r->base, r->size, r->page_size);
}

/* COMPLETE: reap the queues named, one call for several. */
static void reap(struct agent *a, const uint8_t *p, uint32_t nr_queues)
{
	struct gpu_aes_guest_complete c;
	uint32_t q, n = 0, one = 0;

	memcpy(&c, p, sizeof(c));
	for (q = 0; q < nr_queues; q++)
		if (c.queues[q / 64] >> (q % 64) & 1) {
			n++;
			one = q;
		}
	a->completes++;
	if (!n)
		return;
	a->reaps++;
	while (ioctl(a->dev, GPU_AES_IOC_COMPLETE,
		     (unsigned long)(n == 1 ? one : GPU_AES_ALL_QUEUES)) < 0 &&
	       errno == EINTR)
		;
}

/* The served session: doorbells out, completions in, until it ends. */
static int serve(struct agent *a, uint32_t nr_queues)
{
	int armed = 0, releasing = 0;
	int64_t release_at = 0;

	for (;;) {
		struct gpu_aes_guest_hdr h;
		const uint8_t *p;
		int rev;

		while (next_msg(a, &h, &p)) {
			switch (h.type) {
			case GPU_AES_GUEST_ARM:
				armed = 1;
				a->arms++;
				break;
			case GPU_AES_GUEST_COMPLETE:
				reap(a, p, nr_queues);
				break;
			case GPU_AES_GUEST_RELEASED:
				log_info("the host released the region");
				return SESSION_FREE;
			case GPU_AES_GUEST_ERROR:
				log_err("the host ended the session");
				return SESSION_HELD;
			}
			consume(a, &h);
		}
		if (g_stop && !releasing) {
			releasing = 1;
			release_at = now_ms();
			send_msg(a, GPU_AES_GUEST_RELEASE, NULL, 0);
		}
		if (releasing && now_ms() - release_at > RELEASE_WAIT_MS)
			return SESSION_HELD;
		rev = wait_host(a, armed && !releasing ? POLLIN : 0,
				releasing ? 100 : -1);
		if (rev == -EPIPE) {
			log_info("the host is gone");
			return SESSION_FREE;
		}
		if (rev > 0 && rev & POLLIN) {
			armed = 0;
			a->doorbells++;
			if (send_msg(a, GPU_AES_GUEST_DOORBELL, NULL, 0))
				return SESSION_HELD;
		}
	}
}

/* One session, in the child: HELLO, SETUP, PAGES, serve. */
static int session(struct agent *a, const struct gpu_aes_info *info)
{
	struct gpu_aes_region r;
	int64_t hello_at = 0;
	int held = 0, rc;

	memset(&r, 0, sizeof(r));
	for (;;) {
		struct gpu_aes_guest_hdr h;
		const uint8_t *p;
		int err;

		if (g_stop)
			return held ? SESSION_HELD : SESSION_FREE;
		while (next_msg(a, &h, &p)) {
			if (h.type == GPU_AES_GUEST_ERROR) {
				int32_t e;

				memcpy(&e, p, sizeof(e));
				log_err("the host refused this guest: %s",
					e > 0 ? strerror(e) : "unknown error");
				return held ? SESSION_HELD : SESSION_FREE;
			}
			if (h.type == GPU_AES_GUEST_RELEASED)
				return SESSION_FREE;
			if (h.type == GPU_AES_GUEST_SETUP && !held) {
				struct gpu_aes_setup want;

				memcpy(&want, p, sizeof(want));
				consume(a, &h);
				held = 1;
				err = attach(a, &want, &r);
				if (err) {
					int32_t e = -err;

					send_msg(a, GPU_AES_GUEST_ERROR, &e,
						 sizeof(e));
					return SESSION_HELD;
				}
				continue;
			}
			if (h.type == GPU_AES_GUEST_READY && held) {
				consume(a, &h);
				log_info("served by the host: session %016llx",
					 (unsigned long long)a->session);
				rc = serve(a, r.nr_queues);
				log_info("session %016llx ended: %llu doorbells, %llu arms, %llu completion messages, %llu reaps",
					 (unsigned long long)a->session,
					 a->doorbells, a->arms, a->completes,
					 a->reaps);
				return rc;
			}
			consume(a, &h);
		}
		if (!held && now_ms() - hello_at >= HELLO_EVERY_MS) {
			hello_at = now_ms();
			send_msg(a, GPU_AES_GUEST_HELLO, info, sizeof(*info));
		}
		err = wait_host(a, 0, held ? RELEASE_WAIT_MS : HELLO_EVERY_MS);
		if (err == -EPIPE)
			return SESSION_FREE;
	}
}

/*
 * After a child that may have left the host mapping its pages: ask the
 * host to let go until it says so or hangs up.  Only then may the device
 * be closed.
 */
static void release(struct agent *a)
{
	int64_t sent = 0;

	log_info("asking the host to release session %016llx",
		 (unsigned long long)a->session);
	a->in_len = 0;
	for (;;) {
		struct gpu_aes_guest_hdr h;
		const uint8_t *p;

		while (next_msg(a, &h, &p)) {
			if (h.type == GPU_AES_GUEST_RELEASED ||
			    h.type == GPU_AES_GUEST_ERROR)
				return;
			consume(a, &h);
		}
		if (now_ms() - sent >= HELLO_EVERY_MS) {
			sent = now_ms();
			send_msg(a, GPU_AES_GUEST_RELEASE, NULL, 0);
		}
		if (wait_host(a, 0, HELLO_EVERY_MS) == -EPIPE)
			return;
	}
}

/* /dev/vportNpM of the virtio-serial port named @name. */
static int find_port(const char *name, char *path, size_t size)
{
	glob_t gl;
	size_t i;
	int found = 0;

	if (strchr(name, '/')) {
		snprintf(path, size, "%s", name);
		return 0;
	}
	if (glob("/sys/class/virtio-ports/*/name", 0, NULL, &gl))
		return -ENOENT;
	for (i = 0; i < gl.gl_pathc && !found; i++) {
		char buf[256] = "";
		FILE *f = fopen(gl.gl_pathv[i], "re");

		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = 0;
			if (!strcmp(buf, name)) {
				const char *dir = gl.gl_pathv[i] +
					strlen("/sys/class/virtio-ports/");

				snprintf(path, size, "/dev/%.*s",
					 (int)strcspn(dir, "/"), dir);
				found = 1;
			}
		}
		fclose(f);
	}
	globfree(&gl);
	return found ? 0 : -ENOENT;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: gpu-aes-guest-agent [OPTION]...\n"
"In a qemu guest: attach a region to gpu_aes.ko and let gpu-aes-helper on\n"
"the host (--guest-port) serve it from the guest's RAM.\n"
"\n"
"  -p, --port NAME|PATH  virtio-serial port (default %s)\n"
"  -d, --device PATH     device (default /dev/%s)\n"
"  -v, --verbose         log debug messages too\n"
"  -h, --help            print this help and exit\n"
"\n"
"Runs as root (the region's guest frames are in /proc/self/pagemap).\n"
"Exit status: 0 stopped by SIGTERM/SIGINT, 1 failure, 2 usage error.\n",
		GPU_AES_GUEST_PORT_NAME, GPU_AES_DEVICE_NAME);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *port = GPU_AES_GUEST_PORT_NAME;
	const char *device = "/dev/" GPU_AES_DEVICE_NAME;
	static struct agent a;
	char path[256];
	struct sigaction sa;
	int c, waited = 0;

	while ((c = getopt_long(argc, argv, "p:d:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = optarg;
			break;
		case 'd':
			device = optarg;
			break;
		case 'v':
			gpu_aes_log_level = LOG_DEBUG;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	while (find_port(port, path, sizeof(path))) {
		if (g_stop)
			return 0;
		if (!waited++)
			log_info("waiting for the virtio-serial port %s", port);
		usleep(200000);
	}
	a.port = open(path, O_RDWR | O_CLOEXEC);
	if (a.port < 0) {
		log_err("cannot open %s: %s", path, strerror(errno));
		return 1;
	}
	log_info("port %s, device %s", path, device);
	while (!g_stop) {
		struct gpu_aes_info info;
		int64_t started = now_ms();
		int status = 0;

		/* The host first: the region is made for the helper there. */
		if (wait_host(&a, 0, 0) == -EPIPE) {
			usleep(200000);
			continue;
		}
		a.dev = open(device, O_RDWR | O_CLOEXEC);
		if (a.dev < 0) {
			log_err("cannot open %s: %s", device, strerror(errno));
			if (errno != EBUSY)
				return 1;
			sleep(1);
			continue;
		}
		memset(&info, 0, sizeof(info));
		if (ioctl(a.dev, GPU_AES_IOC_INFO, &info) < 0) {
			log_err("GPU_AES_IOC_INFO on %s: %s", device,
				strerror(errno));
			return 1;
		}
		if (getrandom(&a.session, sizeof(a.session), 0) !=
		    sizeof(a.session) || !a.session)
			a.session = (uint64_t)now_ms() | 1;
		a.in_len = 0;
		a.doorbells = a.completes = a.reaps = a.arms = 0;
		g_child = fork();
		if (g_child < 0) {
			log_err("fork: %s", strerror(errno));
			return 1;
		}
		if (!g_child)
			_exit(session(&a, &info));
		while (waitpid(g_child, &status, 0) < 0 && errno == EINTR)
			;
		g_child = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != SESSION_FREE)
			release(&a);
		/* The host maps nothing of it: the kernel may have it back. */
		close(a.dev);
		/* A session refused at once is not asked again at once. */
		if (!g_stop && now_ms() - started < 2000)
			sleep(1);
	}
	return 0;
}
