/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log.h - one line per event on stderr with an sd-daemon "<N>" priority
 * prefix, so journald keeps the level; journald adds the timestamp.
 */
#ifndef GPU_AES_HELPER_LOG_H
#define GPU_AES_HELPER_LOG_H

#include <syslog.h>

/* Lines above this priority (numerically greater) are dropped. */
extern int gpu_aes_log_level;

void gpu_aes_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...)	gpu_aes_log(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	gpu_aes_log(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)	gpu_aes_log(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)	gpu_aes_log(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	gpu_aes_log(LOG_DEBUG, __VA_ARGS__)

#endif /* GPU_AES_HELPER_LOG_H */
