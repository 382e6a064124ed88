// SPDX-License-Identifier: GPL-2.0-only
/*
 * transport_guest.c - serving the region of gpu_aes.ko in a qemu guest:
 * its pages are in the guest's RAM, a file this process maps too (qemu's
 * memory-backend-file or -memfd with share=on), and gpu-aes-guest-agent in
 * the guest tells us which pages they are and carries doorbells and
 * completions over a virtio-serial port (guest_proto.h).
 *
 * The guest is untrusted: every message is checked against the state of
 * the session it names before anything is done, every page it names must
 * lie in its RAM file and appear once, and the header its kernel wrote
 * must describe the geometry we asked for.  All the core then reads or
 * writes is inside the one mapping made here, of the guest's own pages.
 *
 * Crossings, each a message on the port (qemu forwards it between a unix
 * socket here and a virtqueue there):
 *  - doorbell: the core sleeps (wait) and, once per sleep, sends ARM; the
 *    agent then polls /dev/gpu_aes, whose handler reports work the module
 *    posted while NEED_WAKEUP was set, and sends DOORBELL.  Two messages
 *    per sleep, none while the core is busy: the NEED_WAKEUP handshake of
 *    the device transport, with the port in place of poll().
 *  - completions: notify() sets the queue's bit and sends COMPLETE, one
 *    message for every queue completed since the last one left; the agent
 *    calls GPU_AES_IOC_COMPLETE.  It is asynchronous (the device
 *    transport's ioctl returns once the kernel reaped); the core does not
 *    need the reap to have happened, only to be asked for (cq_room()).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "guest_proto.h"
#include "log.h"
#include "negotiate.h"
#include "region.h"
#include "secret.h"
#include "transport.h"

#define IN_MAX		(2 * GPU_AES_GUEST_MSG_MAX)
#define OUT_MAX		4096U
/* How long a handshake step waits for the agent. */
#define HANDSHAKE_MS	30000
#define FOUR_GIB	(4ULL << 30)

struct gpu_aes_guest {
	struct gpu_aes_transport t;	/* first: the core holds &t */
	int sock;
	int mem_fd;
	uint64_t mem_size;
	uint64_t lowmem;		/* guest-physical RAM below 4 GiB */
	const char *name;		/* for the log */

	/* Core thread (wait) or the caller of hello/open only. */
	uint8_t in[IN_MAX];
	size_t in_len;
	uint64_t skipped;		/* bytes skipped to find a header */
	int have_hello;
	uint64_t hello_session;
	struct gpu_aes_info hello_info;

	uint64_t session;		/* 0: none served */
	struct gpu_aes_region *r;	/* mapped by open(), unmapped by close() */
	int armed;			/* the agent was sent ARM since DOORBELL */

	/* Any thread, under out_lock. */
	pthread_mutex_t out_lock;
	uint8_t out[OUT_MAX];
	size_t out_len;
	uint64_t complete[GPU_AES_MAX_QUEUES / 64];
	int dead;			/* the socket failed: -errno */
};

static size_t payload_len(uint16_t type)
{
	switch (type) {
	case GPU_AES_GUEST_HELLO:
		return sizeof(struct gpu_aes_info);
	case GPU_AES_GUEST_DOORBELL:
	case GPU_AES_GUEST_RELEASE:
		return 0;
	case GPU_AES_GUEST_ERROR:
		return sizeof(int32_t);
	}
	return SIZE_MAX;
}

/* A header we accept from the agent: one of its types, a sane length. */
static int hdr_ok(const struct gpu_aes_guest_hdr *h)
{
	if (h->magic != GPU_AES_GUEST_MAGIC ||
	    h->len > GPU_AES_GUEST_MSG_MAX - sizeof(*h))
		return 0;
	if (h->type == GPU_AES_GUEST_PAGES)
		return h->len >= sizeof(struct gpu_aes_guest_pages) +
				 sizeof(struct gpu_aes_guest_run) &&
		       (h->len - sizeof(struct gpu_aes_guest_pages)) %
				sizeof(struct gpu_aes_guest_run) == 0;
	return payload_len(h->type) == h->len;
}

/*
 * The next whole message in the input, skipping bytes that start no valid
 * header.  1 with *h and *payload set (valid until consume()), 0 when more
 * bytes are needed.
 */
static int next_msg(struct gpu_aes_guest *g, struct gpu_aes_guest_hdr *h,
		    const uint8_t **payload)
{
	size_t skip = 0;
	int found = 0;

	while (g->in_len - skip >= sizeof(*h)) {
		memcpy(h, g->in + skip, sizeof(*h));
		if (!hdr_ok(h)) {
			skip++;
			continue;
		}
		found = g->in_len - skip >= sizeof(*h) + h->len;
		break;
	}
	if (skip) {
		if (!g->skipped)
			log_err("%s: bytes that start no message from the agent: skipped",
				g->name);
		g->skipped += skip;
		memmove(g->in, g->in + skip, g->in_len - skip);
		g->in_len -= skip;
	}
	if (found)
		*payload = g->in + sizeof(*h);
	return found;
}

static void consume(struct gpu_aes_guest *g, const struct gpu_aes_guest_hdr *h)
{
	size_t n = sizeof(*h) + h->len;

	memmove(g->in, g->in + n, g->in_len - n);
	g->in_len -= n;
}

/* Reads what the socket has.  0, or -EPIPE at its end, or -errno. */
static int fill(struct gpu_aes_guest *g)
{
	while (g->in_len < sizeof(g->in)) {
		ssize_t n = recv(g->sock, g->in + g->in_len,
				 sizeof(g->in) - g->in_len, MSG_DONTWAIT);

		if (n > 0) {
			g->in_len += (size_t)n;
			continue;
		}
		if (n == 0)
			return -EPIPE;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return -errno;
	}
	return 0;
}

/* Writes what is queued; out_lock held.  Returns g->dead. */
static int flush_locked(struct gpu_aes_guest *g)
{
	while (!g->dead) {
		ssize_t n;

		if (!g->out_len && g->session) {
			struct gpu_aes_guest_hdr h = {
				.magic = GPU_AES_GUEST_MAGIC,
				.type = GPU_AES_GUEST_COMPLETE,
				.len = sizeof(struct gpu_aes_guest_complete),
				.session = g->session,
			};
			size_t i, any = 0;

			for (i = 0; i < GPU_AES_MAX_QUEUES / 64; i++)
				any |= g->complete[i] != 0;
			if (!any)
				break;
			memcpy(g->out, &h, sizeof(h));
			memcpy(g->out + sizeof(h), g->complete,
			       sizeof(g->complete));
			memset(g->complete, 0, sizeof(g->complete));
			g->out_len = sizeof(h) + sizeof(g->complete);
		}
		if (!g->out_len)
			break;
		n = send(g->sock, g->out, g->out_len,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			memmove(g->out, g->out + n, g->out_len - (size_t)n);
			g->out_len -= (size_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			break;
		} else {
			g->dead = n < 0 ? -errno : -EPIPE;
		}
	}
	return g->dead;
}

/*
 * Queues a message (after whatever is queued) and writes what it can.
 * -ENOBUFS when the agent has not read OUT_MAX bytes of ours: it is stuck
 * or gone, and the session with it.
 */
static int queue_msg(struct gpu_aes_guest *g, uint16_t type, uint64_t session,
		     const void *payload, uint16_t len)
{
	struct gpu_aes_guest_hdr h = {
		.magic = GPU_AES_GUEST_MAGIC, .type = type, .len = len,
		.session = session,
	};
	int err;

	pthread_mutex_lock(&g->out_lock);
	if (g->out_len + sizeof(h) + len > sizeof(g->out)) {
		flush_locked(g);
		if (g->out_len + sizeof(h) + len > sizeof(g->out)) {
			pthread_mutex_unlock(&g->out_lock);
			return g->dead ? g->dead : -ENOBUFS;
		}
	}
	memcpy(g->out + g->out_len, &h, sizeof(h));
	if (len)
		memcpy(g->out + g->out_len + sizeof(h), payload, len);
	g->out_len += sizeof(h) + len;
	err = flush_locked(g);
	pthread_mutex_unlock(&g->out_lock);
	return err;
}

static int out_pending(struct gpu_aes_guest *g)
{
	int pending;

	pthread_mutex_lock(&g->out_lock);
	pending = g->out_len != 0 && !g->dead;
	pthread_mutex_unlock(&g->out_lock);
	return pending;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Waits until input came, @stop_fd is readable or @timeout_ms passed (-1:
 * no limit), writing queued output meanwhile.  0, 1 when stopped, or
 * -errno when the socket failed.
 */
static int wait_io(struct gpu_aes_guest *g, int stop_fd, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = g->sock, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};

	if (out_pending(g))
		pfd[0].events |= POLLOUT;
	if (poll(pfd, stop_fd >= 0 ? 2 : 1, timeout_ms) < 0)
		return errno == EINTR ? 0 : -errno;
	if (stop_fd >= 0 && pfd[1].revents & POLLIN)
		return 1;
	if (pfd[0].revents & POLLOUT) {
		int err;

		pthread_mutex_lock(&g->out_lock);
		err = flush_locked(g);
		pthread_mutex_unlock(&g->out_lock);
		if (err)
			return err;
	}
	if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
		return fill(g);
	return 0;
}

/* A message of a session we do not serve (or no longer). */
static int stale(struct gpu_aes_guest *g, const struct gpu_aes_guest_hdr *h)
{
	if (h->type == GPU_AES_GUEST_ERROR)
		return 0;
	/* Whatever it asks, the answer is that we map nothing of it. */
	return queue_msg(g, GPU_AES_GUEST_RELEASED, h->session, NULL, 0);
}

static void take_hello(struct gpu_aes_guest *g,
		       const struct gpu_aes_guest_hdr *h, const uint8_t *p)
{
	g->have_hello = 1;
	g->hello_session = h->session;
	memcpy(&g->hello_info, p, sizeof(g->hello_info));
}

/* Session @s's end as the agent reported it. */
static void log_agent_end(struct gpu_aes_guest *g,
			  const struct gpu_aes_guest_hdr *h, const uint8_t *p)
{
	int32_t e = 0;

	if (h->type == GPU_AES_GUEST_ERROR) {
		memcpy(&e, p, sizeof(e));
		log_err("%s: the agent ended session %016llx: %s", g->name,
			(unsigned long long)h->session,
			e > 0 ? strerror(e) : "unknown error");
	} else if (h->type == GPU_AES_GUEST_RELEASE) {
		log_info("%s: the agent released session %016llx", g->name,
			 (unsigned long long)h->session);
	} else {
		log_info("%s: a new agent session: ending %016llx", g->name,
			 (unsigned long long)g->session);
	}
}

int gpu_aes_guest_hello(struct gpu_aes_guest *g, int stop_fd,
			struct gpu_aes_info *info)
{
	for (;;) {
		struct gpu_aes_guest_hdr h;
		const uint8_t *p = NULL;
		int err;

		while (!g->have_hello && next_msg(g, &h, &p)) {
			if (h.type == GPU_AES_GUEST_HELLO)
				take_hello(g, &h, p);
			else if ((err = stale(g, &h)))
				return err;
			consume(g, &h);
		}
		if (g->have_hello) {
			*info = g->hello_info;
			return 0;
		}
		err = wait_io(g, stop_fd, -1);
		if (err)
			return err > 0 ? -EINTR : err;
	}
}

/*
 * The file offset of guest frame @gfn in the RAM file, q35's layout: RAM
 * below 4 GiB up to @lowmem, the rest from 4 GiB on.  -1 if it is not RAM.
 */
static int64_t gfn_offset(const struct gpu_aes_guest *g, uint64_t gfn,
			  uint64_t page)
{
	uint64_t gpa;

	if (gfn > UINT64_MAX / page - 1)
		return -1;
	gpa = gfn * page;
	if (gpa + page <= g->lowmem)
		return (int64_t)gpa;
	if (gpa >= FOUR_GIB && gpa - FOUR_GIB + g->lowmem + page <= g->mem_size)
		return (int64_t)(gpa - FOUR_GIB + g->lowmem);
	return -1;
}

/* Adds one PAGES message's runs to @offs.  0 or -EINVAL (logged). */
static int take_pages(struct gpu_aes_guest *g, const uint8_t *p, size_t len,
		      uint64_t region_size, uint64_t page, uint64_t *offs,
		      uint32_t nr, uint32_t *got)
{
	struct gpu_aes_guest_pages ph;
	uint32_t i, j;

	memcpy(&ph, p, sizeof(ph));
	if (ph.region_size != region_size || ph.first != *got ||
	    ph.nr_runs != (len - sizeof(ph)) / sizeof(struct gpu_aes_guest_run)) {
		log_err("%s: the agent's page list does not follow its region (size %llu, from page %u, %u runs)",
			g->name, (unsigned long long)ph.region_size, ph.first,
			ph.nr_runs);
		return -EINVAL;
	}
	for (i = 0; i < ph.nr_runs; i++) {
		struct gpu_aes_guest_run run;

		memcpy(&run, p + sizeof(ph) + i * sizeof(run), sizeof(run));
		if (!run.count || run.reserved || run.count > nr - *got) {
			log_err("%s: the agent names %u pages at page %u of %u",
				g->name, run.count, *got, nr);
			return -EINVAL;
		}
		for (j = 0; j < run.count; j++) {
			int64_t off = run.gfn > UINT64_MAX - j ? -1 :
				      gfn_offset(g, run.gfn + j, page);

			if (off < 0) {
				log_err("%s: the agent names guest frame 0x%llx, not in its %llu bytes of RAM",
					g->name,
					(unsigned long long)(run.gfn + j),
					(unsigned long long)g->mem_size);
				return -EINVAL;
			}
			offs[(*got)++] = (uint64_t)off;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* No page twice: a region aliasing itself is no region the ABI lays out. */
static int pages_distinct(const uint64_t *offs, uint32_t nr)
{
	uint64_t *s = malloc((size_t)nr * sizeof(*s));
	uint32_t i;
	int ok = 1;

	if (!s)
		return -ENOMEM;
	memcpy(s, offs, (size_t)nr * sizeof(*s));
	qsort(s, nr, sizeof(*s), cmp_u64);
	for (i = 1; i < nr && ok; i++)
		ok = s[i] != s[i - 1];
	free(s);
	return ok ? 0 : -EINVAL;
}

/*
 * One virtual range for the region, each run of consecutive file pages
 * mapped into it at its place.
 */
static void *map_pages(struct gpu_aes_guest *g, const uint64_t *offs,
		       uint32_t nr, uint64_t page)
{
	size_t size = (size_t)nr * page;
	uint8_t *base;
	uint32_t i, run;

	base = mmap(NULL, size, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	for (i = 0; i < nr; i += run) {
		for (run = 1; i + run < nr && offs[i + run] == offs[i] + run * page;
		     run++)
			;
		if (mmap(base + (size_t)i * page, (size_t)run * page,
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 g->mem_fd, (off_t)offs[i]) == MAP_FAILED) {
			int err = errno;

			munmap(base, size);
			errno = err;
			return NULL;
		}
	}
	return base;
}

static void unmap_region(struct gpu_aes_guest *g)
{
	struct gpu_aes_region *r = g->r;

	if (!r)
		return;
	/*
	 * The key table is the guest kernel's: it wipes it, and writing it
	 * here could destroy keys it still uses.  Only our mapping goes.
	 */
	munmap(r->base, r->map_size);
	free(r->queues);
	memset(r, 0, sizeof(*r));
	g->r = NULL;
}

static void end_session(struct gpu_aes_guest *g)
{
	uint64_t s = g->session;

	unmap_region(g);
	g->session = 0;
	pthread_mutex_lock(&g->out_lock);
	memset(g->complete, 0, sizeof(g->complete));
	pthread_mutex_unlock(&g->out_lock);
	/* Only now may the agent let its pages go. */
	if (s && queue_msg(g, GPU_AES_GUEST_RELEASED, s, NULL, 0) == 0) {
		int64_t until = now_ms() + 1000;

		while (out_pending(g) && now_ms() < until &&
		       wait_io(g, -1, 100) >= 0)
			;
	}
}

/*
 * Waits for the agent's page list of session @s, checks it and maps it.
 * 0, -ECONNRESET when the agent ended the session (or began another),
 * -EINVAL for a list we refuse, -EINTR when stopped, or -errno.
 */
static int receive_pages(struct gpu_aes_guest *g, int stop_fd, uint64_t s,
			 const struct gpu_aes_layout *l, uint64_t page,
			 uint64_t *offs, uint32_t nr)
{
	int64_t until = now_ms() + HANDSHAKE_MS;
	uint32_t got = 0;

	while (got < nr) {
		struct gpu_aes_guest_hdr h;
		const uint8_t *p = NULL;
		int err = 0;

		while (got < nr && next_msg(g, &h, &p)) {
			if (h.type == GPU_AES_GUEST_HELLO) {
				take_hello(g, &h, p);
				err = -ECONNRESET;
			} else if (h.session != s) {
				err = stale(g, &h);
			} else if (h.type == GPU_AES_GUEST_PAGES) {
				err = take_pages(g, p, h.len, l->region_size,
						 page, offs, nr, &got);
			} else if (h.type == GPU_AES_GUEST_ERROR ||
				   h.type == GPU_AES_GUEST_RELEASE) {
				log_agent_end(g, &h, p);
				err = -ECONNRESET;
			}
			consume(g, &h);
			if (err)
				return err;
		}
		if (got == nr)
			break;
		if (now_ms() >= until) {
			log_err("%s: the agent sent %u of its %u pages in %d s",
				g->name, got, nr, HANDSHAKE_MS / 1000);
			return -ETIMEDOUT;
		}
		err = wait_io(g, stop_fd, (int)(until - now_ms()));
		if (err)
			return err > 0 ? -EINTR : err;
	}
	if (pages_distinct(offs, nr)) {
		log_err("%s: the agent names a page of its region twice",
			g->name);
		return -EINVAL;
	}
	return 0;
}

static int guest_wait(struct gpu_aes_transport *t, int stop_fd, int timeout_ms)
{
	struct gpu_aes_guest *g = (struct gpu_aes_guest *)t;
	struct gpu_aes_guest_hdr h;
	const uint8_t *p = NULL;
	int err, woke = 0;

	if (!g->armed) {
		err = queue_msg(g, GPU_AES_GUEST_ARM, g->session, NULL, 0);
		if (err)
			return err;
		g->armed = 1;
	}
	for (int round = 0; round < 2; round++) {
		while (next_msg(g, &h, &p)) {
			err = 0;
			if (h.type == GPU_AES_GUEST_HELLO) {
				log_agent_end(g, &h, p);
				take_hello(g, &h, p);
				err = -ECONNRESET;
			} else if (h.session != g->session) {
				err = stale(g, &h);
			} else if (h.type == GPU_AES_GUEST_DOORBELL) {
				g->armed = 0;
				woke = 1;
			} else if (h.type == GPU_AES_GUEST_RELEASE ||
				   h.type == GPU_AES_GUEST_ERROR) {
				log_agent_end(g, &h, p);
				err = -ECONNRESET;
			}
			consume(g, &h);
			if (err)
				return err;
		}
		if (woke || round)
			break;
		err = wait_io(g, stop_fd, timeout_ms);
		if (err < 0)
			return err;
	}
	return 0;
}

static int guest_notify(struct gpu_aes_transport *t, uint32_t qid)
{
	struct gpu_aes_guest *g = (struct gpu_aes_guest *)t;
	uint32_t nq = g->r ? g->r->nr_queues : 0;
	int err;

	pthread_mutex_lock(&g->out_lock);
	if (qid == GPU_AES_ALL_QUEUES) {
		for (uint32_t q = 0; q < nq; q++)
			g->complete[q / 64] |= 1ULL << (q % 64);
	} else if (qid < nq) {
		g->complete[qid / 64] |= 1ULL << (qid % 64);
	}
	/* What the socket does not take now, wait() writes when it can. */
	err = flush_locked(g);
	pthread_mutex_unlock(&g->out_lock);
	return err;
}

static void guest_close(struct gpu_aes_transport *t)
{
	end_session((struct gpu_aes_guest *)t);
}

static const struct gpu_aes_transport_ops guest_ops = {
	.wait = guest_wait,
	.notify = guest_notify,
	.close = guest_close,
};

int gpu_aes_transport_guest_open(struct gpu_aes_guest *g, int stop_fd,
				 const struct gpu_aes_info *info,
				 uint32_t served,
				 const struct gpu_aes_geometry *geo,
				 struct gpu_aes_region *r,
				 struct gpu_aes_transport **out)
{
	uint64_t s = g->hello_session, page = geo->page_size;
	struct gpu_aes_setup setup;
	struct gpu_aes_layout l;
	uint64_t *offs = NULL;
	uint32_t nr = 0;
	int32_t e;
	void *base;
	int err;

	memset(r, 0, sizeof(*r));
	g->have_hello = 0;
	if (!s || g->session) {
		err = -EPROTO;
		goto refuse;
	}
	if (page != info->page_size) {
		log_err("%s: the guest's page is %u bytes, this host's %llu",
			g->name, info->page_size, (unsigned long long)page);
		err = -EPROTO;
		goto refuse;
	}
	err = gpu_aes_setup_prepare(info, served, geo, &setup);
	if (err)
		goto refuse;
	gpu_aes_layout(geo, &l);
	nr = (uint32_t)(l.region_size / page);
	offs = calloc(nr, sizeof(*offs));
	if (!offs) {
		err = -ENOMEM;
		goto refuse;
	}
	err = queue_msg(g, GPU_AES_GUEST_SETUP, s, &setup, sizeof(setup));
	if (!err)
		err = receive_pages(g, stop_fd, s, &l, page, offs, nr);
	if (err == -EINVAL)
		goto refuse;
	if (err) {
		free(offs);
		/* Whatever ended it, nothing of session s is mapped. */
		if (err != -EINTR && !g->dead)
			queue_msg(g, GPU_AES_GUEST_RELEASED, s, NULL, 0);
		return err;
	}
	base = map_pages(g, offs, nr, page);
	free(offs);
	offs = NULL;
	if (!base) {
		err = -errno;
		log_err("%s: cannot map the guest's region: %s", g->name,
			strerror(errno));
		goto refuse;
	}
	/* Keys and request bytes stay out of our core dumps (secret.h). */
	madvise(base, l.region_size, MADV_DONTFORK);
	err = gpu_aes_secret_exclude(base, l.region_size);
	if (!err)
		err = gpu_aes_region_view(r, base, l.region_size, geo);
	if (err) {
		munmap(base, l.region_size);
		goto refuse;
	}
	g->r = r;
	g->session = s;
	err = gpu_aes_hdr_check(r, &setup);
	if (!err)
		err = queue_msg(g, GPU_AES_GUEST_READY, s, NULL, 0);
	if (err) {
		end_session(g);
		return err;
	}
	g->armed = 0;
	log_info("%s: serving session %016llx: %u pages of guest RAM mapped",
		 g->name, (unsigned long long)s, nr);
	g->t.ops = &guest_ops;
	g->t.name = "guest";
	*out = &g->t;
	return 0;
refuse:
	free(offs);
	e = (int32_t)-err;
	queue_msg(g, GPU_AES_GUEST_ERROR, s, &e, sizeof(e));
	return err;
}

void gpu_aes_guest_refuse(struct gpu_aes_guest *g, int err)
{
	int32_t e = (int32_t)-err;

	g->have_hello = 0;
	queue_msg(g, GPU_AES_GUEST_ERROR, g->hello_session, &e, sizeof(e));
}

int gpu_aes_guest_attach(int sock, int mem_fd, uint64_t lowmem,
			 const char *name, struct gpu_aes_guest **out)
{
	long page = sysconf(_SC_PAGESIZE);
	struct gpu_aes_guest *g;
	struct stat st;

	if (fstat(mem_fd, &st))
		return -errno;
	if (st.st_size <= 0 || page <= 0 || st.st_size % page) {
		log_err("%s: the guest's RAM file is %lld bytes, not a whole number of pages",
			name, (long long)st.st_size);
		return -EINVAL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->sock = sock;
	g->mem_fd = mem_fd;
	g->mem_size = (uint64_t)st.st_size;
	/* q35's split (qemu's pc_q35.c) unless told otherwise. */
	g->lowmem = lowmem ? lowmem :
		    g->mem_size >= 0xb0000000ULL ? 0x80000000ULL : g->mem_size;
	if (g->lowmem > g->mem_size)
		g->lowmem = g->mem_size;
	g->name = name;
	pthread_mutex_init(&g->out_lock, NULL);
	*out = g;
	return 0;
}

int gpu_aes_guest_connect(const char *port, const char *memory,
			  uint64_t lowmem, struct gpu_aes_guest **out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int sock, mem_fd, err;

	if (strlen(port) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, port, strlen(port) + 1);
	mem_fd = open(memory, O_RDWR | O_CLOEXEC);
	if (mem_fd < 0) {
		err = -errno;
		log_err("cannot open the guest's RAM %s: %s", memory,
			strerror(errno));
		return err;
	}
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		if (sock >= 0)
			close(sock);
		close(mem_fd);
		return err;
	}
	err = gpu_aes_guest_attach(sock, mem_fd, lowmem, port, out);
	if (err) {
		close(sock);
		close(mem_fd);
		return err;
	}
	log_info("connected to the guest's port %s, its RAM %s (%llu MiB)",
		 port, memory, (unsigned long long)((*out)->mem_size >> 20));
	return 0;
}

void gpu_aes_guest_disconnect(struct gpu_aes_guest *g)
{
	if (!g)
		return;
	end_session(g);
	close(g->sock);
	close(g->mem_fd);
	pthread_mutex_destroy(&g->out_lock);
	free(g);
}
