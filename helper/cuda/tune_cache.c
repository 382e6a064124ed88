// SPDX-License-Identifier: GPL-2.0-only
/* tune_cache.c - the cuda backend's tuning cache on disk (tune_cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/file_atomic.h"
#include "tune_cache.h"

/*
 * 0 when @path is a directory that only this user (or root) can change:
 * otherwise another user could swap the file or plant a symlink in it.
 * follow: the last component may be a symlink ($HOME may be one).
 */
static int check_dir(const char *path, bool follow, const char **why)
{
	struct stat st;

	if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
		*why = errno == ENOENT ? "does not exist" :
		       "cannot be examined";
		return -errno;
	}
	if (S_ISLNK(st.st_mode)) {
		*why = "is a symbolic link";
		return -ELOOP;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = "is not a directory";
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		*why = "is owned by another user";
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		*why = "is writable by other users";
		return -EPERM;
	}
	return 0;
}

/* Appends @tail to @buf (len bytes): 0 or -ENAMETOOLONG. */
static int append(char *buf, size_t len, const char *tail)
{
	size_t n = strlen(buf), t = strlen(tail);

	if (n + t >= len)
		return -ENAMETOOLONG;
	memcpy(buf + n, tail, t + 1);
	return 0;
}

/* Checks (and with @create makes, 0700) the directory in @dir. */
static int sub_dir(char *dir, size_t len, const char *tail, bool create,
		   const char **why)
{
	if (append(dir, len, tail)) {
		*why = "is too long a path";
		return -ENAMETOOLONG;
	}
	if (create && mkdir(dir, 0700) && errno != EEXIST) {
		*why = "cannot be created";
		return -errno;
	}
	return check_dir(dir, false, why);
}

int gpu_aes_tune_cache_dir(char *dir, size_t len, bool create,
			   const char **why)
{
	const char *v = getenv("CACHE_DIRECTORY");
	int err;

	if (!len)
		return -ENAMETOOLONG;
	dir[0] = 0;
	if (!v || !*v)
		v = getenv("STATE_DIRECTORY");
	if (v && *v) {
		/* systemd's own directories: it makes them. */
		size_t n = strcspn(v, ":");

		if (n >= len) {
			*why = "is too long a path";
			return -ENAMETOOLONG;
		}
		memcpy(dir, v, n);
		dir[n] = 0;
		if (dir[0] != '/') {
			*why = "is not an absolute path";
			return -EINVAL;
		}
		return check_dir(dir, false, why);
	}
	v = getenv("HOME");
	if (!v || v[0] != '/') {
		*why = "no CACHE_DIRECTORY, STATE_DIRECTORY or absolute HOME";
		return -ENOENT;
	}
	if (append(dir, len, v)) {
		*why = "is too long a path";
		return -ENAMETOOLONG;
	}
	err = check_dir(dir, true, why);
	if (!err)
		err = sub_dir(dir, len, "/.cache", create, why);
	if (!err)
		err = sub_dir(dir, len, "/gpu-aes", create, why);
	return err;
}

/* The file @name of the cache into @path; create: the directory too. */
static int file_path(const char *name, char *path, size_t len, bool create,
		     const char **why)
{
	int err = gpu_aes_tune_cache_dir(path, len, create, why);

	if (err)
		return err;
	if (!*name || strchr(name, '/') || name[0] == '.')
		return -EINVAL;
	if (append(path, len, "/") || append(path, len, name))
		return -ENAMETOOLONG;
	return 0;
}

int gpu_aes_tune_cache_load(const char *name, struct gpu_aes_shape *shape)
{
	struct gpu_aes_shape s;
	char path[4096], line[128];
	const char *why;
	struct stat st;
	int fd, err, ok;
	FILE *f;

	err = file_path(name, path, sizeof(path), false, &why);
	if (err)
		return err;
	/* O_NONBLOCK: a FIFO there must not hang the backend's start. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	ok = fgets(line, sizeof(line), f) && gpu_aes_shape_parse(line, &s) == 0;
	fclose(f);
	if (!ok)
		return -EINVAL;
	*shape = s;
	return 0;
}

int gpu_aes_tune_cache_store(const char *name,
			     const struct gpu_aes_shape *shape, char *path,
			     size_t len, const char **why)
{
	char line[64];
	int err;

	*why = NULL;
	err = file_path(name, path, len, true, why);
	if (err)
		return err;
	if (gpu_aes_shape_format(shape, line, sizeof(line)))
		return -EINVAL;
	return gpu_aes_write_atomic_mode(path, line, strlen(line), 0600);
}
