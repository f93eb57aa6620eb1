/*
 * libndgpu: the base every family header stands on - the ND_API export
 * macro, limits and the axis=None value, the opaque nd_array, status codes
 * and errors, library information and threads, dtypes and promotion, weak
 * scalars, devices. Included by <ndgpu.h> and by every header under
 * ndgpu/; the conventions are in <ndgpu.h>'s first comment.
 */
#ifndef NDGPU_CORE_H
#define NDGPU_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define ND_API
#else
#define ND_API __attribute__((visibility("default")))
#endif

/** Maximum number of dimensions of an array. */
#define ND_MAX_DIMS 32

/** An n-dimensional array (opaque, reference counted). */
typedef struct nd_array nd_array;

/** The axis argument meaning NumPy's axis=None, "the flattened array" (C
 *  order of a), for the functions that take one axis and accept None:
 *  nd_take, nd_take_along_axis, nd_put_along_axis, nd_compress, nd_sort,
 *  nd_argsort, nd_partition, nd_argpartition, nd_cumsum, nd_cumprod,
 *  nd_cummax, nd_cummin, nd_repeat (the value is INT32_MIN, never a valid
 *  axis). */
#define ND_AXIS_NONE (-2147483647 - 1)

/* ------------------------------------------------------------------ */
/* Status codes (numbers are stable)                                   */
/* ------------------------------------------------------------------ */
typedef enum nd_status {
    ND_OK = 0,
    ND_ERR_INVALID = 1,     /* bad argument value (NULL, range, ...) */
    ND_ERR_SHAPE = 2,       /* shapes do not match / broadcast / bad axis */
    ND_ERR_DTYPE = 3,       /* dtype not supported by the op, bad casting */
    ND_ERR_DEVICE = 4,      /* device mismatch, missing or unusable GPU */
    ND_ERR_NOMEM = 5,       /* allocation failed */
    ND_ERR_BACKEND = 6,     /* BLAS / CUDA runtime error */
    ND_ERR_IO = 7,          /* file or format error */
    ND_ERR_UNSUPPORTED = 8, /* feature not compiled in / not implemented */
    ND_ERR_INTERNAL = 9     /* a bug in libndgpu */
} nd_status;

/* Sizes: no array, result or view, may hold more than INT64_MAX elements or
 * bytes. Every function refuses a result shape whose element count or byte
 * count would pass that with ND_ERR_INVALID ("array is too big", NumPy's
 * words for the same shape), before any work or allocation; a result that
 * could exist but does not fit in memory (or under nd_memory_set_limit)
 * gives ND_ERR_NOMEM. Neither ever wraps to a small array. */

/** Name of a status code, e.g. "ND_ERR_SHAPE". Never NULL. */
ND_API const char *nd_status_name(nd_status s);
/** Thread-local message of the last failure in this thread ("" if none).
 *  Valid until the next libndgpu call in this thread. */
ND_API const char *nd_last_error(void);
/* printf-style format checking of nd_set_error's arguments */
#if defined(__GNUC__)
#define ND_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define ND_PRINTF_LIKE(f, a)
#endif
/** Set this thread's last error to "func: message" (func NULL: "libndgpu")
 *  and return code. For libraries built on libndgpu that report through
 *  nd_last_error() (libndgpu_mpi does). */
ND_API ND_PRINTF_LIKE(3, 4) nd_status nd_set_error(nd_status code, const char *func, const char *fmt, ...);

/* ------------------------------------------------------------------ */
/* Library                                                             */
/* ------------------------------------------------------------------ */
/** Version string "MAJOR.MINOR.PATCH". */
ND_API const char *nd_version(void);
/** One-line description of the build: backends; the BLAS library, its
 *  version, origin and the kernel core it runs ("BLAS: OpenBLAS 0.3.34
 *  (scipy-openblas32, core SkylakeX)", ", generic kernels" after a core
 *  without AVX2 kernels; docs/blas.md); threads; CPU path; CUDA. */
ND_API const char *nd_build_info(void);
/** The CPU path the CPU backend runs: "avx512", "avx2" (x86-64-v3: AVX2,
 *  FMA, F16C) or "baseline"; detected once at load, lowered by ND_CPU_ISA.
 *  For code built on libndgpu that specialises for the CPU the same way
 *  (libndgpu_mpi's half-precision reductions). Never NULL. */
ND_API const char *nd_cpu_path(void);
/** Set the number of CPU threads (n >= 1; 0 = default = all cores or
 *  ND_NUM_THREADS). ND_ERR_INVALID for n < 0. A count chosen here or in
 *  ND_NUM_THREADS also applies to the BLAS (OpenBLAS or BLIS: matmul,
 *  linalg), from the next matmul on; left alone, the BLAS keeps its own
 *  default (OPENBLAS_NUM_THREADS, BLIS_NUM_THREADS or all cores). Change it
 *  between matmuls, not during one. */
ND_API nd_status nd_set_num_threads(int n);
/** Number of CPU threads the CPU backend uses. */
ND_API int nd_get_num_threads(void);

/* ------------------------------------------------------------------ */
/* dtypes                                                              */
/* ------------------------------------------------------------------ */
typedef enum nd_dtype {
    ND_BOOL = 0,
    ND_INT8,
    ND_INT16,
    ND_INT32,
    ND_INT64,
    ND_UINT8,
    ND_UINT16,
    ND_UINT32,
    ND_UINT64,
    ND_FLOAT16,
    ND_BFLOAT16,
    ND_FLOAT32,
    ND_FLOAT64,
    ND_COMPLEX64,  /* two float32: (real, imaginary), NumPy's complex64 */
    ND_COMPLEX128, /* two float64 */
    ND_NUM_DTYPES
} nd_dtype;

/** NumPy's name ("float32", "bfloat16", ...); "invalid" for bad values. */
ND_API const char *nd_dtype_name(nd_dtype t);
/** Size of one element in bytes; 0 for bad values. */
ND_API size_t nd_dtype_size(nd_dtype t);
/** Promotion of two array dtypes (NumPy 2 / NEP 50 table; bfloat16 with
 *  float16 gives float32, with int8/uint8 bfloat16, with wider ints
 *  float32/float64 as for float16). ND_ERR_INVALID on bad enums. */
ND_API nd_status nd_result_type(nd_dtype *out, nd_dtype a, nd_dtype b);
/** Whether `from` can be cast to `to` under NumPy's "same_kind" rule. */
ND_API bool nd_can_cast_same_kind(nd_dtype from, nd_dtype to);

/* ------------------------------------------------------------------ */
/* Scalars (weak, as Python scalars in NumPy 2 / NEP 50)               */
/* ------------------------------------------------------------------ */
typedef enum nd_scalar_kind {
    ND_SCALAR_NONE = 0, /* "no value" (e.g. a missing clip bound) */
    ND_SCALAR_BOOL,
    ND_SCALAR_INT,
    ND_SCALAR_FLOAT,
    ND_SCALAR_COMPLEX /* a Python complex: v.c[0] real part, v.c[1] imaginary */
} nd_scalar_kind;

typedef struct nd_scalar {
    nd_scalar_kind kind;
    union {
        bool b;
        int64_t i;
        double f;
        double c[2];
    } v;
} nd_scalar;

/** A weak bool scalar (like Python's True/False). */
static inline nd_scalar nd_scalar_bool(bool b) { nd_scalar s; s.kind = ND_SCALAR_BOOL; s.v.b = b; return s; }
/** A weak integer scalar (like a Python int; int64 range). */
static inline nd_scalar nd_scalar_int(int64_t i) { nd_scalar s; s.kind = ND_SCALAR_INT; s.v.i = i; return s; }
/** A weak float scalar (like a Python float). */
static inline nd_scalar nd_scalar_float(double f) { nd_scalar s; s.kind = ND_SCALAR_FLOAT; s.v.f = f; return s; }
/** A weak complex scalar (like a Python complex: re + im*1j). */
static inline nd_scalar nd_scalar_complex(double re, double im)
{
    nd_scalar s;
    s.kind = ND_SCALAR_COMPLEX;
    s.v.c[0] = re;
    s.v.c[1] = im;
    return s;
}
/** "No value" (e.g. a missing clip bound). */
static inline nd_scalar nd_scalar_none(void) { nd_scalar s; s.kind = ND_SCALAR_NONE; s.v.i = 0; return s; }

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */
typedef enum nd_device_type { ND_DEVICE_CPU = 0, ND_DEVICE_CUDA = 1 } nd_device_type;
typedef struct nd_device {
    nd_device_type type;
    int id;
} nd_device;

typedef struct nd_device_info {
    char name[256];
    nd_device_type type;
    int id;
    int cc_major, cc_minor;      /* compute capability (0 for the CPU) */
    int multiprocessors;         /* SMs; logical cores for the CPU */
    size_t total_memory;         /* bytes */
    size_t free_memory;          /* bytes */
    int memory_clock_khz;        /* 0 when unknown */
    int memory_bus_width_bits;   /* 0 when unknown */
    double peak_bandwidth_gbps;  /* 0 when unknown */
} nd_device_info;

/** The CPU device (cpu:0). */
static inline nd_device nd_cpu(void) { nd_device d; d.type = ND_DEVICE_CPU; d.id = 0; return d; }
/** CUDA device number id (as numbered under CUDA_VISIBLE_DEVICES). */
static inline nd_device nd_cuda(int id) { nd_device d; d.type = ND_DEVICE_CUDA; d.id = id; return d; }
/** cuda:0 when a GPU is usable, else the CPU. ND_DEVICE=cpu|cuda:N overrides
 *  (an unusable override falls back to the CPU). */
ND_API nd_device nd_default_device(void);
/** Number of usable CUDA devices; 0 (silently) in a CPU-only build or
 *  when there is no driver or GPU. */
ND_API int nd_cuda_device_count(void);
/** Every usable device, the host (cpu:0) first, then each compiled-in
 *  backend's devices in order: writes up to cap of them to devs (devs may
 *  be NULL when cap is 0) and returns how many there are. */
ND_API int nd_devices(nd_device *devs, int cap);
/** Fill *info for dev. ND_ERR_INVALID (NULL), ND_ERR_DEVICE (no such
 *  device), ND_ERR_UNSUPPORTED (CUDA not compiled in). */
ND_API nd_status nd_device_get_info(nd_device_info *info, nd_device dev);
/** Wait for all work queued on dev. */
ND_API nd_status nd_synchronize(nd_device dev);
/** dev as users write it ("cpu:0", "cuda:1", PyTorch's spelling) into buf
 *  (cap bytes; 32 are enough); returns buf. A type the library does not
 *  know is written "device-type-7:0". */
ND_API char *nd_device_str(nd_device dev, char *buf, size_t cap);
/** The device named s: "cpu", "cuda", "cuda:1" (no id: 0). ND_ERR_INVALID
 *  for NULL, an unknown name or a bad id; the device need not exist or be
 *  compiled in (nd_device_get_info says whether it does). */
ND_API nd_status nd_device_parse(nd_device *dev, const char *s);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_CORE_H */
