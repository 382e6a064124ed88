/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chardev.h - /dev/gpu_aes, the helper's attachment point.
 */
#ifndef GPU_AES_CHARDEV_H
#define GPU_AES_CHARDEV_H

/**
 * gpu_aes_chardev_register() - create /dev/gpu_aes and its sysfs files
 * (counters, dispatch estimates, status, queues).
 *
 * Return: 0 or misc_register()'s error.
 */
int gpu_aes_chardev_register(void);

/**
 * gpu_aes_chardev_unregister() - remove /dev/gpu_aes.
 */
void gpu_aes_chardev_unregister(void);

#endif /* GPU_AES_CHARDEV_H */
