/*
 * The backend interface: the only way from the core (the .c files of src/) to a device.
 *
 * Each backend (src/cpu, src/cuda) exports exactly ONE descriptor, a
 * `const nd_backend` filled with designated initialisers only and carrying
 * `.abi_version = ND_BACKEND_ABI_VERSION`; src/core/registry.c maps each
 * nd_device_type to its descriptor (NULL when not compiled in), and the
 * core reaches a device only through nd__backend(dev)->slot. The core
 * never calls an nd__cpu_* / nd__cuda_* function by name and never tests
 * ND_WITH_CUDA; `make check-doors` (tools/check-doors.sh, part of
 * `make test`) fails when it does.
 *
 * Two parts:
 *  - the device part: what a device is and has (count, validation, info,
 *    build info, memory statistics and limits, streams, events, pinned
 *    host memory, asynchronous/peer copies, synchronize);
 *  - the compute part: memory and the kernels the core dispatches to, plus
 *    optional fast paths.
 * A slot marked OPTIONAL may be NULL; the comment says what the core does
 * then. Every other slot is required (tests/test_doors.c checks every
 * compiled-in descriptor).
 *
 * Adding a backend "foo" (one directory plus one registry line):
 *  1. include/ndgpu/core.h: a value ND_DEVICE_FOO in nd_device_type (and an
 *     nd_foo(id) constructor); raise ND_NUM_DEVICE_TYPES below;
 *  2. src/foo/: the backend's files, ending in one descriptor
 *     `const nd_backend nd__foo_backend = {.abi_version = ..., ...}` and a
 *     header declaring it (and whatever the backend shares internally);
 *  3. src/core/registry.c: one entry [ND_DEVICE_FOO] = {"foo", "FOO", ...}
 *     under the build flag that compiles the backend in;
 *  4. the build: compile src/foo/ (the Makefile's source lists) and define
 *     the flag.
 * Nothing in the core changes: messages name the device through
 * nd__device_name, streams/events/copies/memory statistics go through the
 * device part, and the elementwise fast path asks the descriptor.
 *
 * Included by internal.h (every file of the library sees it).
 */
#ifndef ND_BACKEND_H
#define ND_BACKEND_H
#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a slot is added, removed or changes its meaning. */
#define ND_BACKEND_ABI_VERSION 10 /* 2: the slots (gather, scatter, compress, mask_count, sort_rows,
                                 * topk_rows, searchsorted, scan) and random taking the call description;
                                 * 3: range_push/range_pop (the profiler's NVTX ranges);
                                 * 4: softmax, cross_entropy, amp_unscale and matmul/gemm
                                 *    with a float32 out from float16/bfloat16 operands;
                                 * 5: fft (the numpy.fft family, one batched 1-D transform)
                                 * 6: la (LAPACK / cuSOLVER factorisations)
                                 * 7: kernel_ew (run-time compiled elementwise kernels);
                                 *    rtc_compile, rtc_kernel, rtc_launch (run-time compiled CUDA),
                                 *    stream_wait_event
                                 * 8: expr (fused elementwise programs, nd_expr_eval)
                                 * 9: stream_wrap/stream_unwrap (streams made by the user), memory_set_pool;
                                 *    managed_alloc, managed_free, prefetch, advise (managed memory);
                                 *    graph_begin, graph_end, graph_launch, graph_destroy (native graphs)
                                 * 10: sparse (CSR kernels of src/sparse) */
/* One more than the largest nd_device_type value (include/ndgpu/core.h). */
#define ND_NUM_DEVICE_TYPES 2

/* Kernel families, for nd_backend.supports (what the coverage test asks
 * every compiled-in backend, even where its device is absent). */
typedef enum {
    ND_KERNEL_UNARY,  /* op = nd_unary_op, t = loop dtype */
    ND_KERNEL_BINARY, /* op = nd_binary_op, t = loop dtype */
    ND_KERNEL_WHERE,  /* op = 0, t = dtype of x, y and out */
    ND_KERNEL_REDUCE, /* op = nd_reduce_op, t = input dtype */
    ND_KERNEL_MATMUL, /* op = 0, t = dtype */
    ND_KERNEL_GEMM,   /* op = 0, t = dtype */
    ND_KERNEL_RANDOM, /* op = ND_RANDOM_UNIFORM / _NORMAL / _INTEGERS, t = dtype */
    ND_KERNEL_CAST,   /* op = source dtype, t = destination dtype */
    /* indexing and selection (src/index*.c) */
    ND_KERNEL_GATHER,   /* op = 0, t = dtype of a and out */
    ND_KERNEL_SCATTER,  /* op = nd_scatter_op (src/shared/index_ops.h), t = dtype of a */
    ND_KERNEL_COMPRESS, /* op = 0, t = dtype of a (ND_INT64 also: the index form) */

    /* sorting, searching, sets (src/sort*.c) */
    ND_KERNEL_SORT,         /* op = 0, t = dtype of the rows (sort_rows) */
    ND_KERNEL_SEARCHSORTED, /* op = 0, t = dtype of a and v (searchsorted) */

    /* scans and nan-aware reductions (src/scan*.c) */
    ND_KERNEL_SCAN, /* op = nd_sc_op (src/shared/scan_slots.h), t = accumulation dtype */
    ND_NUM_KERNEL_KINDS
} nd_kernel_kind;

struct nd_pool_upstream; /* src/core/pool.h */
struct nd_philox_call;   /* src/shared/philox.h */
struct nd_la_call;      /* src/shared/la_slots.h */
struct nd_rtc_source;   /* src/core/rtc_slot.h */
struct nd_rtc_module;   /* src/core/rtc_slot.h */
struct nd_k_call;       /* src/shared/kernel_slots.h */
struct nd_expr_prog;    /* src/shared/expr_prog.h */
struct nd_sp_call;      /* src/shared/sparse_slots.h */

typedef struct nd_backend {
    /* ND_BACKEND_ABI_VERSION of the interface the descriptor was written for. */
    int abi_version;
    /* The device-type prefix of device names ("cpu" in "cpu:0"). */
    const char *name;

    /* ---------------- device part ---------------- */
    /* Number of usable devices of this type (0: none; never fails). */
    int (*device_count)(void);
    /* OPTIONAL: why device_count() is 0, for messages (NULL: no reason known). */
    const char *(*unavailable_reason)(void);
    /* ND_OK when device `id` exists and is usable, else ND_ERR_DEVICE with a
     * message naming func (nd__check_device calls it). */
    nd_status (*check_device)(const char *func, int id);
    /* Fill *info for device id (validates id itself, errors name
     * nd_device_get_info). */
    nd_status (*device_info)(nd_device_info *info, int id);
    /* One "; "-free-form line about the backend's build for nd_build_info,
     * e.g. "CUDA runtime 13.0, driver 13.0, 1 GPU(s)". */
    void (*build_info)(char *buf, size_t cap);
    /* Memory statistics of device id's allocator. peak_in_use >= in_use
     * in every snapshot, also while another thread resets the peak. */
    nd_status (*memory_stats)(nd_memory_stats *s, int id);
    /* OPTIONAL: return cached, unused memory (NULL: nothing is cached). */
    nd_status (*memory_release_cached)(int id);
    /* Cap the bytes the allocator may hold (0 = none). */
    nd_status (*memory_set_limit)(int id, size_t bytes);
    /* Restart peak_in_use from the current in_use. */
    nd_status (*memory_reset_peak)(int id);
    /* OPTIONAL: serve device id from allocator `kind` (an nd_pool_kind)
     * from now on; ND_ERR_INVALID while arrays from the present one are
     * alive (NULL: the device has one allocator, kind NONE). */
    nd_status (*memory_set_pool)(int id, int kind);
    /* OPTIONAL streams (all three or none; NULL: the device is synchronous,
     * its streams are host-side objects with a NULL handle). create makes
     * *handle; destroy waits for its work; synchronize waits for it. */
    nd_status (*stream_create)(void **handle, int id);
    nd_status (*stream_destroy)(void *handle, int id);
    nd_status (*stream_synchronize)(void *handle, int id);
    /* OPTIONAL (both or none, only with streams): adopt a stream the user
     * made (native, of device id) as a library stream: *handle is what
     * stream_* and the pools then use, and the pools fence it as their own;
     * unwrap waits for its work and forgets it without destroying it
     * (NULL: the device has no streams of its own to wrap). */
    nd_status (*stream_wrap)(void **handle, void *native, int id);
    nd_status (*stream_unwrap)(void *handle, int id);
    /* OPTIONAL events (all five or none; NULL: events time with the host
     * clock, which is exact for a synchronous device). record on stream
     * (a handle from stream_create; NULL = the default stream). */
    nd_status (*event_create)(void **handle, int id);
    nd_status (*event_record)(void *event, void *stream, int id);
    nd_status (*event_synchronize)(void *event, int id);
    nd_status (*event_elapsed)(float *ms, void *start, void *end, int id);
    void (*event_destroy)(void *event, int id);
    /* OPTIONAL: work queued on stream (a handle of device id, NULL = its
     * default stream) after this call waits for event (of any device of
     * this type) to complete, without blocking the host (NULL: the device
     * is synchronous; the core waits on the host when the event's device
     * is not). */
    nd_status (*stream_wait_event)(void *stream, void *event, int id);
    /* OPTIONAL: the upstream of the library's pinned host pool when this
     * backend can page-lock host memory; returns false (leaving *up alone)
     * when it cannot right now, e.g. no device (NULL: never). */
    bool (*pinned_upstream)(struct nd_pool_upstream *up);
    /* OPTIONAL: dst = src (same dtype and shape) where one of them is on
     * this backend's device, queued on stream (a stream handle of that
     * device; NULL = its default stream), also across two devices of this
     * type (peer copy). *queued false with ND_OK: this copy cannot be
     * queued (not contiguous, or pageable host memory) and nothing was
     * done; the core then copies synchronously after the stream's work.
     * NULL: the device is the host; the core copies synchronously. */
    nd_status (*copy_async)(nd_array *dst, const nd_array *src, void *stream, bool *queued);
    /* Wait for all work queued on dev. */
    nd_status (*synchronize)(nd_device dev);
    /* OPTIONAL (both or none): open / close a named range in the vendor's
     * tracing tool on the calling thread (NVTX for CUDA: Nsight Systems
     * shows nd_range_push/pop). Never fail; cheap when no tool listens
     * (NULL: the backend has no such tool). */
    void (*range_push)(const char *name);
    void (*range_pop)(void);
    /* OPTIONAL managed memory (all four or none; NULL: the device has none,
     * nd_empty_managed makes an ordinary array). managed_alloc: nbytes
     * addressable from the host and every device of this type, not from the
     * pool (ND_ERR_NOMEM / ND_ERR_UNSUPPORTED with a message);
     * managed_free: give it back (waits for the device). prefetch: queue
     * the migration of [ptr, ptr + nbytes) to device `to` (this type's or the
     * CPU) on stream (a handle of device id, NULL = its default stream).
     * advise: advice is an nd_mem_advice, relative to device `to`. */
    nd_status (*managed_alloc)(int id, size_t nbytes, void **ptr);
    void (*managed_free)(int id, void *ptr);
    nd_status (*prefetch)(const void *ptr, size_t nbytes, nd_device to, void *stream, int id);
    nd_status (*advise)(const void *ptr, size_t nbytes, int advice, nd_device to, int id);
    /* OPTIONAL native graphs (all four or none; NULL: the core records the
     * device's operations and replays their slots itself, src/core/graph.c).
     * graph_begin: capture what the calling thread queues on stream (a
     * handle of device id, never the default stream); until graph_end the
     * thread's allocations on id come from memory private to the capture
     * (*state: the backend's capture). graph_end: stop and instantiate:
     * *exec and its node count, or an error (ND_ERR_UNSUPPORTED when the
     * device refused something during the capture), the capture ended and
     * its private memory released either way. graph_launch: queue exec on
     * stream (a handle of id, NULL = the default stream). graph_destroy:
     * wait for its launches and drop it; its private memory goes back once
     * the arrays made during the capture are released too. */
    nd_status (*graph_begin)(void *stream, int id, void **state);
    nd_status (*graph_end)(void *state, int id, void **exec, int64_t *nodes);
    nd_status (*graph_launch)(void *exec, void *stream, int id);
    void (*graph_destroy)(void *exec, int id);

    /* ---------------- compute part ---------------- */
    /* nbytes of device memory at *ptr (ND_ERR_NOMEM with a message). */
    nd_status (*alloc)(nd_device dev, size_t nbytes, void **ptr);
    /* Give back ptr (from alloc, of nbytes). */
    void (*free)(nd_device dev, void *ptr, size_t nbytes);
    /* Contiguous byte copies: host to device, device to host, within the
     * device (the three have one signature: designated initialisers keep
     * them apart). */
    nd_status (*memcpy_h2d)(nd_device dev, void *dst, const void *src, size_t nbytes);
    nd_status (*memcpy_d2h)(nd_device dev, void *dst, const void *src, size_t nbytes);
    nd_status (*memcpy_d2d)(nd_device dev, void *dst, const void *src, size_t nbytes);
    /* dst = (dst.dtype) src, same shape (src may be a broadcast view). */
    nd_status (*cast)(nd_array *dst, const nd_array *src);
    /* Fill every element of dst with the bytes of one element at value
     * (value is host memory of dst's itemsize). */
    nd_status (*fill)(nd_array *dst, const void *value);
    /* out = op(a): a has the loop dtype, out the op's result dtype, same
     * shape (a may be a broadcast view). */
    nd_status (*unary)(nd_unary_op op, nd_array *out, const nd_array *a);
    /* out = op(a, b), as unary. */
    nd_status (*binary)(nd_binary_op op, nd_array *out, const nd_array *a, const nd_array *b);
    /* out = cond ? x : y; cond bool; x, y, out same dtype; same shapes. */
    nd_status (*where)(nd_array *out, const nd_array *cond, const nd_array *x, const nd_array *y);
    /* Reduction over the LAST naxes axes of a (the core transposes the
     * reduced axes to the end); out has a's leading shape. */
    nd_status (*reduce)(nd_reduce_op op, nd_array *out, const nd_array *a, int naxes, double ddof);
    /* Batched matmul: out[b] = a[b] @ b[b]; all 3-D (batch, rows, cols),
     * same dtype, batch already broadcast (stride 0 allowed). Mixed
     * precision: a and b float16 (or both bfloat16) with a float32 out is
     * accumulated in float32 and written in float32, never rounded to half
     * (cublasGemmEx with a 32F C; on the CPU the float32 or oneDNN path). */
    nd_status (*matmul)(nd_array *out, const nd_array *a, const nd_array *b);
    /* c = alpha*op(a)@op(b) + beta*c, 2-D; a, b and c of one dtype, or
     * a, b float16/bfloat16 with a float32 c (as matmul). */
    nd_status (*gemm)(nd_array *c, bool ta, bool tb, double alpha, const nd_array *a, const nd_array *b, double beta);
    /* Philox random: fill contiguous out with the call described by
     * *call (made by the core with nd_philox_call_init[_int]: seed, stream
     * offset, n = out's size, parameters); dist ND_RANDOM_UNIFORM /
     * ND_RANDOM_NORMAL (float dtypes) or ND_RANDOM_INTEGERS (bool and
     * integer dtypes); the stream is defined in src/shared/philox.h. The
     * distributions ND_RANDOM_EXPONENTIAL ... (src/shared/philox_dist.h)
     * fill a contiguous float64 (int64 for the discrete ones) out of
     * call->n elements, or of n rows of call->k values, element i through
     * nd_rdist_element; their parameters are call->ps / call->pa / call->vec,
     * validated by the core, pointers on out's device. */
    nd_status (*random)(nd_array *out, int dist, const struct nd_philox_call *call);
    /* Whether the backend has a kernel for (kind, op) on dtype t (see
     * nd_kernel_kind). Answers without touching a device. */
    bool (*supports)(nd_kernel_kind kind, int op, nd_dtype t);
    /* OPTIONAL fast paths of the elementwise core (src/elementwise/elementwise.c): n
     * C-contiguous elements of loop dtype t into out (the op's result
     * dtype), out either exactly an input or disjoint from them, pointers
     * the host may pass (no stream, no error: the loops exist for every
     * (op, t) that `supports` reports). The core calls them instead of
     * unary/binary when operands are contiguous, of the loop dtypes and of
     * one shape, skipping the backend's geometry checks; never for integer
     * power. NULL: the core always takes unary/binary. */
    void (*unary_flat)(nd_unary_op op, nd_dtype t, void *out, const void *a, int64_t n);
    void (*binary_flat)(nd_binary_op op, nd_dtype t, void *out, const void *a, const void *b, int64_t n);

    /* indexing and selection (src/index*.c) */
    /* Gather along one axis (take, take_along_axis, mask_select):
     * out[p] = a[p with coordinate `axis` replaced by j], j = idx[p]
     * normalised by mode (src/shared/index_ops.h nd_ix_norm: ND_TAKE_RAISE: in [-n, n),
     * already checked by the core, negative + n; WRAP; CLIP), n =
     * a.shape[axis] >= 1. out, a and idx have one ndim; idx (int64) has
     * out's shape (stride-0 broadcast axes allowed), a has out's extents
     * on every other axis (it may be a broadcast view); out (a's dtype)
     * any strides, disjoint from a and idx. */
    nd_status (*gather)(nd_array *out, const nd_array *a, const nd_array *idx, int axis, int mode);
    /* Scatter along one axis (put, put_along_axis, mask_assign, *_at):
     * for p over idx's shape in C order, a[p with `axis` -> j] op=
     * values[p] (op: nd_scatter_op, src/shared/index_ops.h); j as in gather. idx (int64)
     * and values (a's dtype) have one shape (broadcast axes allowed), a
     * (same ndim) has it on every other axis; a may be a stride-0 view
     * (several p write one element). ASSIGN: the last p (C order) wins on
     * every backend; ADD/MAX/MIN: every p contributes. values and idx do
     * not overlap a. */
    nd_status (*scatter)(nd_array *a, const nd_array *idx, const nd_array *values, int axis, int mode, int op);
    /* Compaction (nonzero, mask_select, compress): mask is bool 1-D (N,)
     * C-contiguous; a == NULL: out is int64 (count,) C-contiguous and
     * receives the indices i with mask[i] != 0 in increasing order;
     * else a is 2-D (N, R) (any strides) and out (count, R) C-contiguous of
     * a's dtype receives those rows. count = number of nonzero mask bytes
     * (computed by the core), out disjoint from a and mask. */
    nd_status (*compress)(nd_array *out, const nd_array *a, const nd_array *mask);
    /* *count = the number of nonzero bytes of the bool 1-D C-contiguous
     * mask (waits for the device: the core sizes a result with it). */
    nd_status (*mask_count)(const nd_array *mask, int64_t *count);

    /* sorting, searching, sets (src/sort*.c) */
    /* Sort every row of the C-contiguous 2-D (rows, n) array a (n >= 1)
     * along its last axis in the order of src/shared/sort_keys.h: stable (equal
     * keys keep their input order), NaNs of either sign last (first when
     * descending), -0.0 equal to +0.0; descending reverses the order of
     * the keys, not of ties. vals (a's dtype, the sorted elements with
     * their exact bits) and idx (int64, each element's position in its
     * row) are C-contiguous (rows, n) or NULL, not both NULL, and disjoint
     * from a (the core makes a a contiguous copy when needed). */
    nd_status (*sort_rows)(nd_array *vals, nd_array *idx, const nd_array *a, bool descending);
    /* OPTIONAL: the k (1 <= k <= n) largest (smallest) elements of every
     * row, as the first k columns of sort_rows(descending = largest) would
     * give them (sorted, ties by lower index, NaN counts as largest);
     * vals/idx C-contiguous (rows, k) as for sort_rows. NULL: the core
     * sorts whole rows with sort_rows and keeps the first k columns. */
    nd_status (*topk_rows)(nd_array *vals, nd_array *idx, const nd_array *a, int64_t k, bool largest);
    /* out[i] (int64, C-contiguous, v's size) = the insertion position of
     * v[i] (C-contiguous, a's dtype) in the 1-D C-contiguous a, sorted in
     * the order of src/shared/sort_keys.h: the first j with a[j] >= v[i] (right:
     * a[j] > v[i]), a->size when none. */
    nd_status (*searchsorted)(nd_array *out, const nd_array *a, const nd_array *v, bool right);

    /* scans and nan-aware reductions (src/scan*.c) */
    /* Inclusive scan op (an nd_sc_op: sum, prod, max, min) along the middle
     * axis of C-contiguous (outer, n, inner) arrays out and a of one
     * accumulation dtype (int64, uint64, float32, float64); out is exactly
     * a or disjoint from it. Full contract: src/shared/scan_slots.h. */
    nd_status (*scan)(int op, nd_array *out, const nd_array *a, int64_t outer, int64_t n, int64_t inner);

    /* softmax family, cross-entropy, loss scaling
     * (src/reduce/softmax.c, src/elementwise/amp.c; full contracts in src/shared/softmax_slots.h) */
    /* mode (ND_SM_SOFTMAX, ND_SM_LOG_SOFTMAX, ND_SM_LOGSUMEXP) along the
     * middle axis of the C-contiguous (outer, n, inner) float array x,
     * n >= 1: out is C-contiguous of x's dtype, (outer, n, inner) and
     * exactly x or disjoint from it for softmax/log_softmax, (outer,
     * inner) for logsumexp; accumulated in float32 (float64 for float64). */
    nd_status (*softmax)(int mode, nd_array *out, const nd_array *x, int64_t outer, int64_t n, int64_t inner);
    /* Per-sample cross-entropy: loss[o, i] = logsumexp(logits[o, :, i]) -
     * logits[o, labels[o, i], i], 0 where labels[o, i] == ignore_index;
     * logits C-contiguous float (outer, C, inner), C >= 1; labels
     * C-contiguous int64 (outer, inner); loss C-contiguous (outer, inner)
     * of logits' dtype. A label outside [0, C) other than ignore_index
     * sets *bad = true and *bad_label to one such label (its loss is
     * NaN); *bad is false otherwise. */
    nd_status (*cross_entropy)(nd_array *loss, const nd_array *logits, const nd_array *labels, int64_t outer,
                               int64_t C, int64_t inner, int64_t ignore_index, bool *bad, int64_t *bad_label);
    /* In place x *= inv_scale for each of the n float arrays (all on this
     * backend's device dev, any dtype and strides, writable, no element
     * aliased twice); *found = whether any element was inf/NaN before.
     * inv_scale == 1 writes nothing. One synchronisation at most. */
    nd_status (*amp_unscale)(nd_array *const *xs, int n, double inv_scale, bool *found);

    /* the FFT (src/fft/fft.c, src/fft/fft_nd.c; full contract in src/fft/fft.h) */
    /* One batched 1-D transform of length n >= 1 along axis of in into
     * out (kind ND_FFT_C2C / R2C / C2R, src/fft/fft.h): out = scale * the DFT
     * with exp(sign 2 pi i j k / n), sign -1 or +1; in's extent along axis
     * is n (c2c, r2c) or n/2 + 1 (c2r), out's n (c2c, c2r) or n/2 + 1
     * (r2c); every other axis is a batch. Any strides (in has no stride-0
     * axis of extent > 1); out disjoint from in or, c2c only, exactly in. */
    nd_status (*fft)(nd_array *out, const nd_array *in, int axis, int64_t n, int kind, int sign, double scale);

    /* linear algebra (src/linalg_*.c; full contract in src/shared/la_slots.h) */
    /* One batched LAPACK-style factorisation (call->op: LU, solve,
     * Cholesky, QR, Q, SVD, Hermitian and general eigenproblems) on
     * C-contiguous column-major matrix stacks; info per matrix to host. */
    nd_status (*la)(struct nd_la_call *call);

    /* run-time compiled elementwise kernels from a C unit (src/kernel/;
     * full contract in src/shared/kernel_slots.h); NULL: the family
     * generates CUDA source for the rtc slots instead, or answers
     * ND_ERR_UNSUPPORTED */
    /* Compile call->src unless *call->handle holds its code already
     * (cached in the process and on disk), then run it over
     * [0, call->args->n). */
    nd_status (*kernel_ew)(struct nd_k_call *call);

    /* OPTIONAL run-time compiled kernels (src/kernel/raw.c; all three or
     * none; full contract in src/core/rtc_slot.h). NULL: the device runs no
     * CUDA source (the CPU); the family answers ND_ERR_UNSUPPORTED. */
    /* Compile (or find in the memory and disk caches) a program for device
     * dev: *mod, owned by the backend for the life of the process. */
    nd_status (*rtc_compile)(struct nd_rtc_module **mod, int dev, const struct nd_rtc_source *src, int *origin,
                             const char *fn);
    /* The __global__ function name of mod (ND_ERR_INVALID when none). */
    nd_status (*rtc_kernel)(void **kernel, struct nd_rtc_module *mod, const char *name, const char *fn);
    /* Queue kernel on dev's current stream; args[i] points at parameter i. */
    nd_status (*rtc_launch)(void *kernel, int dev, const unsigned grid[3], const unsigned block[3], size_t shmem,
                            void **args, const char *fn);
    /* fused expressions (src/expr; full contract in src/shared/expr_prog.h) */
    /* OPTIONAL: run the fused elementwise program prog (contract in
     * src/shared/expr_prog.h) into out (dtype prog->res, any strides,
     * writable, exactly an input or disjoint from every input); ins[0..
     * prog->nargs) have out's shape (broadcast views allowed) and the
     * dtypes prog->arg_dtype. Each instruction runs the loop the unfused
     * op runs, so the result has the unfused chain's bits. NULL: the core
     * (src/expr) evaluates the expression op by op with the library's own
     * ops (same bits, one temporary per step). */
    nd_status (*expr)(const struct nd_expr_prog *prog, nd_array *out, const nd_array *const *ins);

    /* sparse matrices (src/sparse; full contract in src/shared/sparse_slots.h) */
    /* OPTIONAL: one CSR operation (call->op: SpMV/SpMM, SpGEMM, conversions,
     * canonical forms, elementwise and row operations); the matrices it
     * makes are allocated by the backend. NULL: the device has no sparse
     * kernels; the family answers ND_ERR_UNSUPPORTED for operations that
     * need them (structure-only ones, transfers and value maps still work). */
    nd_status (*sparse)(struct nd_sp_call *call);
} nd_backend;

/* ------------------------------------------------------------------ */
/* The registry (src/core/registry.c)                                       */
/* ------------------------------------------------------------------ */
/* What the core knows of a device type besides its descriptor: its
 * identity and capabilities. The core and the families ask these fields,
 * never a device type by name, so a new backend's devices behave (names,
 * DLPack, profiler tracks, alignment rules) once its line is here. */
typedef struct nd_backend_entry {
    const char *name;     /* "cuda": the name users write (ND_DEVICE=cuda:1), messages, traces */
    const char *label;    /* "CUDA": the build flag's name (CUDA=0) and "CUDA not compiled in" */
    const nd_backend *be; /* NULL when not compiled in */
    bool host;            /* the CPU addresses its memory directly (no element alignment rule) */
    bool timed;           /* events time work on the device itself (the profiler's device tracks) */
    int dlpack;           /* DLDeviceType of its memory (kDLCPU 1, kDLCUDA 2, ...) */
    int dlpack_managed;   /* DLDeviceType of its managed memory, imported as its own (0: none) */
    int dlpack_pinned;    /* DLDeviceType of host memory it page-locks, a pinned CPU array (0: none) */
} nd_backend_entry;
ND_INTERNAL extern const nd_backend_entry nd__registry[ND_NUM_DEVICE_TYPES];

/* Graph captures (src/core/graph.c): how many are in progress in the
 * process, and the descriptor the capturing thread's operations on dev
 * go through (the device's own when this thread is not capturing dev): the
 * device's slots with those that cannot be captured refused, and on a
 * device without native graphs the compute slots recording instead of
 * running. */
ND_INTERNAL extern int nd__captures_active;
ND_INTERNAL const nd_backend *nd__capture_backend(nd_device dev);

/* The backend of dev (NULL when not compiled in or not a device type);
 * during a capture of dev by the calling thread, its capture descriptor. */
static inline const nd_backend *nd__backend(nd_device dev)
{
    if ((unsigned)dev.type >= (unsigned)ND_NUM_DEVICE_TYPES) return NULL;
    if (ND_UNLIKELY(__atomic_load_n(&nd__captures_active, __ATOMIC_RELAXED) != 0)) return nd__capture_backend(dev);
    return nd__registry[dev.type].be;
}
/* ND_OK unless the calling thread is capturing dev: then the capture is
 * broken and ND_ERR_UNSUPPORTED "fn: <what> cannot be captured in a graph
 * (<why>)" (src/core/graph.c). The guard of the operations a graph cannot
 * replay that reach no refused slot (host-computed contents, events). */
ND_INTERNAL nd_status nd__capture_refuse_slow(const char *fn, nd_device dev, const char *what, const char *why);
static inline nd_status nd__capture_refuse(const char *fn, nd_device dev, const char *what, const char *why)
{
    if (ND_LIKELY(__atomic_load_n(&nd__captures_active, __ATOMIC_RELAXED) == 0)) return ND_OK;
    return nd__capture_refuse_slow(fn, dev, what, why);
}
/* "cpu:0" / "cuda:1": the name of a device in messages (buf has room for
 * 32); a type the registry does not know is named "device-type-7:0". */
ND_INTERNAL char *nd__device_name(nd_device d, char *buf, size_t cap);
/* Validate a device: a known type (ND_ERR_INVALID), compiled in
 * (ND_ERR_UNSUPPORTED), existing and usable (the backend's check_device,
 * ND_ERR_DEVICE). */
ND_INTERNAL nd_status nd__check_device(const char *func, nd_device dev);
/* The upstream of the pinned host pool from the first compiled-in backend
 * that can page-lock memory now; false: none (plain host memory). */
ND_INTERNAL bool nd__pinned_upstream(struct nd_pool_upstream *up);
/* The device type whose name is the first len bytes of s ("cuda" of
 * "cuda:1"); -1 when none is. */
ND_INTERNAL int nd__device_type_named(const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* ND_BACKEND_H */
