/* The profiler's events from the real operations (the hooks of src/core/prof.h
 * in every public function): names, kinds, devices, input dtypes and
 * shapes, result dtypes, bytes (the estimate: inputs' and result's nbytes;
 * 0 for views; the bytes copied for transfers), FLOPs of the products,
 * host and device times, nesting (parents, self times), transfers by
 * direction, a failed op. Every case runs on the CPU and, when there is a
 * GPU (the emulated one in the emu build), on cuda:0. The sweep over every
 * hooked operation is in tests/test_profiler_ops_sweep.c. */
#include "test_profiler_ops.h"

int prh_devices(nd_device *devs)
{
    int n = 0;
    devs[n++] = nd_cpu();
    if (nd_test_gpu_count() > 0) devs[n++] = nd_cuda(0);
    return n;
}

void prh_start(bool shapes, bool memory)
{
    if (nd_profiler_is_running()) (void)nd_profiler_stop();
    nd_profiler_config c;
    nd_profiler_config_init(&c);
    c.record_shapes = shapes;
    c.profile_memory = memory;
    ND_OK_OR_FAIL(nd_profiler_start(&c));
}

const nd_profiler_event *prh_stop(size_t *n)
{
    ND_OK_OR_FAIL(nd_profiler_stop());
    const nd_profiler_event *ev = NULL;
    ND_OK_OR_FAIL(nd_profiler_events(&ev, n));
    return ev;
}

int prh_top(const nd_profiler_event *ev, size_t n, int64_t *first)
{
    int c = 0;
    *first = -1;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].depth != 0 || ev[i].kind == ND_PROFILER_MEMORY) continue;
        if (c++ == 0) *first = (int64_t)i;
    }
    return c;
}

nd_array *prh_arr(nd_dtype t, int ndim, const int64_t *shape, nd_device dev)
{
    int64_t size = 1;
    for (int i = 0; i < ndim; i++) size *= shape[i];
    double *h = malloc(sizeof(double) * (size_t)(size ? size : 1));
    for (int64_t k = 0; k < size; k++) h[k] = (double)k * 0.25 - 1.25;
    nd_array *d = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&d, h, ND_FLOAT64, ndim, shape, dev));
    free(h);
    if (t == ND_FLOAT64) return d;
    ND_OK_OR_FAIL(nd_astype(&r, d, t));
    nd_release(d);
    return r;
}

static int64_t nbytes(const nd_array *a) { return (int64_t)nd_nbytes(a); }

/* The one depth-0 event of the session (asserted), checked for name and
 * kind, device, times. */
static const nd_profiler_event *only(const nd_profiler_event *ev, size_t n, const char *name,
                                     nd_profiler_event_kind kind, nd_device dev)
{
    int64_t i;
    int c = prh_top(ev, n, &i);
    ck_assert_msg(c == 1, "%s: %d depth-0 events (first '%s')", name, c, i >= 0 ? ev[i].name : "-");
    const nd_profiler_event *e = &ev[i];
    ck_assert_str_eq(e->name, name);
    ck_assert_int_eq(e->kind, kind);
    ck_assert_int_eq(e->parent, -1);
    ck_assert_msg(e->device.type == dev.type && e->device.id == dev.id, "%s: device %d:%d", name, e->device.type,
                  e->device.id);
    ck_assert_msg(e->host_ns >= e->host_self_ns && e->host_self_ns >= 0, "%s: host %lld self %lld", name,
                  (long long)e->host_ns, (long long)e->host_self_ns);
    if (dev.type == ND_DEVICE_CPU) {
        ck_assert_int_eq(e->device_ns, -1);
    } else {
        ck_assert_msg(e->device_ns >= 0 && e->device_start_ns >= 0, "%s: device %lld at %lld", name,
                      (long long)e->device_ns, (long long)e->device_start_ns);
    }
    return e;
}

static void check_input(const nd_profiler_event *e, int k, const nd_array *a, bool shapes)
{
    ck_assert_int_gt(e->ninputs, k);
    ck_assert_int_eq(e->dtypes[k], nd_dtype_of(a));
    if (!shapes) {
        ck_assert_int_eq(e->ndims[k], 0);
        ck_assert_ptr_null(e->shapes[k]);
        return;
    }
    ck_assert_int_eq(e->ndims[k], nd_ndim(a));
    for (int d = 0; d < nd_ndim(a); d++) ck_assert_int_eq(e->shapes[k][d], nd_shape(a)[d]);
}

/* ------------------------------------------------------------------ */
/* Elementwise, reductions, scans: names, dtypes, shapes, bytes        */
/* ------------------------------------------------------------------ */
START_TEST(elementwise_fields)
{
    nd_device devs[2];
    int nd = prh_devices(devs);
    for (int di = 0; di < nd; di++) {
        nd_device dev = devs[di];
        for (int shapes = 0; shapes < 2; shapes++) {
            const int64_t s34[2] = {3, 4}, s4[1] = {4};
            nd_array *a = prh_arr(ND_FLOAT32, 2, s34, dev), *b = prh_arr(ND_FLOAT32, 1, s4, dev);
            nd_array *i8 = prh_arr(ND_INT8, 2, s34, dev), *o = NULL;
            /* a broadcast add: float32 (3,4) + (4,) */
            prh_start(shapes, shapes);
            ND_OK_OR_FAIL(nd_add(&o, a, b));
            size_t n;
            const nd_profiler_event *ev = prh_stop(&n);
            const nd_profiler_event *e = only(ev, n, "add", ND_PROFILER_OP, dev);
            ck_assert_int_eq(e->ninputs, 2);
            check_input(e, 0, a, shapes);
            check_input(e, 1, b, shapes);
            ck_assert_int_eq(e->out_dtype, ND_FLOAT32);
            ck_assert_int_eq(e->bytes, nbytes(a) + nbytes(b) + nbytes(o));
            ck_assert_int_eq(e->bytes, 48 + 16 + 48);
            ck_assert_int_eq(e->flops, 0);
            /* into a given out (the direct path) through nd_binary: one "multiply" */
            prh_start(shapes, false);
            ND_OK_OR_FAIL(nd_binary(&o, ND_BINARY_MULTIPLY, a, a));
            ev = prh_stop(&n);
            e = only(ev, n, "multiply", ND_PROFILER_OP, dev);
            ck_assert_int_eq(e->bytes, 3 * 48);
            nd_release(o);
            o = NULL;
            /* a promoting op with a weak scalar: int8 / 2 -> float64 */
            prh_start(shapes, false);
            ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_DIVIDE, i8, nd_scalar_int(2)));
            ev = prh_stop(&n);
            e = only(ev, n, "divide", ND_PROFILER_OP, dev);
            ck_assert_int_eq(e->ninputs, 1);
            check_input(e, 0, i8, shapes);
            ck_assert_int_eq(e->out_dtype, nd_dtype_of(o));
            ck_assert_int_eq(e->bytes, 12 + nbytes(o));
            nd_release(o);
            o = NULL;
            /* unary: exp of int8 -> float16 */
            prh_start(shapes, false);
            ND_OK_OR_FAIL(nd_exp(&o, i8));
            ev = prh_stop(&n);
            e = only(ev, n, "exp", ND_PROFILER_OP, dev);
            ck_assert_int_eq(e->out_dtype, ND_FLOAT16);
            ck_assert_int_eq(e->bytes, 12 + 24);
            nd_release(o);
            o = NULL;
            /* a reduction over axis 1 */
            const int ax = 1;
            prh_start(shapes, shapes);
            ND_OK_OR_FAIL(nd_sum(&o, i8, 1, &ax, false));
            ev = prh_stop(&n);
            e = only(ev, n, "sum", ND_PROFILER_OP, dev);
            check_input(e, 0, i8, shapes);
            ck_assert_int_eq(e->out_dtype, ND_INT64);
            ck_assert_int_eq(e->bytes, 12 + 3 * 8);
            nd_release(o);
            o = NULL;
            /* a scan */
            prh_start(shapes, false);
            ND_OK_OR_FAIL(nd_cumsum(&o, a, 0));
            ev = prh_stop(&n);
            e = only(ev, n, "cumsum", ND_PROFILER_OP, dev);
            ck_assert_int_eq(e->bytes, 2 * 48);
            nd_release(o);
            o = NULL;
            /* a creation op: no inputs, the device of its argument */
            const int64_t s5[1] = {5};
            prh_start(shapes, shapes);
            ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT64, 1, s5, dev));
            ev = prh_stop(&n);
            e = only(ev, n, "zeros", ND_PROFILER_OP, dev);
            ck_assert_int_eq(e->ninputs, 0);
            ck_assert_int_eq(e->out_dtype, ND_FLOAT64);
            ck_assert_int_eq(e->bytes, 40);
            nd_release(o);
            o = NULL;
            /* a list op: concatenate of three */
            const nd_array *list[3] = {a, a, a};
            prh_start(shapes, false);
            ND_OK_OR_FAIL(nd_concatenate(&o, 3, list, 0));
            ev = prh_stop(&n);
            e = only(ev, n, "concatenate", ND_PROFILER_OP, dev);
            ck_assert_int_eq(e->ninputs, 3);
            for (int k = 0; k < 3; k++) check_input(e, k, a, shapes);
            ck_assert_int_eq(e->bytes, 3 * 48 + 3 * 48);
            nd_release(o);
            nd_release(a);
            nd_release(b);
            nd_release(i8);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* FLOPs of the products                                               */
/* ------------------------------------------------------------------ */
typedef enum { P_MATMUL, P_DOT, P_GEMM, P_TENSORDOT, P_OUTER } prod_kind;

static void check_product(nd_device dev, prod_kind k, int an, const int64_t *as, int bn, const int64_t *bs,
                          int64_t flops)
{
    static const char *const names[] = {"matmul", "dot", "gemm", "tensordot", "outer"};
    nd_array *a = prh_arr(ND_FLOAT32, an, as, dev), *b = prh_arr(ND_FLOAT32, bn, bs, dev), *o = NULL;
    prh_start(true, false);
    switch (k) {
    case P_MATMUL: ND_OK_OR_FAIL(nd_matmul(&o, a, b)); break;
    case P_DOT: ND_OK_OR_FAIL(nd_dot(&o, a, b)); break;
    case P_GEMM: ND_OK_OR_FAIL(nd_gemm(&o, false, false, 1.0, a, b, 0.0)); break;
    case P_TENSORDOT: ND_OK_OR_FAIL(nd_tensordot(&o, a, b, 1, NULL, NULL)); break;
    case P_OUTER: ND_OK_OR_FAIL(nd_outer(&o, a, b)); break;
    }
    size_t n;
    const nd_profiler_event *ev = prh_stop(&n);
    const nd_profiler_event *e = only(ev, n, names[k], ND_PROFILER_OP, dev);
    ck_assert_msg(e->flops == flops, "%s: flops %lld, want %lld", names[k], (long long)e->flops, (long long)flops);
    check_input(e, 0, a, true);
    check_input(e, 1, b, true);
    ck_assert_int_eq(e->out_dtype, ND_FLOAT32);
    ck_assert_int_eq(e->bytes, nbytes(a) + nbytes(b) + nbytes(o));
    nd_release(a);
    nd_release(b);
    nd_release(o);
}

START_TEST(product_flops)
{
    nd_device devs[2];
    int nd = prh_devices(devs);
    for (int di = 0; di < nd; di++) {
        nd_device d = devs[di];
        /* a batch of 2 (3,4) @ (4,5), b broadcast: 2*2*3*5*4 */
        check_product(d, P_MATMUL, 3, (const int64_t[]){2, 3, 4}, 2, (const int64_t[]){4, 5}, 240);
        /* batch dims broadcast both ways: (2,1,3,4) @ (1,6,4,2) -> batch 12 */
        check_product(d, P_MATMUL, 4, (const int64_t[]){2, 1, 3, 4}, 4, (const int64_t[]){1, 6, 4, 2}, 2 * 12 * 3 * 2 * 4);
        /* matrix @ vector and vector @ vector */
        check_product(d, P_MATMUL, 2, (const int64_t[]){3, 4}, 1, (const int64_t[]){4}, 24);
        check_product(d, P_DOT, 1, (const int64_t[]){7}, 1, (const int64_t[]){7}, 14);
        check_product(d, P_DOT, 2, (const int64_t[]){2, 3}, 2, (const int64_t[]){3, 4}, 48);
        /* dot of N-d arrays: (2,3,4) . (5,4,6): P=6, Q=5, K=4, N=6 */
        check_product(d, P_DOT, 3, (const int64_t[]){2, 3, 4}, 3, (const int64_t[]){5, 4, 6}, 2 * 6 * 5 * 4 * 6);
        check_product(d, P_GEMM, 2, (const int64_t[]){3, 4}, 2, (const int64_t[]){4, 5}, 120);
        /* tensordot over 1 axis: (2,3,4) x (4,5): M=6, K=4, N=5 */
        check_product(d, P_TENSORDOT, 3, (const int64_t[]){2, 3, 4}, 2, (const int64_t[]){4, 5}, 240);
        /* outer: one multiply per element of the (3, 5) result */
        check_product(d, P_OUTER, 1, (const int64_t[]){3}, 1, (const int64_t[]){5}, 15);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Views: 0 bytes; a reshape that copies: the estimate                 */
/* ------------------------------------------------------------------ */
START_TEST(views_move_nothing)
{
    nd_device devs[2];
    int nd = prh_devices(devs);
    for (int di = 0; di < nd; di++) {
        nd_device dev = devs[di];
        const int64_t s34[2] = {3, 4}, s12[1] = {12}, s234[3] = {2, 3, 4}, s43[2] = {4, 3};
        nd_array *a = prh_arr(ND_FLOAT64, 2, s34, dev), *o = NULL, *t = NULL;
        const nd_range r[2] = {{0, 3, 2}, {1, 4, 1}};
        const int ax0 = 0;
        for (int k = 0; k < 9; k++) {
            const char *name = NULL;
            prh_start(k % 2, false);
            switch (k) {
            case 0: name = "reshape"; ND_OK_OR_FAIL(nd_reshape(&o, a, 1, s12)); break;
            case 1: name = "transpose"; ND_OK_OR_FAIL(nd_transpose(&o, a, NULL)); break;
            case 2: name = "slice"; ND_OK_OR_FAIL(nd_slice(&o, a, 2, r)); break;
            case 3: name = "expand_dims"; ND_OK_OR_FAIL(nd_expand_dims(&o, a, 0)); break;
            case 4: name = "broadcast_to"; ND_OK_OR_FAIL(nd_broadcast_to(&o, a, 3, s234)); break;
            case 5: name = "swapaxes"; ND_OK_OR_FAIL(nd_swapaxes(&o, a, 0, 1)); break;
            case 6: name = "flip"; ND_OK_OR_FAIL(nd_flip(&o, a, 1, &ax0)); break;
            case 7: name = "diagonal"; ND_OK_OR_FAIL(nd_diagonal(&o, a, 0, 0, 1)); break;
            case 8: name = "real"; ND_OK_OR_FAIL(nd_real(&o, a)); break;
            }
            size_t n;
            const nd_profiler_event *ev = prh_stop(&n);
            const nd_profiler_event *e = only(ev, n, name, ND_PROFILER_OP, dev);
            ck_assert_msg(e->bytes == 0, "%s: a view moved %lld bytes", name, (long long)e->bytes);
            ck_assert_int_eq(e->out_dtype, ND_FLOAT64);
            check_input(e, 0, a, k % 2);
            nd_release(o);
            o = NULL;
        }
        /* a reshape of a transposed array copies: the estimate */
        ND_OK_OR_FAIL(nd_transpose(&t, a, NULL));
        prh_start(false, false);
        ND_OK_OR_FAIL(nd_reshape(&o, t, 2, s34));
        size_t n;
        const nd_profiler_event *ev = prh_stop(&n);
        const nd_profiler_event *e = only(ev, n, "reshape", ND_PROFILER_OP, dev);
        ck_assert_int_eq(e->bytes, 2 * 96);
        nd_release(o);
        o = NULL;
        /* a view into a given out is a copy too */
        ND_OK_OR_FAIL(nd_empty(&o, ND_FLOAT64, 2, s43, dev));
        prh_start(false, false);
        ND_OK_OR_FAIL(nd_transpose(&o, a, NULL));
        ev = prh_stop(&n);
        e = only(ev, n, "transpose", ND_PROFILER_OP, dev);
        ck_assert_int_eq(e->bytes, 2 * 96);
        nd_release(o);
        nd_release(t);
        nd_release(a);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Transfers                                                           */
/* ------------------------------------------------------------------ */
static void check_transfer(const char *name, nd_device dev, int64_t bytes)
{
    size_t n;
    const nd_profiler_event *ev = prh_stop(&n);
    const nd_profiler_event *e = only(ev, n, name, ND_PROFILER_TRANSFER, dev);
    ck_assert_msg(e->bytes == bytes, "%s: %lld bytes, want %lld", name, (long long)e->bytes, (long long)bytes);
}

START_TEST(transfers)
{
    const int64_t s[2] = {5, 7};
    nd_device cpu = nd_cpu();
    nd_array *h = prh_arr(ND_FLOAT32, 2, s, cpu), *o = NULL;
    float buf[35];
    /* host to host: nd_to_device to the CPU, nd_copy_to_host, nd_copy_from_host, nd_from_host */
    prh_start(true, true);
    ND_OK_OR_FAIL(nd_to_device(&o, h, cpu));
    check_transfer("copy_h2h", cpu, 140);
    nd_release(o);
    o = NULL;
    prh_start(false, false);
    ND_OK_OR_FAIL(nd_copy_to_host(buf, h, sizeof buf));
    check_transfer("copy_h2h", cpu, 140);
    prh_start(false, false);
    ND_OK_OR_FAIL(nd_copy_from_host(h, buf, sizeof buf));
    check_transfer("copy_h2h", cpu, 140);
    prh_start(false, false);
    ND_OK_OR_FAIL(nd_from_host(&o, buf, ND_FLOAT32, 2, s, cpu));
    check_transfer("copy_h2h", cpu, 140);
    nd_release(o);
    o = NULL;
    if (nd_test_gpu_count() > 0) {
        nd_device g = nd_cuda(0);
        nd_array *d = NULL, *d2 = NULL, *back = NULL;
        prh_start(true, true);
        ND_OK_OR_FAIL(nd_to_device(&d, h, g));
        check_transfer("copy_h2d", g, 140);
        prh_start(false, false);
        ND_OK_OR_FAIL(nd_to_device(&back, d, cpu));
        check_transfer("copy_d2h", g, 140);
        prh_start(false, false);
        ND_OK_OR_FAIL(nd_to_device(&d2, d, g));
        check_transfer("copy_d2d", g, 140);
        prh_start(false, false);
        ND_OK_OR_FAIL(nd_copy_to_host(buf, d, sizeof buf));
        check_transfer("copy_d2h", g, 140);
        prh_start(false, true);
        ND_OK_OR_FAIL(nd_copy_from_host(d, buf, sizeof buf));
        check_transfer("copy_h2d", g, 140);
        nd_release(o);
        o = NULL;
        prh_start(false, false);
        ND_OK_OR_FAIL(nd_from_host(&o, buf, ND_FLOAT32, 2, s, g));
        check_transfer("copy_h2d", g, 140);
        prh_start(false, false);
        ND_OK_OR_FAIL(nd_copy_async(d2, back, NULL));
        check_transfer("copy_h2d", g, 140);
        prh_start(false, false);
        ND_OK_OR_FAIL(nd_copy_async(back, d2, NULL));
        check_transfer("copy_d2h", g, 140);
        ND_OK_OR_FAIL(nd_synchronize(g));
        nd_release(d);
        nd_release(d2);
        nd_release(back);
        /* the bytes really crossed: the values came back */
        for (int k = 0; k < 35; k++) ck_assert_float_eq(buf[k], (float)(k * 0.25 - 1.25));
    }
    nd_release(o);
    nd_release(h);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Nesting: ops called by ops                                          */
/* ------------------------------------------------------------------ */
static void check_nested(const nd_profiler_event *ev, size_t n, int64_t p, const char *must_have)
{
    int64_t child_ns = 0;
    int children = 0;
    bool found = must_have == NULL;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].parent != p || ev[i].kind == ND_PROFILER_MEMORY) continue;
        ck_assert_int_eq(ev[i].depth, ev[p].depth + 1);
        ck_assert_int_ge(ev[i].host_start_ns, ev[p].host_start_ns);
        ck_assert_int_le(ev[i].host_start_ns + ev[i].host_ns, ev[p].host_start_ns + ev[p].host_ns);
        child_ns += ev[i].host_ns;
        children++;
        if (must_have && strcmp(ev[i].name, must_have) == 0) found = true;
    }
    ck_assert_msg(children > 0, "%s has no children", ev[p].name);
    ck_assert_msg(found, "%s has no child %s", ev[p].name, must_have);
    ck_assert_int_eq(ev[p].host_self_ns, ev[p].host_ns - child_ns);
}

START_TEST(nesting)
{
    nd_device devs[2];
    int nd = prh_devices(devs);
    for (int di = 0; di < nd; di++) {
        nd_device dev = devs[di];
        const int64_t s[1] = {9};
        nd_array *a = prh_arr(ND_INT32, 1, s, dev), *v = NULL, *inv = NULL, *cnt = NULL;
        prh_start(true, true);
        ND_OK_OR_FAIL(nd_unique(&v, NULL, &inv, &cnt, a));
        size_t n;
        const nd_profiler_event *ev = prh_stop(&n);
        int64_t p;
        ck_assert_int_eq(prh_top(ev, n, &p), 1);
        ck_assert_str_eq(ev[p].name, "unique");
        check_nested(ev, n, p, "take");
        /* every nested op's parent encloses it and has a lower depth */
        for (size_t i = 0; i < n; i++) {
            if (ev[i].depth == 0) continue;
            ck_assert_int_ge(ev[i].parent, 0);
            ck_assert_int_lt(ev[i].parent, (int64_t)i);
            ck_assert_int_eq(ev[ev[i].parent].depth, ev[i].depth - 1);
        }
        nd_release(v);
        nd_release(inv);
        nd_release(cnt);
        /* einsum as a matrix product calls matmul */
        const int64_t s34[2] = {3, 4}, s45[2] = {4, 5};
        nd_array *x = prh_arr(ND_FLOAT32, 2, s34, dev), *y = prh_arr(ND_FLOAT32, 2, s45, dev), *o = NULL;
        const nd_array *ops[2] = {x, y};
        prh_start(false, false);
        ND_OK_OR_FAIL(nd_einsum(&o, "ij,jk->ik", 2, ops));
        ev = prh_stop(&n);
        ck_assert_int_eq(prh_top(ev, n, &p), 1);
        ck_assert_str_eq(ev[p].name, "einsum");
        ck_assert_int_eq(ev[p].ninputs, 2);
        check_nested(ev, n, p, NULL);
        int64_t flops = 0;
        for (size_t i = 0; i < n; i++)
            if (strcmp(ev[i].name, "matmul") == 0) flops += ev[i].flops;
        ck_assert_int_eq(flops, 2 * 3 * 4 * 5);
        nd_release(o);
        nd_release(x);
        nd_release(y);
        nd_release(a);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* A failed op records its event and the session goes on               */
/* ------------------------------------------------------------------ */
START_TEST(failed_op)
{
    nd_device devs[2];
    int nd = prh_devices(devs);
    for (int di = 0; di < nd; di++) {
        nd_device dev = devs[di];
        const int64_t s3[1] = {3}, s4[1] = {4};
        nd_array *a = prh_arr(ND_FLOAT32, 1, s3, dev), *b = prh_arr(ND_FLOAT32, 1, s4, dev), *o = NULL;
        prh_start(true, true);
        ND_EXPECT_ERR(nd_add(&o, a, b), ND_ERR_SHAPE, "do not broadcast");
        ck_assert_ptr_null(o);
        ND_EXPECT_ERR(nd_matmul(&o, a, b), ND_ERR_SHAPE, "mismatch");
        ND_EXPECT_ERR(nd_add(&o, NULL, b), ND_ERR_INVALID, "'a'");
        ND_EXPECT_ERR(nd_binary(&o, (nd_binary_op)999, a, b), ND_ERR_INVALID, "invalid binary op");
        ND_EXPECT_ERR(nd_reduce(&o, (nd_reduce_op)999, a, 0, NULL, false), ND_ERR_INVALID, "invalid reduce op");
        ND_OK_OR_FAIL(nd_add(&o, a, a)); /* the session goes on */
        size_t n;
        const nd_profiler_event *ev = prh_stop(&n);
        static const char *const want[] = {"add", "matmul", "add", "binary", "reduce", "add"};
        int k = 0;
        for (size_t i = 0; i < n; i++) {
            if (ev[i].depth != 0 || ev[i].kind == ND_PROFILER_MEMORY) continue;
            ck_assert_int_lt(k, 6);
            ck_assert_str_eq(ev[i].name, want[k]);
            ck_assert_int_eq(ev[i].out_dtype, k == 5 ? ND_FLOAT32 : -1);
            ck_assert_int_eq(ev[i].ninputs, k == 2 ? 1 : k == 4 ? 1 : 2);
            k++;
        }
        ck_assert_int_eq(k, 6);
        nd_release(o);
        nd_release(a);
        nd_release(b);
    }
}
END_TEST

/* No session: the hooks record nothing and the ops work. */
START_TEST(disabled_hooks)
{
    const int64_t s[1] = {6};
    nd_array *a = prh_arr(ND_FLOAT32, 1, s, nd_cpu()), *o = NULL;
    prh_start(false, false);
    size_t n;
    (void)prh_stop(&n);
    ck_assert_uint_eq(n, 0);
    for (int i = 0; i < 100; i++) ND_OK_OR_FAIL(nd_add(&o, a, a));
    ck_assert(!nd_profiler_is_running());
    const nd_profiler_event *ev;
    ND_OK_OR_FAIL(nd_profiler_events(&ev, &n));
    ck_assert_uint_eq(n, 0); /* still the empty last session */
    nd_release(o);
    nd_release(a);
}
END_TEST

Suite *suite_profiler_ops(void);
Suite *suite_profiler_ops(void)
{
    Suite *s = suite_create("profiler_ops");
    TCase *tc = tcase_create("events");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, elementwise_fields);
    tcase_add_test(tc, product_flops);
    tcase_add_test(tc, views_move_nothing);
    tcase_add_test(tc, transfers);
    tcase_add_test(tc, nesting);
    tcase_add_test(tc, failed_op);
    tcase_add_test(tc, disabled_hooks);
    suite_add_tcase(s, tc);
    TCase *sw = tcase_create("sweep");
    tcase_set_timeout(sw, 240);
    prh_add_sweep(sw);
    suite_add_tcase(s, sw);
    return s;
}
