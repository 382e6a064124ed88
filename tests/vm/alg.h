/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * alg.h - AF_ALG skcipher calls shared by the guest test programs.  The
 * reference for every byte check is the kernel's own aes-generic driver,
 * reached by driver name (ctr(aes-generic)), so the guest needs no OpenSSL
 * library and the reference never goes through gpu_aes.
 */
#ifndef VMT_ALG_H
#define VMT_ALG_H

#include <errno.h>
#include <linux/if_alg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

/* A bound, keyed tfm socket, or -errno. */
static inline int alg_tfm(const char *name, const void *key, size_t klen)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int fd, err;

	strcpy((char *)sa.salg_type, "skcipher");
	strncpy((char *)sa.salg_name, name, sizeof(sa.salg_name) - 1);
	fd = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_ALG, ALG_SET_KEY, key, klen) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Control message for one sendmsg: the operation and, unless @iv is NULL,
 * a 16-byte IV.  @cbuf must hold ALG_CBUF bytes.
 */
#define ALG_CBUF (CMSG_SPACE(sizeof(uint32_t)) + \
		  CMSG_SPACE(sizeof(struct af_alg_iv) + 16))
static inline void alg_cmsg(struct msghdr *msg, char *cbuf, int enc,
			    const uint8_t *iv)
{
	struct cmsghdr *c;
	struct af_alg_iv *a;

	memset(cbuf, 0, ALG_CBUF);
	msg->msg_control = cbuf;
	msg->msg_controllen = iv ? ALG_CBUF : CMSG_SPACE(sizeof(uint32_t));
	c = CMSG_FIRSTHDR(msg);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	*(uint32_t *)(void *)CMSG_DATA(c) = enc ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
	if (!iv)
		return;
	c = CMSG_NXTHDR(msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + 16);
	a = (struct af_alg_iv *)(void *)CMSG_DATA(c);
	a->ivlen = 16;
	memcpy(a->iv, iv, 16);
}

/*
 * One request of @len bytes on an op socket of @tfm: 0, or -errno of the
 * first call that failed (-EIO for a short transfer).
 */
static inline int alg_op(int tfm, int enc, const uint8_t *iv,
			 const void *in, void *out, size_t len)
{
	char cbuf[ALG_CBUF];
	struct msghdr msg = { 0 };
	struct iovec iov = { (void *)in, len };
	ssize_t n;
	int op, err = 0;

	op = accept(tfm, NULL, NULL);
	if (op < 0)
		return -errno;
	alg_cmsg(&msg, cbuf, enc, iv);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	n = sendmsg(op, &msg, 0);
	if (n != (ssize_t)len) {
		err = n < 0 ? -errno : -EIO;
	} else if (len) {
		/* Exactly @len: a longer read would wait for more data. */
		n = read(op, out, len);
		if (n != (ssize_t)len)
			err = n < 0 ? -errno : -EIO;
	}
	close(op);
	return err;
}

/* One request on a fresh tfm of @name. */
static inline int alg_once(const char *name, const void *key, size_t klen,
			   int enc, const uint8_t *iv, const void *in,
			   void *out, size_t len)
{
	int tfm = alg_tfm(name, key, klen), err;

	if (tfm < 0)
		return tfm;
	err = alg_op(tfm, enc, iv, in, out, len);
	close(tfm);
	return err;
}

/* xorshift64*: reproducible test data without libc's rand state. */
static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static inline void rnd_fill(uint64_t *s, void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(rnd(s) >> 56);
}

static inline long stat_read(const char *name)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/misc/gpu_aes/stats/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtol(buf, NULL, 10);
}

#endif /* VMT_ALG_H */
