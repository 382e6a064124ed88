/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef GPU_AES_FILE_ATOMIC_H
#define GPU_AES_FILE_ATOMIC_H

#include <stddef.h>

/*
 * Replaces @path with @len bytes of @text, mode 0644, atomically: readers
 * see the old file or the new one, never a part.  0 or -errno.
 */
int gpu_aes_write_atomic(const char *path, const char *text, size_t len);

#endif
