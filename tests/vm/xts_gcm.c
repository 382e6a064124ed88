// SPDX-License-Identifier: GPL-2.0-only
/*
 * xts_gcm - xts(aes) and gcm(aes) through AF_ALG, byte-checked against the
 * kernel's generic implementations reached by driver name
 * (xts(ecb(aes-generic)), gcm_base(ctr(aes-generic),ghash-generic)), which
 * never go through gpu_aes.  kcapi-enc pads its input to the block size,
 * so the XTS ciphertext-stealing lengths and GCM's tag failures need this.
 *
 *   xts_gcm xts MIN_BYTES RING      every XTS case
 *   xts_gcm gcm MIN_BYTES RING      every GCM case
 *
 * MIN_BYTES is the module's ring_min_bytes, RING is 1 when a helper serves
 * the ring.  Each check prints "ok ..." or "not ok ..."; the last line is
 * "stat ring=R small=S badmsg_ring=B": how many requests went to the
 * tested driver at or above MIN_BYTES (text plus associated data), below
 * it, and how many tampered decryptions of the first kind there were, so
 * the caller can check the driver's counters to the request.
 */
#include <errno.h>
#include <stdbool.h>

#include "alg.h"
#include "check.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_TEXT 65536
#define MAX_AAD 4096
#define BUF (MAX_AAD + MAX_TEXT + 16)

static unsigned long min_bytes;
static bool ring;
static unsigned long n_ring, n_small, n_badmsg_ring;
static uint64_t seed = 0x9e3779b97f4a7c15ULL;

static void count(size_t bytes)
{
	if (bytes >= min_bytes)
		n_ring++;
	else
		n_small++;
}

/* A bound tfm socket of @type, keyed, with @authsize when non-zero. */
static int tfm_of(const char *type, const char *name, const void *key,
		  size_t klen, unsigned int authsize)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int fd, err;

	strncpy((char *)sa.salg_type, type, sizeof(sa.salg_type) - 1);
	strncpy((char *)sa.salg_name, name, sizeof(sa.salg_name) - 1);
	fd = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_ALG, ALG_SET_KEY, key, klen) < 0 ||
	    (authsize &&
	     setsockopt(fd, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, authsize) < 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/*
 * One AEAD request: @inlen bytes in (AAD, text, and when decrypting the
 * tag), @outlen bytes read back.  0 or -errno.
 */
static int aead_op(int tfm, int enc, const uint8_t iv[12], uint32_t assoclen,
		   const void *in, size_t inlen, void *out, size_t outlen)
{
	char cbuf[CMSG_SPACE(sizeof(uint32_t)) * 2 +
		  CMSG_SPACE(sizeof(struct af_alg_iv) + 12)] = { 0 };
	struct msghdr msg = { 0 };
	struct iovec iov = { (void *)in, inlen };
	struct af_alg_iv *a;
	struct cmsghdr *c;
	ssize_t n;
	int op, err = 0;

	op = accept(tfm, NULL, NULL);
	if (op < 0)
		return -errno;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	*(uint32_t *)(void *)CMSG_DATA(c) = enc ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + 12);
	a = (struct af_alg_iv *)(void *)CMSG_DATA(c);
	a->ivlen = 12;
	memcpy(a->iv, iv, 12);
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	*(uint32_t *)(void *)CMSG_DATA(c) = assoclen;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	n = sendmsg(op, &msg, 0);
	if (n != (ssize_t)inlen) {
		err = n < 0 ? -errno : -EIO;
	} else {
		n = read(op, out, outlen);
		if (n != (ssize_t)outlen)
			err = n < 0 ? -errno : -EIO;
	}
	close(op);
	return err;
}

static const char *xts_ref = "xts(ecb(aes-generic))";

static bool fips_mode(void)
{
	FILE *f = fopen("/proc/sys/crypto/fips_enabled", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v != 0;
}
static const char *gcm_ref = "gcm_base(ctr(aes-generic),ghash-generic)";

/* XTS: every key size and length, both directions, against the reference. */
static void xts_cases(void)
{
	static const size_t lens[] = {
		16, 17, 31, 32, 33, 255, 256, 257, 511, 512, 4095, 4096, 4097,
		65535, 65536,
	};
	static const size_t klens[] = { 32, 48, 64 };
	static uint8_t pt[MAX_TEXT], ct[MAX_TEXT], ref[MAX_TEXT], back[MAX_TEXT];
	uint8_t key[64], iv[16];
	size_t k, i;
	int err;

	for (k = 0; k < ARRAY_SIZE(klens); k++) {
		size_t bad = 0, done = 0;
		int t, r;

		rnd_fill(&seed, key, klens[k]);
		t = tfm_of("skcipher", "xts(aes)", key, klens[k], 0);
		r = tfm_of("skcipher", xts_ref, key, klens[k], 0);
		if (t < 0 || r < 0) {
			check(false, "xts(aes) %zu-byte key: tfm %d, reference %d",
			      klens[k], t, r);
			if (t >= 0)
				close(t);
			if (r >= 0)
				close(r);
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			size_t n = lens[i];

			rnd_fill(&seed, pt, n);
			rnd_fill(&seed, iv, sizeof(iv));
			err = alg_op(t, 1, iv, pt, ct, n);
			count(n);
			if (!err)
				err = alg_op(r, 1, iv, pt, ref, n);
			if (!err && memcmp(ct, ref, n)) {
				printf("  %zu-byte key, %zu B: ciphertext differs from %s\n",
				       klens[k], n, xts_ref);
				bad++;
			}
			if (!err) {
				err = alg_op(t, 0, iv, ct, back, n);
				count(n);
			}
			if (!err && memcmp(back, pt, n)) {
				printf("  %zu-byte key, %zu B: decryption differs\n",
				       klens[k], n);
				bad++;
			}
			if (err) {
				printf("  %zu-byte key, %zu B: error %d\n",
				       klens[k], n, err);
				bad++;
			}
			done++;
		}
		check(!bad, "xts(aes) %zu-byte key: %zu lengths 16..65536 (ciphertext stealing included) = %s, decrypt round-trips",
		      klens[k], done, xts_ref);

		/* Shorter than one block: no stealing possible. */
		err = alg_op(t, 1, iv, pt, ct, 15);
		check(err == -EINVAL, "xts(aes) %zu-byte key: 15 bytes -> EINVAL (got %d)",
		      klens[k], err);
		close(t);
		close(r);
	}

	/*
	 * Equal halves: xts_verify_key() refuses them only in FIPS mode or
	 * under CRYPTO_TFM_REQ_FORBID_WEAK_KEYS, which AF_ALG never sets, so
	 * here the driver must take them and agree with the reference.
	 */
	rnd_fill(&seed, key, 32);
	memcpy(key + 32, key, 32);
	if (fips_mode()) {
		int t = tfm_of("skcipher", "xts(aes)", key, 64, 0);

		if (t >= 0)
			close(t);
		check(t == -EINVAL, "xts(aes) equal halves in FIPS mode -> EINVAL (got %d)", t);
	} else {
		int t = tfm_of("skcipher", "xts(aes)", key, 64, 0);
		int r = tfm_of("skcipher", xts_ref, key, 64, 0);

		rnd_fill(&seed, pt, 4096);
		err = t < 0 ? t : r < 0 ? r : alg_op(t, 1, iv, pt, ct, 4096);
		if (t >= 0)
			count(4096);
		if (!err)
			err = alg_op(r, 1, iv, pt, ref, 4096);
		check(!err && !memcmp(ct, ref, 4096),
		      "xts(aes) equal halves outside FIPS mode: accepted, = %s (%d)",
		      xts_ref, err);
		if (t >= 0)
			close(t);
		if (r >= 0)
			close(r);
	}

	/* Two halves of different lengths do not make an XTS key. */
	for (k = 0; k < 3; k++) {
		static const size_t badk[] = { 16, 40, 65 };

		err = tfm_of("skcipher", "xts(aes)", key, badk[k], 0);
		if (err >= 0)
			close(err);
		check(err == -EINVAL, "xts(aes) %zu-byte key -> EINVAL (got %d)",
		      badk[k], err);
	}
}

/* One GCM case on @t against @r; 0 when every byte is right. */
static int gcm_case(int t, int r, size_t klen, unsigned int as, size_t aad,
		    size_t n)
{
	static uint8_t in[BUF], out[BUF], ref[BUF], back[BUF];
	uint8_t iv[12];
	size_t i;
	int err;

	rnd_fill(&seed, in, aad + n);
	rnd_fill(&seed, iv, sizeof(iv));
	err = aead_op(t, 1, iv, aad, in, aad + n, out, aad + n + as);
	count(aad + n);
	if (!err)
		err = aead_op(r, 1, iv, aad, in, aad + n, ref, aad + n + as);
	if (err) {
		printf("  key %zu tag %u aad %zu text %zu: encrypt error %d\n",
		       klen, as, aad, n, err);
		return 1;
	}
	if (memcmp(out + aad, ref + aad, n + as)) {
		printf("  key %zu tag %u aad %zu text %zu: ciphertext or tag differs from %s\n",
		       klen, as, aad, n, gcm_ref);
		return 1;
	}
	/*
	 * A decryption with nothing to return is a read of 0 bytes, which
	 * AF_ALG answers without running the request.
	 */
	if (!aad && !n)
		return 0;
	/* Decrypt: AAD, ciphertext, tag in; AAD, plaintext out. */
	memcpy(back, in, aad);
	err = aead_op(t, 0, iv, aad, out, aad + n + as, back, aad + n);
	count(aad + n);
	if (err || memcmp(back + aad, in + aad, n)) {
		printf("  key %zu tag %u aad %zu text %zu: decrypt error %d or wrong plaintext\n",
		       klen, as, aad, n, err);
		return 1;
	}
	/*
	 * A flipped bit in the tag, the ciphertext, the AAD (those there
	 * are): -EBADMSG.  On the ring the driver releases nothing, so the
	 * text part of the output must keep its pattern (the CPU drivers,
	 * ours on the fallback included, decrypt into dst before they
	 * compare).
	 */
	for (i = 0; i < 3; i++) {
		static const char *const what[] = { "tag", "ciphertext", "aad" };
		size_t at = i == 0 ? aad + n + as - 1 : i == 1 ? aad + n / 2 : aad / 2;
		bool on_ring = ring && aad + n >= min_bytes;

		if ((i == 1 && !n) || (i == 2 && !aad))
			continue;

		out[at] ^= 0x10;
		memset(back, 0x5a, aad + n);
		err = aead_op(t, 0, iv, aad, out, aad + n + as, back, aad + n);
		out[at] ^= 0x10;
		count(aad + n);
		n_badmsg_ring += on_ring;
		if (err != -EBADMSG) {
			printf("  key %zu tag %u aad %zu text %zu: tampered %s gave %d, not EBADMSG\n",
			       klen, as, aad, n, what[i], err);
			return 1;
		}
		if (on_ring) {
			size_t j;

			for (j = aad; j < aad + n && back[j] == 0x5a; j++)
				;
			if (j != aad + n) {
				printf("  key %zu tag %u aad %zu text %zu: plaintext released at byte %zu after EBADMSG\n",
				       klen, as, aad, n, j - aad);
				return 1;
			}
		}
	}
	return 0;
}

static void gcm_cases(void)
{
	static const size_t klens[] = { 16, 24, 32 };
	static const unsigned int tags[] = { 4, 8, 12, 13, 14, 15, 16 };
	/* (aad, text): TLS 1.2 and 1.3 shaped records, lengths around blocks. */
	static const size_t shapes[][2] = {
		{ 0, 0 }, { 20, 0 }, { 0, 1 }, { 13, 15 }, { 5, 16 }, { 13, 17 },
		{ 0, 255 }, { 0, 256 }, { 13, 243 }, { 5, 4095 }, { 13, 4096 },
		{ 4096, 4097 }, { 5, 16384 }, { 13, 16384 }, { 20, 65536 },
	};
	static const unsigned int badtags[] = { 1, 2, 3, 5, 6, 7, 9, 10, 11, 17 };
	uint8_t key[32];
	size_t k, a, s;
	int err;

	for (k = 0; k < ARRAY_SIZE(klens); k++) {
		rnd_fill(&seed, key, klens[k]);
		for (a = 0; a < ARRAY_SIZE(tags); a++) {
			size_t bad = 0;
			int t, r;

			t = tfm_of("aead", "gcm(aes)", key, klens[k], tags[a]);
			r = tfm_of("aead", gcm_ref, key, klens[k], tags[a]);
			if (t < 0 || r < 0) {
				check(false, "gcm(aes) %zu-byte key, %u-byte tag: tfm %d, reference %d",
				      klens[k], tags[a], t, r);
				if (t >= 0)
					close(t);
				if (r >= 0)
					close(r);
				continue;
			}
			for (s = 0; s < ARRAY_SIZE(shapes); s++)
				bad += gcm_case(t, r, klens[k], tags[a],
						shapes[s][0], shapes[s][1]);
			check(!bad, "gcm(aes) %zu-byte key, %u-byte tag: %zu aad/text shapes = %s, decrypt round-trips, tampered tag/text/aad -> EBADMSG",
			      klens[k], tags[a], s, gcm_ref);
			close(t);
			close(r);
		}
	}

	/* crypto_gcm_check_authsize(): 4, 8, 12..16 only. */
	for (a = 0; a < ARRAY_SIZE(badtags); a++) {
		err = tfm_of("aead", "gcm(aes)", key, 16, badtags[a]);
		if (err >= 0)
			close(err);
		check(err == -EINVAL, "gcm(aes) %u-byte tag -> EINVAL (got %d)",
		      badtags[a], err);
	}
	for (k = 0; k < 3; k++) {
		static const size_t badk[] = { 15, 20, 33 };

		err = tfm_of("aead", "gcm(aes)", key, badk[k], 16);
		if (err >= 0)
			close(err);
		check(err == -EINVAL, "gcm(aes) %zu-byte key -> EINVAL (got %d)",
		      badk[k], err);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "xts") && strcmp(argv[1], "gcm"))) {
		fprintf(stderr, "usage: %s xts|gcm MIN_BYTES RING\n", argv[0]);
		return 2;
	}
	min_bytes = strtoul(argv[2], NULL, 0);
	ring = argv[3][0] == '1';
	if (!strcmp(argv[1], "xts"))
		xts_cases();
	else
		gcm_cases();
	printf("stat ring=%lu small=%lu badmsg_ring=%lu\n", n_ring, n_small,
	       n_badmsg_ring);
	return nfail ? 1 : 0;
}
