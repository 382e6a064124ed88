/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest_proto.h - the messages between gpu-aes-guest-agent, in a VM whose
 * gpu_aes.ko it serves, and gpu-aes-helper on the VM's host, which maps
 * the guest's region out of the guest's RAM (transport_guest.c).  They
 * travel over one virtio-serial port (the guest's /dev/vportNpM named
 * GPU_AES_GUEST_PORT_NAME, a unix socket of qemu's on the host): a byte
 * stream, so every message starts with a header carrying its length.
 *
 * Neither side trusts the other: the host validates every page and count
 * the guest sends before it maps anything, and the guest module checks
 * every completion as it does a local helper's.  A session (a random
 * 64-bit number the agent draws) names one attachment; a message of
 * another session is answered or ignored, never acted on.  The agent
 * writes each message with one write() of at most GPU_AES_GUEST_MSG_MAX
 * bytes, which virtio_console sends whole, so a dying agent leaves no
 * torn message behind; a host that finds a header it does not know skips
 * a byte and looks again (qemu may hand a new connection the tail of a
 * message written before it).
 *
 * One session:
 *   agent -> host  HELLO     gpu_aes_info from GPU_AES_IOC_INFO
 *   host -> agent  SETUP     gpu_aes_setup to pass to GPU_AES_IOC_SETUP
 *                            (region_addr and region_size 0: the agent's)
 *   agent -> host  PAGES...  the region's pages, as guest frame numbers
 *                            (pagemap), in runs, in order, after SETUP
 *                            pinned them
 *   host -> agent  READY     mapped, header checked, serving
 *   host -> agent  ARM       the helper sleeps: ring when work comes
 *   agent -> host  DOORBELL  poll() on /dev/gpu_aes said work came
 *   host -> agent  COMPLETE  completions posted on the queues named: call
 *                            GPU_AES_IOC_COMPLETE
 *   agent -> host  RELEASE   stop using the region (agent leaving)
 *   host -> agent  RELEASED  the region is unmapped: its pages may go
 *   either way     ERROR     the session failed; int32 errno follows
 *
 * The host answers RELEASED to a DOORBELL, PAGES or RELEASE of a session
 * it does not serve, so an agent that missed the host's restart learns
 * its session is gone; a HELLO ends the session in progress.
 */
#ifndef GPU_AES_GUEST_PROTO_H
#define GPU_AES_GUEST_PROTO_H

#include <stdint.h>

#include "../../uapi/gpu_aes.h"

#define GPU_AES_GUEST_MAGIC	0x31676167U	/* "gag1" */
/* The virtio-serial port's name (qemu's virtserialport name=). */
#define GPU_AES_GUEST_PORT_NAME	"org.gpu-aes.ring"
/* virtio_console sends up to 32 KiB of one write() as one buffer. */
#define GPU_AES_GUEST_MSG_MAX	16384U

enum gpu_aes_guest_type {
	GPU_AES_GUEST_HELLO = 1,
	GPU_AES_GUEST_PAGES = 2,
	GPU_AES_GUEST_DOORBELL = 3,
	GPU_AES_GUEST_RELEASE = 4,
	GPU_AES_GUEST_SETUP = 16,
	GPU_AES_GUEST_READY = 17,
	GPU_AES_GUEST_ARM = 18,
	GPU_AES_GUEST_COMPLETE = 19,
	GPU_AES_GUEST_RELEASED = 20,
	GPU_AES_GUEST_ERROR = 32,
};

struct gpu_aes_guest_hdr {
	uint32_t magic;
	uint16_t type;		/* enum gpu_aes_guest_type */
	uint16_t len;		/* payload bytes after this header */
	uint64_t session;
};

/* PAGES: pages [first, first + the runs' counts) of the region. */
struct gpu_aes_guest_run {
	uint64_t gfn;		/* guest frame: guest-physical address / page */
	uint32_t count;		/* consecutive frames, >= 1 */
	uint32_t reserved;	/* 0 */
};

struct gpu_aes_guest_pages {
	uint64_t region_size;	/* what SETUP attached, again */
	uint32_t first;		/* index of the region's first page here */
	uint32_t nr_runs;	/* >= 1, runs follow */
};

/* COMPLETE: a bit per queue, queue q at bit q % 64 of word q / 64. */
struct gpu_aes_guest_complete {
	uint64_t queues[GPU_AES_MAX_QUEUES / 64];
};

/* Runs one PAGES message holds. */
#define GPU_AES_GUEST_RUNS_MAX						\
	((GPU_AES_GUEST_MSG_MAX - sizeof(struct gpu_aes_guest_hdr) -	\
	  sizeof(struct gpu_aes_guest_pages)) /				\
	 sizeof(struct gpu_aes_guest_run))

_Static_assert(sizeof(struct gpu_aes_guest_hdr) == 16, "hdr");
_Static_assert(sizeof(struct gpu_aes_guest_run) == 16, "run");
_Static_assert(sizeof(struct gpu_aes_guest_pages) == 16, "pages");
_Static_assert(sizeof(struct gpu_aes_info) + 16 <= GPU_AES_GUEST_MSG_MAX &&
	       sizeof(struct gpu_aes_setup) + 16 <= GPU_AES_GUEST_MSG_MAX,
	       "one message each");

#endif /* GPU_AES_GUEST_PROTO_H */
