/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef GPU_AES_FILE_ATOMIC_H
#define GPU_AES_FILE_ATOMIC_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Replaces @path with @len bytes of @text, mode 0644, atomically: readers
 * see the old file or the new one, never a part.  0 or -errno.
 */
int gpu_aes_write_atomic(const char *path, const char *text, size_t len);

/*
 * The same with file mode @mode.  The data goes to a new file made with
 * O_EXCL (mkostemp) in @path's directory, which rename() then puts in
 * @path's place: whatever was at @path (a symlink too) is replaced, never
 * written through.
 */
int gpu_aes_write_atomic_mode(const char *path, const char *text, size_t len,
			      mode_t mode);

#endif
