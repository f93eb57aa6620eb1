/* The CUDA reduction kernels' logic on the CPU (always runs, GPU or not):
 * the operators of src/cuda/reduce_states.h (sums, NaN rules, arg pairs,
 * stores), the geometry and work partition of src/cuda/reduce_plan.h, and
 * an emulation of the kernels - the same thread / warp-shuffle / block-tree
 * / chunk / combine decomposition as src/cuda/reduce_kern.cuh, built from
 * the same ND_HOSTDEV functions - compared with the CPU backend's
 * nd_reduce: bit-exact for integers, bools and arg indices, within
 * tolerance for floats, NaN positions equal. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda/reduce_plan.h"
#include "gpu_reduce_util.h"

/* ------------------------------------------------------------------ */
/* The emulator                                                        */
/* ------------------------------------------------------------------ */
typedef float (*ld_f32_fn)(const char *);
typedef double (*ld_f64_fn)(const char *);
typedef int64_t (*ld_i64_fn)(const char *);
typedef uint64_t (*ld_u64_fn)(const char *);

/* One emulator per (class, compute type): mirrors nd_rk_inner,
 * nd_rk_outer and nd_rk_combine line by line. */
#define EMU_DEF(CLSID, cls, ck)                                                                     \
    typedef nd_r_##cls##_##ck##_S S_##cls##_##ck;                                                  \
    /* nd_rwarp: lane i merges lane i + 1, 2, 4, 8, 16 (the lanes read later) */                  \
    static S_##cls##_##ck warp_##cls##_##ck(S_##cls##_##ck *l)                                     \
    {                                                                                              \
        for (int d = 1; d < 32; d <<= 1)                                                           \
            for (int i = 0; i + d < 32; i += 2 * d) nd_r_##cls##_##ck##_merge(&l[i], l[i + d]);    \
        return l[0];                                                                               \
    }                                                                                              \
    /* nd_rblock: 8 warps, then their results in warp 0 (idle lanes: identity) */                  \
    static S_##cls##_##ck block_##cls##_##ck(S_##cls##_##ck *th)                                   \
    {                                                                                              \
        S_##cls##_##ck lanes[32];                                                                  \
        for (int l = 0; l < 32; l++) lanes[l] = nd_r_##cls##_##ck##_init();                        \
        for (int w = 0; w < NDR_WARPS; w++) lanes[w] = warp_##cls##_##ck(th + 32 * w);            \
        return warp_##cls##_##ck(lanes);                                                           \
    }                                                                                              \
    static void emit_##cls##_##ck(const nd_rk *k, S_##cls##_##ck *part, int64_t o, int64_t kc,     \
                                  S_##cls##_##ck v)                                                \
    {                                                                                              \
        if (part) part[o * k->pso + kc * k->psk] = v;                                              \
        else nd_r_##cls##_##ck##_fin(&k->fin, o, v);                                               \
    }                                                                                              \
    static void emu_##cls##_##ck(nd_rk *k, ld_##ck##_fn ld)                                        \
    {                                                                                              \
        S_##cls##_##ck th[NDR_BLOCK], v;                                                           \
        S_##cls##_##ck *part =                                                                     \
            k->nchunk > 1 ? malloc(sizeof(S_##cls##_##ck) * (size_t)(k->g.nout * k->nchunk)) : NULL; \
        for (int64_t item = 0; item < k->items; item++) {                                          \
            int64_t o, kc, jb, je, line, c0;                                                       \
            if (k->path == NDR_INNER) {                                                            \
                int ng = k->G == 32 ? NDR_WARPS : 1;                                               \
                for (int g = 0; g < ng; g++) {                                                     \
                    nd_rk_inner_item(k, item, g, &o, &kc);                                         \
                    if (o >= k->g.nout) continue;                                                    \
                    nd_rk_chunk(k, kc, &jb, &je);                                                  \
                    const char *p = k->in + nd_rk_koff(k, o);                                      \
                    double c = k->center ? k->center[o] : 0.0;                                     \
                    for (int t = 0; t < k->G; t++) {                                               \
                        th[t] = nd_r_##cls##_##ck##_init();                                        \
                        for (int64_t j = jb + t; j < je; j += k->G)                                \
                            nd_r_##cls##_##ck##_fold(&th[t], ld(p + nd_rk_roff(k, j)), j, c);      \
                    }                                                                              \
                    v = k->G == 32 ? warp_##cls##_##ck(th) : block_##cls##_##ck(th);               \
                    emit_##cls##_##ck(k, part, o, kc, v);                                          \
                }                                                                                  \
            } else {                                                                               \
                nd_rk_outer_item(k, item, &kc, &line, &c0);                                        \
                for (int tx = 0; tx < 32; tx++) {                                                  \
                    int64_t col = c0 + tx;                                                         \
                    if (col >= k->nK) continue;                                                    \
                    o = line * k->nK + col;                                                        \
                    nd_rk_chunk(k, kc, &jb, &je);                                                  \
                    const char *p = k->in + nd_rk_lineoff(k, line) + col * k->sK;                  \
                    double c = k->center ? k->center[o] : 0.0;                                     \
                    for (int ty = 0; ty < NDR_OROWS; ty++) {                                       \
                        th[ty] = nd_r_##cls##_##ck##_init();                                       \
                        for (int64_t j = jb + ty; j < je; j += NDR_OROWS)                          \
                            nd_r_##cls##_##ck##_fold(&th[ty], ld(p + nd_rk_roff(k, j)), j, c);     \
                    }                                                                              \
                    v = th[0];                                                                     \
                    for (int r = 1; r < NDR_OROWS; r++) nd_r_##cls##_##ck##_merge(&v, th[r]);      \
                    emit_##cls##_##ck(k, part, o, kc, v);                                          \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if (!part) return;                                                                         \
        for (int64_t o = 0; o < k->g.nout; o++) {                                                    \
            if (k->cG == 1) {                                                                      \
                v = part[o * k->pso];                                                              \
                for (int64_t kc = 1; kc < k->nchunk; kc++) nd_r_##cls##_##ck##_merge(&v, part[o * k->pso + kc * k->psk]); \
            } else {                                                                               \
                for (int t = 0; t < NDR_BLOCK; t++) {                                              \
                    th[t] = nd_r_##cls##_##ck##_init();                                            \
                    for (int64_t kc = t; kc < k->nchunk; kc += NDR_BLOCK)                          \
                        nd_r_##cls##_##ck##_merge(&th[t], part[o * k->pso + kc * k->psk]);         \
                }                                                                                  \
                v = block_##cls##_##ck(th);                                                        \
            }                                                                                      \
            nd_r_##cls##_##ck##_fin(&k->fin, o, v);                                                \
        }                                                                                          \
        free(part);                                                                                \
    }
NDR_CLASSES_FLOAT(EMU_DEF, f32)
NDR_CLASSES_FLOAT(EMU_DEF, f64)
NDR_CLASSES_INT(EMU_DEF, i64)
NDR_CLASSES_INT(EMU_DEF, u64)

#define EMU_CASE(CLSID, cls, ck) \
    case CLSID: emu_##cls##_##ck(k, ld); return;
static void emu_f32(nd_rk *k, ld_f32_fn ld, int cls)
{
    switch (cls) { NDR_CLASSES_FLOAT(EMU_CASE, f32) default: ck_abort_msg("no class %d on float", cls); }
}
static void emu_f64(nd_rk *k, ld_f64_fn ld, int cls)
{
    switch (cls) { NDR_CLASSES_FLOAT(EMU_CASE, f64) default: ck_abort_msg("no class %d on double", cls); }
}
static void emu_i64(nd_rk *k, ld_i64_fn ld, int cls)
{
    switch (cls) { NDR_CLASSES_INT(EMU_CASE, i64) default: ck_abort_msg("no class %d on int64", cls); }
}
static void emu_u64(nd_rk *k, ld_u64_fn ld, int cls)
{
    switch (cls) { NDR_CLASSES_INT(EMU_CASE, u64) default: ck_abort_msg("no class %d on uint64", cls); }
}

/* The kernels of dtype dt (RLd<DT> in reduce_kern.cuh), chosen as
 * launcher_of() in kernels_reduce.cu does */
static void emu_pass(nd_rk *k, nd_dtype dt, int cls)
{
    switch (nd_r_kernel_dtype(dt, cls)) {
    case ND_BOOL: emu_u64(k, nd_rld_b1, cls); break;
    case ND_INT8: emu_i64(k, nd_rld_i8, cls); break;
    case ND_INT16: emu_i64(k, nd_rld_i16, cls); break;
    case ND_INT32: emu_i64(k, nd_rld_i32, cls); break;
    case ND_INT64: emu_i64(k, nd_rld_i64, cls); break;
    case ND_UINT8: emu_u64(k, nd_rld_u8, cls); break;
    case ND_UINT16: emu_u64(k, nd_rld_u16, cls); break;
    case ND_UINT32: emu_u64(k, nd_rld_u32, cls); break;
    case ND_UINT64: emu_u64(k, nd_rld_u64, cls); break;
    case ND_FLOAT16: emu_f32(k, nd_rld_f16, cls); break;
    case ND_BFLOAT16: emu_f32(k, nd_rld_bf16, cls); break;
    case ND_FLOAT32: emu_f32(k, nd_rld_f32, cls); break;
    default: emu_f64(k, nd_rld_f64, cls); break;
    }
}

/* nd__cuda_reduce (src/cuda/kernels_reduce.cu) with the emulator for the
 * launches; a: the core's view (reduced axes last). Returns the plan. */
static nd_rk emulate(nd_reduce_op op, nd_array *out, const nd_array *a, int naxes, double ddof)
{
    nd_rk k;
    memset(&k, 0, sizeof k);
    if (nd_size(out) == 0) return k;
    const nd_dtype dt = nd_dtype_of(a);
    const bool arg = op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN;
    nd_rk_geometry(&k, nd_ndim(a), nd_shape(a), nd_strides(a), (int64_t)nd_dtype_size(dt), naxes, arg);
    nd_rk_partition(&k);
    k.in = (const char *)nd_data(a) + k.g.base;
    k.fin.n = (double)k.g.nred;
    k.fin.den = nd_rop_den(k.fin.n, ddof);
    if (op != ND_REDUCE_VAR && op != ND_REDUCE_STD) {
        k.fin.out = nd_data(out);
        k.fin.odt = nd_dtype_of(out);
        k.fin.op = op;
        emu_pass(&k, dt, nd_r_class(op, dt));
        return k;
    }
    double *means = malloc(sizeof(double) * (size_t)k.g.nout);
    k.fin.out = means;
    k.fin.odt = ND_FLOAT64;
    k.fin.op = ND_REDUCE_MEAN;
    emu_pass(&k, dt, nd_r_class(ND_REDUCE_MEAN, dt));
    k.center = means;
    k.fin.out = nd_data(out);
    k.fin.odt = nd_dtype_of(out);
    k.fin.op = op;
    emu_pass(&k, dt, NDR_SQDEV);
    free(means);
    k.center = NULL;
    return k;
}

/* One emulated reduction against the CPU backend's nd_reduce. */
static nd_rk emu_check(nd_reduce_op op, nd_dtype t, int layout, int kind, unsigned seed, int ndim, const int64_t *shape,
                       int naxes, const int *axes, double ddof)
{
    char what[200];
    snprintf(what, sizeof what, "emulated %s %s %s ndim %d shape0 %lld naxes %d ddof %g", nd_reduce_op_name(op),
             nd_dtype_name(t), gr_layout_names[layout], ndim, ndim ? (long long)shape[0] : 0LL, axes ? naxes : -1,
             ddof);
    nd_array *a = gr_make(layout, t, kind, seed, ndim, shape, nd_cpu());
    nd_array *want = NULL, *v = NULL, *got = NULL;
    ND_OK_OR_FAIL(nd_reduce_ddof(&want, op, a, naxes, axes, false, ddof));
    bool mask[ND_MAX_DIMS] = {false};
    int perm[ND_MAX_DIMS], np = 0, nred = 0;
    for (int d = 0; d < ndim; d++) mask[d] = axes == NULL;
    for (int i = 0; axes && i < naxes; i++) mask[(axes[i] + ndim) % ndim] = true;
    for (int d = 0; d < ndim; d++)
        if (!mask[d]) perm[np++] = d;
    for (int d = 0; d < ndim; d++)
        if (mask[d]) perm[np++] = d, nred++;
    ND_OK_OR_FAIL(nd_transpose(&v, a, ndim ? perm : NULL));
    ND_OK_OR_FAIL(nd_empty(&got, nd_dtype_of(want), nd_ndim(want), nd_shape(want), nd_cpu()));
    if (nd_nbytes(got)) memset(nd_data(got), 0xA5, nd_nbytes(got));
    nd_rk k = emulate(op, got, v, nred, ddof);
    int64_t bad = gr_compare(got, want, gr_tol(op, nd_dtype_of(want)), what);
    ck_assert_msg(bad == 0, "%s: %lld elements differ from the CPU backend", what, (long long)bad);
    nd_release(got);
    nd_release(v);
    nd_release(want);
    nd_release(a);
    return k;
}

static bool is_arg(int op) { return op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN; }

static const int AX[][3] = {{0}, {0}, {0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {-1, 0}};
static const int NAX[] = {0, -1, 1, 1, 1, 2, 2, 2, 2};
#define NSETS 9

START_TEST(emu_every_op_dtype_layout_axes)
{
    const int64_t shape[3] = {7, 33, 65};
    nd_reduce_op op = (nd_reduce_op)_i;
    int paths[2] = {0, 0};
    for (int t = 0; t < NT_NREAL; t++)
        for (int l = 0; l < GR_NUM_LAYOUTS; l++)
            for (int s = 0; s < NSETS; s++) {
                if (is_arg(op) && NAX[s] != 1 && NAX[s] != -1) continue;
                nd_rk k = emu_check(op, (nd_dtype)t, l, gr_kind_for(op, (nd_dtype)t, l), 11u + (unsigned)t, 3, shape,
                                    NAX[s] < 0 ? 0 : NAX[s], NAX[s] < 0 ? NULL : AX[s], (s % 3 == 2) ? 1 : 0);
                paths[k.path]++;
            }
    ck_assert_msg(paths[NDR_INNER] > 0 && paths[NDR_OUTER] > 0, "both paths are exercised");
}
END_TEST

START_TEST(emu_odd_sizes)
{
    static const nd_dtype dts[] = {ND_FLOAT32, ND_FLOAT64, ND_INT32, ND_UINT8, ND_FLOAT16, ND_BOOL, ND_INT64, ND_BFLOAT16};
    static const int64_t sizes[] = {1, 31, 32, 33, 1025, 4097, 1000007};
    const int64_t s1[2] = {1025, 3}, s2[2] = {3, 1025}, s3[2] = {4097, 9};
    const int64_t *shp[3] = {s1, s2, s3};
    const int a0 = 0, a1 = 1;
    nd_reduce_op op = (nd_reduce_op)_i;
    for (size_t di = 0; di < sizeof dts / sizeof *dts; di++) {
        nd_dtype t = dts[di];
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            if (sizes[si] > 5000 && di > 3) continue; /* the large one on 4 dtypes */
            emu_check(op, t, GR_CONTIG, gr_kind_for(op, t, GR_CONTIG), 5u, 1, &sizes[si], 0, NULL, 0);
            if (sizes[si] < 5000) emu_check(op, t, GR_NEGSTEP, gr_kind_for(op, t, GR_NEGSTEP), 5u, 1, &sizes[si], 1, &a0, 1);
        }
        for (int k = 0; k < 3; k++)
            for (int l = 0; l < GR_NUM_LAYOUTS; l++) {
                int kind = gr_kind_for(op, t, l);
                emu_check(op, t, l, kind, 7u, 2, shp[k], 1, &a0, 0);
                emu_check(op, t, l, kind, 7u, 2, shp[k], 1, &a1, 0);
                emu_check(op, t, l, kind, 7u, 2, shp[k], 0, NULL, 0);
            }
    }
}
END_TEST

START_TEST(emu_nans_and_ties)
{
    static const nd_reduce_op ops[] = {ND_REDUCE_MAX, ND_REDUCE_MIN,  ND_REDUCE_ARGMAX, ND_REDUCE_ARGMIN, ND_REDUCE_SUM,
                                       ND_REDUCE_MEAN, ND_REDUCE_VAR, ND_REDUCE_ANY,    ND_REDUCE_ALL,    ND_REDUCE_PROD};
    const int64_t shape[2] = {67, 1031};
    const int a0 = 0, a1 = 1;
    for (int t = 0; t < NT_NREAL; t++)
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
            for (int l = 0; l < GR_NUM_LAYOUTS; l += 2)
                for (int kind = GR_EQUAL; kind <= GR_NANS; kind++) {
                    emu_check(ops[i], (nd_dtype)t, l, kind, 3u, 2, shape, 1, &a0, 0);
                    emu_check(ops[i], (nd_dtype)t, l, kind, 3u, 2, shape, 1, &a1, 0);
                    emu_check(ops[i], (nd_dtype)t, l, kind, 3u, 2, shape, 0, NULL, 0);
                }
}
END_TEST

START_TEST(emu_empty_and_one_element)
{
    static const nd_reduce_op ops[] = {ND_REDUCE_SUM, ND_REDUCE_PROD, ND_REDUCE_MEAN, ND_REDUCE_ANY,
                                       ND_REDUCE_ALL, ND_REDUCE_VAR,  ND_REDUCE_STD};
    const int64_t s1[2] = {0, 5}, s2[3] = {4, 0, 3}, s3[2] = {3, 4};
    const int a0 = 0, a1 = 1, a01[2] = {0, 1};
    for (int t = 0; t < NT_NREAL; t++) {
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
            emu_check(ops[i], (nd_dtype)t, GR_CONTIG, GR_RANDOM, 1u, 2, s1, 1, &a0, 0);
            emu_check(ops[i], (nd_dtype)t, GR_CONTIG, GR_RANDOM, 1u, 2, s1, 1, &a1, 0);
            emu_check(ops[i], (nd_dtype)t, GR_CONTIG, GR_RANDOM, 1u, 2, s1, 0, NULL, 0);
            emu_check(ops[i], (nd_dtype)t, GR_TRANSPOSED, GR_RANDOM, 1u, 3, s2, 1, &a1, 0);
            emu_check(ops[i], (nd_dtype)t, GR_CONTIG, GR_RANDOM, 1u, 3, s2, 2, a01, -1);
        }
        for (int op = 0; op < ND_NUM_REDUCE_OPS; op++) /* naxes = 0: each output reduces one element */
            if (!is_arg(op)) emu_check((nd_reduce_op)op, (nd_dtype)t, GR_TRANSPOSED, GR_RANDOM, 2u, 2, s3, 0, a01, 0);
    }
}
END_TEST

/* Large inputs through the chunked paths and the block combine. */
START_TEST(emu_large_chunked)
{
    const int64_t tall[2] = {100000, 3}, sq[2] = {2048, 2048}, wide[2] = {1024, 8192};
    const int a0 = 0, a1 = 1;
    nd_rk k = emu_check(ND_REDUCE_SUM, ND_FLOAT32, GR_CONTIG, GR_POS, 8u, 2, tall, 1, &a0, 0);
    ck_assert_int_eq(k.path, NDR_OUTER);
    ck_assert_int_gt(k.nchunk, 1000);
    ck_assert_int_eq(k.cG, NDR_BLOCK);
    k = emu_check(ND_REDUCE_ARGMAX, ND_INT16, GR_CONTIG, GR_RANDOM, 8u, 2, tall, 1, &a0, 0);
    ck_assert_int_eq(k.cG, NDR_BLOCK);
    k = emu_check(ND_REDUCE_VAR, ND_FLOAT64, GR_CONTIG, GR_POS, 8u, 2, sq, 1, &a0, 1);
    ck_assert_int_eq(k.path, NDR_OUTER);
    ck_assert_int_eq(k.nchunk, 32); /* 64 column blocks x 32 chunks of 64 rows */
    ck_assert_int_eq(k.cG, NDR_BLOCK);
    k = emu_check(ND_REDUCE_SUM, ND_FLOAT32, GR_NEGSTEP, GR_RANDOM, 8u, 2, wide, 1, &a0, 0);
    ck_assert_int_eq(k.path, NDR_OUTER);
    ck_assert_int_eq(k.nchunk, 8);
    ck_assert_int_eq(k.cG, 1);
    k = emu_check(ND_REDUCE_SUM, ND_INT32, GR_CONTIG, GR_RANDOM, 8u, 2, sq, 1, &a1, 0);
    ck_assert_int_eq(k.path, NDR_INNER);
    ck_assert_int_eq(k.G, NDR_BLOCK);
    k = emu_check(ND_REDUCE_ARGMIN, ND_FLOAT16, GR_TRANSPOSED, GR_NANS, 8u, 2, sq, 0, NULL, 0);
    k = emu_check(ND_REDUCE_MEAN, ND_BFLOAT16, GR_CONTIG, GR_POS, 8u, 2, sq, 0, NULL, 0);
    ck_assert_int_eq(k.path, NDR_INNER);
    ck_assert_int_gt(k.nchunk, 100);
    ck_assert_int_eq(k.cG, NDR_BLOCK);
}
END_TEST

/* 1.6e7 float32 terms: the emulated GPU sum (float32 accumulation, as the
 * CPU's) is within a few ulps of the exact sum, however the terms are cut
 * up. */
START_TEST(emu_f32_sum_accuracy)
{
    const int64_t n = 16000000;
    float *x = malloc(sizeof(float) * (size_t)n);
    uint64_t h = 88172645463325252ull;
    for (int64_t i = 0; i < n; i++) {
        h ^= h << 13;
        h ^= h >> 7;
        h ^= h << 17;
        x[i] = (float)((double)(h >> 11) * 0x1p-53) * (i % 1000 == 0 ? 1000.0f : 1.0f);
    }
    x[0] = 1e9f; /* a big term first: a float32 running sum would lose the rest */
    long double ref = 0;
    for (int64_t i = 0; i < n; i++) ref += x[i];
    nd_array *a = NULL, *cpu = NULL, *emu = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, x, ND_FLOAT32, 1, &n, nd_cpu()));
    ND_OK_OR_FAIL(nd_sum(&cpu, a, 0, NULL, false));
    ND_OK_OR_FAIL(nd_empty(&emu, ND_FLOAT32, 0, &n, nd_cpu()));
    nd_rk k = emulate(ND_REDUCE_SUM, emu, a, 1, 0);
    ck_assert_int_eq(k.path, NDR_INNER);
    ck_assert_int_eq(k.G, NDR_BLOCK);
    ck_assert_int_gt(k.nchunk, 1000);
    float ge = *(float *)nd_data(emu), gc = *(float *)nd_data(cpu);
    double r = (double)ref, ulp = (double)nextafterf((float)r, INFINITY) - (double)(float)r;
    double err_emu = fabs((double)ge - r), err_cpu = fabs((double)gc - r);
    printf("gpu_reduce: float32 sum of %lld terms: exact %.10e, emulated GPU error %.3g ulp, CPU pairwise %.3g ulp\n",
           (long long)n, r, err_emu / ulp, err_cpu / ulp);
    /* float32 accumulation (src/shared/reduce_ops.h) in short per-thread runs and
     * trees: a few ulps (a float32 running sum would lose every term
     * after the first: about 1e5 ulps here) */
    ck_assert_msg(err_emu <= 8.0 * ulp, "emulated error %g ulp", err_emu / ulp);
    ck_assert_msg(err_cpu <= 8.0 * ulp, "CPU error %g ulp", err_cpu / ulp);
    /* and a mean over the same data, against the long double reference */
    nd_array *m = NULL;
    ND_OK_OR_FAIL(nd_empty(&m, ND_FLOAT32, 0, &n, nd_cpu()));
    emulate(ND_REDUCE_MEAN, m, a, 1, 0);
    double mr = (double)(ref / n);
    ck_assert(fabs((double)*(float *)nd_data(m) - mr) <= 8.0 * 0x1p-24 * mr); /* the sum's few ulps */
    nd_release(m);
    nd_release(a);
    nd_release(cpu);
    nd_release(emu);
    free(x);
}
END_TEST

TCase *tcase_gpu_reduce_emu(void)
{
    TCase *tc = tcase_create("emulation");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, emu_every_op_dtype_layout_axes, 0, ND_NUM_REDUCE_OPS);
    tcase_add_loop_test(tc, emu_odd_sizes, 0, ND_NUM_REDUCE_OPS);
    tcase_add_test(tc, emu_nans_and_ties);
    tcase_add_test(tc, emu_empty_and_one_element);
    tcase_add_test(tc, emu_large_chunked);
    tcase_add_test(tc, emu_f32_sum_accuracy);
    return tc;
}
