/* The caching allocator, over a counting malloc upstream (the same code
 * serves cudaMalloc and cudaHostAlloc on a GPU machine). */
#include <pthread.h>
#include <stdlib.h>

#include "core/pool.h"
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
    nd_pool_upstream up = {.alloc = up_alloc, .free = up_free, .ctx = c};
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
    nd_pool_upstream up = {.alloc = up_alloc, .free = up_free, .ctx = &c};
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

/* ---- stream safety, over fake streams and events ---------------------- */
/* Stream i "has work queued" while busy[i]; a fence on it is an event that
 * completes when the test calls finish(i) (or when the pool waits for it). */
#define NFAKE 64
typedef struct {
    upstream_counter c;
    int busy[4];
    int ev_stream[NFAKE], ev_dev[NFAKE], ev_done[NFAKE], nev;
    int fences, waits, drops;
} fake_streams;

static void *fake_fence(void *ctx, nd_pool_use u)
{
    fake_streams *f = ctx;
    if (!f->busy[u.stream] || f->nev == NFAKE) return NULL;
    f->ev_stream[f->nev] = (int)u.stream;
    f->ev_dev[f->nev] = u.dev;
    f->ev_done[f->nev] = 0;
    f->fences++;
    return (void *)(intptr_t)(++f->nev);
}
static bool fake_done(void *ctx, void *ev) { return ((fake_streams *)ctx)->ev_done[(intptr_t)ev - 1]; }
static void fake_wait(void *ctx, void *ev)
{
    fake_streams *f = ctx;
    f->waits++;
    f->ev_done[(intptr_t)ev - 1] = 1;
}
static void fake_drop(void *ctx, void *ev, int dev)
{
    fake_streams *f = ctx;
    ck_assert(f->ev_done[(intptr_t)ev - 1]); /* only completed events are let go */
    ck_assert_int_eq(dev, f->ev_dev[(intptr_t)ev - 1]); /* back to the fenced stream's device */
    f->drops++;
}
static int fake_alloc(void *ctx, size_t n, void **p) { return up_alloc(&((fake_streams *)ctx)->c, n, p); }
static void fake_free(void *ctx, void *p) { up_free(&((fake_streams *)ctx)->c, p); }
static void finish(fake_streams *f, int stream)
{
    f->busy[stream] = 0;
    for (int i = 0; i < f->nev; i++)
        if (f->ev_stream[i] == stream) f->ev_done[i] = 1;
}

static nd_pool *make_fake_pool(fake_streams *f, bool stream_ordered, bool caching)
{
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->c.mu, NULL);
    nd_pool_upstream up = {.alloc = fake_alloc, .free = fake_free, .ctx = f, .fence = fake_fence, .done = fake_done,
                           .wait = fake_wait, .drop = fake_drop, .stream_ordered = stream_ordered, .dev = 0};
    nd_pool *p = nd__pool_create_ex(up, caching);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* A device block (allocated on stream 1) that stream 2 may still use is
 * reused only after stream 2's fence; its own stream needs none, and an
 * idle stream gets no fence at all. */
START_TEST(block_waits_for_the_fences_of_other_streams)
{
    fake_streams f;
    nd_pool *p = make_fake_pool(&f, true, true);
    nd_pool_use uses[3] = {{0, 0}, {1, 0}, {2, 0}};
    void *a, *b, *c;
    f.busy[1] = f.busy[2] = 1; /* stream 0 idle */
    ND_OK_OR_FAIL(nd__pool_alloc(p, 1u << 20, 1, &a, "t"));
    ND_OK_OR_FAIL(nd__pool_alloc(p, 1u << 20, 1, &b, "t")); /* the segment is full */
    ck_assert(nd__pool_free_after(p, a, uses, 3));
    ck_assert_int_eq(f.fences, 1); /* stream 2 only */
    nd_pool_stats s;
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.pending, 1u << 20);
    ck_assert_uint_eq(s.in_use, 1u << 20);
    ck_assert_uint_eq(s.cached, 1u << 20);
    ck_assert_uint_eq(s.largest_free, 0); /* pending is not free */
    ND_OK_OR_FAIL(nd__pool_alloc(p, 1u << 20, 1, &c, "t"));
    ck_assert_ptr_ne(c, a); /* stream 2 still busy: a new segment */
    ck_assert_int_eq(f.c.allocs, 2);
    nd__pool_free(p, c);
    finish(&f, 2);
    /* the free list of stream 1 holds c's segment; a request it cannot
     * serve polls the pending blocks and finds a done, without waiting */
    void *big;
    ND_OK_OR_FAIL(nd__pool_alloc(p, 2u << 20, 1, &big, "t")); /* all of c's segment */
    ND_OK_OR_FAIL(nd__pool_alloc(p, 1u << 20, 1, &c, "t"));
    ck_assert_ptr_eq(c, a);
    ck_assert_int_eq(f.waits, 0);
    ck_assert_int_eq(f.drops, 1);
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.pending, 0);
    nd__pool_free(p, big), nd__pool_free(p, b), nd__pool_free(p, c);
    nd__pool_destroy(p);
    ck_assert_int_eq(f.c.allocs, f.c.frees);
}
END_TEST

/* Under a limit the pool waits for pending blocks rather than fail, and
 * release_cached waits for them before returning segments. */
START_TEST(pending_blocks_under_pressure_and_release)
{
    fake_streams f;
    nd_pool *p = make_fake_pool(&f, true, true);
    nd_pool_use other = {2, 0};
    void *a, *b;
    f.busy[2] = 1;
    nd__pool_set_limit(p, 2u << 20);
    ND_OK_OR_FAIL(nd__pool_alloc(p, 2u << 20, 1, &a, "t"));
    ck_assert(nd__pool_free_after(p, a, &other, 1));
    ND_OK_OR_FAIL(nd__pool_alloc(p, 2u << 20, 1, &b, "t")); /* the limit: wait for stream 2, reuse */
    ck_assert_ptr_eq(a, b);
    ck_assert_int_eq(f.waits, 1);
    ck_assert(nd__pool_free_after(p, b, &other, 1)); /* stream 2 is "done" now, but still busy[] */
    nd_pool_stats s;
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.pending, 2u << 20);
    nd__pool_release_cached(p);
    nd__pool_get_stats(p, &s);
    ck_assert_uint_eq(s.reserved, 0);
    ck_assert_uint_eq(s.pending, 0);
    ck_assert_int_eq(f.fences, f.drops);
    /* destroy drops the events of blocks still pending */
    nd__pool_set_limit(p, 0);
    ND_OK_OR_FAIL(nd__pool_alloc(p, 4096, 1, &a, "t"));
    ck_assert(nd__pool_free_after(p, a, &other, 1));
    nd__pool_destroy(p);
    ck_assert_int_eq(f.fences, f.drops);
    ck_assert_int_eq(f.c.allocs, f.c.frees);
}
END_TEST

/* Pinned memory (not stream-ordered): every stream recorded on a block is
 * fenced, its allocation stream included, each once; without caching the
 * upstream's free waits for the device and no fence is made. */
START_TEST(recorded_streams_of_a_host_block)
{
    fake_streams f;
    nd_pool *p = make_fake_pool(&f, false, true);
    void *a, *b;
    f.busy[0] = f.busy[3] = 1;
    ND_OK_OR_FAIL(nd__pool_alloc(p, 4096, 0, &a, "t"));
    nd__pool_record_stream(p, a, (nd_pool_use){0, 5});
    nd__pool_record_stream(p, a, (nd_pool_use){0, 5}); /* the same stream once */
    nd__pool_record_stream(p, a, (nd_pool_use){3, 1});
    nd__pool_record_stream(p, (char *)a + 512, (nd_pool_use){3, 1}); /* not a block: ignored */
    ck_assert(nd__pool_free(p, a));
    ck_assert_int_eq(f.fences, 2);
    ND_OK_OR_FAIL(nd__pool_alloc(p, 4096, 0, &b, "t"));
    ck_assert_ptr_ne(a, b);
    nd__pool_free(p, b); /* b: no stream recorded, reusable at once */
    ND_OK_OR_FAIL(nd__pool_alloc(p, 4096, 0, &b, "t"));
    ck_assert_int_eq(f.fences, 2);
    finish(&f, 0);
    finish(&f, 3);
    nd__pool_free(p, b);
    nd__pool_release_cached(p);
    ck_assert_int_eq(f.drops, 2);
    nd__pool_destroy(p);
    ck_assert_int_eq(f.c.allocs, f.c.frees);

    p = make_fake_pool(&f, false, false);
    f.busy[0] = 1;
    ND_OK_OR_FAIL(nd__pool_alloc(p, 4096, 0, &a, "t"));
    nd__pool_record_stream(p, a, (nd_pool_use){0, 0});
    ck_assert(nd__pool_free(p, a));
    ck_assert_int_eq(f.fences, 0);
    ck_assert_int_eq(f.c.frees, 1);
    nd__pool_destroy(p);
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
    tcase_add_test(tc, block_waits_for_the_fences_of_other_streams);
    tcase_add_test(tc, pending_blocks_under_pressure_and_release);
    tcase_add_test(tc, recorded_streams_of_a_host_block);
    suite_add_tcase(s, tc);
    return s;
}
