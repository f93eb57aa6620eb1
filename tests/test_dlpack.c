/* DLPack: export fields for every dtype and layout, ownership (the
 * exported tensor keeps the array alive; an imported tensor's deleter runs
 * exactly once, when the last reference goes), zero-copy sharing in both
 * directions, strides/byte_offset on import, legacy tensors, and the
 * validation of every imported field (nothing consumed on failure). */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "test_util.h"

static const DLDataType expect_dl[ND_NUM_DTYPES] = {
    {kDLBool, 8, 1},  {kDLInt, 8, 1},  {kDLInt, 16, 1},   {kDLInt, 32, 1},   {kDLInt, 64, 1},
    {kDLUInt, 8, 1},  {kDLUInt, 16, 1}, {kDLUInt, 32, 1}, {kDLUInt, 64, 1},  {kDLFloat, 16, 1},
    {kDLBfloat, 16, 1}, {kDLFloat, 32, 1}, {kDLFloat, 64, 1}, {kDLComplex, 64, 1}, {kDLComplex, 128, 1},
};

static nd_array *iota(nd_dtype t, int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    unsigned char *b = malloc((size_t)(n ? n : 1) * 16); /* the widest element: complex128 */
    for (int64_t i = 0; i < n * 16; i++) b[i] = (unsigned char)(i * 7 + 1);
    if (t == ND_BOOL)
        for (int64_t i = 0; i < n; i++) b[i] &= 1;
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, b, t, ndim, shape, nd_cpu()));
    free(b);
    return a;
}

/* ------------------------------------------------------------------ */
/* Export                                                              */
/* ------------------------------------------------------------------ */
START_TEST(export_fields_all_dtypes)
{
    nd_dtype t = (nd_dtype)_i;
    int64_t shape[2] = {2, 3};
    nd_array *a = iota(t, 2, shape);
    size_t nb = nd_nbytes(a);
    unsigned char *want = malloc(nb);
    ND_OK_OR_FAIL(nd_copy_to_host(want, a, nb));
    void *data = nd_data(a);
    int32_t dtype_ = -1, did = -1; /* __dlpack_device__: the device the export will carry */
    ND_OK_OR_FAIL(nd_dlpack_device(a, &dtype_, &did));
    DLManagedTensorVersioned *m = NULL;
    ND_OK_OR_FAIL(nd_to_dlpack(&m, a));
    ck_assert_int_eq(dtype_, m->dl_tensor.device.device_type);
    ck_assert_int_eq(did, m->dl_tensor.device.device_id);
    ND_EXPECT_ERR(nd_dlpack_device(NULL, &dtype_, &did), ND_ERR_INVALID, "a");
    ND_EXPECT_ERR(nd_dlpack_device(a, NULL, &did), ND_ERR_INVALID, "type");
    nd_release(a); /* the tensor keeps the memory alive */
    ck_assert_uint_eq(m->version.major, 1);
    ck_assert_uint_eq(m->flags, 0);
    ck_assert_ptr_nonnull(m->deleter);
    const DLTensor *d = &m->dl_tensor;
    ck_assert_ptr_eq(d->data, data);
    ck_assert_uint_eq(d->byte_offset, 0);
    ck_assert_int_eq(d->device.device_type, kDLCPU);
    ck_assert_int_eq(d->device.device_id, 0);
    ck_assert_int_eq(d->ndim, 2);
    ck_assert_uint_eq(d->dtype.code, expect_dl[t].code);
    ck_assert_uint_eq(d->dtype.bits, expect_dl[t].bits);
    ck_assert_uint_eq(d->dtype.lanes, 1);
    ck_assert_int_eq(d->shape[0], 2);
    ck_assert_int_eq(d->shape[1], 3);
    ck_assert_ptr_nonnull(d->strides);
    ck_assert_int_eq(d->strides[0], 3);
    ck_assert_int_eq(d->strides[1], 1);
    ck_assert(memcmp(d->data, want, nb) == 0); /* still valid after nd_release */
    /* import it back: same memory, same dtype, no copy */
    nd_array *b = NULL;
    ND_OK_OR_FAIL(nd_from_dlpack(&b, m));
    ck_assert_int_eq(nd_dtype_of(b), t);
    ck_assert_ptr_eq(nd_data(b), data);
    unsigned char *got = malloc(nb);
    ND_OK_OR_FAIL(nd_copy_to_host(got, b, nb));
    ck_assert(memcmp(got, want, nb) == 0);
    nd_release(b); /* calls m's deleter, which drops the last reference */
    free(got);
    free(want);
}
END_TEST

START_TEST(export_views)
{
    int64_t shape[2] = {3, 4};
    nd_array *a = iota(ND_FLOAT32, 2, shape), *t = NULL, *s = NULL, *bc = NULL, *z = NULL;
    ND_OK_OR_FAIL(nd_transpose(&t, a, NULL));
    nd_range r[2] = {{ND_NONE, ND_NONE, -1}, {1, 4, 2}};
    ND_OK_OR_FAIL(nd_slice(&s, a, 2, r));
    int64_t bshape[3] = {5, 3, 4};
    ND_OK_OR_FAIL(nd_broadcast_to(&bc, a, 3, bshape));
    double x = 2.5;
    ND_OK_OR_FAIL(nd_from_host(&z, &x, ND_FLOAT64, 0, NULL, nd_cpu()));

    DLManagedTensorVersioned *m = NULL;
    ND_OK_OR_FAIL(nd_to_dlpack(&m, t));
    ck_assert_int_eq(m->dl_tensor.shape[0], 4);
    ck_assert_int_eq(m->dl_tensor.strides[0], 1);
    ck_assert_int_eq(m->dl_tensor.strides[1], 4);
    ck_assert_ptr_eq(m->dl_tensor.data, nd_data(a));
    m->deleter(m);

    ND_OK_OR_FAIL(nd_to_dlpack(&m, s));
    ck_assert_int_eq(m->dl_tensor.shape[0], 3);
    ck_assert_int_eq(m->dl_tensor.shape[1], 2);
    ck_assert_int_eq(m->dl_tensor.strides[0], -4);
    ck_assert_int_eq(m->dl_tensor.strides[1], 2);
    ck_assert_ptr_eq(m->dl_tensor.data, nd_data(s));
    ck_assert_ptr_eq(m->dl_tensor.data, (char *)nd_data(a) + (2 * 4 + 1) * 4);
    ck_assert_uint_eq(m->flags, 0);
    /* the values a consumer reads through the strides */
    float av[12];
    ND_OK_OR_FAIL(nd_copy_to_host(av, a, sizeof av));
    const float *p = m->dl_tensor.data;
    ck_assert(p[-4 * 2 + 2 * 1] == av[0 * 4 + 3]);
    m->deleter(m);

    ND_OK_OR_FAIL(nd_to_dlpack(&m, bc));
    ck_assert_uint_eq(m->flags & DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_FLAG_BITMASK_READ_ONLY);
    ck_assert_int_eq(m->dl_tensor.strides[0], 0);
    m->deleter(m);

    ND_OK_OR_FAIL(nd_to_dlpack(&m, z));
    ck_assert_int_eq(m->dl_tensor.ndim, 0);
    ck_assert(*(const double *)m->dl_tensor.data == 2.5);
    m->deleter(m);

    DLManagedTensor *l = NULL;
    ND_OK_OR_FAIL(nd_to_dlpack_legacy(&l, t));
    ck_assert_ptr_eq(l->dl_tensor.data, nd_data(a));
    ck_assert_int_eq(l->dl_tensor.strides[1], 4);
    ck_assert_uint_eq(l->dl_tensor.dtype.code, kDLFloat);
    nd_release(t);
    t = NULL;
    l->deleter(l);

    nd_release(a);
    nd_release(s);
    nd_release(bc);
    nd_release(z);
}
END_TEST

START_TEST(export_bad_arguments)
{
    int64_t shape[1] = {3};
    nd_array *a = iota(ND_INT32, 1, shape);
    DLManagedTensorVersioned *m = NULL;
    DLManagedTensor *l = NULL;
    ND_EXPECT_ERR(nd_to_dlpack(NULL, a), ND_ERR_INVALID, "nd_to_dlpack: argument 'out'");
    ND_EXPECT_ERR(nd_to_dlpack(&m, NULL), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_to_dlpack_legacy(NULL, a), ND_ERR_INVALID, "nd_to_dlpack_legacy: argument 'out'");
    ND_EXPECT_ERR(nd_to_dlpack_legacy(&l, NULL), ND_ERR_INVALID, "'a'");
    ck_assert_ptr_null(m);
    ck_assert_ptr_null(l);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Import                                                              */
/* ------------------------------------------------------------------ */
typedef struct {
    DLManagedTensorVersioned v;
    DLManagedTensor l;
    int64_t shape[ND_MAX_DIMS + 2];
    int64_t strides[ND_MAX_DIMS + 2];
    double mem[64];
    int deleted;
} producer;

static void del_v(DLManagedTensorVersioned *self) { ((producer *)self->manager_ctx)->deleted++; }
static void del_l(DLManagedTensor *self) { ((producer *)self->manager_ctx)->deleted++; }

/* A float64 (rows, cols) C-contiguous tensor over p->mem = 1, 2, 3, ... */
static void producer_init(producer *p, int64_t rows, int64_t cols)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 64; i++) p->mem[i] = i + 1;
    p->shape[0] = rows;
    p->shape[1] = cols;
    p->strides[0] = cols;
    p->strides[1] = 1;
    DLTensor t = {p->mem, {kDLCPU, 0}, 2, {kDLFloat, 64, 1}, p->shape, p->strides, 0};
    p->v.version.major = 1;
    p->v.version.minor = 0;
    p->v.manager_ctx = p;
    p->v.deleter = del_v;
    p->v.dl_tensor = t;
    p->l.manager_ctx = p;
    p->l.deleter = del_l;
    p->l.dl_tensor = t;
}

START_TEST(import_zero_copy_and_ownership)
{
    producer p;
    producer_init(&p, 3, 4);
    nd_array *a = NULL, *t = NULL;
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    ck_assert_ptr_eq(nd_data(a), p.mem);
    ck_assert_int_eq(nd_dtype_of(a), ND_FLOAT64);
    ck_assert_int_eq(nd_shape(a)[0], 3);
    ck_assert_int_eq(nd_strides(a)[0], 4);
    ck_assert(nd_is_contiguous(a));
    ck_assert(!nd_is_pinned(a));
    /* writes through libndgpu are seen by the producer and back */
    double w[12];
    for (int i = 0; i < 12; i++) w[i] = -i * 0.5;
    ND_OK_OR_FAIL(nd_copy_from_host(a, w, sizeof w));
    ck_assert(p.mem[5] == -2.5);
    p.mem[11] = 77.0;
    double r[12];
    ND_OK_OR_FAIL(nd_copy_to_host(r, a, sizeof r));
    ck_assert(r[11] == 77.0);
    /* a view keeps the memory: the deleter runs when the last reference goes */
    ND_OK_OR_FAIL(nd_transpose(&t, a, NULL));
    nd_release(a);
    ck_assert_int_eq(p.deleted, 0);
    nd_array *s = NULL;
    ND_OK_OR_FAIL(nd_sum(&s, t, 0, NULL, false)); /* an op on the imported memory */
    ND_OK_OR_FAIL(nd_copy_to_host(r, s, 8));
    double ref = 0;
    for (int i = 0; i < 11; i++) ref += -i * 0.5;
    ck_assert(fabs(r[0] - (ref + 77.0)) < 1e-12);
    nd_release(s);
    nd_release(t);
    ck_assert_int_eq(p.deleted, 1);
}
END_TEST

START_TEST(import_strides_offset_layouts)
{
    producer p;
    producer_init(&p, 3, 4);
    /* strides NULL: C-contiguous */
    p.v.dl_tensor.strides = NULL;
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    ck_assert_int_eq(nd_strides(a)[0], 4);
    ck_assert_int_eq(nd_strides(a)[1], 1);
    nd_release(a);
    a = NULL;
    /* column 2 of an (8, 4) matrix via byte_offset and strides: shape (8,), stride 4 */
    producer_init(&p, 8, 1);
    p.v.dl_tensor.ndim = 1;
    p.shape[0] = 8;
    p.strides[0] = 4;
    p.v.dl_tensor.byte_offset = 2 * sizeof(double);
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    ck_assert_ptr_eq(nd_data(a), &p.mem[2]);
    double r[8];
    ND_OK_OR_FAIL(nd_copy_to_host(r, a, sizeof r));
    for (int i = 0; i < 8; i++) ck_assert(r[i] == p.mem[2 + 4 * i]);
    nd_release(a);
    a = NULL;
    ck_assert_int_eq(p.deleted, 1);
    /* negative strides from the last element, F-order strides */
    producer_init(&p, 3, 4);
    p.strides[0] = -4;
    p.strides[1] = -1;
    p.v.dl_tensor.byte_offset = 11 * sizeof(double);
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    double r12[12];
    ND_OK_OR_FAIL(nd_copy_to_host(r12, a, sizeof r12));
    for (int i = 0; i < 12; i++) ck_assert(r12[i] == 12 - i);
    nd_release(a);
    a = NULL;
    producer_init(&p, 3, 4);
    p.strides[0] = 1;
    p.strides[1] = 3;
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    ck_assert(!nd_is_contiguous(a));
    ND_OK_OR_FAIL(nd_copy_to_host(r12, a, sizeof r12));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) ck_assert(r12[i * 4 + j] == p.mem[i + 3 * j]);
    nd_release(a);
    a = NULL;
    /* 0-d (shape NULL is fine with ndim 0) and zero-size with NULL data */
    producer_init(&p, 1, 1);
    p.v.dl_tensor.ndim = 0;
    p.v.dl_tensor.shape = NULL;
    p.v.dl_tensor.strides = NULL;
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    ck_assert_int_eq(nd_ndim(a), 0);
    ck_assert_int_eq(nd_size(a), 1);
    nd_release(a);
    a = NULL;
    producer_init(&p, 0, 4);
    p.v.dl_tensor.data = NULL;
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    ck_assert_int_eq(nd_size(a), 0);
    nd_release(a);
    ck_assert_int_eq(p.deleted, 1);
}
END_TEST

START_TEST(import_devices_flags_dtypes)
{
    producer p;
    nd_array *a = NULL;
    /* pinned host memory */
    producer_init(&p, 2, 2);
    p.v.dl_tensor.device.device_type = kDLCUDAHost;
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    ck_assert(nd_is_pinned(a));
    ck_assert_int_eq(nd_device_of(a).type, ND_DEVICE_CPU);
    int32_t dt = -1, did = -1;
    ND_OK_OR_FAIL(nd_dlpack_device(a, &dt, &did));
    ck_assert(dt == kDLCUDAHost && did == 0);
    nd_release(a);
    a = NULL;
    /* read-only is accepted (documented as not enforced) */
    producer_init(&p, 2, 2);
    p.v.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    nd_release(a);
    a = NULL;
    /* a newer minor version is fine */
    producer_init(&p, 2, 2);
    p.v.version.minor = 7;
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    nd_release(a);
    a = NULL;
    /* every supported dtype code/bits */
    for (int t = 0; t < ND_NUM_DTYPES; t++) {
        producer_init(&p, 2, 2);
        p.v.dl_tensor.dtype = expect_dl[t];
        ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
        ck_assert_int_eq(nd_dtype_of(a), t);
        nd_release(a);
        a = NULL;
        ck_assert_int_eq(p.deleted, 1);
    }
    /* a CUDA tensor needs a GPU */
    producer_init(&p, 2, 2);
    p.v.dl_tensor.device.device_type = kDLCUDA;
    if (nd_cuda_device_count() == 0) {
        nd_status st = nd_from_dlpack(&a, &p.v);
        ck_assert_msg(st == ND_ERR_DEVICE || st == ND_ERR_UNSUPPORTED, "%s", nd_status_name(st));
        ck_assert(strstr(nd_last_error(), "nd_from_dlpack") != NULL);
        ck_assert_ptr_null(a);
        ck_assert_int_eq(p.deleted, 0);
        return;
    }
    /* with a GPU: export a device array, import it back (same device pointer) */
    int64_t shape[2] = {3, 5};
    nd_array *h = iota(ND_FLOAT32, 2, shape), *d = NULL, *back = NULL;
    ND_OK_OR_FAIL(nd_to_device(&d, h, nd_cuda(0)));
    DLManagedTensorVersioned *m = NULL;
    ND_OK_OR_FAIL(nd_to_dlpack(&m, d));
    ck_assert_int_eq(m->dl_tensor.device.device_type, kDLCUDA);
    ck_assert_int_eq(m->dl_tensor.device.device_id, 0);
    ck_assert_ptr_eq(m->dl_tensor.data, nd_data(d));
    ND_OK_OR_FAIL(nd_from_dlpack(&back, m));
    ck_assert_int_eq(nd_device_of(back).type, ND_DEVICE_CUDA);
    ck_assert_ptr_eq(nd_data(back), nd_data(d));
    float x[15], y[15];
    ND_OK_OR_FAIL(nd_copy_to_host(x, h, sizeof x));
    memset(y, 0, sizeof y);
    ND_OK_OR_FAIL(nd_copy_to_host(y, back, sizeof y));
    ck_assert(memcmp(x, y, sizeof x) == 0);
    nd_release(d);
    nd_release(back);
    nd_release(h);
}
END_TEST

/* A CUDA tensor whose first element is not aligned to the element size is
 * refused (a kernel would fault on it) and not consumed; an aligned
 * offset is taken. */
START_TEST(import_cuda_misaligned_is_refused)
{
    if (nd_cuda_device_count() == 0) return;
    static const struct {
        nd_dtype t;
        int64_t bad_offset, good_offset;
    } cases[] = {{ND_FLOAT32, 2, 4}, {ND_INT16, 1, 2}, {ND_FLOAT64, 4, 8}, {ND_COMPLEX64, 4, 8}, {ND_COMPLEX128, 8, 16}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t shape[1] = {9}, inner[1] = {8};
        nd_array *h = iota(cases[c].t, 1, shape), *d = NULL, *a = NULL;
        ND_OK_OR_FAIL(nd_to_device(&d, h, nd_cuda(0)));
        DLManagedTensorVersioned *m = NULL;
        ND_OK_OR_FAIL(nd_to_dlpack(&m, d));
        m->dl_tensor.shape = inner;
        for (int via_data = 0; via_data < 2; via_data++) {
            if (via_data) {
                m->dl_tensor.data = (char *)m->dl_tensor.data + cases[c].bad_offset;
                m->dl_tensor.byte_offset = 0;
            } else {
                m->dl_tensor.byte_offset = (uint64_t)cases[c].bad_offset;
            }
            ND_EXPECT_ERR(nd_from_dlpack(&a, m), ND_ERR_INVALID, "not aligned");
            ck_assert(strstr(nd_last_error(), "nd_from_dlpack") != NULL);
            ck_assert_ptr_null(a);
            if (via_data) m->dl_tensor.data = (char *)m->dl_tensor.data - cases[c].bad_offset;
        }
        /* aligned: a view of elements 1..8, read back exactly */
        m->dl_tensor.byte_offset = (uint64_t)cases[c].good_offset;
        ND_OK_OR_FAIL(nd_from_dlpack(&a, m)); /* consumed */
        size_t isz = nd_dtype_size(cases[c].t), nb = 8 * isz;
        ck_assert_int_eq((size_t)nd_nbytes(a), nb);
        unsigned char x[9 * 16], y[8 * 16];
        ND_OK_OR_FAIL(nd_copy_to_host(x, h, 9 * isz));
        memset(y, 0, sizeof y);
        ND_OK_OR_FAIL(nd_copy_to_host(y, a, nb));
        ck_assert_msg(memcmp(x + cases[c].good_offset, y, nb) == 0, "dtype %d: the aligned import reads other elements",
                      (int)cases[c].t);
        nd_release(a), nd_release(d), nd_release(h);
    }
}
END_TEST

START_TEST(import_out_rule_copies)
{
    producer p;
    producer_init(&p, 2, 3);
    int64_t shape[2] = {2, 3};
    nd_array *o = NULL, *keep;
    ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT64, 2, shape, nd_cpu()));
    keep = o;
    ND_OK_OR_FAIL(nd_from_dlpack(&o, &p.v));
    ck_assert_ptr_eq(o, keep);
    ck_assert_int_eq(p.deleted, 1); /* consumed by copying */
    double r[6];
    ND_OK_OR_FAIL(nd_copy_to_host(r, o, sizeof r));
    for (int i = 0; i < 6; i++) ck_assert(r[i] == i + 1);
    /* a wrong shape fails and does not consume */
    nd_array *w = NULL;
    int64_t wshape[1] = {5};
    ND_OK_OR_FAIL(nd_zeros(&w, ND_FLOAT64, 1, wshape, nd_cpu()));
    keep = w;
    producer_init(&p, 2, 3);
    ND_EXPECT_ERR(nd_from_dlpack(&w, &p.v), ND_ERR_SHAPE, "nd_from_dlpack");
    ck_assert_ptr_eq(w, keep);
    ck_assert_int_eq(p.deleted, 0);
    nd_release(o);
    nd_release(w);
}
END_TEST

START_TEST(import_legacy)
{
    producer p;
    producer_init(&p, 3, 4);
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_dlpack_legacy(&a, &p.l));
    ck_assert_ptr_eq(nd_data(a), p.mem);
    ck_assert_int_eq(p.deleted, 0);
    nd_release(a);
    ck_assert_int_eq(p.deleted, 1);
    /* a NULL deleter is allowed */
    producer_init(&p, 3, 4);
    p.l.deleter = NULL;
    a = NULL;
    ND_OK_OR_FAIL(nd_from_dlpack_legacy(&a, &p.l));
    nd_release(a);
    /* legacy export -> legacy import round trip */
    int64_t shape[1] = {5};
    nd_array *x = iota(ND_UINT16, 1, shape), *y = NULL;
    DLManagedTensor *l = NULL;
    ND_OK_OR_FAIL(nd_to_dlpack_legacy(&l, x));
    ND_OK_OR_FAIL(nd_from_dlpack_legacy(&y, l));
    ck_assert_ptr_eq(nd_data(y), nd_data(x));
    ck_assert_ptr_eq(y->buf, x->buf);
    nd_release(x);
    nd_release(y);
}
END_TEST

/* Every bad field: exact status, message, *out untouched, not consumed. */
START_TEST(import_validation)
{
    producer p;
    nd_array *a = NULL;
#define BAD(setup, code, needle)                                   \
    do {                                                           \
        producer_init(&p, 2, 3);                                   \
        setup;                                                     \
        ND_EXPECT_ERR(nd_from_dlpack(&a, &p.v), code, needle);     \
        ck_assert_ptr_null(a);                                     \
        ck_assert_int_eq(p.deleted, 0);                            \
    } while (0)
    ND_EXPECT_ERR(nd_from_dlpack(NULL, &p.v), ND_ERR_INVALID, "nd_from_dlpack: argument 'out'");
    ND_EXPECT_ERR(nd_from_dlpack(&a, NULL), ND_ERR_INVALID, "argument 't'");
    ND_EXPECT_ERR(nd_from_dlpack_legacy(&a, NULL), ND_ERR_INVALID, "nd_from_dlpack_legacy: argument 't'");
    BAD(p.v.version.major = 2, ND_ERR_UNSUPPORTED, "DLPack version 2.0");
    BAD(p.v.version.major = 0, ND_ERR_UNSUPPORTED, "DLPack version 0.0");
    BAD(p.v.dl_tensor.ndim = -1, ND_ERR_INVALID, "ndim -1 is out of range");
    BAD(p.v.dl_tensor.ndim = ND_MAX_DIMS + 1, ND_ERR_INVALID, "ndim 33 is out of range");
    BAD(p.v.dl_tensor.shape = NULL, ND_ERR_INVALID, "'shape' is NULL");
    BAD(p.shape[1] = -3, ND_ERR_INVALID, "negative dimensions");
    BAD((p.shape[0] = INT64_C(1) << 40, p.shape[1] = INT64_C(1) << 40), ND_ERR_INVALID, "too big");
    BAD(p.v.dl_tensor.dtype.lanes = 4, ND_ERR_DTYPE, "lanes must be 1");
    BAD(p.v.dl_tensor.dtype.lanes = 0, ND_ERR_DTYPE, "lanes 0");
    BAD((p.v.dl_tensor.dtype.code = kDLComplex, p.v.dl_tensor.dtype.bits = 32), ND_ERR_DTYPE, "code 5, bits 32");
    BAD(p.v.dl_tensor.dtype.code = kDLOpaqueHandle, ND_ERR_DTYPE, "code 3");
    BAD(p.v.dl_tensor.dtype.code = kDLFloat8_e4m3fn, ND_ERR_DTYPE, "code 10");
    BAD(p.v.dl_tensor.dtype.code = 200, ND_ERR_DTYPE, "code 200");
    BAD(p.v.dl_tensor.dtype.bits = 24, ND_ERR_DTYPE, "bits 24");
    BAD((p.v.dl_tensor.dtype.code = kDLBool, p.v.dl_tensor.dtype.bits = 1), ND_ERR_DTYPE, "code 6, bits 1");
    BAD((p.v.dl_tensor.dtype.code = kDLBfloat, p.v.dl_tensor.dtype.bits = 32), ND_ERR_DTYPE, "code 4, bits 32");
    BAD((p.v.dl_tensor.dtype.code = kDLInt, p.v.dl_tensor.dtype.bits = 128), ND_ERR_DTYPE, "bits 128");
    BAD(p.v.dl_tensor.device.device_type = kDLROCM, ND_ERR_DEVICE, "device type 10");
    BAD(p.v.dl_tensor.device.device_type = (DLDeviceType)0, ND_ERR_DEVICE, "device type 0");
    BAD(p.v.dl_tensor.device.device_id = 1, ND_ERR_DEVICE, "CPU device id 1");
    BAD(p.v.dl_tensor.data = NULL, ND_ERR_INVALID, "'data' is NULL for 6 elements");
    BAD(p.v.dl_tensor.byte_offset = UINT64_MAX, ND_ERR_INVALID, "byte_offset");
    BAD(p.strides[0] = INT64_MAX / 2, ND_ERR_INVALID, "strides overflow");
    BAD(p.strides[1] = INT64_MIN, ND_ERR_INVALID, "strides overflow");
    BAD((p.strides[1] = INT64_MAX / 16, p.v.dl_tensor.byte_offset = (uint64_t)INT64_MAX - 8), ND_ERR_INVALID,
        "strides overflow");
    /* empty tensors too: a stride that overflows on an axis of extent > 1
     * would overflow in every op that walks the other axes (NumPy's slices
     * never make one) */
    BAD((p.shape[0] = 0, p.strides[1] = INT64_MAX), ND_ERR_INVALID, "strides overflow");
    BAD((p.shape[1] = 0, p.strides[0] = INT64_MIN), ND_ERR_INVALID, "strides overflow");
    BAD((p.shape[0] = 0, p.strides[1] = INT64_MAX / 4), ND_ERR_INVALID, "strides overflow");
    /* an empty tensor with large but valid strides, and any stride on an axis of extent 0 or 1 */
    producer_init(&p, 0, 3);
    p.strides[0] = INT64_MAX;
    p.strides[1] = INT64_MAX / 32;
    ND_OK_OR_FAIL(nd_from_dlpack(&a, &p.v));
    ck_assert_int_eq(nd_size(a), 0);
    nd_array *sum = NULL;
    ND_OK_OR_FAIL(nd_sum(&sum, a, 0, NULL, false));
    double zero = -1;
    ND_OK_OR_FAIL(nd_copy_to_host(&zero, sum, sizeof zero));
    ck_assert(zero == 0);
    nd_release(sum), nd_release(a), a = NULL;
    /* legacy import validates the same way */
    producer_init(&p, 2, 3);
    p.l.dl_tensor.dtype.lanes = 2;
    ND_EXPECT_ERR(nd_from_dlpack_legacy(&a, &p.l), ND_ERR_DTYPE, "nd_from_dlpack_legacy: unsupported DLPack dtype");
    ck_assert_ptr_null(a);
    ck_assert_int_eq(p.deleted, 0);
#undef BAD
}
END_TEST

/* Our own tensors come back as views of the original buffer (so overlap
 * checks see one allocation) and their deleter runs at once. */
START_TEST(roundtrip_shares_buffer)
{
    int64_t shape[2] = {4, 5};
    nd_array *x = iota(ND_INT32, 2, shape), *t = NULL, *y = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_transpose(&t, x, NULL));
    DLManagedTensorVersioned *m = NULL;
    ND_OK_OR_FAIL(nd_to_dlpack(&m, t));
    ck_assert_int_eq(atomic_load(&t->refcount), 2);
    ND_OK_OR_FAIL(nd_from_dlpack(&y, m));
    ck_assert_int_eq(atomic_load(&t->refcount), 1); /* the tensor's reference is gone */
    ck_assert_ptr_eq(y->buf, x->buf);
    ck_assert_ptr_eq(nd_data(y), nd_data(t));
    ck_assert_int_eq(nd_strides(y)[0], 1);
    ck_assert_int_eq(nd_strides(y)[1], 5);
    ck_assert(nd__may_overlap(x, y));
    /* in place through the alias: y += y doubles x's memory */
    nd_array *yy = y;
    ND_OK_OR_FAIL(nd_add(&yy, y, y));
    int32_t before[20], after[20];
    nd_array *x0 = iota(ND_INT32, 2, shape);
    ND_OK_OR_FAIL(nd_copy_to_host(before, x0, sizeof before));
    ND_OK_OR_FAIL(nd_copy_to_host(after, x, sizeof after));
    for (int i = 0; i < 20; i++) ck_assert_int_eq(after[i], (int32_t)((uint32_t)before[i] * 2u));
    /* the out rule with our own tensor: copied, deleter called */
    int64_t tshape[2] = {5, 4};
    ND_OK_OR_FAIL(nd_zeros(&o, ND_INT32, 2, tshape, nd_cpu()));
    ND_OK_OR_FAIL(nd_to_dlpack(&m, t));
    ND_OK_OR_FAIL(nd_from_dlpack(&o, m));
    ck_assert_int_eq(atomic_load(&t->refcount), 1);
    /* a failing copy does not consume our tensor either */
    nd_array *w = NULL, *keep;
    ND_OK_OR_FAIL(nd_zeros(&w, ND_INT32, 2, shape, nd_cpu()));
    keep = w;
    ND_OK_OR_FAIL(nd_to_dlpack(&m, t));
    ND_EXPECT_ERR(nd_from_dlpack(&w, m), ND_ERR_SHAPE, "nd_from_dlpack");
    ck_assert_ptr_eq(w, keep);
    ck_assert_int_eq(atomic_load(&t->refcount), 2);
    m->deleter(m);
    ck_assert_int_eq(atomic_load(&t->refcount), 1);
    nd_release(w);
    nd_release(x0);
    nd_release(o);
    nd_release(y);
    nd_release(t);
    nd_release(x);
}
END_TEST

Suite *suite_dlpack(void)
{
    Suite *s = suite_create("dlpack");
    TCase *tc = tcase_create("export");
    tcase_add_loop_test(tc, export_fields_all_dtypes, 0, ND_NUM_DTYPES);
    tcase_add_test(tc, export_views);
    tcase_add_test(tc, export_bad_arguments);
    suite_add_tcase(s, tc);
    tc = tcase_create("import");
    tcase_add_test(tc, import_zero_copy_and_ownership);
    tcase_add_test(tc, import_strides_offset_layouts);
    tcase_add_test(tc, import_devices_flags_dtypes);
    tcase_add_test(tc, import_cuda_misaligned_is_refused);
    tcase_add_test(tc, import_out_rule_copies);
    tcase_add_test(tc, import_legacy);
    tcase_add_test(tc, import_validation);
    tcase_add_test(tc, roundtrip_shares_buffer);
    suite_add_tcase(s, tc);
    return s;
}
