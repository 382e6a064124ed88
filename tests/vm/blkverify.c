// SPDX-License-Identifier: GPL-2.0-only
/*
 * blkverify - write and verify a range of a block device with O_DIRECT,
 * pass after pass, until a stop file appears.
 *
 *   blkverify DEV FIRST_SECTOR SECTORS ID STOPFILE
 *
 * Every 512-byte sector gets a pattern derived from (sector, pass, ID), so a
 * sector that was lost, written twice, landed elsewhere or decrypted with
 * the wrong counter fails the check, as does an old pass's data.  Each pass
 * writes the whole range in 64 KiB requests, then reads it back and
 * compares.  The pass running when STOPFILE appears is finished.  Prints
 * one line of totals; exits 1 on any I/O error or mismatch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECTOR 512
#define CHUNK (64 * 1024)

static void fill(uint8_t *buf, uint64_t sector, uint64_t pass, uint64_t id)
{
	uint64_t s = (sector + 1) * 0x9e3779b97f4a7c15ull ^ (pass << 40) ^ (id << 56);
	uint64_t *w = (uint64_t *)(void *)buf;
	size_t i;

	for (i = 0; i < SECTOR / 8; i++) {
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		w[i] = s * 0x2545F4914F6CDD1DULL;
	}
}

int main(int argc, char **argv)
{
	uint64_t first, count, id, pass, sec, n, i;
	uint64_t written = 0, verified = 0, bad = 0, ioerr = 0;
	static uint8_t want[SECTOR];
	uint8_t *buf;
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: %s DEV FIRST_SECTOR SECTORS ID STOPFILE\n",
			argv[0]);
		return 2;
	}
	first = strtoull(argv[2], NULL, 0);
	count = strtoull(argv[3], NULL, 0);
	id = strtoull(argv[4], NULL, 0);
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, CHUNK)) {
		perror(argv[1]);
		return 1;
	}
	for (pass = 1;; pass++) {
		for (sec = first; sec < first + count; sec += n) {
			n = first + count - sec;
			if (n > CHUNK / SECTOR)
				n = CHUNK / SECTOR;
			for (i = 0; i < n; i++)
				fill(buf + i * SECTOR, sec + i, pass, id);
			if (pwrite(fd, buf, n * SECTOR, (off_t)(sec * SECTOR)) !=
			    (ssize_t)(n * SECTOR)) {
				fprintf(stderr, "blkverify %llu: write at sector %llu: %s\n",
					(unsigned long long)id, (unsigned long long)sec,
					strerror(errno));
				ioerr++;
				continue;
			}
			written += n * SECTOR;
		}
		for (sec = first; sec < first + count; sec += n) {
			n = first + count - sec;
			if (n > CHUNK / SECTOR)
				n = CHUNK / SECTOR;
			if (pread(fd, buf, n * SECTOR, (off_t)(sec * SECTOR)) !=
			    (ssize_t)(n * SECTOR)) {
				fprintf(stderr, "blkverify %llu: read at sector %llu: %s\n",
					(unsigned long long)id, (unsigned long long)sec,
					strerror(errno));
				ioerr++;
				continue;
			}
			for (i = 0; i < n; i++) {
				fill(want, sec + i, pass, id);
				if (memcmp(buf + i * SECTOR, want, SECTOR)) {
					if (bad < 5)
						fprintf(stderr, "blkverify %llu: sector %llu wrong in pass %llu\n",
							(unsigned long long)id,
							(unsigned long long)(sec + i),
							(unsigned long long)pass);
					bad++;
				} else {
					verified += SECTOR;
				}
			}
		}
		if (access(argv[5], F_OK) == 0)
			break;
	}
	printf("blkverify id=%llu passes=%llu bytes_written=%llu bytes_verified=%llu verify_errors=%llu io_errors=%llu\n",
	       (unsigned long long)id, (unsigned long long)pass,
	       (unsigned long long)written, (unsigned long long)verified,
	       (unsigned long long)bad, (unsigned long long)ioerr);
	close(fd);
	return bad || ioerr;
}
