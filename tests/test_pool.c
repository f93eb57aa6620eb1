/* The caching allocator, over a counting malloc upstream (the same code
 * serves cudaMalloc and cudaHostAlloc on a GPU machine). */
#include <pthread.h>
#include <stdlib.h>

#include "pool.h"
#include "test_util.h"

typedef struct {
    size_t live_bytes;
    int allocs, frees;
    size_t fail_above; /* simulate an upstream OOM for large requests (0 = never) */
    pthread_mutex_t mu;
} upstream_counter;

static int up_alloc(void *ctx, size_t n, void **p)
{
    upstream_counter *c = ctx;
    if (c->fail_above && n > c->fail_above) return 1;
    *p = malloc(n);
    if (!*p) return 1;
    pthread_mutex_lock(&c->mu);
    c->live_bytes += n;
    c->allocs++;
    pthread_mutex_unlock(&c->mu);
    /* poison: the pool must never rely on upstream memory contents */
    memset(*p, 0xA5, n < 4096 ? n : 4096);
    return 0;
}

static void up_free(void *ctx, void *p)
{
    upstream_counter *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->frees++;
    pthread_mutex_unlock(&c->mu);
    free(p);
}

static nd_pool *make_pool(upstream_counter *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    nd_pool_upstream up = {up_alloc, up_free, c};
    nd_pool *p = nd__pool_create(up);
    ck_assert_ptr_nonnull(p);
    return p;
}

START_TEST(split_merge_and_reuse)
{
    upstream_counter c;
    nd_pool *p = make_pool(&c);
    void *a, *b, *d;
    ND_OK_OR_FAIL(nd__pool_alloc(p, 1000, 0, &a, "t"));
    ND_OK_OR_FAIL(nd__pool_alloc(p, 3000, 0, &b, "t"));
    ck_assert_int_eq(c.allocs, 1); /* both carved from one 2 MiB segment */
    ck_assert_ptr_eq((char *)b, (char *)a + 1024); /* 512-byte rounding */
    nd_pool_stats s;
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.in_use, 1024 + 3072);
    ck_assert_uint_eq(s.reserved, 2u << 20);
    ck_assert_uint_eq(s.cached, (2u << 20) - 4096);
    ck_assert_uint_eq(s.n_segments, 1);
    memset(a, 1, 1000);
    memset(b, 2, 3000);
    ck_assert(nd__pool_free(p, a));
    /* best fit: a 900-byte request reuses a's 1024-byte hole, not the tail */
    ND_OK_OR_FAIL(nd__pool_alloc(p, 900, 0, &d, "t"));
    ck_assert_ptr_eq(d, a);
    ck_assert(nd__pool_free(p, d));
    ck_assert(nd__pool_free(p, b));
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.in_use, 0);
    ck_assert_uint_eq(s.largest_free, 2u << 20); /* everything merged back */
    ck_assert_uint_eq(s.peak_in_use, 4096);
    ck_assert(!nd__pool_free(p, (char *)b + 512)); /* not a pool pointer */
    nd__pool_release_cached(p);
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.reserved, 0);
    ck_assert_int_eq(c.frees, 1);
    nd__pool_destroy(p);
    ck_assert_int_eq(c.allocs, c.frees);
}
END_TEST

START_TEST(large_requests_and_zero)
{
    upstream_counter c;
    nd_pool *p = make_pool(&c);
    void *big, *z1, *z2;
    ND_OK_OR_FAIL(nd__pool_alloc(p, (5u << 20) + 1, 0, &big, "t"));
    nd_pool_stats s;
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.reserved, (5u << 20) + 512); /* own segment, rounded */
    ND_OK_OR_FAIL(nd__pool_alloc(p, 0, 0, &z1, "t"));
    ND_OK_OR_FAIL(nd__pool_alloc(p, 0, 0, &z2, "t"));
    ck_assert_ptr_ne(z1, z2); /* zero-byte requests get distinct pointers */
    nd__pool_free(p, big);
    /* the cached big block serves a smaller large request without upstream */
    int before = c.allocs;
    ND_OK_OR_FAIL(nd__pool_alloc(p, 3u << 20, 0, &big, "t"));
    ck_assert_int_eq(c.allocs, before);
    nd__pool_free(p, big);
    nd__pool_free(p, z1);
    nd__pool_free(p, z2);
    nd__pool_destroy(p);
    ck_assert_int_eq(c.allocs, c.frees);
}
END_TEST

START_TEST(streams_do_not_share_freed_blocks)
{
    upstream_counter c;
    nd_pool *p = make_pool(&c);
    void *a, *b;
    ND_OK_OR_FAIL(nd__pool_alloc(p, 4096, 1, &a, "t"));
    nd__pool_free(p, a);
    ND_OK_OR_FAIL(nd__pool_alloc(p, 4096, 2, &b, "t")); /* other stream: not a's block */
    ck_assert_ptr_ne(a, b);
    ck_assert_int_eq(c.allocs, 2);
    nd__pool_free(p, b);
    ND_OK_OR_FAIL(nd__pool_alloc(p, 4096, 1, &b, "t")); /* same stream: reused */
    ck_assert_ptr_eq(a, b);
    nd__pool_free(p, b);
    nd__pool_release_cached(p);
    nd_pool_stats s;
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.reserved, 0);
    nd__pool_destroy(p);
    ck_assert_int_eq(c.allocs, c.frees);
}
END_TEST

START_TEST(limit_and_out_of_memory)
{
    upstream_counter c;
    nd_pool *p = make_pool(&c);
    nd__pool_set_limit(p, 3u << 20);
    void *a, *b, *x = (void *)0x1;
    ND_OK_OR_FAIL(nd__pool_alloc(p, 2u << 20, 0, &a, "t"));
    ND_EXPECT_ERR(nd__pool_alloc(p, 2u << 20, 0, &x, "nd_empty"), ND_ERR_NOMEM, "limit 3145728");
    ck_assert_ptr_eq(x, (void *)0x1); /* untouched on failure */
    ck_assert_ptr_nonnull(strstr(nd_last_error(), "in use 2097152"));
    ck_assert_ptr_nonnull(strstr(nd_last_error(), "nd_empty"));
    /* a cached segment is released to make room */
    nd__pool_free(p, a);
    ND_OK_OR_FAIL(nd__pool_alloc(p, (2u << 20) + 4096, 0, &b, "t"));
    nd__pool_free(p, b);
    /* upstream failure also reports the figures */
    nd__pool_set_limit(p, 0);
    c.fail_above = 8u << 20;
    ND_EXPECT_ERR(nd__pool_alloc(p, 9u << 20, 0, &x, "t"), ND_ERR_NOMEM, "no limit");
    nd__pool_reset_peak(p);
    nd_pool_stats s;
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.peak_in_use, 0);
    ck_assert_uint_eq(s.in_use, 0);
    nd__pool_destroy(p);
    ck_assert_int_eq(c.allocs, c.frees);
}
END_TEST

typedef struct {
    nd_pool *p;
    unsigned seed;
    int errors;
} worker_arg;

static void *worker(void *v)
{
    worker_arg *w = v;
    void *ptrs[64] = {0};
    size_t sizes[64] = {0};
    for (int it = 0; it < 4000; it++) {
        int k = (int)(rand_r(&w->seed) % 64);
        if (ptrs[k]) {
            /* the block still holds our pattern: nobody else got it */
            unsigned char tag = (unsigned char)(k + 1);
            for (size_t i = 0; i < sizes[k]; i += 97)
                if (((unsigned char *)ptrs[k])[i] != tag) w->errors++;
            nd__pool_free(w->p, ptrs[k]);
            ptrs[k] = NULL;
        } else {
            sizes[k] = 1 + rand_r(&w->seed) % 20000;
            if (nd__pool_alloc(w->p, sizes[k], 0, &ptrs[k], "t") != ND_OK) {
                w->errors++;
                ptrs[k] = NULL;
                continue;
            }
            memset(ptrs[k], k + 1, sizes[k]);
        }
    }
    for (int k = 0; k < 64; k++) nd__pool_free(w->p, ptrs[k]);
    return NULL;
}

START_TEST(many_threads)
{
    upstream_counter c;
    nd_pool *p = make_pool(&c);
    pthread_t th[4];
    worker_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (worker_arg){p, 1234u + (unsigned)i, 0};
        pthread_create(&th[i], NULL, worker, &args[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(args[i].errors, 0);
    }
    nd_pool_stats s;
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.in_use, 0);
    ck_assert(s.n_allocs > 4000);
    nd__pool_release_cached(p);
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.reserved, 0);
    nd__pool_destroy(p);
    ck_assert_int_eq(c.allocs, c.frees);
}
END_TEST

START_TEST(bypass_mode_allocates_exactly)
{
    upstream_counter c;
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.mu, NULL);
    nd_pool_upstream up = {up_alloc, up_free, &c};
    nd_pool *p = nd__pool_create_ex(up, false);
    void *a, *b;
    ND_OK_OR_FAIL(nd__pool_alloc(p, 100, 0, &a, "t"));
    ND_OK_OR_FAIL(nd__pool_alloc(p, 100, 0, &b, "t"));
    ck_assert_int_eq(c.allocs, 2);
    ck_assert_uint_eq(c.live_bytes, 200); /* exact sizes: tools see overruns */
    nd_pool_stats s;
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.in_use, 200);
    ck_assert_uint_eq(s.cached, 0);
    ck_assert(nd__pool_free(p, a));
    ck_assert_int_eq(c.frees, 1); /* returned at once */
    ck_assert(!nd__pool_free(p, a)); /* a double free is detected */
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.reserved, 100);
    ck_assert(nd__pool_free(p, b));
    nd__pool_destroy(p);
    ck_assert_int_eq(c.allocs, c.frees);
}
END_TEST

Suite *suite_pool(void)
{
    Suite *s = suite_create("pool");
    TCase *tc = tcase_create("pool");
    tcase_add_test(tc, split_merge_and_reuse);
    tcase_add_test(tc, large_requests_and_zero);
    tcase_add_test(tc, streams_do_not_share_freed_blocks);
    tcase_add_test(tc, limit_and_out_of_memory);
    tcase_add_test(tc, many_threads);
    tcase_add_test(tc, bypass_mode_allocates_exactly);
    suite_add_tcase(s, tc);
    return s;
}
