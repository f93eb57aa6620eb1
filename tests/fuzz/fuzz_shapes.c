/* libFuzzer target for the shape builders: the functions that compute a
 * result's shape from their arguments (creation, views, broadcasting,
 * joins, tiling, padding, products, FFT lengths, DLPack imports).
 *
 *   make fuzz FUZZ_SECONDS=60     (mk/fuzz.mk; clang, ASan + UBSan)
 *
 * The input is a little program over a stack of at most four arrays: each
 * step reads an opcode and its arguments (extents drawn from a table of
 * hostile values: 0, 1, small, 2^31, 2^32, 2^62, INT64_MAX, negatives, or
 * 8 raw bytes) and calls one public function. The CPU allocator is capped
 * at 16 MiB, so a result that can exist but is large fails with
 * ND_ERR_NOMEM at once instead of being computed.
 *
 * Properties checked after every call:
 *  - no crash, no sanitizer report (UBSan catches signed overflow), no leak;
 *  - on failure the out-pointer is still NULL, the status is a known code
 *    and nd_last_error() is a message naming an nd_ function;
 *  - on success the result's size is the exact product of its shape (no
 *    wrap), its byte count is size * itemsize, and both fit in int64;
 *  - a DLPack import whose elements all lie in the producer's buffer
 *    can be copied, summed and compared with the fuzzer's own gather. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_reader.h"
#include "ndgpu.h"

#define CAP 4


/* An extent, step or offset: mostly from the table of hostile values. */
static int64_t ext(reader *r)
{
    static const int64_t tbl[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, -1, -2, -3,
                                  INT64_C(1) << 31, INT64_C(1) << 32, (INT64_C(1) << 32) + 1, INT64_C(1) << 40,
                                  INT64_C(1) << 61, INT64_C(1) << 62, INT64_MAX, INT64_MIN, INT64_MAX / 3,
                                  (INT64_C(1) << 63) / -2};
    unsigned c = u8(r);
    if (c == 0xff) return raw64(r);
    return tbl[c % (sizeof tbl / sizeof tbl[0])];
}

static int shape_of(reader *r, int64_t *shape)
{
    int nd = (int)(u8(r) % 6);
    for (int i = 0; i < nd; i++) shape[i] = ext(r);
    return nd;
}

static nd_dtype dtype_of(reader *r) { return (nd_dtype)(u8(r) % ((unsigned)ND_COMPLEX128 + 1)); }

static void check_failure(nd_status st, nd_array *const *outs, int nouts)
{
    for (int i = 0; i < nouts; i++)
        if (outs[i] != NULL) __builtin_trap();
    if (st < ND_ERR_INVALID || st > ND_ERR_INTERNAL + 16) __builtin_trap();
    const char *m = nd_last_error();
    if (strncmp(m, "nd_", 3) != 0) __builtin_trap();
}

static void check_array(const nd_array *a)
{
    __int128 n = 1;
    int nd = nd_ndim(a);
    if (nd < 0 || nd > ND_MAX_DIMS) __builtin_trap();
    for (int i = 0; i < nd; i++) {
        if (nd_shape(a)[i] < 0) __builtin_trap();
        n *= nd_shape(a)[i];
        if (n > INT64_MAX) n = (__int128)INT64_MAX + 1; /* keep the product bounded; it must fail below */
    }
    if (n > INT64_MAX || (int64_t)n != nd_size(a)) __builtin_trap();
    __int128 nb = n * (__int128)(nd_size(a) ? nd_nbytes(a) / (size_t)nd_size(a) : 1);
    if (nb > INT64_MAX) __builtin_trap();
    if (nd_size(a) && nd_nbytes(a) % (size_t)nd_size(a)) __builtin_trap();
}

/* Calls whose work is not bounded by their result's size (a reduction, or
 * an inner product, over a huge stride-0 view) take as long as NumPy takes
 * for them: they are made only on inputs of at most 2^22 elements. */
#define WORK_CAP (INT64_C(1) << 22)
static bool small(const nd_array *a) { return nd_size(a) <= WORK_CAP; }

/* A product of a and b (matmul, dot) whose multiply-adds stay within a few
 * WORK_CAP: at most (size(a) / K) size(b) with K a's last extent, which
 * bounds matmul's and dot's work for every shape (batches and broadcast
 * included). Small inputs alone do not bound it: two 2048 x 2048 bool
 * operands (broadcast views cost no memory) took 12 s under the sanitizers,
 * a cost in time that is no finding and would trip the fuzzer's time-out. */
static bool small_product(const nd_array *a, const nd_array *b)
{
    if (!small(a) || !small(b)) return false;
    int64_t k = nd_ndim(a) ? nd_shape(a)[nd_ndim(a) - 1] : 1;
    __int128 work = (__int128)(k > 0 ? nd_size(a) / k : 0) * nd_size(b);
    return work <= 4 * WORK_CAP;
}

/* The stack of live arrays. */
static nd_array *stk[CAP];
static int top;

static void push(nd_array *a)
{
    check_array(a);
    if (top == CAP) {
        nd_release(stk[0]);
        memmove(stk, stk + 1, (CAP - 1) * sizeof stk[0]);
        top--;
    }
    stk[top++] = a;
}

static nd_array *peek(int k) { return top > k ? stk[top - 1 - k] : NULL; }

/* One result or a checked failure. */
static void result(nd_status st, nd_array *out)
{
    if (st == ND_OK) {
        if (!out) __builtin_trap();
        push(out);
    } else {
        check_failure(st, &out, 1);
    }
}

/* A DLPack producer: a 4 KiB buffer, shape and strides from the input.
 * Each managed tensor (with its shape and strides) lives on the heap until
 * the consumer calls its deleter, as the protocol requires. */
static float dl_buf[1024];
static int dl_deleted;
typedef struct {
    DLManagedTensor m;
    int64_t shape[ND_MAX_DIMS + 2], strides[ND_MAX_DIMS + 2];
} producer;
static void dl_deleter(DLManagedTensor *self)
{
    dl_deleted++;
    free(self->manager_ctx);
}

static void dlpack_step(reader *r)
{
    producer *pr = calloc(1, sizeof *pr);
    if (!pr) return;
    int64_t *dl_shape = pr->shape, *dl_strides = pr->strides;
    int nd = (int)(u8(r) % 5);
    bool with_strides = u8(r) & 1;
    for (int i = 0; i < nd; i++) {
        dl_shape[i] = ext(r);
        dl_strides[i] = ext(r);
    }
    pr->m.manager_ctx = pr;
    pr->m.dl_tensor.data = dl_buf;
    pr->m.dl_tensor.device.device_type = kDLCPU;
    pr->m.dl_tensor.ndim = nd;
    bool f32 = u8(r) & 1;
    pr->m.dl_tensor.dtype.code = f32 ? kDLFloat : kDLInt;
    pr->m.dl_tensor.dtype.bits = f32 ? 32 : 8;
    pr->m.dl_tensor.dtype.lanes = 1;
    pr->m.dl_tensor.shape = dl_shape;
    pr->m.dl_tensor.strides = with_strides ? dl_strides : NULL;
    pr->m.dl_tensor.byte_offset = (uint64_t)(u8(r) % 64) * (f32 ? 4 : 1);
    pr->m.deleter = dl_deleter;
    nd_array *a = NULL;
    int before = dl_deleted;
    nd_status st = nd_from_dlpack_legacy(&a, &pr->m);
    if (st != ND_OK) {
        check_failure(st, &a, 1);
        if (dl_deleted != before) __builtin_trap(); /* consumed only on success */
        free(pr);
        return;
    }
    check_array(a);
    /* The bytes the view addresses, with the fuzzer's own arithmetic. */
    const __int128 item = f32 ? 4 : 1, big = (__int128)1 << 80;
    __int128 lo = (__int128)pr->m.dl_tensor.byte_offset, hi = lo, cs = 1;
    bool empty = nd_size(a) == 0;
    for (int i = nd - 1; i >= 0 && !empty; i--) {
        __int128 st_i = with_strides ? dl_strides[i] : cs;
        __int128 span = st_i * (dl_shape[i] - 1) * item;
        if (span < 0) lo += span;
        else hi += span;
        cs *= dl_shape[i];
        if (cs > big) cs = big;
        if (lo < -big) lo = -big;
        if (hi > big) hi = big;
    }
    if (empty || (lo >= 0 && hi + item <= (__int128)sizeof dl_buf)) {
        /* inside the buffer (or empty): the library may compute on it */
        nd_array *c = NULL, *s = NULL;
        nd_status st2 = nd_contiguous(&c, a);
        if (st2 != ND_OK) check_failure(st2, &c, 1);
        if (small(a)) {
            st2 = nd_reduce(&s, ND_REDUCE_SUM, a, 0, NULL, false);
            if (st2 != ND_OK) check_failure(st2, &s, 1);
        }
        nd_release(c);
        nd_release(s);
        push(a);
    } else {
        nd_release(a); /* a producer that lies about its buffer: not computed on */
    }
}

static void step(reader *r)
{
    unsigned op = u8(r) % 20;
    nd_array *out = NULL, *a = peek(0), *b = peek(1);
    int64_t shape[ND_MAX_DIMS + 2];
    nd_status st;
    switch (op) {
    case 0: { /* creation */
        int nd = shape_of(r, shape);
        result(nd_full(&out, dtype_of(r), nd, shape, nd_scalar_int(3), nd_cpu()), out);
        break;
    }
    case 1:
        if (!a) return;
        {
            int nd = shape_of(r, shape);
            result(nd_broadcast_to(&out, a, nd, shape), out);
        }
        break;
    case 2:
        if (!a) return;
        {
            nd_range rg[ND_MAX_DIMS];
            int n = (int)(u8(r) % 5);
            for (int i = 0; i < n; i++) rg[i].start = ext(r), rg[i].stop = ext(r), rg[i].step = ext(r);
            result(nd_slice(&out, a, n, rg), out);
        }
        break;
    case 3:
        if (!a) return;
        {
            int nd = shape_of(r, shape);
            result(nd_reshape(&out, a, nd, shape), out);
        }
        break;
    case 4:
        if (!a) return;
        result(nd_transpose(&out, a, NULL), out);
        break;
    case 5:
        if (!a) return;
        result(nd_expand_dims(&out, a, (int)(int8_t)u8(r)), out);
        break;
    case 6:
        if (!a || !b) return;
        result(nd_binary(&out, (nd_binary_op)(u8(r) % 4), a, b), out);
        break;
    case 7:
        if (!a || !b) return;
        result((u8(r) & 1) ? nd_concatenate(&out, 2, (const nd_array *const[]){a, b}, (int)(int8_t)u8(r))
                           : nd_stack(&out, 2, (const nd_array *const[]){a, b}, (int)(int8_t)u8(r)),
               out);
        break;
    case 8:
        if (!a || !b || !small_product(a, b)) return;
        result((u8(r) & 1) ? nd_matmul(&out, a, b) : nd_dot(&out, a, b), out);
        break;
    case 9:
        if (!a || !b) return;
        result(nd_take(&out, a, b, (int)(int8_t)u8(r), (nd_take_mode)(u8(r) % 3)), out);
        break;
    case 10:
        if (!a) return;
        {
            int n = (int)(u8(r) % 4);
            for (int i = 0; i < n; i++) shape[i] = ext(r);
            result(nd_tile(&out, a, n, shape), out);
        }
        break;
    case 11:
        if (!a) return;
        result(nd_repeat(&out, a, ext(r), (u8(r) & 1) ? ND_AXIS_NONE : (int)(int8_t)u8(r)), out);
        break;
    case 12:
        if (!a) return;
        {
            int n = (int)(u8(r) % 4);
            for (int i = 0; i < 2 * n; i++) shape[i] = ext(r);
            result(nd_pad(&out, a, n, shape, (nd_pad_mode)(u8(r) % 5), nd_scalar_int(0)), out);
        }
        break;
    case 13:
        if (!a || !b) return;
        result((u8(r) & 1) ? nd_outer(&out, a, b) : nd_kron(&out, a, b), out);
        break;
    case 14:
        if (!a || !small(a)) return;
        {
            int ax = (int)(int8_t)u8(r);
            result((u8(r) & 1) ? nd_reduce(&out, ND_REDUCE_SUM, a, 1, &ax, u8(r) & 1) : nd_cumsum(&out, a, ax), out);
        }
        break;
    case 15:
        if (!a) return;
        {
            int64_t n = ext(r);
            int ax = (int)(int8_t)u8(r);
            switch (u8(r) % 3) {
            case 0: st = nd_fft(&out, a, n, ax, ND_FFT_BACKWARD); break;
            case 1: st = nd_rfft(&out, a, n, ax, ND_FFT_BACKWARD); break;
            default: st = nd_irfft(&out, a, n, ax, ND_FFT_BACKWARD); break;
            }
            result(st, out);
        }
        break;
    case 16:
        dlpack_step(r);
        break;
    case 17: { /* eye / arange / linspace */
        int64_t n = ext(r), m = ext(r), k = ext(r);
        switch (u8(r) % 3) {
        case 0: st = nd_eye(&out, dtype_of(r), n, m, k, nd_cpu()); break;
        case 1: st = nd_arange(&out, dtype_of(r), (double)k, (double)n, (double)m, nd_cpu()); break;
        default: st = nd_linspace(&out, ND_FLOAT64, 0, 1, n, u8(r) & 1, nd_cpu()); break;
        }
        result(st, out);
        break;
    }
    case 18:
        if (!a || !b) return;
        {
            nd_array *outs[2] = {NULL, NULL};
            st = nd_broadcast_arrays(outs, 2, (const nd_array *const[]){a, b});
            if (st != ND_OK) {
                check_failure(st, outs, 2);
            } else {
                push(outs[0]);
                push(outs[1]);
            }
        }
        break;
    default:
        if (!a || !b) return;
        result(nd_where(&out, a, b, a), out);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        init = 1;
        nd_set_num_threads(1);
        if (nd_memory_set_limit(nd_cpu(), (size_t)16 << 20) != ND_OK) __builtin_trap();
    }
    reader r = {data, size};
    for (int i = 0; i < 16 && r.n; i++) step(&r);
    while (top) nd_release(stk[--top]);
    return 0;
}
