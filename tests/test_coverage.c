/* Kernel coverage of every compiled-in backend, checked without a device:
 * each backend answers nd_backend.supports for every op of the op table
 * x every dtype; the CPU's elementwise loops are exactly the set the core
 * dispatches (every input dtype pair and weak scalar of every op is run
 * through the public API and the loop dtypes the core resolved are
 * compared with the generated ones: a loop it never picks fails, as does
 * a pick without a loop); and the CUDA backend must have a kernel wherever
 * the CPU backend has one. This runs on machines without a GPU, so a CUDA
 * kernel that is missing fails CI even though no CUDA kernel can run
 * there. */
#include <stdio.h>

#include "elementwise/elementwise.h"
#include "core/internal.h"
#include "shared/philox.h"
#include "shared/scan_slots.h" /* ND_SC_NOPS */
#include "test_util.h"

#ifdef ND_WITH_CUDA
#include "cuda/cuda_backend.h"
#endif

static const char *kind_name(nd_kernel_kind k)
{
    static const char *const names[ND_NUM_KERNEL_KINDS] = {
        [ND_KERNEL_UNARY] = "unary",   [ND_KERNEL_BINARY] = "binary",   [ND_KERNEL_WHERE] = "where",
        [ND_KERNEL_REDUCE] = "reduce", [ND_KERNEL_MATMUL] = "matmul",   [ND_KERNEL_GEMM] = "gemm",
        [ND_KERNEL_RANDOM] = "random", [ND_KERNEL_CAST] = "cast",       [ND_KERNEL_GATHER] = "gather",
        [ND_KERNEL_SCATTER] = "scatter", [ND_KERNEL_COMPRESS] = "compress", [ND_KERNEL_SORT] = "sort",
        [ND_KERNEL_SEARCHSORTED] = "searchsorted", [ND_KERNEL_SCAN] = "scan"};
    return (unsigned)k < ND_NUM_KERNEL_KINDS && names[k] ? names[k] : "?";
}

static int num_ops(nd_kernel_kind k)
{
    switch (k) {
    case ND_KERNEL_UNARY: return ND_NUM_UNARY_OPS;
    case ND_KERNEL_BINARY: return ND_NUM_BINARY_OPS;
    case ND_KERNEL_REDUCE: return ND_NUM_REDUCE_OPS;
    case ND_KERNEL_RANDOM: return 2;
    case ND_KERNEL_CAST: return ND_NUM_DTYPES;
    case ND_KERNEL_SCAN: return ND_SC_NOPS; /* sum, prod, max, min (src/shared/scan_slots.h) */
    case ND_KERNEL_SCATTER: return 4; /* ix: nd_scatter_op, src/shared/index_ops.h */
    default: return 1;
    }
}

static const char *op_name(nd_kernel_kind k, int op)
{
    switch (k) {
    case ND_KERNEL_UNARY: return nd_unary_op_name((nd_unary_op)op);
    case ND_KERNEL_BINARY: return nd_binary_op_name((nd_binary_op)op);
    case ND_KERNEL_REDUCE: return nd_reduce_op_name((nd_reduce_op)op);
    case ND_KERNEL_RANDOM: return op == ND_RANDOM_UNIFORM ? "uniform" : "normal";
    case ND_KERNEL_CAST: return nd_dtype_name((nd_dtype)op);
    default: return kind_name(k);
    }
}

/* The CPU backend has a kernel for every op of the table on at least one
 * dtype, and answers no for out-of-range ops and dtypes. */
START_TEST(cpu_backend_covers_the_op_table)
{
    const nd_backend *cpu = nd__backend(nd_cpu());
    ck_assert_ptr_nonnull(cpu->supports);
    int loops = 0;
    for (int k = 0; k < ND_NUM_KERNEL_KINDS; k++) {
        for (int op = 0; op < num_ops((nd_kernel_kind)k); op++) {
            int n = 0;
            for (int t = 0; t < ND_NUM_DTYPES; t++) n += cpu->supports((nd_kernel_kind)k, op, (nd_dtype)t);
            ck_assert_msg(n > 0, "cpu: %s %s has no kernel for any dtype", kind_name((nd_kernel_kind)k),
                          op_name((nd_kernel_kind)k, op));
            loops += n;
        }
        ck_assert(!cpu->supports((nd_kernel_kind)k, num_ops((nd_kernel_kind)k), ND_FLOAT32));
        ck_assert(!cpu->supports((nd_kernel_kind)k, 0, (nd_dtype)ND_NUM_DTYPES));
    }
    /* the op table's 80 ops x their loop dtypes are all there */
    ck_assert(cpu->supports(ND_KERNEL_UNARY, ND_UNARY_EXP, ND_BFLOAT16));
    ck_assert(!cpu->supports(ND_KERNEL_UNARY, ND_UNARY_EXP, ND_INT32)); /* the core casts ints to a float */
    ck_assert(cpu->supports(ND_KERNEL_BINARY, ND_BINARY_RIGHT_SHIFT, ND_UINT64));
    /* the new rules and kinds tokens generate exactly their loops */
    ck_assert(cpu->supports(ND_KERNEL_BINARY, ND_BINARY_FLOAT_POWER, ND_FLOAT64));
    ck_assert(!cpu->supports(ND_KERNEL_BINARY, ND_BINARY_FLOAT_POWER, ND_FLOAT32)); /* F64: float64 only */
    ck_assert(cpu->supports(ND_KERNEL_BINARY, ND_BINARY_NEXTAFTER, ND_FLOAT16));      /* BIUFh: own 16-bit bodies */
    ck_assert(cpu->supports(ND_KERNEL_UNARY, ND_UNARY_SPACING, ND_BFLOAT16));
    ck_assert(!cpu->supports(ND_KERNEL_BINARY, ND_BINARY_LDEXP, ND_BFLOAT16));     /* BIUFw: widened to float32 */
    ck_assert(cpu->supports(ND_KERNEL_BINARY, ND_BINARY_LDEXP, ND_FLOAT16));
    ck_assert(cpu->supports(ND_KERNEL_BINARY, ND_BINARY_GCD, ND_INT8));
    ck_assert(!cpu->supports(ND_KERNEL_BINARY, ND_BINARY_GCD, ND_BOOL)); /* bool computes as int8 */
    ck_assert(!cpu->supports(ND_KERNEL_BINARY, ND_BINARY_GCD, ND_FLOAT32));
    printf("coverage: cpu backend has %d kernels (op x dtype) over %d kernel kinds\n", loops, ND_NUM_KERNEL_KINDS);
}
END_TEST

/* Every elementwise loop of the CPU backend is one the core can dispatch,
 * and every loop the core picks exists: all unary ops on every dtype, all
 * binary ops on every pair of dtypes and with weak bool/int/float scalars
 * on either side (including ints that do not fit, which widen the loop of
 * comparisons), each run on one element; then the loop dtypes resolved
 * (src/elementwise/elementwise.c's memo) are compared with the generated table. */
START_TEST(cpu_elementwise_loops_are_exactly_the_dispatched_ones)
{
    const nd_device cpu = nd_cpu();
    const int64_t one = 1;
    nd_array *x[ND_NUM_DTYPES];
    for (int t = 0; t < ND_NUM_DTYPES; t++) {
        x[t] = NULL;
        ND_OK_OR_FAIL(nd_ones(&x[t], (nd_dtype)t, 1, &one, cpu));
    }
    const nd_scalar sc[] = {nd_scalar_bool(true), nd_scalar_int(1),     nd_scalar_int(-1),
                            nd_scalar_int(300),   nd_scalar_int(1LL << 40), nd_scalar_float(1.5)};
    for (int op = 0; op < ND_NUM_UNARY_OPS; op++)
        for (int t = 0; t < ND_NUM_DTYPES; t++) {
            nd_array *r = NULL;
            (void)nd_unary(&r, (nd_unary_op)op, x[t]);
            nd_release(r);
        }
    for (int op = 0; op < ND_NUM_BINARY_OPS; op++)
        for (int t = 0; t < ND_NUM_DTYPES; t++) {
            for (int u = 0; u < ND_NUM_DTYPES; u++) {
                nd_array *r = NULL;
                (void)nd_binary(&r, (nd_binary_op)op, x[t], x[u]);
                nd_release(r);
            }
            for (size_t k = 0; k < sizeof sc / sizeof *sc; k++) {
                nd_array *r = NULL, *l = NULL;
                (void)nd_binary_scalar(&r, (nd_binary_op)op, x[t], sc[k]);
                (void)nd_scalar_binary(&l, (nd_binary_op)op, sc[k], x[t]);
                nd_release(r);
                nd_release(l);
            }
        }
    for (int t = 0; t < ND_NUM_DTYPES; t++) nd_release(x[t]);

    const nd_backend *be = nd__backend(cpu);
    int unreachable = 0, missing = 0, loops = 0;
    for (int bin = 0; bin < 2; bin++) {
        const nd_kernel_kind k = bin ? ND_KERNEL_BINARY : ND_KERNEL_UNARY;
        for (int op = 0; op < num_ops(k); op++) {
            bool picked[ND_NUM_DTYPES] = {false};
            for (int in = 0; in < ND_NUM_DTYPES; in++) {
                int l = nd__ew_resolved_loop(bin, op, (nd_dtype)in);
                if (l >= 0) picked[l] = true;
            }
            for (int t = 0; t < ND_NUM_DTYPES; t++) {
                bool have = be->supports(k, op, (nd_dtype)t);
                loops += have;
                if (have && !picked[t] && unreachable++ < 40)
                    fprintf(stderr, "coverage: cpu %s loop %s on %s is never dispatched\n", kind_name(k),
                            op_name(k, op), nd_dtype_name((nd_dtype)t));
                if (!have && picked[t] && missing++ < 40)
                    fprintf(stderr, "coverage: the core picks %s %s on %s, which has no cpu loop\n", kind_name(k),
                            op_name(k, op), nd_dtype_name((nd_dtype)t));
            }
        }
    }
    printf("coverage: cpu elementwise loops: %d, all dispatched by the core\n", loops - unreachable);
    ck_assert_msg(unreachable == 0, "%d generated elementwise loops are never dispatched (listed on stderr)",
                  unreachable);
    ck_assert_msg(missing == 0, "the core picks %d loops that do not exist (listed on stderr)", missing);
}
END_TEST

#ifdef ND_WITH_CUDA
/* Every (kind, op, dtype) the CPU backend has, the CUDA backend has (for
 * the elementwise kernels tests/test_gpu_ew.c checks equality, so the CUDA
 * backend has no kernel the core never dispatches either). */
START_TEST(cuda_backend_covers_what_the_cpu_has)
{
    const nd_backend *cpu = nd__backend(nd_cpu()), *cuda = nd__backend(nd_cuda(0));
    ck_assert_ptr_nonnull(cuda);
    ck_assert_ptr_nonnull(cuda->supports);
    int missing = 0, have = 0;
    for (int k = 0; k < ND_NUM_KERNEL_KINDS; k++)
        for (int op = 0; op < num_ops((nd_kernel_kind)k); op++)
            for (int t = 0; t < ND_NUM_DTYPES; t++) {
                if (!cpu->supports((nd_kernel_kind)k, op, (nd_dtype)t)) continue;
                if (cuda->supports((nd_kernel_kind)k, op, (nd_dtype)t)) {
                    have++;
                    continue;
                }
                if (missing++ < 40)
                    fprintf(stderr, "coverage: cuda has no %s kernel for %s on %s\n", kind_name((nd_kernel_kind)k),
                            op_name((nd_kernel_kind)k, op), nd_dtype_name((nd_dtype)t));
            }
    printf("coverage: cuda backend has %d of the cpu's kernels, %d missing\n", have, missing);
    ck_assert_msg(missing == 0, "the CUDA backend lacks %d kernels the CPU backend has (listed on stderr)", missing);
}
END_TEST
#endif

Suite *suite_coverage(void)
{
    Suite *s = suite_create("coverage");
    TCase *tc = tcase_create("coverage");
    tcase_add_test(tc, cpu_backend_covers_the_op_table);
    tcase_add_test(tc, cpu_elementwise_loops_are_exactly_the_dispatched_ones);
#ifdef ND_WITH_CUDA
    tcase_add_test(tc, cuda_backend_covers_what_the_cpu_has);
#else
    printf("coverage: cuda backend not compiled in (CUDA=0): its coverage is SKIPPED\n");
#endif
    suite_add_tcase(s, tc);
    return s;
}
