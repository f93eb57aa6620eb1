/* The backend table is the only door (src/core/backend.h): every
 * compiled-in descriptor is complete and of this ABI version, device names
 * come from the registry (one function), and the device part answers for
 * the core. The static half (no core file calls a backend by name) is
 * tools/check-doors.sh. */
#include "cpu/blas.h"
#include "cpu/isa.h"
#include "cpu/matmul_bf16.h"
#include "core/internal.h"
#include "test_util.h"

/* Every compiled-in backend: the version, the registry's name, every
 * required slot, and the optional groups all-or-none. */
START_TEST(descriptors_are_complete_and_versioned)
{
    int compiled = 0;
    for (int t = 0; t < ND_NUM_DEVICE_TYPES; t++) {
        const nd_backend_entry *e = &nd__registry[t];
        ck_assert_ptr_nonnull(e->name);
        ck_assert_ptr_nonnull(e->label);
        const nd_backend *be = e->be;
        if (!be) continue;
        compiled++;
        ck_assert_ptr_eq(nd__backend((nd_device){(nd_device_type)t, 0}), be);
        ck_assert_int_eq(be->abi_version, ND_BACKEND_ABI_VERSION);
        ck_assert_str_eq(be->name, e->name);
        /* required: device part */
        ck_assert(be->device_count && be->check_device && be->device_info && be->build_info);
        ck_assert(be->memory_stats && be->memory_set_limit && be->memory_reset_peak && be->synchronize);
        /* required: compute part */
        ck_assert(be->alloc && be->free && be->memcpy_h2d && be->memcpy_d2h && be->memcpy_d2d);
        ck_assert(be->cast && be->fill && be->unary && be->binary && be->where && be->reduce);
        ck_assert(be->matmul && be->gemm && be->random && be->supports);
        ck_assert(be->softmax && be->cross_entropy && be->amp_unscale); /* mixed precision */
        ck_assert(be->fft);                                              /* FFT */
        ck_assert(be->la);                                               /* linear algebra */
        /* optional groups: all or none */
        int ns = !!be->stream_create + !!be->stream_destroy + !!be->stream_synchronize;
        ck_assert_msg(ns == 0 || ns == 3, "%s: %d of 3 stream slots", be->name, ns);
        int ne = !!be->event_create + !!be->event_record + !!be->event_synchronize + !!be->event_elapsed +
                 !!be->event_destroy;
        ck_assert_msg(ne == 0 || ne == 5, "%s: %d of 5 event slots", be->name, ne);
        ck_assert_msg(!!be->unary_flat == !!be->binary_flat, "%s: one flat fast path without the other", be->name);
        ck_assert_msg(!!be->stream_wrap == !!be->stream_unwrap, "%s: stream_wrap without stream_unwrap", be->name);
        ck_assert_msg(!be->stream_wrap || ns == 3, "%s: wraps streams but has none", be->name);
        int nm = !!be->managed_alloc + !!be->managed_free + !!be->prefetch + !!be->advise;
        ck_assert_msg(nm == 0 || nm == 4, "%s: %d of 4 managed-memory slots", be->name, nm);
        int nr = !!be->rtc_compile + !!be->rtc_kernel + !!be->rtc_launch;
        ck_assert_msg(nr == 0 || nr == 3, "%s: %d of 3 run-time compilation slots", be->name, nr);
    }
    ck_assert_ptr_nonnull(nd__backend(nd_cpu())); /* the CPU is always there */
    ck_assert_int_ge(compiled, 1);
    ck_assert_ptr_null(nd__backend((nd_device){(nd_device_type)7, 0}));
    ck_assert_ptr_null(nd__backend((nd_device){(nd_device_type)-1, 0}));
}
END_TEST

/* One device-name function: the registry's names, also for a type that is
 * not compiled in, and an unknown type named as what it is. */
START_TEST(device_names_come_from_the_registry)
{
    char b[32];
    ck_assert_str_eq(nd__device_name(nd_cpu(), b, sizeof b), "cpu:0");
    ck_assert_str_eq(nd__device_name(nd_cuda(1), b, sizeof b), "cuda:1");
    ck_assert_str_eq(nd__device_name((nd_device){(nd_device_type)7, 2}, b, sizeof b), "device-type-7:2");
    /* messages use it: a join across devices names both (the arrays are
     * headers only; nothing is read) */
    nd_array *a = NULL, *g = NULL, *o = NULL;
    int64_t n = 2;
    ND_OK_OR_FAIL(nd_zeros(&a, ND_FLOAT32, 1, &n, nd_cpu()));
    ND_OK_OR_FAIL(nd_zeros(&g, ND_FLOAT32, 1, &n, nd_cpu()));
    g->device = (nd_device){(nd_device_type)7, 0};
    const nd_array *two[2] = {a, g};
    ND_EXPECT_ERR(nd_concatenate(&o, 2, two, 0), ND_ERR_DEVICE,
                  "the array at index 1 is on device-type-7:0, but the array at index 0 is on cpu:0");
    ND_EXPECT_ERR(nd_matmul(&o, a, g), ND_ERR_DEVICE, "(cpu:0 and device-type-7:0)");
    ND_EXPECT_ERR(nd_add(&o, a, g), ND_ERR_DEVICE, "'a' is on cpu:0 but 'b' is on device-type-7:0");
    ck_assert_ptr_null(o);
    g->device = nd_cpu();
    nd_release(a);
    nd_release(g);
}
END_TEST

/* Validation through the registry and the backend's check_device, with
 * today's statuses and messages. */
START_TEST(device_checks_go_through_the_registry)
{
    ND_EXPECT_ERR(nd__check_device("f", (nd_device){(nd_device_type)7, 0}), ND_ERR_INVALID, "f: invalid device type 7");
    ND_EXPECT_ERR(nd__check_device("f", (nd_device){ND_DEVICE_CPU, 3}), ND_ERR_DEVICE,
                  "invalid CPU device id 3 (only cpu:0 exists)");
    ND_OK_OR_FAIL(nd__check_device("f", nd_cpu()));
    if (!nd__backend(nd_cuda(0)))
        ND_EXPECT_ERR(nd__check_device("f", nd_cuda(0)), ND_ERR_UNSUPPORTED,
                      "device cuda:0 requested, but libndgpu was built without CUDA (CUDA=0)");
    else if (nd_test_gpu_count() == 0)
        ND_EXPECT_ERR(nd__check_device("f", nd_cuda(0)), ND_ERR_DEVICE, "no usable GPU was found");
    nd_device_info info;
    ND_EXPECT_ERR(nd_device_get_info(&info, (nd_device){ND_DEVICE_CPU, 1}), ND_ERR_DEVICE, "invalid CPU device id 1");
    ND_EXPECT_ERR(nd_device_get_info(&info, (nd_device){(nd_device_type)9, 0}), ND_ERR_INVALID, "invalid device type 9");
    ND_OK_OR_FAIL(nd_device_get_info(&info, nd_cpu()));
    ck_assert_int_eq(info.type, ND_DEVICE_CPU);
    ck_assert_int_gt(info.multiprocessors, 0);
    ND_EXPECT_ERR(nd_synchronize((nd_device){ND_DEVICE_CPU, 2}), ND_ERR_DEVICE, "invalid CPU device id 2");
    ND_OK_OR_FAIL(nd_synchronize(nd_cpu()));
}
END_TEST

/* nd_build_info: one line per known backend, in today's format. */
START_TEST(build_info_lists_every_backend)
{
    const char *s = nd_build_info();
    ck_assert_ptr_nonnull(strstr(s, "libndgpu "));
    ck_assert_ptr_nonnull(strstr(s, "; backends: cpu"));
    /* the BLAS that runs: library, version, origin and kernel core */
    char ver[48], blas[160];
    snprintf(blas, sizeof blas, "; BLAS: %s %s (%s, core %s", nd__blas_name(), nd__blas_version(ver, sizeof ver),
             nd__blas_origin(), nd__blas_core());
    ck_assert_msg(strstr(s, blas) != NULL, "'%s' lacks '%s'", s, blas);
    ck_assert(strcmp(ver, "?") != 0);
    ck_assert_ptr_nonnull(strstr(s, "; threads: "));
    if (nd__backend(nd_cuda(0))) {
        ck_assert_ptr_nonnull(strstr(s, "backends: cpu, cuda;"));
        ck_assert_ptr_nonnull(strstr(s, "; CUDA runtime "));
    } else {
        ck_assert_ptr_nonnull(strstr(s, "backends: cpu;"));
        ck_assert_ptr_nonnull(strstr(s, "; CUDA not compiled in"));
    }
}
END_TEST

/* The CPU path: named in the build line, never above what the CPU has,
 * and lowered exactly as ND_CPU_ISA asks (make test-isa runs the suites
 * with each lower path; this checks that the request took effect). */
START_TEST(cpu_path_follows_nd_cpu_isa)
{
    nd_cpu_isa isa = nd__cpu_isa(), det = nd__cpu_isa_detected();
    char want[64];
    snprintf(want, sizeof want, "; CPU path: %s", nd__cpu_isa_name(isa));
    ck_assert_msg(strstr(nd_build_info(), want), "'%s' lacks '%s'", nd_build_info(), want);
    ck_assert_int_le(isa, det);
    const char *env = getenv("ND_CPU_ISA");
    nd_cpu_isa asked = det;
    for (int i = 0; env && i < ND_ISA_N; i++)
        if (!strcmp(env, nd__cpu_isa_name((nd_cpu_isa)i))) asked = (nd_cpu_isa)i < det ? (nd_cpu_isa)i : det;
    ck_assert_int_eq(isa, asked);
    ck_assert_str_eq(nd_cpu_path(), nd__cpu_isa_name(isa)); /* the public name of the same choice */
    ck_assert_str_eq(nd__cpu_isa_name(ND_ISA_AVX512), "avx512");
    ck_assert_str_eq(nd__cpu_isa_name(ND_ISA_AVX2), "avx2");
    ck_assert_str_eq(nd__cpu_isa_name(ND_ISA_BASELINE), "baseline");
}
END_TEST

/* The bfloat16 GEMM path (src/cpu/matmul_bf16.h): named in the build
 * line, never above what the CPU has, lowered as ND_CPU_BF16 asks, and
 * "sgemm" whenever the CPU path is below avx512 (the kernels are
 * AVX-512 code). */
static bool cpu_is_amd(void)
{
#if ND_ISA_X86
    return __builtin_cpu_is("amd");
#else
    return false;
#endif
}

START_TEST(bf16_path_follows_nd_cpu_bf16)
{
    nd_bf16_path p = nd__bf16_path(), det = nd__bf16_path_detected();
    char want[64];
    snprintf(want, sizeof want, "; bfloat16 GEMM: %s", nd__bf16_path_name(p));
    ck_assert_msg(strstr(nd_build_info(), want), "'%s' lacks '%s'", nd_build_info(), want);
    ck_assert_int_le(p, det);
    const char *env = getenv("ND_CPU_BF16");
    /* unset: AMX, or AVX512-BF16 on AMD only */
    nd_bf16_path asked = det == ND_BF16_AVX512 && !cpu_is_amd() ? ND_BF16_SGEMM : det;
    for (int i = 0; env && i < ND_BF16_N; i++)
        if (!strcmp(env, nd__bf16_path_name((nd_bf16_path)i))) asked = (nd_bf16_path)i < det ? (nd_bf16_path)i : det;
    if (nd__cpu_isa() < ND_ISA_AVX512) asked = ND_BF16_SGEMM;
    ck_assert_int_eq(p, asked);
    if (det != ND_BF16_SGEMM) ck_assert_int_ge(nd__cpu_isa_detected(), ND_ISA_AVX512);
    ck_assert_str_eq(nd__bf16_path_name(ND_BF16_AMX), "amx");
    ck_assert_str_eq(nd__bf16_path_name(ND_BF16_AVX512), "avx512_bf16");
    ck_assert_str_eq(nd__bf16_path_name(ND_BF16_SGEMM), "sgemm");
}
END_TEST

/* The single features (nd__cpu_has) agree with what the compiler's own
 * CPU model says, and the bfloat16 ones only come with the AVX-512 path
 * they need (the kernels are AVX-512 code). */
START_TEST(cpu_features_agree_with_the_cpu)
{
#if ND_ISA_X86
    __builtin_cpu_init();
    ck_assert_int_eq(nd__cpu_has(ND_CPU_VENDOR_AMD), cpu_is_amd());
    ck_assert_int_eq(nd__cpu_has(ND_CPU_F16C),
                     __builtin_cpu_supports("f16c") && nd__cpu_isa_detected() >= ND_ISA_AVX2);
    if (nd__cpu_has(ND_CPU_AVX512_BF16)) ck_assert_int_ge(nd__cpu_isa_detected(), ND_ISA_AVX512);
    if (nd__cpu_has(ND_CPU_AMX_BF16)) ck_assert(nd__cpu_has(ND_CPU_AVX512_BF16));
    ck_assert_int_eq(nd__bf16_path_detected(), nd__cpu_has(ND_CPU_AMX_BF16)      ? ND_BF16_AMX
                                               : nd__cpu_has(ND_CPU_AVX512_BF16) ? ND_BF16_AVX512
                                                                                 : ND_BF16_SGEMM);
#else
    for (int f = 0; f < ND_CPU_FEATURE_N; f++) ck_assert(!nd__cpu_has((nd_cpu_feature)f));
#endif
}
END_TEST

Suite *suite_doors(void)
{
    Suite *s = suite_create("doors");
    TCase *tc = tcase_create("doors");
    tcase_add_test(tc, descriptors_are_complete_and_versioned);
    tcase_add_test(tc, device_names_come_from_the_registry);
    tcase_add_test(tc, device_checks_go_through_the_registry);
    tcase_add_test(tc, build_info_lists_every_backend);
    tcase_add_test(tc, cpu_path_follows_nd_cpu_isa);
    tcase_add_test(tc, bf16_path_follows_nd_cpu_bf16);
    tcase_add_test(tc, cpu_features_agree_with_the_cpu);
    suite_add_tcase(s, tc);
    return s;
}
