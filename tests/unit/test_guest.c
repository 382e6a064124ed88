// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest transport (transport_guest.c) against a hand-played agent:
 * a memfd is the guest's RAM, a socketpair its virtio-serial port, and
 * this test writes what the agent and the guest's kernel would (HELLO,
 * the page list, the region header) and reads what the host answers.
 * Hostile page lists and messages must be refused, with nothing mapped
 * and the agent told; a good one must map each guest page at its place.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "guest_proto.h"
#include "harness.h"
#include "negotiate.h"
#include "region.h"
#include "transport.h"

#define RAM	(64ULL << 20)
#define SESSION	0x5e55104e5e55104eULL

struct gfix {
	int agent;			/* the agent's end of the port */
	int mem;			/* the test's view of the RAM file */
	struct gpu_aes_guest *g;
	struct gpu_aes_info info;
	struct gpu_aes_geometry geo;
	struct gpu_aes_layout l;
	uint32_t nr;			/* pages of the region */
	uint64_t *gfn;			/* the guest frame of each */
	uint64_t page;
};

static struct gfix *live;

static int gfix_teardown(void)
{
	struct gfix *f = live;

	if (!f)
		return 0;
	gpu_aes_guest_disconnect(f->g);
	close(f->agent);
	close(f->mem);
	free(f->gfn);
	live = NULL;
	return 1;
}

__attribute__((constructor)) static void reg_teardown(void)
{
	t_after_each(gfix_teardown);
}

/*
 * A connected host side over a fresh RAM file; the region is 2 queues of
 * 64 entries, 1 MiB each, its pages at frames chosen by the test, by
 * default backwards from the end of RAM (so mapping order matters).
 */
static int gfix_init(struct gfix *f)
{
	int sv[2], fd;
	uint32_t i;

	memset(f, 0, sizeof(*f));
	f->page = (uint64_t)sysconf(_SC_PAGESIZE);
	fd = memfd_create("guest-ram", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)RAM) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	f->mem = dup(fd);
	f->agent = sv[1];
	if (gpu_aes_guest_attach(sv[0], fd, 0, "test", &f->g))
		return -1;
	live = f;
	f->info.abi_version = GPU_AES_ABI_VERSION;
	f->info.features = GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS;
	f->info.max_queues = GPU_AES_MAX_QUEUES;
	f->info.max_entries = GPU_AES_MAX_ENTRIES;
	f->info.max_keys = GPU_AES_MAX_KEYS;
	f->info.page_size = (uint32_t)f->page;
	f->info.max_data_size = GPU_AES_MAX_DATA;
	f->info.nr_cpus = 2;
	f->info.algs = GPU_AES_ALGS_KNOWN;
	if (gpu_aes_region_geometry(2, 64, 16, 1 << 20, &f->geo))
		return -1;
	gpu_aes_layout(&f->geo, &f->l);
	f->nr = (uint32_t)(f->l.region_size / f->page);
	f->gfn = calloc(f->nr, sizeof(*f->gfn));
	if (!f->gfn)
		return -1;
	for (i = 0; i < f->nr; i++)
		f->gfn[i] = RAM / f->page - 1 - i;
	return 0;
}

static int send_raw(struct gfix *f, const void *p, size_t len)
{
	return write(f->agent, p, len) == (ssize_t)len ? 0 : -1;
}

static int send_msg(struct gfix *f, uint16_t type, uint64_t session,
		    const void *p, size_t len)
{
	uint8_t buf[GPU_AES_GUEST_MSG_MAX];
	struct gpu_aes_guest_hdr h = {
		.magic = GPU_AES_GUEST_MAGIC, .type = type,
		.len = (uint16_t)len, .session = session,
	};

	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), p, len);
	return send_raw(f, buf, sizeof(h) + len);
}

/* The page list as runs of consecutive frames, in one message. */
static int send_pages(struct gfix *f, uint64_t region_size, uint32_t first)
{
	uint8_t buf[GPU_AES_GUEST_MSG_MAX];
	struct gpu_aes_guest_pages *ph = (struct gpu_aes_guest_pages *)buf;
	struct gpu_aes_guest_run *run = (struct gpu_aes_guest_run *)(ph + 1);
	uint32_t i, n = 0;

	memset(buf, 0, sizeof(buf));
	for (i = first; i < f->nr; i++) {
		if (n && run[n - 1].gfn + run[n - 1].count == f->gfn[i]) {
			run[n - 1].count++;
			continue;
		}
		run[n].gfn = f->gfn[i];
		run[n].count = 1;
		n++;
	}
	ph->region_size = region_size;
	ph->first = first;
	ph->nr_runs = n;
	return send_msg(f, GPU_AES_GUEST_PAGES, SESSION, buf,
			sizeof(*ph) + n * sizeof(*run));
}

static int send_hello(struct gfix *f)
{
	return send_msg(f, GPU_AES_GUEST_HELLO, SESSION, &f->info,
			sizeof(f->info));
}

/* HELLO and the whole page list, as an agent sends them. */
static int send_hello_pages(struct gfix *f)
{
	return send_hello(f) || send_pages(f, f->l.region_size, 0) ? -1 : 0;
}

/* What the guest's kernel writes at SETUP: the header, in its page. */
static void write_hdr(struct gfix *f)
{
	struct gpu_aes_region_hdr h;

	memset(&h, 0, sizeof(h));
	gpu_aes_hdr_fill(&h, &f->geo, &f->l,
			 GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS,
			 GPU_AES_ALGS_KNOWN);
	if (pwrite(f->mem, &h, sizeof(h), (off_t)(f->gfn[0] * f->page)) !=
	    sizeof(h))
		t_fail(__FILE__, __LINE__, "pwrite");
}

/*
 * The next message for the agent, within 2 s: its type, or -1.  Its
 * payload goes to @p (up to @len bytes).
 */
static int recv_msg(struct gfix *f, uint64_t *session, void *p, size_t len)
{
	struct gpu_aes_guest_hdr h;
	uint8_t buf[GPU_AES_GUEST_MSG_MAX];
	struct pollfd pfd = { .fd = f->agent, .events = POLLIN };

	if (poll(&pfd, 1, 2000) != 1 ||
	    recv(f->agent, &h, sizeof(h), MSG_WAITALL) != sizeof(h) ||
	    h.magic != GPU_AES_GUEST_MAGIC || h.len > sizeof(buf) ||
	    (h.len && recv(f->agent, buf, h.len, MSG_WAITALL) != h.len))
		return -1;
	if (session)
		*session = h.session;
	if (p)
		memcpy(p, buf, h.len < len ? h.len : len);
	return h.type;
}

/* Nothing more for the agent within 50 ms. */
static int quiet(struct gfix *f)
{
	struct pollfd pfd = { .fd = f->agent, .events = POLLIN };

	return poll(&pfd, 1, 50) == 0;
}

/*
 * HELLO, then whatever the test queued, then open(): its result; the
 * host's SETUP is read and checked.
 */
static int open_session(struct gfix *f, struct gpu_aes_region *r,
			struct gpu_aes_transport **t)
{
	struct gpu_aes_setup s;
	struct gpu_aes_info got;
	int err;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	err = gpu_aes_guest_hello(f->g, -1, &got);
	if (err)
		return err;
	if (memcmp(&got, &f->info, sizeof(got)) != 0)
		return -1000;
	err = gpu_aes_transport_guest_open(f->g, -1, &got, GPU_AES_ALGS_KNOWN,
					   &f->geo, r, t);
	if (recv_msg(f, NULL, &s, sizeof(s)) != GPU_AES_GUEST_SETUP ||
	    memcmp(&s.geo, &f->geo, sizeof(s.geo)) != 0 || s.region_addr ||
	    s.algs != GPU_AES_ALGS_KNOWN)
		return -1001;
	return err;
}

/* A page list the host must refuse: -EINVAL, ERROR to the agent. */
static int refused(struct gfix *f)
{
	struct gpu_aes_transport *t = NULL;
	struct gpu_aes_region r;
	uint64_t s = 0;
	int32_t e = 0;
	int err;

	write_hdr(f);
	err = open_session(f, &r, &t);
	if (err != -EINVAL || t || r.base)
		return err ? err : -1;
	if (recv_msg(f, &s, &e, sizeof(e)) != GPU_AES_GUEST_ERROR ||
	    s != SESSION || e != EINVAL)
		return -1002;
	return 0;
}

TEST(guest_maps_each_page_where_the_guest_has_it)
{
	struct gfix f;
	struct gpu_aes_transport *t = NULL;
	struct gpu_aes_region r;
	uint8_t b = 0;
	uint32_t i;

	CHECK(gfix_init(&f) == 0);
	/* Runs, and frames out of order: two halves swapped. */
	for (i = 0; i < f.nr; i++)
		f.gfn[i] = 100 + (i + f.nr / 2) % f.nr;
	write_hdr(&f);
	CHECK(send_hello_pages(&f) == 0);
	CHECK_EQ(open_session(&f, &r, &t), 0);
	CHECK(t != NULL);
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_READY);
	CHECK_EQ(r.hdr->magic, GPU_AES_MAGIC);
	CHECK_EQ(r.nr_queues, 2);
	CHECK_EQ(r.algs, GPU_AES_ALGS_KNOWN);
	/* Every page of the view is that guest frame of the RAM file. */
	for (i = 0; i < f.nr; i++) {
		((volatile uint8_t *)r.base)[(size_t)i * f.page + 7] =
			(uint8_t)(i * 13 + 1);
		CHECK(pread(f.mem, &b, 1, (off_t)(f.gfn[i] * f.page + 7)) == 1);
		CHECK_EQ(b, (uint8_t)(i * 13 + 1));
	}
	t->ops->close(t);
	CHECK(r.base == NULL);
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_RELEASED);
	/* The key table is the guest kernel's: closing wrote nothing there. */
	CHECK(pread(f.mem, &b, 1, (off_t)(f.gfn[0] * f.page + 7)) == 1);
	CHECK_EQ(b, 1);
	gfix_teardown();
}

TEST(guest_refuses_frames_outside_its_ram)
{
	struct gfix f;

	for (unsigned int k = 0; k < 4; k++) {
		CHECK(gfix_init(&f) == 0);
		/*
		 * Just past the file; above 4 GiB, where a guest this small
		 * has no RAM; a frame whose address overflows; the largest.
		 */
		f.gfn[f.nr / 2] = k == 0 ? RAM / f.page :
				  k == 1 ? (4ULL << 30) / f.page :
				  k == 2 ? ~0ULL / f.page : ~0ULL;
		CHECK(send_hello_pages(&f) == 0);
		CHECK_EQ(refused(&f), 0);
		gfix_teardown();
	}
}

TEST(guest_refuses_a_page_twice)
{
	struct gfix f;

	CHECK(gfix_init(&f) == 0);
	f.gfn[f.nr - 1] = f.gfn[3];
	CHECK(send_hello_pages(&f) == 0);
	CHECK_EQ(refused(&f), 0);
	gfix_teardown();
}

TEST(guest_refuses_lists_that_do_not_follow_the_region)
{
	struct gfix f;
	uint8_t buf[64];
	struct gpu_aes_guest_pages *ph = (struct gpu_aes_guest_pages *)buf;
	struct gpu_aes_guest_run *run = (struct gpu_aes_guest_run *)(ph + 1);

	/* Another region size; a list that starts past page 0. */
	CHECK(gfix_init(&f) == 0);
	CHECK(send_hello(&f) == 0);
	CHECK(send_pages(&f, f.l.region_size + f.page, 0) == 0);
	CHECK_EQ(refused(&f), 0);
	gfix_teardown();
	CHECK(gfix_init(&f) == 0);
	CHECK(send_hello(&f) == 0);
	CHECK(send_pages(&f, f.l.region_size, 1) == 0);
	CHECK_EQ(refused(&f), 0);
	gfix_teardown();
	/* Runs of 0 pages, more pages than the region, reserved bits. */
	for (int k = 0; k < 3; k++) {
		CHECK(gfix_init(&f) == 0);
		memset(buf, 0, sizeof(buf));
		ph->region_size = f.l.region_size;
		ph->nr_runs = 1;
		run->gfn = 10;
		run->count = k == 0 ? 0 : k == 1 ? f.nr + 1 : f.nr;
		run->reserved = k == 2;
		CHECK(send_hello(&f) == 0);
		CHECK(send_msg(&f, GPU_AES_GUEST_PAGES, SESSION, buf,
			       sizeof(*ph) + sizeof(*run)) == 0);
		CHECK_EQ(refused(&f), 0);
		gfix_teardown();
	}
}

TEST(guest_refuses_a_header_its_kernel_did_not_write)
{
	struct gfix f;
	struct gpu_aes_transport *t = NULL;
	struct gpu_aes_region r;

	CHECK(gfix_init(&f) == 0);
	CHECK(send_hello_pages(&f) == 0);
	CHECK_EQ(open_session(&f, &r, &t), -EPROTO);
	CHECK(t == NULL && r.base == NULL);
	/* Mapped, then refused: unmapped before the agent hears so. */
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_RELEASED);
	gfix_teardown();
}

TEST(guest_skips_garbage_and_answers_other_sessions)
{
	static const uint8_t junk[] = "\x31\x67\x61\x67 not a header at all";
	struct gfix f;
	struct gpu_aes_transport *t = NULL;
	struct gpu_aes_region r;
	uint64_t s = 0;

	CHECK(gfix_init(&f) == 0);
	write_hdr(&f);
	/* Stale doorbell and a torn message before the HELLO. */
	CHECK(send_msg(&f, GPU_AES_GUEST_DOORBELL, 77, NULL, 0) == 0);
	CHECK(send_raw(&f, junk, sizeof(junk)) == 0);
	CHECK(send_hello(&f) == 0);
	/* Another session's pages in the middle of ours: answered, ignored. */
	CHECK(send_msg(&f, GPU_AES_GUEST_RELEASE, 78, NULL, 0) == 0);
	CHECK(send_pages(&f, f.l.region_size, 0) == 0);
	CHECK(gpu_aes_guest_hello(f.g, -1, &f.info) == 0);
	CHECK_EQ(recv_msg(&f, &s, NULL, 0), GPU_AES_GUEST_RELEASED);
	CHECK(s == 77);
	CHECK_EQ(gpu_aes_transport_guest_open(f.g, -1, &f.info,
					      GPU_AES_ALGS_KNOWN, &f.geo, &r,
					      &t), 0);
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_SETUP);
	CHECK_EQ(recv_msg(&f, &s, NULL, 0), GPU_AES_GUEST_RELEASED);
	CHECK(s == 78);
	CHECK_EQ(recv_msg(&f, &s, NULL, 0), GPU_AES_GUEST_READY);
	CHECK(s == SESSION);
	t->ops->close(t);
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_RELEASED);
	gfix_teardown();
}

TEST(guest_doorbells_and_completions_cross_as_messages)
{
	struct gfix f;
	struct gpu_aes_transport *t = NULL;
	struct gpu_aes_region r;
	struct gpu_aes_guest_complete c;
	struct gpu_aes_info again;
	uint64_t s = 0;

	CHECK(gfix_init(&f) == 0);
	write_hdr(&f);
	CHECK(send_hello_pages(&f) == 0);
	CHECK_EQ(open_session(&f, &r, &t), 0);
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_READY);
	/* A sleep arms the agent once; its doorbell wakes the core. */
	CHECK_EQ(t->ops->wait(t, -1, 10), 0);
	CHECK_EQ(recv_msg(&f, &s, NULL, 0), GPU_AES_GUEST_ARM);
	CHECK(s == SESSION);
	CHECK_EQ(t->ops->wait(t, -1, 10), 0);
	CHECK(quiet(&f));
	CHECK(send_msg(&f, GPU_AES_GUEST_DOORBELL, SESSION, NULL, 0) == 0);
	CHECK_EQ(t->ops->wait(t, -1, 2000), 0);
	CHECK(quiet(&f));
	CHECK_EQ(t->ops->wait(t, -1, 10), 0);
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_ARM);
	/* Completions name their queues; a bad queue names none. */
	CHECK_EQ(t->ops->notify(t, 1), 0);
	CHECK_EQ(recv_msg(&f, &s, &c, sizeof(c)), GPU_AES_GUEST_COMPLETE);
	CHECK(c.queues[0] == 2 && c.queues[1] == 0);
	CHECK_EQ(t->ops->notify(t, GPU_AES_ALL_QUEUES), 0);
	CHECK_EQ(recv_msg(&f, &s, &c, sizeof(c)), GPU_AES_GUEST_COMPLETE);
	CHECK(c.queues[0] == 3);
	CHECK_EQ(t->ops->notify(t, 200), 0);
	CHECK(quiet(&f));
	/* A new HELLO ends the session and is kept for the next. */
	CHECK(send_msg(&f, GPU_AES_GUEST_HELLO, SESSION + 1, &f.info,
		       sizeof(f.info)) == 0);
	CHECK_EQ(t->ops->wait(t, -1, 2000), -ECONNRESET);
	t->ops->close(t);
	CHECK_EQ(recv_msg(&f, &s, NULL, 0), GPU_AES_GUEST_RELEASED);
	CHECK(s == SESSION);
	CHECK_EQ(gpu_aes_guest_hello(f.g, -1, &again), 0);
	gpu_aes_guest_refuse(f.g, -EPROTO);
	CHECK_EQ(recv_msg(&f, &s, NULL, 0), GPU_AES_GUEST_ERROR);
	CHECK(s == SESSION + 1);
	gfix_teardown();
}

TEST(guest_release_and_a_closed_port_end_the_session)
{
	struct gfix f;
	struct gpu_aes_transport *t = NULL;
	struct gpu_aes_region r;

	CHECK(gfix_init(&f) == 0);
	write_hdr(&f);
	CHECK(send_hello_pages(&f) == 0);
	CHECK_EQ(open_session(&f, &r, &t), 0);
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_READY);
	CHECK(send_msg(&f, GPU_AES_GUEST_RELEASE, SESSION, NULL, 0) == 0);
	CHECK_EQ(t->ops->wait(t, -1, 2000), -ECONNRESET);
	t->ops->close(t);
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_ARM);
	CHECK_EQ(recv_msg(&f, NULL, NULL, 0), GPU_AES_GUEST_RELEASED);
	/* qemu's end of the port closing: -EPIPE, for a reconnect. */
	close(f.agent);
	f.agent = -1;
	{
		struct gpu_aes_info info;

		CHECK_EQ(gpu_aes_guest_hello(f.g, -1, &info), -EPIPE);
	}
	gfix_teardown();
}
