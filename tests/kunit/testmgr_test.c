// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's own self-tests (vectors plus, with
 * CONFIG_CRYPTO_MANAGER_EXTRA_TESTS, the fuzzer against the generic
 * implementation) run through the ring.
 *
 * At boot no helper is attached, so testmgr only exercised the CPU
 * fallback.  Here the fake helper attaches first, every request size goes
 * to the ring (ring_min_bytes = 0), and the algorithms are registered again,
 * which schedules testmgr for them.  testmgr's verdict is not a KUnit
 * result: a failing driver is silently left untested and lookups fall back
 * to aes-generic.  So the test asserts that the lookup by cra_name picks our
 * driver and that it carries CRYPTO_ALG_TESTED, and scripts/kunit also
 * scans the log for "alg: ... failed".
 */
#include <crypto/algapi.h>
#include <crypto/internal/aead.h>
#include <crypto/internal/skcipher.h>
#include <kunit/test.h>

#include "aead.h"
#include "dispatch.h"
#include "fake_helper.h"
#include "job.h"
#include "skcipher.h"
#include "stats.h"
#include "test_util.h"

static void gt_expect_ours(struct kunit *test, const char *name,
			   const char *driver)
{
	struct crypto_skcipher *tfm;

	/* By driver name first: it waits for that driver's test larval. */
	tfm = crypto_alloc_skcipher(driver, 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, tfm, "%s failed its self-tests",
					 driver);
	crypto_free_skcipher(tfm);

	tfm = crypto_alloc_skcipher(name, 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tfm);
	KUNIT_EXPECT_STREQ(test, crypto_skcipher_driver_name(tfm), driver);
	KUNIT_EXPECT_TRUE(test, crypto_skcipher_alg(tfm)->base.cra_flags &
				CRYPTO_ALG_TESTED);
	crypto_free_skcipher(tfm);
}

static void gt_expect_ours_aead(struct kunit *test, const char *name,
				const char *driver)
{
	struct crypto_aead *tfm;

	tfm = crypto_alloc_aead(driver, 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, tfm, "%s failed its self-tests",
					 driver);
	crypto_free_aead(tfm);

	tfm = crypto_alloc_aead(name, 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tfm);
	KUNIT_EXPECT_STREQ(test, crypto_aead_driver_name(tfm), driver);
	KUNIT_EXPECT_TRUE(test, crypto_aead_alg(tfm)->base.cra_flags &
				CRYPTO_ALG_TESTED);
	crypto_free_aead(tfm);
}

static void gt_expect_all_ours(struct kunit *test)
{
	const struct gpu_aes_alg_desc *d;
	unsigned int alg;

	for (alg = 1; alg <= GPU_AES_ALG_MAX; alg++) {
		d = gpu_aes_alg_desc(alg);
		if (!d)
			continue;
		if (d->aead)
			gt_expect_ours_aead(test, d->cra_name, d->driver);
		else
			gt_expect_ours(test, d->cra_name, d->driver);
	}
}

/* The ring requests of every algorithm since @s, added up. */
static s64 gt_ring_alg_sum(struct gt_stats *s)
{
	s64 sum = 0;
	unsigned int alg;

	for (alg = 1; alg <= GPU_AES_ALG_MAX; alg++)
		if (gpu_aes_alg_desc(alg))
			sum += gt_stats_delta(s, GT_RING_STAT(alg));
	return sum;
}

static void gpu_aes_testmgr_through_ring(struct kunit *test)
{
	struct fake_helper *h;
	struct gt_stats s;

	gt_wait_algs_tested(test);
	/*
	 * 0, not 1: GCM's empty messages (no text, no AAD) go to the ring
	 * too; ECB/CTR requests of length 0 complete before routing.
	 */
	gt_set_ring_min_bytes(test, 0);
	/* A descheduled UML must not turn into a timeout: none are expected. */
	gt_set_timeout_ms(test, 600000);
	h = gt_helper(test, FAKE_HELPER_ENTRIES, true);
	gt_stats_snap(&s);

	gpu_aes_aead_unregister();
	gpu_aes_skcipher_unregister();
	KUNIT_ASSERT_EQ(test, gpu_aes_skcipher_register(), 0);
	KUNIT_ASSERT_EQ(test, gpu_aes_aead_register(), 0);
	gt_expect_all_ours(test);

	/* It really was the ring, and the ring never needed the CPU. */
	kunit_info(test, "testmgr sent %lld requests (ecb %lld, cbc %lld, ctr %lld, xts %lld, gcm %lld, xctr %lld), %lld bytes to the ring, %lld auth failures\n",
		   gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS),
		   gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_ECB)),
		   gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_CBC)),
		   gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_CTR)),
		   gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_XTS)),
		   gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_GCM)),
		   gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_XCTR)),
		   gt_stats_delta(&s, GPU_AES_STAT_RING_BYTES),
		   gt_stats_delta(&s, GPU_AES_STAT_AUTH_FAILURES));
	KUNIT_EXPECT_GT(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS),
			1000);
	KUNIT_EXPECT_GT(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_XTS)),
			300);
	KUNIT_EXPECT_GT(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_GCM)),
			300);
	KUNIT_EXPECT_GT(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_CBC)),
			300);
	/* xctr(aes): its vectors and the fuzzer, where the kernel has it */
	if (IS_ENABLED(CONFIG_CRYPTO_XCTR)) {
		KUNIT_EXPECT_NOT_NULL(test, gpu_aes_alg_desc(GPU_AES_ALG_XCTR));
		KUNIT_EXPECT_GT(test,
				gt_stats_delta(&s,
					       GT_RING_STAT(GPU_AES_ALG_XCTR)),
				300);
	}
	/* testmgr's inauthentic inputs: the helper's verdict, not the CPU's. */
	KUNIT_EXPECT_GT(test, gt_stats_delta(&s, GPU_AES_STAT_AUTH_FAILURES), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_AUTH_FAILURES),
			atomic_read(&h->auth_fails));
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS),
			gt_ring_alg_sum(&s));
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_HELPER_ERRORS), 0);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_SMALL),
			0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqes),
			gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS));
}

/*
 * The templates users meet over cbc(aes): dm-crypt's aes-cbc-essiv:sha256,
 * fscrypt's cts(cbc(aes)), IPsec's authenc(hmac(sha256),cbc(aes)).  Each
 * is instantiated over cbc-aes-gpu with the helper attached, so testmgr
 * (vectors and the EXTRA fuzzer against the generic instance) runs its
 * inner requests through the ring; each must end CRYPTO_ALG_TESTED.
 */
static void gpu_aes_testmgr_cbc_templates(struct kunit *test)
{
	static const struct {
		const char *name;
		bool aead;
	} tmpls[] = {
		{ "essiv(cbc(aes),sha256)", false },
		{ "cts(cbc(aes))", false },
		{ "authenc(hmac(sha256),cbc(aes))", true },
	};
	struct crypto_skcipher *sk;
	struct crypto_aead *ae;
	struct crypto_alg *base;
	struct gt_stats s;
	unsigned int i;
	const char *drv;

	gt_wait_algs_tested(test);
	gt_set_ring_min_bytes(test, 0);
	gt_set_timeout_ms(test, 600000);
	gt_helper(test, FAKE_HELPER_ENTRIES, true);
	gt_stats_snap(&s);
	for (i = 0; i < ARRAY_SIZE(tmpls); i++) {
		if (tmpls[i].aead) {
			ae = crypto_alloc_aead(tmpls[i].name, 0, 0);
			KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, ae, "%s",
							 tmpls[i].name);
			drv = crypto_aead_driver_name(ae);
			base = &crypto_aead_alg(ae)->base;
		} else {
			sk = crypto_alloc_skcipher(tmpls[i].name, 0, 0);
			KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, sk, "%s",
							 tmpls[i].name);
			drv = crypto_skcipher_driver_name(sk);
			base = &crypto_skcipher_alg(sk)->base;
		}
		kunit_info(test, "%s: %s\n", tmpls[i].name, drv);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(drv, "cbc-aes-gpu"),
					  "%s is %s", tmpls[i].name, drv);
		KUNIT_EXPECT_TRUE_MSG(test, base->cra_flags & CRYPTO_ALG_TESTED,
				      "%s", drv);
		if (tmpls[i].aead)
			crypto_free_aead(ae);
		else
			crypto_free_skcipher(sk);
	}
	kunit_info(test, "their self-tests sent %lld cbc requests to the ring\n",
		   gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_CBC)));
	KUNIT_EXPECT_GT(test, gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_CBC)),
			100);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_HELPER_ERRORS), 0);
}

/*
 * HCTR2 (fscrypt's filenames and contents mode) over xctr-aes-gpu:
 * hctr2(aes) is hctr2_base(xctr(aes),polyval), so with the helper attached
 * testmgr's HCTR2 vectors and fuzzer (against hctr2_base over
 * xctr(aes-generic)) run their XCTR through the ring; the instance must end
 * CRYPTO_ALG_TESTED.  Only where the kernel has HCTR2.
 */
static void gpu_aes_testmgr_hctr2(struct kunit *test)
{
	struct crypto_skcipher *sk;
	struct gt_stats s;
	const char *drv;

	if (!IS_ENABLED(CONFIG_CRYPTO_HCTR2))
		kunit_skip(test, "no CONFIG_CRYPTO_HCTR2");
	gt_wait_algs_tested(test);
	gt_set_ring_min_bytes(test, 0);
	gt_set_timeout_ms(test, 600000);
	gt_helper(test, FAKE_HELPER_ENTRIES, true);
	gt_stats_snap(&s);
	sk = crypto_alloc_skcipher("hctr2(aes)", 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sk);
	drv = crypto_skcipher_driver_name(sk);
	kunit_info(test, "hctr2(aes): %s\n", drv);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(drv, "xctr-aes-gpu"), "%s", drv);
	KUNIT_EXPECT_TRUE_MSG(test, crypto_skcipher_alg(sk)->base.cra_flags &
				    CRYPTO_ALG_TESTED, "%s", drv);
	crypto_free_skcipher(sk);
	kunit_info(test, "its self-tests sent %lld xctr requests to the ring\n",
		   gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_XCTR)));
	KUNIT_EXPECT_GT(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_XCTR)),
			100);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_HELPER_ERRORS), 0);
}

/* Boot-time testmgr ran on the fallback: the algorithms must be ours too. */
static void gpu_aes_testmgr_boot(struct kunit *test)
{
	gt_expect_all_ours(test);
}

/*
 * A mode is ours exactly where the kernel has its CPU driver to fall back
 * on, and what the module reports says the same: its descriptor, INFO's
 * set, its ring counter's name and its line in dispatch/cpu_drivers.
 */
static void gpu_aes_registered_follows_kernel(struct kunit *test)
{
	const struct gpu_aes_alg_desc *d;
	char *page, *drivers, line[GPU_AES_ALG_NAME_MAX + 3];
	unsigned int alg, present = 0;
	bool has;

	gt_wait_algs_tested(test);
	/* sysfs_emit_at() takes a page; a line is "\nNAME DRIVER". */
	page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	drivers = kunit_kzalloc(test, PAGE_SIZE + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_NOT_NULL(test, drivers);
	KUNIT_ASSERT_GT(test, gpu_aes_dispatch_cpu_drivers_show(page), 0);
	drivers[0] = '\n';
	memcpy(drivers + 1, page, PAGE_SIZE - 1);
	for (alg = 1; alg <= GPU_AES_ALG_MAX; alg++) {
		d = gpu_aes_alg_row_desc(alg - 1);
		/* Ours carry NEED_FALLBACK: this finds the CPU's only. */
		has = d->aead ?
		      crypto_has_alg(d->cra_name, CRYPTO_ALG_TYPE_AEAD,
				     CRYPTO_ALG_TYPE_MASK |
				     CRYPTO_ALG_NEED_FALLBACK) :
		      crypto_has_skcipher(d->cra_name, 0,
					  CRYPTO_ALG_NEED_FALLBACK);
		kunit_info(test, "%s: %s\n", d->cra_name,
			   has ? "registered" : "absent");
		present += has;
		KUNIT_EXPECT_EQ_MSG(test, !!gpu_aes_alg_desc(alg), has, "%s",
				    d->cra_name);
		KUNIT_EXPECT_EQ_MSG(test,
				    !!(gpu_aes_alg_set() & GPU_AES_ALG_BIT(alg)),
				    has, "%s", d->cra_name);
		KUNIT_EXPECT_EQ_MSG(test,
				    !!gpu_aes_stat_names[gpu_aes_alg_ring_stat(d)],
				    has, "%s", d->cra_name);
		snprintf(line, sizeof(line), "\n%s ", d->name);
		KUNIT_EXPECT_EQ_MSG(test, !!strstr(drivers, line), has, "%s",
				    d->cra_name);
		KUNIT_EXPECT_EQ_MSG(test, crypto_has_alg(d->driver, 0, 0), has,
				    "%s", d->driver);
	}
	/* What the module cannot do without: its tests use them all. */
	KUNIT_EXPECT_GE(test, present, 5U);
	/* xctr(aes) is the kernel's only with HCTR2 (or an arch driver) */
	if (IS_ENABLED(CONFIG_CRYPTO_XCTR))
		KUNIT_EXPECT_NOT_NULL(test, gpu_aes_alg_desc(GPU_AES_ALG_XCTR));
}

static struct kunit_case gpu_aes_testmgr_cases[] = {
	KUNIT_CASE(gpu_aes_testmgr_boot),
	KUNIT_CASE(gpu_aes_registered_follows_kernel),
	KUNIT_CASE_SLOW(gpu_aes_testmgr_through_ring),
	KUNIT_CASE_SLOW(gpu_aes_testmgr_cbc_templates),
	KUNIT_CASE_SLOW(gpu_aes_testmgr_hctr2),
	{}
};

static struct kunit_suite gpu_aes_testmgr_suite = {
	.name = "gpu_aes_testmgr",
	.test_cases = gpu_aes_testmgr_cases,
};

kunit_test_suite(gpu_aes_testmgr_suite);
