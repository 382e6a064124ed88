/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tune_cache.h - where the cuda backend keeps its tuning cache, and one
 * GPU's file in it (cuda_tuning.cu says what the file holds and names).
 * Plain C, so the host unit tests build it without a GPU.
 *
 * The directory is $CACHE_DIRECTORY (the unit's CacheDirectory=), else
 * $STATE_DIRECTORY, else $HOME/.cache/gpu-aes when HOME is an absolute
 * path, else there is none and nothing is read or written: never a
 * world-writable fallback such as /tmp, where another user could plant
 * the file or a symlink in its place.  The first of these that is set
 * decides; a colon-separated list (two CacheDirectory= entries) gives its
 * first directory.  It must be a directory (no symlink as its last
 * component), owned by this user or root and writable by no one else,
 * and so must $HOME and $HOME/.cache in the last case.  Files are read
 * with O_NOFOLLOW and written as a new O_EXCL file in the same directory,
 * renamed into place (file_atomic.c), mode 0600.
 */
#ifndef GPU_AES_CUDA_TUNE_CACHE_H
#define GPU_AES_CUDA_TUNE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "aes_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The cache directory into dir (len bytes): 0, or -errno with *why saying
 * in words why there is none (-ENOENT: none configured).  create: make
 * $HOME/.cache/gpu-aes (mode 0700) where it is missing; the others are
 * systemd's to make.
 */
int gpu_aes_tune_cache_dir(char *dir, size_t len, bool create,
			   const char **why);

/*
 * The shape stored as file @name of the cache: 0, -ENOENT (no cache or no
 * such file), -ELOOP (a symlink in its place), -EINVAL (does not parse),
 * or another -errno.
 */
int gpu_aes_tune_cache_load(const char *name, struct gpu_aes_shape *shape);

/*
 * Stores @shape as file @name of the cache, mode 0600, replacing whatever
 * was there.  path (len bytes) gets the file's path, or "" when there is
 * no cache.  0, or -errno with *why set when the directory is the cause.
 */
int gpu_aes_tune_cache_store(const char *name,
			     const struct gpu_aes_shape *shape, char *path,
			     size_t len, const char **why);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_CUDA_TUNE_CACHE_H */
