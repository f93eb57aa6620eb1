/* The sweep: every hooked public operation called once in a session gives
 * exactly one depth-0 event, with its expected name (a forgotten hook gives
 * none, a doubled one two), on the CPU and on cuda:0 when there is a GPU;
 * then every op of the op tables through the generic entry points (a
 * refused dtype fails the call, and the failed call still gives its one
 * event). */
#include <unistd.h>

#include "test_profiler_ops.h"

typedef struct fx {
    nd_device dev;
    nd_array *a, *b, *v, *sq, *i32, *idx, *idx2, *mask, *mask3, *vals, *one, *rep, *p, *srt, *w, *w1, *lab;
    nd_array *spd; /* a 2 x 2 symmetric positive definite matrix (solve, inv, cholesky) */
    nd_rng *rng;
    nd_stream *stream;
    nd_event *event;
    DLManagedTensorVersioned *dl;
    DLManagedTensor *dll;
    char path[96];
    void *npy;
    size_t npysize;
    float host[12];
} fx;

static nd_array *from(nd_dtype t, int ndim, const int64_t *shape, const void *data, nd_device dev)
{
    nd_array *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&r, data, t, ndim, shape, dev));
    return r;
}

static const int64_t s2x2[2] = {2, 2}, s34[2] = {3, 4}, s44[2] = {4, 4}, s4[1] = {4}, s2[1] = {2}, s3[1] = {3}, s31[2] = {3, 1};

static void fx_init(fx *f, nd_device dev)
{
    memset(f, 0, sizeof *f);
    f->dev = dev;
    f->a = prh_arr(ND_FLOAT32, 2, s34, dev);
    f->b = prh_arr(ND_FLOAT32, 2, s34, dev);
    f->v = prh_arr(ND_FLOAT32, 1, s4, dev);
    f->sq = prh_arr(ND_FLOAT32, 2, s44, dev);
    f->i32 = prh_arr(ND_INT32, 2, s34, dev);
    f->mask = prh_arr(ND_BOOL, 2, s34, dev);
    f->w = prh_arr(ND_FLOAT32, 2, s34, dev);
    f->w1 = prh_arr(ND_FLOAT32, 1, s4, dev);
    f->idx = from(ND_INT64, 1, s2, (const int64_t[]){0, 2}, dev);
    f->idx2 = from(ND_INT64, 2, s31, (const int64_t[]){0, 1, 2}, dev);
    f->mask3 = from(ND_BOOL, 1, s3, (const uint8_t[]){1, 0, 1}, dev);
    f->vals = from(ND_FLOAT32, 1, s2, (const float[]){2.5f, -3.5f}, dev);
    f->one = from(ND_FLOAT32, 0, NULL, (const float[]){1.5f}, dev);
    f->rep = from(ND_INT64, 1, s4, (const int64_t[]){1, 2, 1, 3}, dev);
    f->srt = from(ND_FLOAT32, 1, s4, (const float[]){-2.f, 0.5f, 1.f, 7.f}, dev);
    f->lab = from(ND_INT64, 1, s3, (const int64_t[]){0, 3, 1}, dev);
    f->spd = from(ND_FLOAT32, 2, s2x2, (const float[]){4.f, 1.f, 1.f, 3.f}, dev);
    ND_OK_OR_FAIL(nd_full(&f->p, ND_FLOAT64, 2, s34, nd_scalar_float(0.5), dev));
    ND_OK_OR_FAIL(nd_rng_create(&f->rng, 42));
    ND_OK_OR_FAIL(nd_stream_create(&f->stream, dev));
    ND_OK_OR_FAIL(nd_event_create(&f->event, dev));
    ND_OK_OR_FAIL(nd_event_record(f->event, NULL));
    ND_OK_OR_FAIL(nd_to_dlpack(&f->dl, f->a));
    ND_OK_OR_FAIL(nd_to_dlpack_legacy(&f->dll, f->a));
    snprintf(f->path, sizeof f->path, "/tmp/nd_prh_sweep_%d.npy", (int)getpid());
    ND_OK_OR_FAIL(nd_save_npy(f->path, f->a));
    FILE *fp = fopen(f->path, "rb");
    ck_assert_ptr_nonnull(fp);
    f->npy = malloc(4096);
    f->npysize = fread(f->npy, 1, 4096, fp);
    fclose(fp);
    for (int k = 0; k < 12; k++) f->host[k] = (float)k * 0.5f + 1.f;
}

static void fx_free(fx *f)
{
    nd_array **all[] = {&f->a, &f->b, &f->v, &f->sq, &f->i32, &f->idx, &f->idx2, &f->mask, &f->mask3,
                        &f->vals, &f->one, &f->rep, &f->p, &f->srt, &f->w, &f->w1, &f->lab};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) nd_release(*all[i]);
    nd_release(f->spd);
    if (f->dl) f->dl->deleter(f->dl);
    if (f->dll) f->dll->deleter(f->dll);
    nd_rng_destroy(f->rng);
    nd_event_destroy(f->event);
    nd_stream_destroy(f->stream);
    remove(f->path);
    free(f->npy);
}

/* One case: a call giving o (released after). */
#define C(id, expr)                                                                                        \
    static nd_status c_##id(fx *f)                                                                         \
    {                                                                                                      \
        nd_array *o = NULL, *o2 = NULL, *outs[4] = {NULL, NULL, NULL, NULL};                                \
        int64_t cnt = 0;                                                                                   \
        int ni = 0;                                                                                        \
        bool yes = false;                                                                                  \
        nd_status st = (expr);                                                                             \
        (void)cnt, (void)ni, (void)yes, (void)f;                                                           \
        nd_release(o);                                                                                     \
        nd_release(o2);                                                                                    \
        for (int i = 0; i < 4; i++) nd_release(outs[i]);                                                   \
        return st;                                                                                         \
    }
#define F32 ND_FLOAT32
#define DEV f->dev
#define A f->a
#define AX1 (const int[]){1}
/* creation */
C(zeros, nd_zeros(&o, F32, 2, s34, DEV))
C(ones, nd_ones(&o, F32, 2, s34, DEV))
C(full, nd_full(&o, F32, 2, s34, nd_scalar_int(3), DEV))
C(empty, nd_empty(&o, F32, 2, s34, DEV))
C(empty_like, nd_empty_like(&o, A))
C(zeros_like, nd_zeros_like(&o, A))
C(ones_like, nd_ones_like(&o, A))
C(arange, nd_arange(&o, F32, 0, 10, 2, DEV))
C(arange_scalar, nd_arange_scalar(&o, ND_INT32, nd_scalar_int(1), nd_scalar_int(9), nd_scalar_int(3), DEV))
C(linspace, nd_linspace(&o, F32, 0, 1, 5, true, DEV))
C(eye, nd_eye(&o, F32, 3, 4, 1, DEV))
C(empty_pinned, nd_empty_pinned(&o, F32, 2, s34))
/* copies and transfers */
C(from_host, nd_from_host(&o, f->host, F32, 2, s34, DEV))
C(copy, nd_copy(&o, A))
C(astype, nd_astype(&o, A, ND_FLOAT64))
C(contiguous, nd_contiguous(&o, A))
C(to_device, nd_to_device(&o, A, DEV))
C(copy_to_host, nd_copy_to_host(f->host, A, 48))
C(copy_from_host, nd_copy_from_host(f->w, f->host, 48))
C(copy_async, nd_copy_async(f->w, A, NULL))
C(synchronize, nd_synchronize(DEV))
C(stream_synchronize, nd_stream_synchronize(f->stream))
C(event_synchronize, nd_event_synchronize(f->event))
/* elementwise */
C(add, nd_add(&o, A, f->b))
C(binary, nd_binary(&o, ND_BINARY_HYPOT, A, f->v))
C(binary_scalar, nd_binary_scalar(&o, ND_BINARY_POWER, A, nd_scalar_int(2)))
C(scalar_binary, nd_scalar_binary(&o, ND_BINARY_SUBTRACT, nd_scalar_float(1), A))
C(unary, nd_unary(&o, ND_UNARY_TANH, A))
C(sqrt, nd_sqrt(&o, A))
C(logical_and, nd_logical_and(&o, f->mask, f->mask))
C(bitwise_xor, nd_bitwise_xor(&o, f->i32, f->i32))
C(radians, nd_radians(&o, A))
C(degrees, nd_degrees(&o, A))
C(conj, nd_conj(&o, A))
C(real, nd_real(&o, A))
C(imag, nd_imag(&o, A))
C(divmod, nd_divmod(&o, &o2, A, f->b))
C(modf, nd_modf(&o, &o2, A))
C(frexp, nd_frexp(&o, &o2, A))
C(round, nd_round(&o, A, 1))
C(isclose, nd_isclose(&o, A, f->b, 1e-5, 1e-8, false))
C(allclose, nd_allclose(&yes, A, f->b, 1e-5, 1e-8, false))
C(array_equal, nd_array_equal(&yes, A, f->b, false))
C(where, nd_where(&o, f->mask, A, f->b))
C(clip, nd_clip(&o, A, f->b, NULL))
C(clip_scalar, nd_clip_scalar(&o, A, nd_scalar_float(-0.5), nd_scalar_float(0.5)))
/* indexing */
C(take, nd_take(&o, A, f->idx, 1, ND_TAKE_RAISE))
C(take_along_axis, nd_take_along_axis(&o, A, f->idx2, 1))
C(put, nd_put(f->w, f->idx, f->vals, ND_TAKE_RAISE))
C(put_along_axis, nd_put_along_axis(f->w, f->idx2, f->one, 1))
C(flatnonzero, nd_flatnonzero(&o, f->mask))
C(nonzero, nd_nonzero(outs, 4, &ni, f->mask))
C(argwhere, nd_argwhere(&o, f->mask))
C(count_nonzero, nd_count_nonzero(&o, f->mask, 0, NULL, false))
C(mask_select, nd_mask_select(&o, A, f->mask))
C(mask_assign, nd_mask_assign(f->w, f->mask, f->one))
C(compress, nd_compress(&o, f->mask3, A, 0))
C(add_at, nd_add_at(f->w1, f->idx, f->one))
C(maximum_at, nd_maximum_at(f->w1, f->idx, f->one))
C(minimum_at, nd_minimum_at(f->w1, f->idx, f->one))
/* joins, products */
C(concatenate, nd_concatenate(&o, 2, (const nd_array *const[]){A, f->b}, 1))
C(stack, nd_stack(&o, 2, (const nd_array *const[]){A, f->b}, 0))
C(matmul, nd_matmul(&o, A, f->sq))
C(dot, nd_dot(&o, A, f->v))
C(gemm, nd_gemm(&o, false, true, 1.0, A, f->b, 0.0))
C(einsum, nd_einsum(&o, "ij->ji", 1, (const nd_array *const[]){A}))
C(outer, nd_outer(&o, f->v, f->v))
C(tensordot, nd_tensordot(&o, A, f->sq, 1, NULL, NULL))
C(diag, nd_diag(&o, f->v, 0))
C(tril, nd_tril(&o, A, 0))
C(triu, nd_triu(&o, A, -1))
C(trace, nd_trace(&o, f->sq, 0, 0, 1))
C(meshgrid, nd_meshgrid(outs, 2, (const nd_array *const[]){f->v, f->srt}, ND_MESHGRID_XY, true))
/* views and manipulation */
C(reshape, nd_reshape(&o, A, 2, (const int64_t[]){4, 3}))
C(transpose, nd_transpose(&o, A, NULL))
C(slice, nd_slice(&o, A, 1, (const nd_range[]){{0, 2, 1}}))
C(squeeze, nd_squeeze(&o, f->idx2, 0, NULL))
C(expand_dims, nd_expand_dims(&o, A, 0))
C(broadcast_to, nd_broadcast_to(&o, f->v, 2, s34))
C(flip, nd_flip(&o, A, 0, NULL))
C(swapaxes, nd_swapaxes(&o, A, 0, 1))
C(moveaxis, nd_moveaxis(&o, A, 1, (const int[]){0}, AX1))
C(diagonal, nd_diagonal(&o, f->sq, 0, 0, 1))
C(broadcast_arrays, nd_broadcast_arrays(outs, 2, (const nd_array *const[]){A, f->v}))
C(split, nd_split(outs, 4, &cnt, A, 3, 0))
C(array_split, nd_array_split(outs, 4, &cnt, A, 2, 1))
C(split_at, nd_split_at(outs, 4, &cnt, A, 1, (const int64_t[]){1}, 0))
C(unstack, nd_unstack(outs, 4, &cnt, A, 0))
C(roll, nd_roll(&o, A, 1, (const int64_t[]){1}, 1, AX1))
C(tile, nd_tile(&o, f->v, 1, (const int64_t[]){2}))
C(repeat, nd_repeat(&o, f->v, 2, 0))
C(repeat_array, nd_repeat_array(&o, f->v, f->rep, 0))
C(pad, nd_pad(&o, A, 1, (const int64_t[]){1, 2}, ND_PAD_CONSTANT, nd_scalar_int(0)))
/* files and DLPack */
C(save_npy, nd_save_npy(f->path, A))
C(load_npy, nd_load_npy(&o, f->path, DEV))
C(load_npy_buffer, nd_load_npy_buffer(&o, f->npy, f->npysize, DEV))
C(from_dlpack, (st = nd_from_dlpack(&o, f->dl), f->dl = st ? f->dl : NULL, st))
C(from_dlpack_legacy, (st = nd_from_dlpack_legacy(&o, f->dll), f->dll = st ? f->dll : NULL, st))
static nd_status c_to_dlpack(fx *f)
{
    DLManagedTensorVersioned *t = NULL;
    nd_status st = nd_to_dlpack(&t, f->a);
    if (t) t->deleter(t);
    return st;
}
static nd_status c_to_dlpack_legacy(fx *f)
{
    DLManagedTensor *t = NULL;
    nd_status st = nd_to_dlpack_legacy(&t, f->a);
    if (t) t->deleter(t);
    return st;
}
/* random */
C(random_uniform, nd_random_uniform(&o, f->rng, F32, 2, s34, -1, 1, DEV))
C(random_normal, nd_random_normal(&o, f->rng, F32, 2, s34, 0, 1, DEV))
C(random_integers, nd_random_integers(&o, f->rng, ND_INT32, 2, s34, -5, 5, DEV))
C(random_bernoulli, nd_random_bernoulli(&o, f->rng, ND_BOOL, 2, s34, 0.25, DEV))
C(random_bernoulli_array, nd_random_bernoulli_array(&o, f->rng, f->p, F32))
C(random_choice, nd_random_choice(&o, f->rng, NULL, 5, 1, s3, true, NULL, DEV))
C(random_permutation, nd_random_permutation(&o, f->rng, 6, DEV))
C(random_permutation_of, nd_random_permutation_of(&o, f->rng, f->v))
/* reductions and scans */
C(sum, nd_sum(&o, A, 1, AX1, false))
C(mean, nd_mean(&o, A, 0, NULL, true))
C(argmax, nd_argmax(&o, A, 1, AX1, false))
C(reduce, nd_reduce(&o, ND_REDUCE_PROD, A, 0, NULL, false))
C(reduce_ddof, nd_reduce_ddof(&o, ND_REDUCE_VAR, A, 0, NULL, false, 1.0))
C(reduce_dtype, nd_reduce_dtype(&o, ND_REDUCE_SUM, f->i32, 0, NULL, false, ND_INT16))
C(nansum, nd_nansum(&o, A, 0, NULL, false))
C(nanprod, nd_nanprod(&o, A, 0, NULL, false))
C(nanmax, nd_nanmax(&o, A, 0, NULL, false))
C(nanmin, nd_nanmin(&o, A, 0, NULL, false))
C(nanargmax, nd_nanargmax(&o, A, 0, NULL, false))
C(nanargmin, nd_nanargmin(&o, A, 0, NULL, false))
C(nanmean, nd_nanmean(&o, A, 0, NULL, false))
C(nanvar, nd_nanvar(&o, A, 0, NULL, false, 0))
C(nanstd, nd_nanstd(&o, A, 0, NULL, false, 0))
C(ptp, nd_ptp(&o, A, 0, NULL, false))
C(cumsum, nd_cumsum(&o, A, 1))
C(cumprod, nd_cumprod(&o, A, 0))
C(cumsum_dtype, nd_cumsum_dtype(&o, f->i32, 0, ND_FLOAT64))
C(cumprod_dtype, nd_cumprod_dtype(&o, f->i32, 1, ND_INT64))
C(cummax, nd_cummax(&o, A, 1))
C(cummin, nd_cummin(&o, A, 0))
C(diff, nd_diff(&o, A, 1, -1, NULL, NULL))
/* sorting and searching */
C(sort, nd_sort(&o, A, -1, 0))
C(argsort, nd_argsort(&o, A, 0, 0))
C(partition, nd_partition(&o, f->v, 1, 0))
C(argpartition, nd_argpartition(&o, f->v, 2, 0))
C(topk, nd_topk(&o, &o2, A, 2, -1, true, true))
C(median, nd_median(&o, A, 0, NULL, false))
C(quantile, nd_quantile(&o, A, 0.25, 1, AX1, false))
C(percentile, nd_percentile(&o, A, 75, 0, NULL, false))
C(searchsorted, nd_searchsorted(&o, f->srt, f->v, ND_SIDE_LEFT))
C(isin, nd_isin(&o, A, f->v, false))
C(unique, nd_unique(&o, &o2, NULL, NULL, A))
/* mixed precision */
C(softmax, nd_softmax(&o, A, -1))
C(log_softmax, nd_log_softmax(&o, A, 0))
C(logsumexp, nd_logsumexp(&o, A, 1, AX1, false))
C(cross_entropy, nd_cross_entropy(&o, A, f->lab, 1, ND_REDUCTION_MEAN, -100))
C(amp_unscale_check, nd_amp_unscale_check(&f->w, 1, 0.5, &yes))
/* complex numbers and the FFT; a is (3, 4) float32 */
C(angle, nd_angle(&o, A, true))
C(fft, nd_fft(&o, A, -1, -1, ND_FFT_BACKWARD))
C(ifft, nd_ifft(&o, A, 6, 0, ND_FFT_ORTHO))
C(rfft, nd_rfft(&o, A, -1, -1, ND_FFT_BACKWARD))
C(irfft, nd_irfft(&o, A, -1, -1, ND_FFT_FORWARD))
C(hfft, nd_hfft(&o, A, -1, -1, ND_FFT_BACKWARD))
C(ihfft, nd_ihfft(&o, A, -1, -1, ND_FFT_BACKWARD))
C(fftn, nd_fftn(&o, A, -1, NULL, NULL, ND_FFT_BACKWARD))
C(ifftn, nd_ifftn(&o, A, 1, NULL, AX1, ND_FFT_BACKWARD))
C(rfftn, nd_rfftn(&o, A, -1, NULL, NULL, ND_FFT_BACKWARD))
C(irfftn, nd_irfftn(&o, A, -1, NULL, NULL, ND_FFT_BACKWARD))
C(fft2, nd_fft2(&o, A, NULL, NULL, ND_FFT_BACKWARD))
C(ifft2, nd_ifft2(&o, A, NULL, NULL, ND_FFT_BACKWARD))
C(rfft2, nd_rfft2(&o, A, NULL, NULL, ND_FFT_BACKWARD))
C(irfft2, nd_irfft2(&o, A, NULL, NULL, ND_FFT_BACKWARD))
C(fftfreq, nd_fftfreq(&o, 8, 0.5, ND_FLOAT32, DEV))
C(rfftfreq, nd_rfftfreq(&o, 8, 0.5, ND_FLOAT64, DEV))
C(fftshift, nd_fftshift(&o, A, 0, NULL))
C(ifftshift, nd_ifftshift(&o, A, 1, AX1))
/* numpy.linalg norms and products (src/linalg/norm.c, src/linalg/products.c) */
C(linalg_norm, nd_linalg_norm(&o, A, nd_norm_named(ND_NORM_DEFAULT), -1, NULL, false))
C(linalg_vector_norm, nd_linalg_vector_norm(&o, A, 1, 1, AX1, false))
C(linalg_matrix_norm, nd_linalg_matrix_norm(&o, A, nd_norm_p(INFINITY), true))
C(linalg_matrix_power, nd_linalg_matrix_power(&o, f->sq, 3))
C(linalg_multi_dot, nd_linalg_multi_dot(&o, 3, (const nd_array *const[]){A, f->sq, f->v}))
C(linalg_cross, nd_linalg_cross(&o, A, f->b, 0))
C(linalg_vecdot, nd_linalg_vecdot(&o, A, f->v, -1))
C(kron, nd_kron(&o, A, f->v))
/* numpy.linalg decompositions (src/linalg/decomp.c, src/linalg/lstsq.c) */
C(linalg_solve, nd_linalg_solve(&o, f->spd, f->spd))
C(linalg_inv, nd_linalg_inv(&o, f->spd))
C(linalg_det, nd_linalg_det(&o, f->sq))
C(linalg_slogdet, nd_linalg_slogdet(&o, &o2, f->sq))
C(linalg_cholesky, nd_linalg_cholesky(&o, f->spd, true))
C(linalg_qr, nd_linalg_qr(&o, &o2, A, ND_QR_REDUCED))
C(linalg_svd, nd_linalg_svd(&o, &o2, &outs[0], A, false))
C(linalg_svdvals, nd_linalg_svdvals(&o, A))
C(linalg_eigh, nd_linalg_eigh(&o, &o2, f->sq, 'L'))
C(linalg_eigvalsh, nd_linalg_eigvalsh(&o, f->sq, 'U'))
C(linalg_eig, nd_linalg_eig(&o, &o2, f->sq))
C(linalg_eigvals, nd_linalg_eigvals(&o, f->sq))
C(linalg_lstsq, nd_linalg_lstsq(&o, &o2, &cnt, &outs[0], A, f->lab, -1))
C(linalg_pinv, nd_linalg_pinv(&o, A, -1, false))
C(linalg_matrix_rank, nd_linalg_matrix_rank(&o, A, -1, false))
C(linalg_cond, nd_linalg_cond(&o, f->spd, nd_norm_p(1)))

typedef struct sweep_case {
    const char *id, *name, *gpu_name; /* gpu_name: the name on cuda:0 when it differs */
    nd_status (*fn)(fx *);
} sweep_case;
#define E(id, name) {#id, name, NULL, c_##id}
#define T(id, cpu, gpu) {#id, cpu, gpu, c_##id}
static const sweep_case cases[] = {
    E(zeros, "zeros"), E(ones, "ones"), E(full, "full"), E(empty, "empty"), E(empty_like, "empty_like"),
    E(zeros_like, "zeros_like"), E(ones_like, "ones_like"), E(arange, "arange"), E(arange_scalar, "arange"),
    E(linspace, "linspace"), E(eye, "eye"), E(empty_pinned, "empty_pinned"),
    T(from_host, "copy_h2h", "copy_h2d"), E(copy, "copy"), E(astype, "astype"), E(contiguous, "contiguous"),
    T(to_device, "copy_h2h", "copy_d2d"), T(copy_to_host, "copy_h2h", "copy_d2h"),
    T(copy_from_host, "copy_h2h", "copy_h2d"), T(copy_async, "copy_h2h", "copy_d2d"), E(synchronize, "synchronize"),
    E(stream_synchronize, "stream_synchronize"), E(event_synchronize, "event_synchronize"),
    E(add, "add"), E(binary, "hypot"), E(binary_scalar, "power"), E(scalar_binary, "subtract"), E(unary, "tanh"),
    E(sqrt, "sqrt"), E(logical_and, "logical_and"), E(bitwise_xor, "bitwise_xor"), E(radians, "radians"),
    E(degrees, "degrees"), E(conj, "conj"), E(real, "real"), E(imag, "imag"), E(divmod, "divmod"), E(modf, "modf"),
    E(frexp, "frexp"), E(round, "round"), E(isclose, "isclose"), E(allclose, "allclose"),
    E(array_equal, "array_equal"), E(where, "where"), E(clip, "clip"), E(clip_scalar, "clip"),
    E(take, "take"), E(take_along_axis, "take_along_axis"), E(put, "put"), E(put_along_axis, "put_along_axis"),
    E(flatnonzero, "flatnonzero"), E(nonzero, "nonzero"), E(argwhere, "argwhere"),
    E(count_nonzero, "count_nonzero"), E(mask_select, "mask_select"), E(mask_assign, "mask_assign"),
    E(compress, "compress"), E(add_at, "add_at"), E(maximum_at, "maximum_at"), E(minimum_at, "minimum_at"),
    E(concatenate, "concatenate"), E(stack, "stack"), E(matmul, "matmul"), E(dot, "dot"), E(gemm, "gemm"),
    E(einsum, "einsum"), E(outer, "outer"), E(tensordot, "tensordot"), E(diag, "diag"), E(tril, "tril"),
    E(triu, "triu"), E(trace, "trace"), E(meshgrid, "meshgrid"),
    E(reshape, "reshape"), E(transpose, "transpose"), E(slice, "slice"), E(squeeze, "squeeze"),
    E(expand_dims, "expand_dims"), E(broadcast_to, "broadcast_to"), E(flip, "flip"), E(swapaxes, "swapaxes"),
    E(moveaxis, "moveaxis"), E(diagonal, "diagonal"), E(broadcast_arrays, "broadcast_arrays"), E(split, "split"),
    E(array_split, "array_split"), E(split_at, "split_at"), E(unstack, "unstack"), E(roll, "roll"),
    E(tile, "tile"), E(repeat, "repeat"), E(repeat_array, "repeat_array"), E(pad, "pad"),
    E(save_npy, "save_npy"), E(load_npy, "load_npy"), E(load_npy_buffer, "load_npy_buffer"),
    E(from_dlpack, "from_dlpack"), E(from_dlpack_legacy, "from_dlpack_legacy"), E(to_dlpack, "to_dlpack"),
    E(to_dlpack_legacy, "to_dlpack_legacy"),
    E(random_uniform, "random_uniform"), E(random_normal, "random_normal"), E(random_integers, "random_integers"),
    E(random_bernoulli, "random_bernoulli"), E(random_bernoulli_array, "random_bernoulli"),
    E(random_choice, "random_choice"), E(random_permutation, "random_permutation"),
    E(random_permutation_of, "random_permutation_of"),
    E(sum, "sum"), E(mean, "mean"), E(argmax, "argmax"), E(reduce, "prod"), E(reduce_ddof, "var"),
    E(reduce_dtype, "sum"), E(nansum, "nansum"), E(nanprod, "nanprod"), E(nanmax, "nanmax"), E(nanmin, "nanmin"),
    E(nanargmax, "nanargmax"), E(nanargmin, "nanargmin"), E(nanmean, "nanmean"), E(nanvar, "nanvar"),
    E(nanstd, "nanstd"), E(ptp, "ptp"), E(cumsum, "cumsum"), E(cumprod, "cumprod"), E(cumsum_dtype, "cumsum"),
    E(cumprod_dtype, "cumprod"), E(cummax, "cummax"), E(cummin, "cummin"), E(diff, "diff"),
    E(sort, "sort"), E(argsort, "argsort"), E(partition, "partition"), E(argpartition, "argpartition"),
    E(topk, "topk"), E(median, "median"), E(quantile, "quantile"), E(percentile, "percentile"),
    E(searchsorted, "searchsorted"), E(isin, "isin"), E(unique, "unique"),
    E(softmax, "softmax"), E(log_softmax, "log_softmax"), E(logsumexp, "logsumexp"),
    E(cross_entropy, "cross_entropy"), E(amp_unscale_check, "amp_unscale_check"),
    E(angle, "angle"), E(fft, "fft"), E(ifft, "ifft"), E(rfft, "rfft"), E(irfft, "irfft"), E(hfft, "hfft"),
    E(ihfft, "ihfft"), E(fftn, "fftn"), E(ifftn, "ifftn"), E(rfftn, "rfftn"), E(irfftn, "irfftn"), E(fft2, "fft2"),
    E(ifft2, "ifft2"), E(rfft2, "rfft2"), E(irfft2, "irfft2"), E(fftfreq, "fftfreq"), E(rfftfreq, "rfftfreq"),
    E(fftshift, "fftshift"), E(ifftshift, "ifftshift"),
    E(linalg_norm, "linalg_norm"), E(linalg_vector_norm, "linalg_vector_norm"),
    E(linalg_matrix_norm, "linalg_matrix_norm"), E(linalg_matrix_power, "linalg_matrix_power"),
    E(linalg_multi_dot, "linalg_multi_dot"), E(linalg_cross, "linalg_cross"), E(linalg_vecdot, "linalg_vecdot"),
    E(kron, "kron"),
    E(linalg_solve, "linalg_solve"), E(linalg_inv, "linalg_inv"), E(linalg_det, "linalg_det"),
    E(linalg_slogdet, "linalg_slogdet"), E(linalg_cholesky, "linalg_cholesky"), E(linalg_qr, "linalg_qr"),
    E(linalg_svd, "linalg_svd"), E(linalg_svdvals, "linalg_svdvals"), E(linalg_eigh, "linalg_eigh"),
    E(linalg_eigvalsh, "linalg_eigvalsh"), E(linalg_eig, "linalg_eig"), E(linalg_eigvals, "linalg_eigvals"),
    E(linalg_lstsq, "linalg_lstsq"), E(linalg_pinv, "linalg_pinv"), E(linalg_matrix_rank, "linalg_matrix_rank"),
    E(linalg_cond, "linalg_cond"),
};

static void check_one(const char *what, const char *name, nd_device dev)
{
    size_t n;
    const nd_profiler_event *ev = prh_stop(&n);
    int64_t i;
    int c = prh_top(ev, n, &i);
    ck_assert_msg(c == 1, "%s on %s: %d depth-0 events (first '%s')", what, dev.type == ND_DEVICE_CPU ? "cpu" : "cuda",
                  c, i >= 0 ? ev[i].name : "-");
    ck_assert_msg(strcmp(ev[i].name, name) == 0, "%s: event '%s', want '%s'", what, ev[i].name, name);
    bool transfer = strncmp(name, "copy_", 5) == 0;
    ck_assert_int_eq(ev[i].kind, transfer ? ND_PROFILER_TRANSFER : ND_PROFILER_OP);
    ck_assert_int_ge(ev[i].host_self_ns, 0);
    ck_assert_int_ge(ev[i].host_ns, ev[i].host_self_ns);
    /* a doubled hook (the public function and its implementation) nests a
     * child of the same name; reduce_dtype (a "sum" that casts, then calls
     * nd_reduce's "sum") really calls itself */
    bool may = strcmp(what, "reduce_dtype") == 0;
    for (size_t j = 0; !may && j < n; j++)
        ck_assert_msg(ev[j].parent != i || strcmp(ev[j].name, name) != 0, "%s: '%s' nested in itself (a doubled hook)",
                      what, name);
}

START_TEST(sweep_public_ops)
{
    nd_device devs[2];
    int nd = prh_devices(devs);
    for (int di = 0; di < nd; di++) {
        fx f;
        fx_init(&f, devs[di]);
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            const sweep_case *c = &cases[k];
            prh_start(k % 2, k % 3 == 0);
            nd_status st = c->fn(&f);
            if (st != ND_OK) (void)nd_profiler_stop();
            ck_assert_msg(st == ND_OK, "%s -> %s: %s", c->id, nd_status_name(st), nd_last_error());
            check_one(c->id, di && c->gpu_name ? c->gpu_name : c->name, devs[di]);
        }
        fx_free(&f);
    }
}
END_TEST

START_TEST(sweep_op_tables)
{
    nd_device devs[2];
    int nd = prh_devices(devs);
    for (int di = 0; di < nd; di++) {
        fx f;
        fx_init(&f, devs[di]);
        nd_array *o = NULL;
        char what[64];
        for (int op = 0; op < ND_NUM_UNARY_OPS; op++) {
            const char *name = nd_unary_op_name((nd_unary_op)op);
            for (int form = 0; form < 2; form++) { /* float32 and int32: some refuse one (the failed call has its event) */
                prh_start(op % 2, form);
                (void)nd_unary(&o, (nd_unary_op)op, form ? f.i32 : f.a);
                snprintf(what, sizeof what, "unary form %d (%s)", form, name);
                check_one(what, name, devs[di]);
                nd_release(o);
                o = NULL;
            }
        }
        for (int op = 0; op < ND_NUM_BINARY_OPS; op++) {
            const char *name = nd_binary_op_name((nd_binary_op)op);
            for (int form = 0; form < 3; form++) {
                prh_start(form == 1, form == 2);
                if (form == 0) (void)nd_binary(&o, (nd_binary_op)op, f.i32, f.i32);
                else if (form == 1) (void)nd_binary_scalar(&o, (nd_binary_op)op, f.i32, nd_scalar_int(2));
                else (void)nd_scalar_binary(&o, (nd_binary_op)op, nd_scalar_int(3), f.i32);
                snprintf(what, sizeof what, "binary form %d (%s)", form, name);
                check_one(what, name, devs[di]);
                nd_release(o);
                o = NULL;
            }
        }
        for (int op = 0; op < ND_NUM_REDUCE_OPS; op++) {
            prh_start(op % 2, false);
            ND_OK_OR_FAIL(nd_reduce(&o, (nd_reduce_op)op, f.a, 1, AX1, false));
            check_one(nd_reduce_op_name((nd_reduce_op)op), nd_reduce_op_name((nd_reduce_op)op), devs[di]);
            nd_release(o);
            o = NULL;
        }
        fx_free(&f);
    }
}
END_TEST

void prh_add_sweep(TCase *tc)
{
    tcase_add_test(tc, sweep_public_ops);
    tcase_add_test(tc, sweep_op_tables);
}
