/* The CPU backend's entry points; src/cpu/backend.c assembles them into
 * nd__cpu_backend. Each lives in the file named beside it. Arguments are
 * already validated by the core (see nd_backend in src/core/backend.h). */
#ifndef ND_CPU_H
#define ND_CPU_H
#include "cpu/isa.h"
#include "core/internal.h"

/* src/cpu/backend.c: the descriptor (the registry, src/core/registry.c, names it) */
ND_INTERNAL extern const nd_backend nd__cpu_backend;
/* src/cpu/device.c: the device part */
ND_INTERNAL nd_status nd__cpu_check_device(const char *func, int id);
ND_INTERNAL nd_status nd__cpu_device_info(nd_device_info *info, int id);
ND_INTERNAL void nd__cpu_build_info(char *buf, size_t cap);
/* Give OpenBLAS the library's thread count when the user chose one
 * (src/cpu/threads.c); called before every cblas call (matmul.c). */
ND_INTERNAL void nd__blas_threads_sync(void);
/* OpenBLAS (BLIS) on one thread between begin and end, for BLAS calls made
 * from the library's own threads (nested pairs counted; src/cpu/threads.c). */
ND_INTERNAL void nd__blas_single_begin(void);
ND_INTERNAL void nd__blas_single_end(void);
/* 1 where OpenBLAS runs its parallel sections on the pool: scipy-openblas32,
 * through its threading callback (src/cpu/threads.c). The distribution's
 * OpenBLAS and BLIS keep threads of their own. */
#if defined(ND_BLAS_SCIPY_OPENBLAS)
#define ND_BLAS_ON_POOL 1
#else
#define ND_BLAS_ON_POOL 0
#endif
/* While a long LAPACK routine whose BLAS calls run on the pool runs: the
 * pool's idle workers keep polling between its parallel sections instead
 * of sleeping; calls nest and may come from several threads. */
#if ND_ISA_X86
/* d[0, n) = s[0, n) with streaming stores (no read for ownership of d's
 * lines): n a multiple of 32, d 32-byte aligned, s 64-byte aligned. The
 * caller issues _mm_sfence() before another thread reads d. Used by the
 * elementwise flat path, fused expressions and SpMV (src/cpu/elementwise.c). */
ND_INTERNAL void nd_cpu_stream_row(char *d, const char *s, int64_t n);
#endif
/* The size from which an SpMV writes y by streaming stores (src/cpu/sparse.c);
 * a negative value restores the default. For the tests. */
ND_INTERNAL void nd__sp_stream_min(int64_t bytes);
ND_INTERNAL void nd__pool_linger_begin(void);
ND_INTERNAL void nd__pool_linger_end(void);
/* src/cpu/cast.c */
ND_INTERNAL nd_status nd__cpu_cast(nd_array *dst, const nd_array *src);
ND_INTERNAL nd_status nd__cpu_fill(nd_array *dst, const void *value);
/* src/cpu/elementwise.c */
ND_INTERNAL nd_status nd__cpu_unary(nd_unary_op op, nd_array *out, const nd_array *a);
ND_INTERNAL nd_status nd__cpu_binary(nd_binary_op op, nd_array *out, const nd_array *a, const nd_array *b);
ND_INTERNAL nd_status nd__cpu_where(nd_array *out, const nd_array *cond, const nd_array *x, const nd_array *y);
/* The direct path's loops (nd_backend.unary_flat/binary_flat). */
ND_INTERNAL void nd__cpu_unary_flat(nd_unary_op op, nd_dtype t, void *out, const void *a, int64_t n);
ND_INTERNAL void nd__cpu_binary_flat(nd_binary_op op, nd_dtype t, void *out, const void *a, const void *b, int64_t n);
/* The loop the unfused op runs for a unary (binary = false) or binary op
 * on loop dtype t, with its context (a vector kernel) in *ctx and its work
 * per element relative to an add in *cost: the same choice nd__cpu_unary
 * and nd__cpu_binary make. NULL when there is no loop. */
ND_INTERNAL nd_loop_fn nd__cpu_ew_loop(bool binary, int op, nd_dtype t, const void **ctx, int64_t *cost);
/* The loop of nd_where for items of itemsize bytes (1, 2, 4, 8, 16; NULL otherwise). */
ND_INTERNAL nd_loop_fn nd__cpu_where_loop(size_t itemsize);
/* src/cpu/cast.c: the loop of a cast from dtype `from` to `to` (the one nd__cpu_cast runs). */
ND_INTERNAL nd_loop_fn nd__cpu_cast_loop(nd_dtype from, nd_dtype to);
/* src/cpu/expr.c: the expr slot (contract in src/shared/expr_prog.h) */
struct nd_expr_prog;
ND_INTERNAL nd_status nd__cpu_expr(const struct nd_expr_prog *prog, nd_array *out, const nd_array *const *ins);
/* Whether a unary/binary loop exists for op on loop dtype t. */
ND_INTERNAL bool nd__cpu_ew_supports(nd_kernel_kind kind, int op, nd_dtype t);
/* src/cpu/reduce.c */
ND_INTERNAL nd_status nd__cpu_reduce(nd_reduce_op op, nd_array *out, const nd_array *a, int naxes, double ddof);
/* src/cpu/reduce_prims.c: sum a[i] b[i] over n >= 1 contiguous elements,
 * pairwise in the dtype as the sums (the long dots of matmul.c) */
ND_INTERNAL float nd__rk_dot_f32(const float *a, const float *b, int64_t n);
ND_INTERNAL double nd__rk_dot_f64(const double *a, const double *b, int64_t n);
/* src/cpu/matmul.c */
ND_INTERNAL nd_status nd__cpu_matmul(nd_array *out, const nd_array *a, const nd_array *b);
ND_INTERNAL nd_status nd__cpu_gemm(nd_array *c, bool ta, bool tb, double alpha, const nd_array *a, const nd_array *b,
                                   double beta);
/* src/cpu/random.c */
struct nd_philox_call;
ND_INTERNAL nd_status nd__cpu_random(nd_array *out, int dist, const struct nd_philox_call *call);
/* src/cpu/fft.c: the fft slot (contract in src/fft/fft.h) */
ND_INTERNAL nd_status nd__cpu_fft(nd_array *out, const nd_array *in, int axis, int64_t n, int kind, int sign,
                                  double scale);
/* src/cpu/lapack.c: the la slot (contract in src/shared/la_slots.h) */
struct nd_la_call;
ND_INTERNAL nd_status nd__cpu_la(struct nd_la_call *call);

/* src/cpu/sparse.c: the sparse slot (contract in src/shared/sparse_slots.h) */
struct nd_sp_call;
ND_INTERNAL nd_status nd__cpu_sparse(struct nd_sp_call *call);

/* src/cpu/kjit.c: the kernel_ew slot (contract in src/shared/kernel_slots.h) */
struct nd_k_call;
ND_INTERNAL nd_status nd__cpu_kernel_ew(struct nd_k_call *call);

/* src/cpu/threads.c: run body(ctx, begin, end) over [0, n) split into
 * contiguous chunks on up to nd__num_threads() threads when n * cost
 * exceeds the parallel threshold (cost ~ work per element, 1 for a plain
 * add), else inline on the calling thread. */
typedef void (*nd_range_fn)(void *ctx, int64_t begin, int64_t end);
ND_INTERNAL void nd__parallel_for(int64_t n, int64_t cost, nd_range_fn body, void *ctx);
/* fn(ctx, i) for i in [0, n), all n at once on n distinct threads (the
 * caller is member 0): for work whose members wait on each other, such as
 * OpenBLAS's threaded level-3 routines, which a parallel-for could run one
 * after the other on one thread. The pool's workers when it is free, else
 * threads started for the gang. */
typedef void (*nd_gang_fn)(void *ctx, int member);
ND_INTERNAL void nd__parallel_gang(int n, nd_gang_fn fn, void *ctx);
/* How many parallel sections OpenBLAS ran on the pool (src/cpu/threads.c;
 * -1 where the BLAS keeps its own threads). */
ND_INTERNAL long nd__blas_gangs(void);
/* Run a 1-D loop over a whole nd_iter (outer axes iterated, innermost
 * axis passed to loop), in parallel when large. */
ND_INTERNAL void nd__iter_run(const nd_iter *it, nd_loop_fn loop, const void *ctx, int64_t cost);
#endif
