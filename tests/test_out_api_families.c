/* Out test adapters (tests/out_api.h): indexing, sorting and order
 * statistics, scans, nan-reductions, manipulation, matrices and products,
 * the elementwise functions beyond the op table, softmax and loss
 * scaling, FFT, linear algebra. */
#include "out_api.h"

static const int AX1[1] = {1};
static const int AX0[1] = {0};

/* ---- indexing --------------------------------------------------------- */
/* A kernel made once per process (its compiled code is cached anyway). */
OUT_ADAPTER(nd_kernel_call)
{
    static nd_kernel *k;
    if (!k) {
        const nd_status st = nd_kernel_elementwise(&k, "T x, T y", "T z", "z = 2 * x - y", "out_api_kernel", NULL);
        if (st) return st;
    }
    return nd_kernel_call(k, 2, (const nd_array *const[]){f->a, f->b}, 1, o);
}
/* The sum of squares over axis 1, a reduction kernel made once. */
OUT_ADAPTER(nd_kernel_reduce)
{
    static nd_kernel *k;
    if (!k) {
        const nd_status st = nd_kernel_reduction(&k, "T x", "T y", "x * x", "a + b", NULL, "0", NULL, "out_api_sumsq", NULL);
        if (st) return st;
    }
    return nd_kernel_reduce(k, 1, (const nd_array *const[]){f->a}, 1, (const int[]){1}, false, o);
}
OUT_ADAPTER(nd_take) { return nd_take(o, f->a, f->idx, 1, ND_TAKE_RAISE); }
OUT_ADAPTER(nd_take_along_axis) { return nd_take_along_axis(o, f->a, f->idx21, 1); }
OUT_ADAPTER(nd_flatnonzero) { return nd_flatnonzero(o, f->mask); }
OUT_ADAPTER(nd_argwhere) { return nd_argwhere(o, f->mask); }
OUT_ADAPTER(nd_count_nonzero) { return nd_count_nonzero(o, f->mask, 1, AX1, false); }
OUT_ADAPTER(nd_mask_select) { return nd_mask_select(o, f->a, f->mask); }
OUT_ADAPTER(nd_compress) { return nd_compress(o, f->mask3, f->a, 1); }

/* ---- sorting and order statistics ------------------------------------- */
OUT_ADAPTER(nd_sort) { return nd_sort(o, f->a, 1, ND_SORT_DEFAULT); }
OUT_ADAPTER(nd_argsort) { return nd_argsort(o, f->a, 1, ND_SORT_STABLE); }
OUT_ADAPTER(nd_partition) { return nd_partition(o, f->a, 1, 1); }
OUT_ADAPTER(nd_argpartition) { return nd_argpartition(o, f->a, 1, 1); }
OUT_ADAPTER(nd_searchsorted) { return nd_searchsorted(o, f->srt, f->a, ND_SIDE_RIGHT); }
OUT_ADAPTER(nd_isin) { return nd_isin(o, f->ia, f->ib, false); }
OUT_ADAPTER(nd_median) { return nd_median(o, f->a, 1, AX1, false); }
OUT_ADAPTER(nd_quantile) { return nd_quantile(o, f->a, 0.3, 1, AX1, false); }
OUT_ADAPTER(nd_percentile) { return nd_percentile(o, f->a, 70, 1, AX0, true); }

/* ---- scans ------------------------------------------------------------ */
OUT_ADAPTER(nd_cumsum) { return nd_cumsum(o, f->a, 1); }
OUT_ADAPTER(nd_cumprod) { return nd_cumprod(o, f->a, 0); }
OUT_ADAPTER(nd_cumsum_dtype) { return nd_cumsum_dtype(o, f->ia, 1, ND_FLOAT64); }
OUT_ADAPTER(nd_cumprod_dtype) { return nd_cumprod_dtype(o, f->ia, 1, ND_INT32); }
OUT_ADAPTER(nd_cummax) { return nd_cummax(o, f->a, 1); }
OUT_ADAPTER(nd_cummin) { return nd_cummin(o, f->a, 1); }
OUT_ADAPTER(nd_diff) { return nd_diff(o, f->a, 1, 1, NULL, NULL); }

/* ---- nan-reductions (an has a NaN in its first row) ------------------- */
OUT_ADAPTER(nd_nansum) { return nd_nansum(o, f->an, 1, AX1, false); }
OUT_ADAPTER(nd_nanprod) { return nd_nanprod(o, f->an, 1, AX1, false); }
OUT_ADAPTER(nd_nanmean) { return nd_nanmean(o, f->an, 1, AX1, false); }
OUT_ADAPTER(nd_nanmax) { return nd_nanmax(o, f->an, 1, AX1, false); }
OUT_ADAPTER(nd_nanmin) { return nd_nanmin(o, f->an, 1, AX1, false); }
OUT_ADAPTER(nd_nanargmax) { return nd_nanargmax(o, f->an, 1, AX1, false); }
OUT_ADAPTER(nd_nanargmin) { return nd_nanargmin(o, f->an, 1, AX1, false); }
OUT_ADAPTER(nd_nanvar) { return nd_nanvar(o, f->an, 1, AX1, false, 0.0); }
OUT_ADAPTER(nd_nanstd) { return nd_nanstd(o, f->an, 1, AX1, true, 1.0); }
OUT_ADAPTER(nd_ptp) { return nd_ptp(o, f->a, 1, AX1, false); }
OUT_ADAPTER(nd_reduce_dtype) { return nd_reduce_dtype(o, ND_REDUCE_MEAN, f->ia, 1, AX1, false, ND_FLOAT32); }

/* ---- manipulation ----------------------------------------------------- */
OUT_ADAPTER(nd_flip) { return nd_flip(o, f->a, 1, AX1); }
OUT_ADAPTER(nd_swapaxes) { return nd_swapaxes(o, f->a, 0, 1); }
OUT_ADAPTER(nd_moveaxis) { return nd_moveaxis(o, f->a, 1, AX0, AX1); }
OUT_ADAPTER(nd_diagonal) { return nd_diagonal(o, f->sq, 1, 0, 1); }
OUT_ADAPTER(nd_roll) { return nd_roll(o, f->a, 1, (const int64_t[]){1}, 1, AX1); }
OUT_ADAPTER(nd_tile) { return nd_tile(o, f->a, 2, (const int64_t[]){2, 1}); }
OUT_ADAPTER(nd_repeat) { return nd_repeat(o, f->a, 2, 1); }
OUT_ADAPTER(nd_repeat_array) { return nd_repeat_array(o, f->a, f->reps, 1); }
OUT_ADAPTER(nd_pad)
{
    return nd_pad(o, f->a, 2, (const int64_t[]){1, 0, 0, 2}, ND_PAD_CONSTANT, nd_scalar_float(9));
}

/* ---- matrices and products -------------------------------------------- */
OUT_ADAPTER(nd_diag) { return nd_diag(o, f->sq, 0); }
OUT_ADAPTER(nd_tril) { return nd_tril(o, f->sq, 0); }
OUT_ADAPTER(nd_triu) { return nd_triu(o, f->a, 1); }
OUT_ADAPTER(nd_trace) { return nd_trace(o, f->a, 0, 0, 1); }
OUT_ADAPTER(nd_outer) { return nd_outer(o, f->v3, f->v3); }
OUT_ADAPTER(nd_tensordot) { return nd_tensordot(o, f->a, f->sq, 1, AX1, AX0); }
OUT_ADAPTER(nd_einsum) { return nd_einsum(o, "ij,jk->ik", 2, (const nd_array *const[]){f->a, f->sq}); }

/* ---- elementwise beyond the op table ---------------------------------- */
OUT_ADAPTER(nd_round) { return nd_round(o, f->a, 1); }
OUT_ADAPTER(nd_isclose) { return nd_isclose(o, f->a, f->b, 1e-5, 1e-8, false); }
OUT_ADAPTER(nd_radians) { return nd_radians(o, f->a); }
OUT_ADAPTER(nd_degrees) { return nd_degrees(o, f->a); }
OUT_ADAPTER(nd_conj) { return nd_conj(o, f->cx); }
OUT_ADAPTER(nd_real) { return nd_real(o, f->cx); }
OUT_ADAPTER(nd_imag) { return nd_imag(o, f->cx); }
OUT_ADAPTER(nd_angle) { return nd_angle(o, f->cx, true); }

/* ---- softmax family, loss scaling ------------------------------------- */
OUT_ADAPTER(nd_softmax) { return nd_softmax(o, f->a, 1); }
OUT_ADAPTER(nd_log_softmax) { return nd_log_softmax(o, f->a, 0); }
OUT_ADAPTER(nd_logsumexp) { return nd_logsumexp(o, f->a, 1, AX1, false); }
OUT_ADAPTER(nd_cross_entropy) { return nd_cross_entropy(o, f->a, f->labels, 1, ND_REDUCTION_NONE, -100); }
OUT_ADAPTER(nd_grad_scaler_scale)
{
    nd_grad_scaler *s = NULL;
    nd_status st = nd_grad_scaler_create(&s, NULL);
    if (st == ND_OK) st = nd_grad_scaler_scale(o, s, f->a);
    nd_grad_scaler_destroy(s);
    return st;
}

/* ---- FFT -------------------------------------------------------------- */
OUT_ADAPTER(nd_fft) { return nd_fft(o, f->cx, -1, -1, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_ifft) { return nd_ifft(o, f->cx, 4, 1, ND_FFT_ORTHO); }
OUT_ADAPTER(nd_rfft) { return nd_rfft(o, f->a, -1, -1, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_irfft) { return nd_irfft(o, f->cx, -1, -1, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_hfft) { return nd_hfft(o, f->cx, -1, -1, ND_FFT_FORWARD); }
OUT_ADAPTER(nd_ihfft) { return nd_ihfft(o, f->a, -1, -1, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_fftn) { return nd_fftn(o, f->cx, -1, NULL, NULL, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_ifftn) { return nd_ifftn(o, f->cx, -1, NULL, NULL, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_rfftn) { return nd_rfftn(o, f->a, -1, NULL, NULL, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_irfftn) { return nd_irfftn(o, f->cx, -1, NULL, NULL, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_fft2) { return nd_fft2(o, f->cx, NULL, NULL, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_ifft2) { return nd_ifft2(o, f->cx, NULL, NULL, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_rfft2) { return nd_rfft2(o, f->a, NULL, NULL, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_irfft2) { return nd_irfft2(o, f->cx, NULL, NULL, ND_FFT_BACKWARD); }
OUT_ADAPTER(nd_fftfreq) { return nd_fftfreq(o, 8, 0.5, ND_FLOAT64, f->dev); }
OUT_ADAPTER(nd_rfftfreq) { return nd_rfftfreq(o, 9, 0.25, ND_FLOAT32, f->dev); }
OUT_ADAPTER(nd_fftshift) { return nd_fftshift(o, f->a, -1, NULL); }
OUT_ADAPTER(nd_ifftshift) { return nd_ifftshift(o, f->a, 1, AX1); }

/* ---- linear algebra --------------------------------------------------- */
OUT_ADAPTER(nd_linalg_solve) { return nd_linalg_solve(o, f->sq, f->v3); }
OUT_ADAPTER(nd_linalg_inv) { return nd_linalg_inv(o, f->sq); }
OUT_ADAPTER(nd_linalg_det) { return nd_linalg_det(o, f->sq); }
OUT_ADAPTER(nd_linalg_cholesky) { return nd_linalg_cholesky(o, f->sq, false); }
OUT_ADAPTER(nd_linalg_pinv) { return nd_linalg_pinv(o, f->a, -1, false); }
OUT_ADAPTER(nd_linalg_matrix_rank) { return nd_linalg_matrix_rank(o, f->a, -1, false); }
OUT_ADAPTER(nd_linalg_norm) { return nd_linalg_norm(o, f->a, nd_norm_named(ND_NORM_DEFAULT), -1, NULL, false); }
OUT_ADAPTER(nd_linalg_vector_norm) { return nd_linalg_vector_norm(o, f->a, 3.0, 1, AX1, false); }
OUT_ADAPTER(nd_linalg_matrix_norm) { return nd_linalg_matrix_norm(o, f->sq, nd_norm_named(ND_NORM_NUC), true); }
OUT_ADAPTER(nd_linalg_cond) { return nd_linalg_cond(o, f->sq, nd_norm_named(ND_NORM_DEFAULT)); }
OUT_ADAPTER(nd_linalg_matrix_power) { return nd_linalg_matrix_power(o, f->sq, 3); }
OUT_ADAPTER(nd_linalg_multi_dot)
{
    return nd_linalg_multi_dot(o, 3, (const nd_array *const[]){f->a, f->sq, f->sq});
}
OUT_ADAPTER(nd_linalg_cross) { return nd_linalg_cross(o, f->a, f->b, -1); }
OUT_ADAPTER(nd_linalg_vecdot) { return nd_linalg_vecdot(o, f->a, f->b, -1); }
OUT_ADAPTER(nd_kron) { return nd_kron(o, f->a, f->sq); }

/* sparse matrices: a's nonzeros as CSR on the CPU (the sparse kernels' device
 * in every build), so the result and a given out live there too */
static nd_sparse *sp_of(const nd_array *a)
{
    nd_array *h = NULL;
    nd_sparse *s = NULL;
    if (nd_to_device(&h, a, nd_cpu()) == ND_OK) nd_sparse_from_dense(&s, h, ND_SPARSE_CSR);
    nd_release(h);
    return s;
}
OUT_ADAPTER(nd_sparse_to_dense)
{
    nd_sparse *s = sp_of(f->a);
    nd_status st = nd_sparse_to_dense(o, s);
    nd_sparse_release(s);
    return st;
}
OUT_ADAPTER(nd_sparse_matmul)
{
    nd_sparse *s = sp_of(f->a);
    nd_array *v = NULL;
    nd_status st = nd_to_device(&v, f->v3, nd_cpu());
    if (!st) st = nd_sparse_matmul(o, s, v);
    nd_release(v);
    nd_sparse_release(s);
    return st;
}
OUT_ADAPTER(nd_sparse_sum)
{
    nd_sparse *s = sp_of(f->a);
    nd_status st = nd_sparse_sum(o, s, 0);
    nd_sparse_release(s);
    return st;
}
static nd_status sp_solve(nd_array **o, const out_fx *f, bool cg)
{
    nd_sparse *s = sp_of(f->sq);
    nd_array *v = NULL;
    nd_status st = nd_to_device(&v, f->v3, nd_cpu());
    if (!st) st = cg ? nd_sparse_cg(o, s, v, NULL, 1e-12, 0, 0, NULL) : nd_sparse_bicgstab(o, s, v, NULL, 1e-12, 0, 0, NULL);
    nd_release(v);
    nd_sparse_release(s);
    return st;
}
OUT_ADAPTER(nd_sparse_cg) { return sp_solve(o, f, true); }
OUT_ADAPTER(nd_sparse_bicgstab) { return sp_solve(o, f, false); }
OUT_ADAPTER(nd_sparse_diagonal)
{
    nd_sparse *s = sp_of(f->a);
    nd_status st = nd_sparse_diagonal(o, s, 1);
    nd_sparse_release(s);
    return st;
}

/* ---- the table -------------------------------------------------------- */
const out_api_entry out_api_families[] = {
    OUT_ENTRY(nd_take, 0),
    OUT_ENTRY(nd_take_along_axis, 0),
    OUT_ENTRY(nd_flatnonzero, 0),
    OUT_ENTRY(nd_argwhere, 0),
    OUT_ENTRY(nd_count_nonzero, 0),
    OUT_ENTRY(nd_mask_select, 0),
    OUT_ENTRY(nd_compress, 0),
    OUT_ENTRY(nd_sort, 0),
    OUT_ENTRY(nd_argsort, 0),
    OUT_ENTRY(nd_partition, 0),
    OUT_ENTRY(nd_argpartition, 0),
    OUT_ENTRY(nd_searchsorted, 0),
    OUT_ENTRY(nd_isin, 0),
    OUT_ENTRY(nd_median, 0),
    OUT_ENTRY(nd_quantile, 0),
    OUT_ENTRY(nd_percentile, 0),
    OUT_ENTRY(nd_cumsum, 0),
    OUT_ENTRY(nd_cumprod, 0),
    OUT_ENTRY(nd_cumsum_dtype, 0),
    OUT_ENTRY(nd_cumprod_dtype, 0),
    OUT_ENTRY(nd_cummax, 0),
    OUT_ENTRY(nd_cummin, 0),
    OUT_ENTRY(nd_diff, 0),
    OUT_ENTRY(nd_nansum, 0),
    OUT_ENTRY(nd_nanprod, 0),
    OUT_ENTRY(nd_nanmean, 0),
    OUT_ENTRY(nd_nanmax, 0),
    OUT_ENTRY(nd_nanmin, 0),
    OUT_ENTRY(nd_nanargmax, 0),
    OUT_ENTRY(nd_nanargmin, 0),
    OUT_ENTRY(nd_nanvar, 0),
    OUT_ENTRY(nd_nanstd, 0),
    OUT_ENTRY(nd_ptp, 0),
    OUT_ENTRY(nd_reduce_dtype, 0),
    OUT_ENTRY(nd_flip, 0),
    OUT_ENTRY(nd_swapaxes, 0),
    OUT_ENTRY(nd_moveaxis, 0),
    OUT_ENTRY(nd_diagonal, 0),
    OUT_ENTRY(nd_roll, 0),
    OUT_ENTRY(nd_tile, 0),
    OUT_ENTRY(nd_repeat, 0),
    OUT_ENTRY(nd_repeat_array, 0),
    OUT_ENTRY(nd_pad, 0),
    OUT_ENTRY(nd_diag, 0),
    OUT_ENTRY(nd_tril, 0),
    OUT_ENTRY(nd_triu, 0),
    OUT_ENTRY(nd_trace, 0),
    OUT_ENTRY(nd_outer, 0),
    OUT_ENTRY(nd_tensordot, 0),
    OUT_ENTRY(nd_einsum, 0),
    OUT_ENTRY(nd_round, 0),
    OUT_ENTRY(nd_isclose, 0),
    OUT_ENTRY(nd_radians, 0),
    OUT_ENTRY(nd_degrees, 0),
    OUT_ENTRY(nd_conj, 0),
    OUT_ENTRY(nd_real, 0),
    OUT_ENTRY(nd_imag, 0),
    OUT_ENTRY(nd_angle, 0),
    OUT_ENTRY(nd_softmax, 0),
    OUT_ENTRY(nd_log_softmax, 0),
    OUT_ENTRY(nd_logsumexp, 0),
    OUT_ENTRY(nd_cross_entropy, 0),
    OUT_ENTRY(nd_grad_scaler_scale, 0),
    OUT_ENTRY(nd_fft, 0),
    OUT_ENTRY(nd_ifft, 0),
    OUT_ENTRY(nd_rfft, 0),
    OUT_ENTRY(nd_irfft, 0),
    OUT_ENTRY(nd_hfft, 0),
    OUT_ENTRY(nd_ihfft, 0),
    OUT_ENTRY(nd_fftn, 0),
    OUT_ENTRY(nd_ifftn, 0),
    OUT_ENTRY(nd_rfftn, 0),
    OUT_ENTRY(nd_irfftn, 0),
    OUT_ENTRY(nd_fft2, 0),
    OUT_ENTRY(nd_ifft2, 0),
    OUT_ENTRY(nd_rfft2, 0),
    OUT_ENTRY(nd_irfft2, 0),
    OUT_ENTRY(nd_fftfreq, 0),
    OUT_ENTRY(nd_rfftfreq, 0),
    OUT_ENTRY(nd_fftshift, 0),
    OUT_ENTRY(nd_ifftshift, 0),
    OUT_ENTRY(nd_linalg_solve, 0),
    OUT_ENTRY(nd_linalg_inv, 0),
    OUT_ENTRY(nd_linalg_det, 0),
    OUT_ENTRY(nd_linalg_cholesky, 0),
    OUT_ENTRY(nd_linalg_pinv, 0),
    OUT_ENTRY(nd_linalg_matrix_rank, 0),
    OUT_ENTRY(nd_linalg_norm, 0),
    OUT_ENTRY(nd_sparse_to_dense, 0),
    OUT_ENTRY(nd_sparse_matmul, 0),
    OUT_ENTRY(nd_sparse_sum, 0),
    OUT_ENTRY(nd_sparse_diagonal, 0),
    OUT_ENTRY(nd_sparse_cg, 0),
    OUT_ENTRY(nd_sparse_bicgstab, 0),
    OUT_ENTRY(nd_linalg_vector_norm, 0),
    OUT_ENTRY(nd_linalg_matrix_norm, 0),
    OUT_ENTRY(nd_linalg_cond, 0),
    OUT_ENTRY(nd_linalg_matrix_power, 0),
    OUT_ENTRY(nd_linalg_multi_dot, 0),
    OUT_ENTRY(nd_linalg_cross, 0),
    OUT_ENTRY(nd_linalg_vecdot, 0),
    OUT_ENTRY(nd_kron, 0),
    OUT_ENTRY(nd_kernel_call, 0),
    OUT_ENTRY(nd_kernel_reduce, 0),
};
const size_t out_api_families_n = sizeof out_api_families / sizeof *out_api_families;
