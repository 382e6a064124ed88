// SPDX-License-Identifier: GPL-2.0-only
/*
 * af_alg_ecb - send one ECB request through AF_ALG by hand.  kcapi-enc pads
 * its input, so it can never hand the driver a length that is not a
 * multiple of the block size; this does.
 *
 *   af_alg_ecb ALG LEN   encrypt LEN bytes with ALG (e.g. ecb-aes-gpu)
 *
 * The request uses the FIPS-197 C.1 key and plaintext (repeated).  Prints
 * "ok" and exits 0 when a 16-byte multiple gives the FIPS-197 ciphertext;
 * prints "errno N" and exits 0 when the read fails with EINVAL (the expected
 * result for any other length); anything else exits 1.
 */
#include <errno.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

static const unsigned char key[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};
static const unsigned char pt[16] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};
static const unsigned char ct[16] = {
	0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
	0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a,
};

#define MAX_LEN 8192

int main(int argc, char **argv)
{
	static unsigned char in[MAX_LEN], out[MAX_LEN];
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	char cbuf[CMSG_SPACE(sizeof(__u32))] = { 0 };
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	struct iovec iov;
	size_t len, i;
	ssize_t n;
	int tfm, op;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ALG LEN\n", argv[0]);
		return 2;
	}
	len = strtoul(argv[2], NULL, 0);
	if (len == 0 || len > MAX_LEN) {
		fprintf(stderr, "LEN must be 1..%d\n", MAX_LEN);
		return 2;
	}
	for (i = 0; i < len; i++)
		in[i] = pt[i % 16];

	strcpy((char *)sa.salg_type, "skcipher");
	strncpy((char *)sa.salg_name, argv[1], sizeof(sa.salg_name) - 1);
	tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (tfm < 0 || bind(tfm, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("socket/bind");
		return 1;
	}
	if (setsockopt(tfm, SOL_ALG, ALG_SET_KEY, key, sizeof(key)) < 0) {
		perror("ALG_SET_KEY");
		return 1;
	}
	op = accept(tfm, NULL, NULL);
	if (op < 0) {
		perror("accept");
		return 1;
	}

	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_ALG;
	cmsg->cmsg_type = ALG_SET_OP;
	cmsg->cmsg_len = CMSG_LEN(sizeof(__u32));
	*(__u32 *)(void *)CMSG_DATA(cmsg) = ALG_OP_ENCRYPT;
	iov.iov_base = in;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (sendmsg(op, &msg, 0) != (ssize_t)len) {
		perror("sendmsg");
		return 1;
	}

	/*
	 * Read exactly what was sent: algif_skcipher keeps filling a longer
	 * buffer and would wait for more data after a successful request.
	 */
	n = read(op, out, len);
	if (n < 0) {
		printf("errno %d\n", errno);
		return errno == EINVAL ? 0 : 1;
	}
	if ((size_t)n != len) {
		printf("short read %zd of %zu\n", n, len);
		return 1;
	}
	for (i = 0; i + 16 <= len; i += 16) {
		if (memcmp(out + i, ct, 16)) {
			printf("wrong ciphertext at %zu\n", i);
			return 1;
		}
	}
	if (i != len) {
		printf("accepted %zu bytes, not a multiple of 16\n", len);
		return 1;
	}
	printf("ok\n");
	return 0;
}
