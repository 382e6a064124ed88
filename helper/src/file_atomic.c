// SPDX-License-Identifier: GPL-2.0-only
/*
 * file_atomic.c - replace a file so that readers never see a part of it:
 * the helper's status file and gpu-aesctl's metrics file.  libc only, so
 * gpu-aesctl links it without the helper's library.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_atomic.h"

int gpu_aes_write_atomic(const char *path, const char *text, size_t len)
{
	return gpu_aes_write_atomic_mode(path, text, len, 0644);
}

int gpu_aes_write_atomic_mode(const char *path, const char *text, size_t len,
			      mode_t mode)
{
	size_t done = 0;
	char *tmp = NULL;
	int fd, err = 0;

	/* The same directory, so that rename() replaces atomically. */
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	if (!err && fchmod(fd, mode))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
