/*
 * libndgpu: files and interop - .npy save and load, DLPack export and
 * import (with dlpack.h's structs under its own include guard).
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_IO_H
#define NDGPU_IO_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Files (.npy) and zero-copy interop (DLPack)                         */
/* ------------------------------------------------------------------ */
/*
 * .npy files (NumPy's format, versions 1.0, 2.0 and 3.0).
 *
 * Saving always writes version 1.0 with exactly the header NumPy writes
 * (the dict text, the growth-axis spaces, padding to a multiple of 64
 * bytes, a final '\n'), in C order and little-endian, so a file is
 * byte-identical to np.save's. dtype descriptors: '|b1', '|i1', '|u1',
 * '<i2'..'<i8', '<u2'..'<u8', '<f2' (float16), '<f4', '<f8'.
 *
 * bfloat16: NumPy has no bfloat16. libndgpu saves it as '<V2' (two raw
 * bytes per element, the bfloat16 bit pattern little-endian), which is
 * exactly what np.save writes for an ml_dtypes.bfloat16 array (JAX,
 * TensorFlow). NumPy loads such a file as void2 without pickle; view it
 * with x.view(ml_dtypes.bfloat16) or x.view('<u2') (raw bits; the float32
 * value is (bits.astype('<u4') << 16).view('<f4')). On load, '<V2' and
 * '|V2' give bfloat16.
 *
 * Loading accepts: format 1.0/2.0/3.0 (3.0: UTF-8 header), any byte order
 * ('<', '>', '|', '=' or none; big-endian data is byte-swapped), C or
 * Fortran order (a Fortran-order file gives the same C-order array NumPy
 * shows), 0-d and zero-size arrays. Bool bytes other than 0/1 load as 1.
 * Bytes after the array data are ignored (as np.load does).
 *
 * The parser treats its input as hostile: the header may be at most
 * 10,000 bytes (NumPy's max_header_size), the magic string, version,
 * header length, padding (the header ends with '\n' after the dict) and
 * the dict syntax are checked, the dict must have exactly the keys
 * 'descr', 'fortran_order' and 'shape' (no duplicates), shape extents are
 * non-negative decimal integers, and the element count and byte count are
 * overflow-checked and compared with the file size before anything is
 * allocated. Errors: ND_ERR_IO for any malformed or truncated file and
 * for object (pickle) arrays ('|O'); ND_ERR_DTYPE for a well-formed dtype
 * libndgpu lacks (complex, strings, structured, ...); ND_ERR_IO also for
 * more than ND_MAX_DIMS dimensions. The message names the defect.
 */

/** Write a to path as a .npy file (format 1.0, C order). Any layout and
 *  device (the data is gathered with nd_copy_to_host). ND_ERR_IO when the
 *  file cannot be written (a partial regular file is removed; a device or
 *  FIFO named as path, such as /dev/full, is left as it is). */
ND_API nd_status nd_save_npy(const char *path, const nd_array *a);
/** Load a .npy file into a new C-contiguous array on dev (read on the
 *  host, then moved with nd_to_device). Follows the out rule: with
 *  *out != NULL the data is copied into *out, which must have the file's
 *  shape, live on dev and accept the file's dtype under "same_kind". */
ND_API nd_status nd_load_npy(nd_array **out, const char *path, nd_device dev);
/** Like nd_load_npy, from the size bytes of a .npy file in memory (the
 *  parser used by nd_load_npy; never reads outside [data, data + size)). */
ND_API nd_status nd_load_npy_buffer(nd_array **out, const void *data, size_t size, nd_device dev);

/*
 * DLPack (https://dmlc.github.io/dlpack): the structs below are those of
 * dlpack.h 1.1, under dlpack.h's own include guard, so including
 * <dlpack/dlpack.h> before or after ndgpu.h gives one definition (include
 * dlpack.h first if you need a newer one's additions).
 *
 * Export (nd_to_dlpack, nd_to_dlpack_legacy): the tensor shares a's
 * memory and holds a reference to a (manager_ctx); calling its deleter
 * once releases that reference (the memory lives until both the tensor
 * and every libndgpu reference are gone). data points at element
 * [0,...,0] and byte_offset is 0; shape and strides (in elements, never
 * NULL) live inside the tensor's allocation. dtypes: bool -> kDLBool/8,
 * intN -> kDLInt/N, uintN -> kDLUInt/N, float16 -> kDLFloat/16, bfloat16
 * -> kDLBfloat/16, float32/64 -> kDLFloat/32/64; lanes 1. Devices: CPU ->
 * kDLCPU (kDLCUDAHost when a is in pinned memory), cuda:N -> kDLCUDA/N.
 * flags: DLPACK_FLAG_BITMASK_READ_ONLY is set only for broadcast views
 * (an axis of stride 0 and extent > 1), else 0.
 *
 * Import (nd_from_dlpack, nd_from_dlpack_legacy): on success libndgpu owns
 * t: the new array shares t's memory (no copy) and t's deleter is called
 * when the last reference to that memory goes (with *out != NULL the data
 * is copied into *out and the deleter is called before returning). On
 * failure t is NOT consumed: its owner must still call its deleter. Every
 * field is validated: NULL pointers, major version (must be 1), ndim in
 * [0, ND_MAX_DIMS], non-negative shapes, overflow of sizes and strides
 * (also for an empty tensor: a stride whose span over its axis, an axis of
 * extent > 1, does not fit int64 bytes is refused, as slicing never makes
 * one),
 * dtypes (lanes must be 1; codes/bits as above else ND_ERR_DTYPE),
 * devices (kDLCPU id 0, kDLCUDAHost -> a pinned CPU array, kDLCUDA and
 * kDLCUDAManaged -> cuda:N, which needs a CUDA build and a GPU; others
 * ND_ERR_DEVICE). strides == NULL means C-contiguous; byte_offset is
 * honoured. A CUDA tensor (kDLCUDA, kDLCUDAManaged) whose first element,
 * data + byte_offset, is not aligned to the element size (16 bytes for
 * complex128) is refused with ND_ERR_INVALID: the kernels load whole
 * elements, and a misaligned load would fault on the device; no copy is
 * made, because an import shares the producer's memory. A READ_ONLY tensor (versioned import) becomes a read-only array:
 * it and its views are refused (ND_ERR_INVALID) as an out= argument, as
 * nd_gemm's c and by nd_copy_from_host (copy it with nd_copy to write).
 *
 * Streams: CPU tensors have none. For CUDA tensors libndgpu follows the
 * DLPack protocol: an exported tensor is ready once the work queued on
 * the exporting thread's current stream (nd_set_stream) completes; the
 * consumer must synchronise with that stream (or call nd_synchronize)
 * before reading. An imported CUDA tensor must be ready for use on the
 * importing thread's current stream (the producer synchronised, as the
 * Python __dlpack__(stream=...) protocol arranges).
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_
#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1
#define DLPACK_DLL

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U,
    kDLBool = 6U,
    kDLFloat8_e3m4 = 7U,
    kDLFloat8_e4m3 = 8U,
    kDLFloat8_e4m3b11fnuz = 9U,
    kDLFloat8_e4m3fn = 10U,
    kDLFloat8_e4m3fnuz = 11U,
    kDLFloat8_e5m2 = 12U,
    kDLFloat8_e5m2fnuz = 13U,
    kDLFloat8_e8m0fnu = 14U,
    kDLFloat6_e2m3fn = 15U,
    kDLFloat6_e3m2fn = 16U,
    kDLFloat4_e2m1fn = 17U
} DLDataTypeCode;

typedef struct {
    uint8_t code;   /* a DLDataTypeCode */
    uint8_t bits;   /* bits per lane */
    uint16_t lanes; /* vector lanes (1 for scalars) */
} DLDataType;

typedef struct {
    void *data;           /* base pointer (device pointer for GPUs) */
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;       /* ndim extents */
    int64_t *strides;     /* ndim strides in elements, or NULL (C order) */
    uint64_t byte_offset; /* bytes from data to element [0,...,0] */
} DLTensor;

/* Legacy (pre-1.0) managed tensor, Python capsule name "dltensor". */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* Versioned managed tensor (DLPack >= 1.0), capsule name "dltensor_versioned". */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
#endif /* DLPACK_DLPACK_H_ */

/** Export a as a DLPack 1.x tensor sharing a's memory (see above). The
 *  caller (consumer) must call (*out)->deleter(*out) exactly once. */
ND_API nd_status nd_to_dlpack(DLManagedTensorVersioned **out, nd_array *a);
/** Export a as a legacy (pre-1.0) DLManagedTensor. */
ND_API nd_status nd_to_dlpack_legacy(DLManagedTensor **out, nd_array *a);
/** Import t without a copy (see above); consumes t only on success. */
ND_API nd_status nd_from_dlpack(nd_array **out, DLManagedTensorVersioned *t);
/** Import a legacy DLManagedTensor; consumes t only on success. */
ND_API nd_status nd_from_dlpack_legacy(nd_array **out, DLManagedTensor *t);
/** A release callback for memory handed to the library (nd_from_ptr). */
typedef void (*nd_deleter)(void *ctx);
/** An array over memory the library did not allocate (a foreign device
 *  pointer from your own CUDA code or another library, or host memory),
 *  without a copy: data (element 0) of dtype with ndim extents shape and
 *  strides in elements (NULL: C-contiguous; negative and zero strides
 *  allowed), on dev (a CUDA pointer must be device memory of that GPU, and
 *  aligned to the element size there). On success the library owns the
 *  memory: deleter(ctx) is called once when the last array using it is
 *  released (NULL deleter: you keep the memory alive that long yourself);
 *  with *out != NULL the data is copied into *out and deleter(ctx) is
 *  called before returning. On failure deleter is not called. Validated
 *  as a DLPack import (dtype, shape, strides, device, alignment); work on
 *  the array is queued on the current stream like any other. */
ND_API nd_status nd_from_ptr(nd_array **out, void *data, nd_dtype dtype, int ndim, const int64_t *shape,
                             const int64_t *strides, nd_device dev, nd_deleter deleter, void *ctx);
/** The DLPack device of a's memory, as the array API's __dlpack_device__
 *  returns it: kDLCPU (1) / 0, kDLCUDAHost (3) / 0 for pinned host
 *  memory, kDLCUDA (2) / N. ND_ERR_INVALID for a NULL argument. */
ND_API nd_status nd_dlpack_device(const nd_array *a, int32_t *type, int32_t *id);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_IO_H */
