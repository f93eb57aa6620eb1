/*
 * libndgpu: your own kernels, compiled at run time - elementwise kernels
 * from a C body (CuPy's ElementwiseKernel), one source for every device;
 * raw CUDA C++ kernels for a GPU (CuPy's RawModule / RawKernel).
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 * Guide: docs/kernels.md.
 */
#ifndef NDGPU_KERNEL_H
#define NDGPU_KERNEL_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Options shared by every kind of user kernel                         */
/* ------------------------------------------------------------------ */
/*
 * How a kernel's source is compiled. Pass NULL for the defaults (no extra
 * option); a zero-initialised struct is the same. The library copies what
 * it needs: the struct and its strings may go once the call returns.
 */
typedef struct nd_kernel_options {
    /* Extra NVRTC options, e.g. "-DN=4", "--use_fast_math", "-I/path"
     * (NVRTC's own spelling, one option per string; NULL when
     * num_nvrtc_options is 0). The library adds the architecture
     * (-arch=sm_XY of the device) and -std=c++17 itself; an option of
     * yours comes after them, so a later -std wins. */
    const char *const *nvrtc_options;
    int num_nvrtc_options;
} nd_kernel_options;

/* ------------------------------------------------------------------ */
/* Elementwise kernels                                                 */
/* ------------------------------------------------------------------ */
/* A kernel is a body of C statements run once per element of the
 * broadcast of its inputs, as CuPy's ElementwiseKernel:
 *
 *     nd_kernel *k;
 *     nd_kernel_elementwise(&k, "T x, T y, float32 a", "T z",
 *                           "z = a * x + y", "saxpy", NULL);
 *     nd_array *z = NULL;
 *     nd_kernel_call(k, 3, (const nd_array *[]){x, y, a}, 1, &z);
 *
 * Parameters: comma-separated "[raw] TYPE NAME". TYPE is a dtype name
 * (bool, int8 ... uint64, float16, bfloat16, float32, float64) or a type
 * placeholder (any other identifier, such as T): a placeholder takes the
 * dtype of the arrays passed for it, which must agree, and outputs of that
 * placeholder get it too. An array passed for a typed input may have
 * another dtype that casts to it under NumPy's same_kind rule; it is
 * converted element by element as it is read. In the body, an input is a
 * const value of its type, an output a variable whose value is stored when
 * the body ends (it starts as the output's current element, so "z += x"
 * accumulates into a given output), `i` is the element's index in the C
 * order of the broadcast shape and `n` the number of elements. float16
 * and bfloat16 operands are float values in the body (rounded to nearest
 * even when stored); bool values are bool.
 *
 * Scalars: pass a 0-d array (its one value is used for every element).
 * Raw parameters ("raw T w") are not broadcast: the body indexes them,
 * w[j] for 0 <= j < w_size (the array's element count, a variable named
 * after the parameter), in C order; a raw input is read from a
 * C-contiguous copy when it is not contiguous, a raw output must be given,
 * C-contiguous, of its exact dtype. A kernel with raw parameters runs on
 * one thread on the CPU (its elements may depend on each other through
 * them).
 *
 * The body is C that is also CUDA C++: expressions and statements over
 * bool, the <stdint.h> integer types (int32_t ...), float and double,
 * local variables, if/for/while, and the math functions of <math.h> by
 * their generic names (exp, tanh, fabs, fmin, pow ...: on a float they
 * compute in float, as CUDA's overloads do, through <tgmath.h> in C). Not
 * allowed: function definitions, #include, C++-only or C-only constructs
 * (templates, references, lambdas; _Generic, compound literals,
 * designated initializers), complex operands (ND_ERR_UNSUPPORTED). A
 * kernel has at most 12 parameters; names are C identifiers other than
 * i, n and those starting with "nd_" or "_", unique, and a raw
 * parameter's "<name>_size" is taken too.
 *
 * Compilation: on first use with each combination of operand dtypes and
 * layout class (all operands contiguous or scalars, or general strides),
 * the CPU backend compiles the kernel with the system C compiler ($ND_CC,
 * else cc) for the running CPU (-O3 -march=native, no FMA contraction, so
 * a*b+c gives the bits of nd_multiply then nd_add) and loads it; the
 * result is cached in the process and on disk ($ND_KERNEL_CACHE_DIR, else
 * $XDG_CACHE_HOME/ndgpu/kernels, else ~/.cache/ndgpu/kernels;
 * ND_KERNEL_CACHE=0 turns the disk cache off; delete the directory to
 * clear it). A compile error is ND_ERR_INVALID with the compiler's
 * message, its lines numbered within the body and named after the
 * kernel ("saxpy:1:5: error: ..."); no compiler is ND_ERR_UNSUPPORTED
 * naming the one it looked for. Nothing is printed. */
typedef struct nd_kernel nd_kernel;

/** A kernel computing out_params from in_params with body (see above),
 *  named name (a C identifier: it names the kernel in messages and in the
 *  profiler). Checks the parameter lists and the name; the body is
 *  compiled at the first call. ND_ERR_INVALID: NULL arguments, a malformed
 *  or duplicate parameter, no output, more than 12 parameters;
 *  ND_ERR_UNSUPPORTED: a complex parameter. opts: NULL (no option applies to
 *  elementwise kernels yet). */
ND_API nd_status nd_kernel_elementwise(nd_kernel **k, const char *in_params, const char *out_params, const char *body,
                                       const char *name, const nd_kernel_options *opts);
/** Run k over the broadcast of its non-raw inputs in[0..nin) (nin the
 *  number of input parameters, in their order), writing out[0..nout):
 *  each out[j] follows the out rule (NULL: a new C-contiguous array of
 *  the broadcast shape and the parameter's dtype; an array: the result is
 *  written into it, cast under same_kind when its dtype differs). All
 *  arrays on one device; the call is one op for the profiler, named after
 *  the kernel, and queued on the device's current stream like any op.
 *  ND_ERR_INVALID: counts, NULL arrays, a compile error (message above);
 *  ND_ERR_DTYPE: placeholder dtypes that disagree or cannot be inferred,
 *  a cast that same_kind refuses; ND_ERR_SHAPE: inputs that do not
 *  broadcast, a raw output that is too small for nothing (an output with
 *  no broadcast input names the iteration shape by its own);
 *  ND_ERR_DEVICE: mixed devices; ND_ERR_UNSUPPORTED: no compiler, or a
 *  device whose backend does not compile kernels. */
ND_API nd_status nd_kernel_call(nd_kernel *k, int nin, const nd_array *const *in, int nout, nd_array **out);
/** The kernel's name (as given). NULL for NULL. */
ND_API const char *nd_kernel_name(const nd_kernel *k);
/** Release k (NULL is fine). Its compiled code stays loaded for the
 *  process; a later kernel with the same body finds it. */
ND_API void nd_kernel_release(nd_kernel *k);

/* ------------------------------------------------------------------ */
/* Raw kernels: CUDA C++ source, compiled at run time (CuPy's           */
/* RawModule / RawKernel)                                                */
/* ------------------------------------------------------------------ */
/*
 * A module is one CUDA C++ source text with any number of __global__
 * functions; a kernel is one of them by name. Kernels must be declared
 * extern "C" (their name is then the symbol; C++ names are mangled):
 *
 *     static const char *src =
 *         "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, long long n)\n"
 *         "{ long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }\n";
 *     nd_raw_kernel *k = NULL;
 *     nd_raw_kernel_create(&k, src, "saxpy", NULL);
 *     nd_kernel_arg args[] = {nd_kernel_arg_float32(2.0f), nd_kernel_arg_array(x), nd_kernel_arg_array(y),
 *                             nd_kernel_arg_int64(n)};
 *     nd_raw_kernel_launch(k, dev, (unsigned[3]){(n + 255) / 256, 1, 1}, (unsigned[3]){256, 1, 1}, 0, 4, args);
 *     nd_raw_kernel_release(k);
 *
 * Compilation: NVRTC, loaded at run time (libnvrtc.so.<major of the CUDA
 * runtime>, then libnvrtc.so; ND_NVRTC_LIBRARY=<path> loads another). A
 * module is compiled once per device architecture, lazily, on the first
 * launch on a device (or nd_raw_module_compile): machine code (CUBIN) for
 * the device's exact compute capability (-arch=sm_XY), or PTX
 * (compute_XY, the driver finishes it) when the NVRTC is older than the
 * GPU. The image is loaded with the CUDA runtime's library management
 * (cudaLibraryLoadData): the library needs no driver API.
 *
 * Cache: a compiled image is kept in memory for the life of the process
 * (another module with the same source and options reuses it) and on disk
 * (docs/kernels.md: $ND_KERNEL_CACHE_DIR, else $XDG_CACHE_HOME/ndgpu/
 * kernels, else ~/.cache/ndgpu/kernels; ND_KERNEL_CACHE=0 turns the disk
 * cache off), keyed by the source, the options, the architecture and the
 * NVRTC version. A cache file that fails its checksum is ignored and
 * recompiled.
 *
 * Errors (nd_last_error() says more):
 *   ND_ERR_INVALID      NULL arguments, a compile error (the message holds
 *                       NVRTC's log, truncated to fit, with the line
 *                       numbers of the source), no kernel of that name, a
 *                       bad launch geometry, a bad argument tag or dtype;
 *   ND_ERR_DEVICE       an array argument on another device than the
 *                       launch's;
 *   ND_ERR_UNSUPPORTED  a device that runs no CUDA source (the CPU: raw
 *                       kernels are GPU only; a CPU-only build), or no
 *                       NVRTC found (the message names libnvrtc);
 *   ND_ERR_BACKEND      the CUDA runtime refused to load or launch.
 *
 * The emulated GPU of the library's tests (make emu-test) compiles the
 * source with the host's C++ compiler against a small CUDA shim instead;
 * what it runs is listed in docs/kernels.md.
 *
 * Thread safety: modules and kernels may be shared between threads;
 * compilation is serialised per module.
 */
typedef struct nd_raw_module nd_raw_module;
typedef struct nd_raw_kernel nd_raw_kernel;

/* What a kernel argument is. */
typedef enum {
    ND_KERNEL_ARG_ARRAY = 0,  /* an nd_array, passed as its device data pointer (element 0) */
    ND_KERNEL_ARG_SCALAR = 1, /* a value of dtype (int32, int64, uint32, uint64, float32, float64, bool) */
    ND_KERNEL_ARG_POINTER = 2 /* a raw device pointer, passed as it is */
} nd_kernel_arg_kind;

/* One kernel argument, a tagged value; the helpers below make them. The
 * kernel's parameter must have the matching C type: an array or a pointer
 * is a T * (8 bytes), int32 an int, int64 a long long, uint32 an
 * unsigned, uint64 an unsigned long long, float32 a float, float64 a
 * double, bool a bool. The library cannot see the kernel's parameter list:
 * a mismatch is the caller's bug, as with CUDA's cudaLaunchKernel. */
typedef struct nd_kernel_arg {
    nd_kernel_arg_kind kind;
    nd_dtype dtype; /* ND_KERNEL_ARG_SCALAR: the value's dtype */
    union {
        const nd_array *array;
        const void *ptr;
        int32_t i32;
        int64_t i64;
        uint32_t u32;
        uint64_t u64;
        float f32;
        double f64;
        bool b;
    } v;
} nd_kernel_arg;

/** An array argument: its device data pointer (element 0). */
static inline nd_kernel_arg nd_kernel_arg_array(const nd_array *a)
{
    nd_kernel_arg r = {ND_KERNEL_ARG_ARRAY, ND_FLOAT32, {0}};
    r.v.array = a;
    return r;
}
/** A raw device pointer argument, passed as it is. */
static inline nd_kernel_arg nd_kernel_arg_pointer(const void *p)
{
    nd_kernel_arg r = {ND_KERNEL_ARG_POINTER, ND_UINT64, {0}};
    r.v.ptr = p;
    return r;
}
/** An int32 scalar argument (an int parameter). */
static inline nd_kernel_arg nd_kernel_arg_int32(int32_t x)
{
    nd_kernel_arg r = {ND_KERNEL_ARG_SCALAR, ND_INT32, {0}};
    r.v.i32 = x;
    return r;
}
/** An int64 scalar argument (a long long parameter). */
static inline nd_kernel_arg nd_kernel_arg_int64(int64_t x)
{
    nd_kernel_arg r = {ND_KERNEL_ARG_SCALAR, ND_INT64, {0}};
    r.v.i64 = x;
    return r;
}
/** A uint32 scalar argument (an unsigned parameter). */
static inline nd_kernel_arg nd_kernel_arg_uint32(uint32_t x)
{
    nd_kernel_arg r = {ND_KERNEL_ARG_SCALAR, ND_UINT32, {0}};
    r.v.u32 = x;
    return r;
}
/** A uint64 scalar argument (an unsigned long long parameter). */
static inline nd_kernel_arg nd_kernel_arg_uint64(uint64_t x)
{
    nd_kernel_arg r = {ND_KERNEL_ARG_SCALAR, ND_UINT64, {0}};
    r.v.u64 = x;
    return r;
}
/** A float32 scalar argument (a float parameter). */
static inline nd_kernel_arg nd_kernel_arg_float32(float x)
{
    nd_kernel_arg r = {ND_KERNEL_ARG_SCALAR, ND_FLOAT32, {0}};
    r.v.f32 = x;
    return r;
}
/** A float64 scalar argument (a double parameter). */
static inline nd_kernel_arg nd_kernel_arg_float64(double x)
{
    nd_kernel_arg r = {ND_KERNEL_ARG_SCALAR, ND_FLOAT64, {0}};
    r.v.f64 = x;
    return r;
}
/** A bool scalar argument (a bool parameter). */
static inline nd_kernel_arg nd_kernel_arg_bool(bool x)
{
    nd_kernel_arg r = {ND_KERNEL_ARG_SCALAR, ND_BOOL, {0}};
    r.v.b = x;
    return r;
}

/** Make a module from CUDA C++ source (copied; nothing is compiled yet).
 *  opts: NULL or the compile options (copied). ND_ERR_INVALID for a NULL
 *  m or source, or a bad option list. */
ND_API nd_status nd_raw_module_create(nd_raw_module **m, const char *cuda_source, const nd_kernel_options *opts);
/** Compile m for dev now (otherwise the first launch on dev does): a
 *  compile error is reported here. Compiled already (or found in a cache):
 *  ND_OK at once. */
ND_API nd_status nd_raw_module_compile(nd_raw_module *m, nd_device dev);
/** The kernel `name` of m (a new handle holding a reference to m: m may be
 *  released first). The name is checked when the module is compiled for a
 *  device: a launch of a name the source lacks is ND_ERR_INVALID. */
ND_API nd_status nd_raw_module_get(nd_raw_kernel **k, nd_raw_module *m, const char *name);
/** Release a module (NULL is fine); its kernels keep it alive. */
ND_API void nd_raw_module_release(nd_raw_module *m);
/** The one-kernel shortcut: a module of source and its kernel name. */
ND_API nd_status nd_raw_kernel_create(nd_raw_kernel **k, const char *cuda_source, const char *name,
                                      const nd_kernel_options *opts);
/** Launch k on dev: grid and block extents (x, y, z; each >= 1, within
 *  the GPU's limits: block x*y*z <= 1024, z <= 64; grid y, z <= 65535),
 *  shared_bytes of dynamic shared memory (<= 48 KiB), nargs arguments
 *  (arrays on dev). Queued on the calling thread's current stream of dev
 *  (nd_set_stream) and returns without waiting, like every op; the
 *  profiler records it as one op named after the kernel. The first launch
 *  on a device compiles the module (see above). */
ND_API nd_status nd_raw_kernel_launch(nd_raw_kernel *k, nd_device dev, const unsigned grid[3], const unsigned block[3],
                                      size_t shared_bytes, int nargs, const nd_kernel_arg *args);
/** The kernel's name (owned by k). */
ND_API const char *nd_raw_kernel_name(const nd_raw_kernel *k);
/** Release a kernel handle (NULL is fine). Launches already queued run. */
ND_API void nd_raw_kernel_release(nd_raw_kernel *k);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_KERNEL_H */
