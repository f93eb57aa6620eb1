/* Allocation-failure injection through the library's one allocator door
 * (src/core/alloc.h), SQLite's and Lua's habit: a workload touching every
 * public function family runs with the N-th allocation failing, for
 * N = 1, 2, ... until a run completes without reaching an injected
 * failure. For each N:
 *  - the call that met the failure returns ND_ERR_NOMEM with a message
 *    (or absorbs it: a pool retries after releasing its cache, a staged
 *    copy falls back to a slower path) - never another status, never a
 *    crash;
 *  - that call's out is untouched (NULL stays NULL, an existing out array
 *    stays the same array, a sentinel stays);
 *  - nothing leaks: once everything is released, the live allocations
 *    counted by the door are back at the start count (and LeakSanitizer
 *    checks the same in `make asan` / `make emu-asan`);
 *  - the library works afterwards: the whole workload runs clean once
 *    more and computes the expected values.
 * It runs on nd_default_device() (cuda:0 on the emulated GPU in
 * `make emu-test`, the CPU otherwise) and on the CPU explicitly. One-time
 * initialisations (pools, handles) happen in a warm-up run first; the
 * pinned pool's first creation has its own test below. */
#include <unistd.h>

#include "core/alloc.h"
#include "core/internal.h"
#include "test_util.h"

typedef struct {
    nd_status st;      /* first failing call's status (ND_OK: completed) */
    const char *where; /* that call, as written */
    char msg[256];     /* nd_last_error() after it */
    bool out_kept;     /* its out was left as it was */
    double value;      /* checksum computed by a completed run */
} wl_result;

#define SENTINEL ((void *)(uintptr_t)0x5e57)

/* Fail the workload at the first call that does not return ND_OK, noting
 * whether the call's out is as it was before. */
#define FAIL_AT(call_st, call_text, kept)                                            \
    do {                                                                             \
        r->st = (call_st);                                                           \
        r->where = (call_text);                                                      \
        r->out_kept = (kept);                                                        \
        snprintf(r->msg, sizeof r->msg, "%s", nd_last_error() ? nd_last_error() : ""); \
        goto done;                                                                   \
    } while (0)
/* a call without an out */
#define CALL(call)                                    \
    do {                                              \
        nd_status st_ = (call);                       \
        if (st_ != ND_OK) FAIL_AT(st_, #call, true);  \
    } while (0)
/* a call that allocates its result into var (NULL before) */
#define CALL_NEW(var, call)                                       \
    do {                                                          \
        ck_assert_ptr_null(var);                                  \
        nd_status st_ = (call);                                   \
        if (st_ != ND_OK) FAIL_AT(st_, #call, (var) == NULL);     \
    } while (0)
/* a call that writes into the existing array var */
#define CALL_INTO(var, call)                                         \
    do {                                                             \
        const void *before_ = (var);                                 \
        nd_status st_ = (call);                                      \
        if (st_ != ND_OK) FAIL_AT(st_, #call, (const void *)(var) == before_); \
    } while (0)
/* a call that sets a non-array out (stream, event, rng, pointer); var holds
 * a sentinel before, which must stay there on failure */
#define CALL_SET(var, call)                                                   \
    do {                                                                      \
        *(void **)&(var) = SENTINEL;                                          \
        nd_status st_ = (call);                                               \
        if (st_ != ND_OK) {                                                   \
            bool kept_ = (void *)(var) == SENTINEL;                           \
            *(void **)&(var) = NULL;                                          \
            FAIL_AT(st_, #call, kept_);                                       \
        }                                                                     \
    } while (0)

/* The sum of a's (at most 64) values in float64 on the host. */
static nd_status fetch_sum(const nd_array *a, double *sum)
{
    nd_array *h = NULL, *f = NULL;
    double v[64];
    nd_status st = nd_astype(&f, a, ND_FLOAT64);
    if (!st) st = nd_to_device(&h, f, nd_cpu());
    if (!st) st = nd_size(h) <= 64 ? nd_copy_to_host(v, h, (size_t)nd_size(h) * sizeof(double)) : ND_ERR_INTERNAL;
    if (!st) {
        *sum = 0;
        for (int64_t i = 0; i < nd_size(h); i++) *sum += v[i];
    }
    nd_release(f);
    nd_release(h);
    return st;
}

/* The workload: every public function family once, on dev. Results that
 * are checked land in res[]; r->value is their checksum. */
static void workload(nd_device dev, const char *npy_path, wl_result *r)
{
    memset(r, 0, sizeof *r);
    const nd_device cpu = nd_cpu();
    nd_array *a = NULL, *b = NULL, *z = NULL, *o1 = NULL, *full = NULL, *ar = NULL, *ar2 = NULL;
    nd_array *ls = NULL, *eye = NULL, *el = NULL, *zl = NULL, *ol = NULL, *emp = NULL;
    nd_array *rs = NULL, *tr = NULL, *sl = NULL, *sq = NULL, *ex = NULL, *bc = NULL, *ct = NULL, *cat = NULL,
             *stk = NULL;
    nd_array *add = NULL, *ex1 = NULL, *bs = NULL, *sb = NULL, *cond = NULL, *wh = NULL, *cl = NULL, *cls = NULL,
             *into = NULL, *ovl = NULL;
    nd_array *sum = NULL, *sall = NULL, *mean = NULL, *var = NULL, *amax = NULL, *sinto = NULL;
    nd_array *mm = NULL, *mmt = NULL, *bat = NULL, *dot = NULL, *gc = NULL;
    nd_array *uni = NULL, *nor = NULL, *cast = NULL, *cpy = NULL, *toh = NULL, *tod = NULL;
    nd_array *pin = NULL, *ld = NULL, *ldb = NULL, *imp = NULL, *impl = NULL;
    nd_rng *rng = NULL;
    nd_stream *stream = NULL;
    nd_event *e0 = NULL, *e1 = NULL;
    void *praw = NULL;
    DLManagedTensorVersioned *dl = NULL;
    DLManagedTensor *dll = NULL;
    char *file = NULL;
    double res[12] = {0};

    const double av[6] = {1, -2, 3, 4.5, -5, 6}, bv[6] = {0.5, 2, -1, 3, 2, -4};
    const int64_t s23[2] = {2, 3}, s6 = 6, s2223[3] = {2, 2, 3};
    const int ax1 = 1, ax0 = 0, perm[2] = {1, 0};

    /* creation */
    CALL_NEW(a, nd_from_host(&a, av, ND_FLOAT64, 2, s23, dev));
    CALL_NEW(b, nd_from_host(&b, bv, ND_FLOAT64, 2, s23, dev));
    CALL_NEW(z, nd_zeros(&z, ND_FLOAT32, 2, s23, dev));
    CALL_NEW(o1, nd_ones(&o1, ND_INT32, 2, s23, dev));
    CALL_NEW(full, nd_full(&full, ND_FLOAT64, 2, s23, nd_scalar_float(2.5), dev));
    CALL_NEW(ar, nd_arange(&ar, ND_INT64, 0, 6, 1, dev));
    CALL_NEW(ar2, nd_arange_scalar(&ar2, ND_INT64, nd_scalar_int(1), nd_scalar_int(7), nd_scalar_int(1), dev));
    CALL_NEW(ls, nd_linspace(&ls, ND_FLOAT64, 0, 1, 5, true, dev));
    CALL_NEW(eye, nd_eye(&eye, ND_FLOAT32, 3, 3, 0, dev));
    CALL_NEW(emp, nd_empty(&emp, ND_FLOAT64, 2, s23, dev));
    CALL_NEW(el, nd_empty_like(&el, a));
    CALL_NEW(zl, nd_zeros_like(&zl, a));
    CALL_NEW(ol, nd_ones_like(&ol, a));
    /* views and joins */
    CALL_NEW(rs, nd_reshape(&rs, a, 1, &s6));
    CALL_NEW(tr, nd_transpose(&tr, a, perm));
    nd_range rg[2] = {ND_ALL, {0, 3, 2}};
    CALL_NEW(sl, nd_slice(&sl, a, 2, rg));
    CALL_NEW(ex, nd_expand_dims(&ex, a, 0));
    CALL_NEW(sq, nd_squeeze(&sq, ex, 1, &ax0));
    CALL_NEW(bc, nd_broadcast_to(&bc, a, 3, s2223));
    CALL_NEW(ct, nd_contiguous(&ct, tr));
    const nd_array *pair[2] = {a, b};
    CALL_NEW(cat, nd_concatenate(&cat, 2, pair, 0));
    CALL_NEW(stk, nd_stack(&stk, 2, pair, 1));
    /* elementwise */
    CALL_NEW(add, nd_add(&add, a, b));
    CALL_NEW(ex1, nd_exp(&ex1, z));
    CALL_NEW(bs, nd_binary_scalar(&bs, ND_BINARY_MULTIPLY, o1, nd_scalar_float(1.5)));
    CALL_NEW(sb, nd_scalar_binary(&sb, ND_BINARY_SUBTRACT, nd_scalar_int(10), ar));
    CALL_NEW(cond, nd_greater(&cond, a, b));
    CALL_NEW(wh, nd_where(&wh, cond, a, b));
    CALL_NEW(cl, nd_clip(&cl, a, b, NULL));
    CALL_NEW(cls, nd_clip_scalar(&cls, o1, nd_scalar_int(-1), nd_scalar_float(0.5)));
    CALL_NEW(into, nd_zeros(&into, ND_FLOAT64, 2, s23, dev));
    CALL_INTO(into, nd_multiply(&into, a, b));            /* an existing out */
    CALL_INTO(into, nd_add(&into, into, a));              /* in place */
    CALL_NEW(ovl, nd_copy(&ovl, eye));
    nd_array *ovl_t = NULL;
    CALL_NEW(ovl_t, nd_transpose(&ovl_t, ovl, NULL));
    nd_status st_ovl = nd_subtract(&ovl_t, ovl, ovl_t); /* out overlaps an input: a temporary */
    nd_release(ovl_t);
    if (st_ovl != ND_OK) FAIL_AT(st_ovl, "nd_subtract(&ovl_t, ovl, ovl_t)", true);
    /* reductions */
    CALL_NEW(sum, nd_sum(&sum, a, 1, &ax1, false));
    CALL_NEW(sall, nd_reduce(&sall, ND_REDUCE_PROD, b, 0, NULL, false));
    CALL_NEW(mean, nd_mean(&mean, o1, 1, &ax0, true));
    CALL_NEW(var, nd_reduce_ddof(&var, ND_REDUCE_VAR, a, 0, NULL, false, 1));
    CALL_NEW(amax, nd_argmax(&amax, b, 1, &ax1, false));
    CALL_NEW(sinto, nd_zeros(&sinto, ND_FLOAT64, 1, &s2223[2], dev));
    CALL_INTO(sinto, nd_sum(&sinto, a, 1, &ax0, false));
    /* linear algebra */
    CALL_NEW(mm, nd_matmul(&mm, a, tr));
    CALL_NEW(mmt, nd_matmul(&mmt, tr, a));
    CALL_NEW(bat, nd_matmul(&bat, bc, ct)); /* broadcast batch of a stride-0 operand */
    CALL_NEW(dot, nd_dot(&dot, rs, rs));
    CALL_NEW(gc, nd_ones(&gc, ND_FLOAT64, 2, (const int64_t[]){2, 2}, dev));
    CALL_INTO(gc, nd_gemm(&gc, false, true, 2.0, a, a, 0.5));
    /* random */
    CALL_SET(rng, nd_rng_create(&rng, 42));
    CALL_NEW(uni, nd_random_uniform(&uni, rng, ND_FLOAT32, 2, s23, 0, 1, dev));
    CALL_NEW(nor, nd_random_normal(&nor, rng, ND_FLOAT64, 1, &s6, 0, 1, dev));
    /* casts, copies, transfers */
    CALL_NEW(cast, nd_astype(&cast, a, ND_FLOAT16));
    CALL_NEW(cpy, nd_copy(&cpy, tr));
    CALL_NEW(toh, nd_to_device(&toh, a, cpu));
    CALL_NEW(tod, nd_to_device(&tod, toh, dev));
    double back[6];
    CALL(nd_copy_to_host(back, tod, sizeof back));
    CALL(nd_copy_from_host(emp, back, sizeof back));
    /* pinned memory, streams, events */
    CALL_SET(praw, nd_pinned_alloc(&praw, 4096));
    CALL_NEW(pin, nd_empty_pinned(&pin, ND_FLOAT64, 2, s23));
    CALL_SET(stream, nd_stream_create(&stream, dev));
    CALL_SET(e0, nd_event_create(&e0, dev));
    CALL_SET(e1, nd_event_create(&e1, dev));
    CALL(nd_set_stream(stream));
    CALL(nd_event_record(e0, stream));
    CALL(nd_copy_async(pin, a, stream));
    CALL(nd_event_record(e1, stream));
    CALL(nd_event_synchronize(e1));
    CALL(nd_stream_synchronize(stream));
    CALL(nd_set_stream(NULL));
    /* .npy */
    CALL(nd_save_npy(npy_path, add));
    CALL_NEW(ld, nd_load_npy(&ld, npy_path, dev));
    {
        FILE *f = fopen(npy_path, "rb");
        ck_assert_ptr_nonnull(f);
        file = malloc(4096); /* the test's own memory, not the library's */
        size_t n = fread(file, 1, 4096, f);
        fclose(f);
        CALL_NEW(ldb, nd_load_npy_buffer(&ldb, file, n, dev));
    }
    /* DLPack (the import consumes the tensor only on success) */
    CALL_SET(dl, nd_to_dlpack(&dl, wh));
    CALL_NEW(imp, nd_from_dlpack(&imp, dl));
    dl = NULL;
    CALL_SET(dll, nd_to_dlpack_legacy(&dll, cl));
    CALL_NEW(impl, nd_from_dlpack_legacy(&impl, dll));
    dll = NULL;
    /* memory statistics, device info */
    nd_memory_stats ms;
    nd_device_info info;
    CALL(nd_memory_get_stats(&ms, dev));
    CALL(nd_memory_reset_peak(dev));
    CALL(nd_device_get_info(&info, dev));
    CALL(nd_synchronize(dev));

    /* the values (NumPy's, summed) */
    CALL(fetch_sum(add, &res[0]));   /* sum(a + b) = 7.5 + 2.5 */
    CALL(fetch_sum(sum, &res[1]));   /* sum(a) = 7.5 */
    CALL(fetch_sum(mm, &res[2]));    /* sum(a @ a.T) */
    CALL(fetch_sum(ld, &res[3]));    /* the .npy round trip of a + b */
    CALL(fetch_sum(imp, &res[4]));   /* where(a > b, a, b) */
    CALL(fetch_sum(into, &res[5]));  /* a * b + a */
    CALL(fetch_sum(ovl, &res[6]));   /* eye - eye.T = 0 */
    CALL(fetch_sum(cls, &res[7]));   /* clip(1, -1, 0.5) * 6 = 3 */
    CALL(fetch_sum(gc, &res[8]));    /* 2 a @ a.T + 0.5 */
    CALL(fetch_sum(pin, &res[9]));   /* the async copy of a */
    CALL(fetch_sum(bat, &res[10]));  /* 2 (a @ a.T) */
    CALL(fetch_sum(ldb, &res[11]));  /* from the buffer */
    for (int i = 0; i < 12; i++) r->value += res[i] * (i + 1);
    r->st = ND_OK;

done:
    nd_set_stream(NULL);
    if (dl) dl->deleter(dl);
    if (dll) dll->deleter(dll);
    free(file);
    nd_array *all[] = {a, b, z, o1, full, ar, ar2, ls, eye, el, zl, ol, emp, rs, tr, sl, sq, ex, bc, ct, cat, stk,
                       add, ex1, bs, sb, cond, wh, cl, cls, into, ovl, sum, sall, mean, var, amax, sinto, mm, mmt, bat,
                       dot, gc, uni, nor, cast, cpy, toh, tod, pin, ld, ldb, imp, impl};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) nd_release(all[i]);
    nd_rng_destroy(rng);
    nd_pinned_free(praw);
    nd_event_destroy(e0);
    nd_event_destroy(e1);
    nd_stream_destroy(stream);
}

/* Give back everything cached, so the door's live count is exact. */
static void release_caches(nd_device dev)
{
    ND_OK_OR_FAIL(nd_synchronize(dev));
    ND_OK_OR_FAIL(nd_memory_release_cached(dev));
    nd__host_pinned_release_cached();
}

/* The workload's checksum from double-precision references. */
static double reference_value(void)
{
    const double a[2][3] = {{1, -2, 3}, {4.5, -5, 6}}, b[2][3] = {{0.5, 2, -1}, {3, 2, -4}};
    double add = 0, sa = 0, mm = 0, wh = 0, into = 0;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) {
            add += a[i][k] + b[i][k];
            sa += a[i][k];
            wh += a[i][k] > b[i][k] ? a[i][k] : b[i][k];
            into += a[i][k] * b[i][k] + a[i][k];
            for (int j = 0; j < 2; j++) mm += a[i][k] * a[j][k];
        }
    const double res[12] = {add, sa, mm, add, wh, into, 0, 3, 2 * mm + 0.5 * 4, sa, 2 * mm, add};
    double v = 0;
    for (int i = 0; i < 12; i++) v += res[i] * (i + 1);
    return v;
}

static void run_faults(nd_device dev)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/ndgpu_faults_%d.npy", (int)getpid());
    wl_result r;
    workload(dev, path, &r); /* warm-up: one-time initialisations */
    ck_assert_msg(r.st == ND_OK, "clean run failed at %s: %s", r.where, r.msg);
    const double expect = r.value;
    ck_assert_msg(fabs(expect - reference_value()) < 1e-9, "checksum %.17g, reference %.17g", expect,
                  reference_value());
    release_caches(dev);
    const long live0 = nd__alloc_live();

    int n, failed = 0, absorbed = 0;
    for (n = 1; n < 100000; n++) {
        nd__alloc_fail_after(n);
        workload(dev, path, &r);
        bool fired = nd__alloc_fault_reset();
        if (!fired) { /* the workload made fewer than n allocations */
            ck_assert_msg(r.st == ND_OK, "N=%d: no fault injected, yet %s failed: %s", n, r.where, r.msg);
            break;
        }
        if (r.st == ND_OK) { /* absorbed (a retry or a fallback) */
            ck_assert_msg(r.value == expect, "N=%d: absorbed failure, wrong result %g (expected %g)", n, r.value,
                          expect);
            absorbed++;
        } else {
            failed++;
            ck_assert_msg(r.st == ND_ERR_NOMEM, "N=%d: %s returned %s (%s), expected ND_ERR_NOMEM", n, r.where,
                          nd_status_name(r.st), r.msg);
            ck_assert_msg(r.msg[0] != '\0', "N=%d: %s failed without a message", n, r.where);
            ck_assert_msg(r.out_kept, "N=%d: %s failed but changed its out", n, r.where);
        }
        release_caches(dev);
        long live = nd__alloc_live();
        ck_assert_msg(live == live0, "N=%d: %ld allocations live after releasing everything, %ld before (failed: %s)",
                      n, live, live0, r.st ? r.where : "none");
    }
    ck_assert_int_gt(failed, 50);
    /* the library works afterwards */
    workload(dev, path, &r);
    ck_assert_msg(r.st == ND_OK && r.value == expect, "after the faults: %s %s", r.where ? r.where : "", r.msg);
    unlink(path);
    printf("faults: %s: %d allocation points, %d failed with ND_ERR_NOMEM, %d absorbed\n",
           dev.type == ND_DEVICE_CPU ? "cpu" : "cuda", n - 1, failed, absorbed);
}

/* numpy.linalg: every nd_linalg_* function once on a 3x3
 * matrix (and a 3x2 system), so that the fault walk below reaches every
 * allocation of the decompositions, their packing, workspaces and info
 * buffers, and of the norms and products. The checksum adds the results'
 * sums. */
static void la_workload(nd_device dev, wl_result *r)
{
    memset(r, 0, sizeof *r);
    /* symmetric positive definite, so that cholesky and eigh apply */
    const double av[9] = {4, 1, 0.5, 1, 3, 0.25, 0.5, 0.25, 2}, bv[6] = {1, 2, -1, 0.5, 3, 1};
    const int64_t s33[2] = {3, 3}, s32[2] = {3, 2};
    nd_array *a = NULL, *b = NULL, *x = NULL, *inv = NULL, *det = NULL, *sg = NULL, *ld = NULL, *ch = NULL;
    nd_array *q = NULL, *rr = NULL, *u = NULL, *sv = NULL, *vh = NULL, *w = NULL, *v = NULL, *ew = NULL, *ev = NULL;
    nd_array *lx = NULL, *lres = NULL, *ls = NULL, *pi = NULL, *rk = NULL, *cn = NULL, *nm = NULL, *n2 = NULL;
    nd_array *mp = NULL, *md = NULL, *cr = NULL, *vd = NULL, *kr = NULL;
    int64_t rank = 0;
    CALL_NEW(a, nd_from_host(&a, av, ND_FLOAT64, 2, s33, dev));
    CALL_NEW(b, nd_from_host(&b, bv, ND_FLOAT64, 2, s32, dev));
    CALL_NEW(x, nd_linalg_solve(&x, a, b));
    CALL_NEW(inv, nd_linalg_inv(&inv, a));
    CALL_NEW(det, nd_linalg_det(&det, a));
    CALL_NEW(sg, nd_linalg_slogdet(&sg, &ld, a));
    CALL_NEW(ch, nd_linalg_cholesky(&ch, a, false));
    CALL_NEW(q, nd_linalg_qr(&q, &rr, a, ND_QR_COMPLETE));
    CALL_NEW(u, nd_linalg_svd(&u, &sv, &vh, a, true));
    CALL_NEW(w, nd_linalg_eigh(&w, &v, a, 'U'));
    CALL_NEW(ew, nd_linalg_eig(&ew, &ev, a));
    CALL_NEW(lx, nd_linalg_lstsq(&lx, &lres, &rank, &ls, b, a, -1));
    CALL_NEW(pi, nd_linalg_pinv(&pi, b, -1, false));
    CALL_NEW(rk, nd_linalg_matrix_rank(&rk, a, -1, false));
    CALL_NEW(cn, nd_linalg_cond(&cn, a, nd_norm_p(1)));
    CALL_NEW(nm, nd_linalg_norm(&nm, a, nd_norm_named(ND_NORM_NUC), -1, NULL, false));
    CALL_NEW(n2, nd_linalg_vector_norm(&n2, b, 3.0, 1, (const int[]){0}, true));
    CALL_NEW(mp, nd_linalg_matrix_power(&mp, a, -2));
    CALL_NEW(md, nd_linalg_multi_dot(&md, 3, (const nd_array *const[]){a, inv, b}));
    CALL_NEW(cr, nd_linalg_cross(&cr, a, inv, -1));
    CALL_NEW(vd, nd_linalg_vecdot(&vd, a, inv, 0));
    CALL_NEW(kr, nd_kron(&kr, a, b));
    nd_array *const sums[] = {x, inv, det, ld, ch, rr, sv, w, lx, pi, cn, nm, n2, mp, md, cr, vd, kr};
    for (size_t i = 0; i < sizeof sums / sizeof *sums; i++) {
        double v_ = 0;
        CALL(fetch_sum(sums[i], &v_));
        r->value += v_ * (double)(i + 1);
    }
    r->value += (double)rank;
    r->st = ND_OK;
done:;
    nd_array *all[] = {a, b, x, inv, det, sg, ld, ch, q, rr, u, sv, vh, w, v, ew, ev, lx, lres, ls, pi, rk, cn, nm,
                       n2, mp, md, cr, vd, kr};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) nd_release(all[i]);
}

/* Fail each allocation of a workload in turn: ND_ERR_NOMEM with a message
 * and the out untouched, or absorbed with the same result; nothing leaks;
 * the library works afterwards. what names it in the summary line. */
static void run_workload_faults(nd_device dev, void (*work)(nd_device, wl_result *), const char *what)
{
    wl_result r;
    work(dev, &r);
    ck_assert_msg(r.st == ND_OK, "clean run failed at %s: %s", r.where, r.msg);
    const double expect = r.value;
    ck_assert(isfinite(expect) && expect != 0);
    release_caches(dev);
    const long live0 = nd__alloc_live();
    int n, failed = 0;
    for (n = 1; n < 100000; n++) {
        nd__alloc_fail_after(n);
        work(dev, &r);
        if (!nd__alloc_fault_reset()) {
            ck_assert_msg(r.st == ND_OK, "N=%d: no fault injected, yet %s failed: %s", n, r.where, r.msg);
            break;
        }
        if (r.st == ND_OK) {
            ck_assert_msg(r.value == expect, "N=%d: absorbed failure, wrong result %.17g (expected %.17g)", n, r.value,
                          expect);
        } else {
            failed++;
            ck_assert_msg(r.st == ND_ERR_NOMEM, "N=%d: %s returned %s (%s), expected ND_ERR_NOMEM", n, r.where,
                          nd_status_name(r.st), r.msg);
            ck_assert_msg(r.msg[0] != '\0', "N=%d: %s failed without a message", n, r.where);
            ck_assert_msg(r.out_kept, "N=%d: %s failed but changed its out", n, r.where);
        }
        release_caches(dev);
        ck_assert_msg(nd__alloc_live() == live0, "N=%d: %ld allocations live, %ld before (failed: %s)", n,
                      nd__alloc_live(), live0, r.st ? r.where : "none");
    }
    ck_assert_int_gt(failed, 50);
    work(dev, &r);
    ck_assert_msg(r.st == ND_OK && r.value == expect, "after the faults: %s %s", r.where ? r.where : "", r.msg);
    printf("faults: %s on %s: %d allocation points, %d failed with ND_ERR_NOMEM\n", what,
           dev.type == ND_DEVICE_CPU ? "cpu" : "cuda", n - 1, failed);
}

/* The sparse API: a float16 COO matrix with duplicate entries (so that
 * the widened float32 paths and the duplicate sums run) through every kind
 * of operation; the checksum adds the dense results' sums. */
static void sp_workload(nd_device dev, wl_result *r)
{
    memset(r, 0, sizeof *r);
    const float dv[6] = {1, 2, -1, 0.5f, 3, 2};
    const int64_t rv[6] = {0, 2, 1, 0, 2, 0}, cv[6] = {1, 0, 2, 1, 2, 0}, n6 = 6, s33[2] = {3, 3}, three = 3;
    const int64_t pick[2] = {2, 0}, n2 = 2;
    nd_array *d32 = NULL, *d = NULL, *ri = NULL, *ci = NULL, *x = NULL, *y = NULL, *dn = NULL, *sm = NULL, *dg = NULL;
    nd_array *idx = NULL, *m = NULL;
    nd_sparse *coo = NULL, *csr = NULL, *csc = NULL, *t = NULL, *g = NULL, *sum = NULL, *prod = NULL, *md = NULL;
    nd_sparse *sl = NULL, *tk = NULL, *un = NULL, *bs = NULL, *can = NULL;
    nd_array *tk_d = NULL, *coo_d = NULL, *can_d = NULL; /* before the first goto done */
    CALL_NEW(d32, nd_from_host(&d32, dv, ND_FLOAT32, 1, &n6, dev));
    CALL_NEW(d, nd_astype(&d, d32, ND_FLOAT16));
    CALL_NEW(ri, nd_from_host(&ri, rv, ND_INT64, 1, &n6, dev));
    CALL_NEW(ci, nd_from_host(&ci, cv, ND_INT64, 1, &n6, dev));
    CALL_NEW(coo, nd_sparse_coo(&coo, d, ri, ci, 3, 3));
    CALL_NEW(csr, nd_sparse_convert(&csr, coo, ND_SPARSE_CSR));
    CALL_NEW(csc, nd_sparse_convert(&csc, coo, ND_SPARSE_CSC));
    CALL_NEW(can, nd_sparse_from_triplets(&can, ND_SPARSE_COO, d, ri, ci, 3, 3));
    CALL_NEW(t, nd_sparse_transpose(&t, csr));
    CALL_NEW(g, nd_sparse_spgemm(&g, csr, csc));
    CALL_NEW(sum, nd_sparse_add(&sum, csr, t));
    CALL_NEW(prod, nd_sparse_multiply(&prod, csc, g));
    CALL_NEW(x, nd_full(&x, ND_FLOAT16, 1, &three, nd_scalar_float(1.5), dev));
    CALL_NEW(y, nd_sparse_matmul(&y, sum, x));
    CALL_NEW(m, nd_full(&m, ND_FLOAT16, 2, s33, nd_scalar_float(-2), dev));
    CALL_NEW(md, nd_sparse_multiply_dense(&md, coo, m));
    CALL_NEW(sl, nd_sparse_slice_rows(&sl, coo, 2, -4, -1));
    CALL_NEW(idx, nd_from_host(&idx, pick, ND_INT64, 1, &n2, dev));
    CALL_NEW(tk, nd_sparse_take(&tk, g, idx, 1));
    CALL_NEW(un, nd_sparse_unary(&un, ND_UNARY_NEG, prod));
    CALL_NEW(bs, nd_sparse_binary_scalar(&bs, ND_BINARY_MULTIPLY, un, nd_scalar_float(0.5)));
    CALL(nd_sparse_sum_duplicates(coo));
    CALL(nd_sparse_eliminate_zeros(bs));
    CALL_NEW(dn, nd_sparse_to_dense(&dn, bs));
    CALL_NEW(sm, nd_sparse_sum(&sm, md, 0));
    CALL_NEW(dg, nd_sparse_diagonal(&dg, sl, 0));
    CALL_NEW(tk_d, nd_sparse_to_dense(&tk_d, tk));
    CALL_NEW(coo_d, nd_sparse_to_dense(&coo_d, coo));
    CALL_NEW(can_d, nd_sparse_to_dense(&can_d, can));
    nd_array *const sums[] = {y, dn, sm, dg, tk_d, coo_d, can_d};
    for (size_t i = 0; i < sizeof sums / sizeof *sums; i++) {
        double v_ = 0;
        CALL(fetch_sum(sums[i], &v_));
        r->value += v_ * (double)(i + 1);
    }
    r->st = ND_OK;
done:;
    nd_array *all[] = {d32, d, ri, ci, x, y, dn, sm, dg, idx, m, tk_d, coo_d, can_d};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) nd_release(all[i]);
    nd_sparse *alls[] = {coo, csr, csc, t, g, sum, prod, md, sl, tk, un, bs, can};
    for (size_t i = 0; i < sizeof alls / sizeof *alls; i++) nd_sparse_release(alls[i]);
}

START_TEST(test_sparse_faults_default_device) { run_workload_faults(nd_default_device(), sp_workload, "sparse"); }
END_TEST

START_TEST(test_la_faults_default_device) { run_workload_faults(nd_default_device(), la_workload, "linalg"); }
END_TEST

START_TEST(test_faults_default_device) { run_faults(nd_default_device()); }
END_TEST

START_TEST(test_faults_cpu) { run_faults(nd_cpu()); }
END_TEST

/* Finding: a failed first creation of the pinned pool made every
 * later nd_pinned_alloc / nd_empty_pinned fail for the rest of the process
 * (pthread_once). In a forked test (the default) the pool does not exist
 * yet, so the first allocation of the call is the pool's creation. */
START_TEST(test_pinned_pool_first_creation_retried)
{
    void *p = SENTINEL;
    nd__alloc_fail_after(1);
    nd_status st = nd_pinned_alloc(&p, 256);
    bool fired = nd__alloc_fault_reset();
    ck_assert(fired);
    if (st != ND_OK) {
        ck_assert_int_eq(st, ND_ERR_NOMEM);
        ck_assert_ptr_eq(p, SENTINEL);
    } else {
        ND_OK_OR_FAIL(nd_pinned_free(p)); /* the pool existed already (CK_FORK=no): retried inside */
    }
    ND_OK_OR_FAIL(nd_pinned_alloc(&p, 256));
    memset(p, 1, 256);
    ND_OK_OR_FAIL(nd_pinned_free(p));
    nd_array *a = NULL;
    const int64_t n = 16;
    ND_OK_OR_FAIL(nd_empty_pinned(&a, ND_FLOAT32, 1, &n));
    nd_release(a);
}
END_TEST

Suite *suite_faults(void)
{
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("faults");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_pinned_pool_first_creation_retried);
    tcase_add_test(tc, test_la_faults_default_device);
    tcase_add_test(tc, test_sparse_faults_default_device);
    tcase_add_test(tc, test_faults_default_device);
    tcase_add_test(tc, test_faults_cpu);
    suite_add_tcase(s, tc);
    return s;
}
