// The CUDA backend's fft slot (contract in src/core/fft_slot.h and
// src/core/backend.h) over cuFFT, on the calling thread's current stream.
//
// Layout. cufftPlanMany's advanced layout describes a batch of 1-D
// transforms with positive int strides: element j of transform b at
// b * dist + j * stride. The batch geometry (nd__fft_geom, shared with the
// CPU) merges every other axis it can; when what is left is at most one
// batch axis with positive strides that fit an int (contiguous rows,
// columns of a C-order 2-D array, a transposed or stepped view), cuFFT
// reads and writes the arrays in place. Otherwise the input is packed into
// a contiguous (batch, n) scratch array and/or the transform writes a
// contiguous scratch output that is then unpacked into out, with one
// strided-copy kernel (scratch from the device pool on the current stream,
// freed stream-ordered right after the launches that use it). A batch
// whose elements span more than INT_MAX elements runs in chunks.
//
// Complex-to-real input is always packed: an out-of-place C2R/Z2D may
// overwrite its input (cuFFT's documentation), and the slot never writes
// in. The pack also zeroes the imaginary parts of X[0] and, n even, of
// X[n/2], which NumPy ignores and cuFFT's result would otherwise depend on.
//
// Signs and scales. cuFFT has c2c with either direction, r2c forward and
// c2r inverse, and never scales. scale != 1 and the conjugate of an r2c
// with sign +1 (ihfft) are one elementwise pass (in place on out, or
// folded into the unpack); a c2r with sign -1 (hfft) is the inverse c2r
// read backwards, y[j] = y+[(n - j) mod n], folded into the unpack.
//
// Plans. A cache of FFT_CACHE plans, keyed by (device, stream, type, n,
// strides, distances, batch) and guarded by a mutex, as CuPy keeps one. A
// plan is taken out of the cache while a thread configures and launches
// it (busy), and is bound to the stream before every exec (cufftSetStream).
// The stream is part of the key: cuFFT runs a plan on the plan's own work
// area, so one plan queued on two streams at once could have both
// transforms on one work area (the reason cuBLAS workspaces are per
// (handle, stream), src/cuda/blas.cu). When every matching plan is busy, or
// the cache is full of busy plans, a plan is made for the call alone and
// destroyed after its stream has finished with it. Plans are made without
// a work area (cufftSetAutoAllocation(0), as CuPy and PyTorch do): each
// exec takes one from the device pool on its stream and frees it after
// the exec is queued, so a cached plan holds no device memory that the
// pool cannot give back when it runs short. When planning itself runs out
// of memory, the idle cached plans of the device and the pool's cache are
// released and planning is tried once more.
// Known limit: stale plans of destroyed streams stay cached until evicted.
#include <cufft.h>
#include <limits.h>

#include <mutex>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "core/fft_slot.h"

namespace {

#define FFT_CACHE 16

const char *cufft_name(cufftResult r)
{
    switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "an unknown cufftResult";
    }
}

nd_status cufft_status(cufftResult r, const char *what)
{
    if (r == CUFFT_SUCCESS) return ND_OK;
    (void)cudaGetLastError();
    const nd_status code = r == CUFFT_ALLOC_FAILED                                  ? ND_ERR_NOMEM
                           : r == CUFFT_NOT_SUPPORTED || r == CUFFT_NOT_IMPLEMENTED ? ND_ERR_UNSUPPORTED
                                                                                    : ND_ERR_BACKEND;
    return nd__err(code, "cuFFT", "%s failed: %s (%d)", what, cufft_name(r), (int)r);
}
#define ND_CUFFT_TRY(call, what)                                    \
    do {                                                            \
        cufftResult r_ = (call);                                    \
        if (r_ != CUFFT_SUCCESS) return cufft_status(r_, what);     \
    } while (0)

// ------------------------------------------------------------------
// The plan cache
// ------------------------------------------------------------------
struct plan_key {
    int dev;
    cudaStream_t stream;
    cufftType type;
    int n, nin, nout, istride, idist, ostride, odist, batch;
    bool operator==(const plan_key &o) const
    {
        return dev == o.dev && stream == o.stream && type == o.type && n == o.n && nin == o.nin && nout == o.nout &&
               istride == o.istride && idist == o.idist && ostride == o.ostride && odist == o.odist &&
               batch == o.batch;
    }
};

struct plan_entry {
    plan_key k;
    cufftHandle h;
    size_t ws; // its work area's size (the work area itself comes from the pool per exec)
    bool live, busy;
    unsigned long long used;
};

std::mutex &g_mu = *new std::mutex;
plan_entry g_cache[FFT_CACHE];
unsigned long long g_clock;

// Destroy a plan whose last exec may still be queued on stream s (a
// stream the registry no longer holds was destroyed after its work
// finished: nothing to wait for, and its handle must not be used).
void plan_destroy(cufftHandle h, cudaStream_t s, int dev)
{
    nd_device_guard g(dev);
    if (!s || nd__cuda_stream_device((void *)s, -1) >= 0) (void)cudaStreamSynchronize(s);
    (void)cufftDestroy(h);
    (void)cudaGetLastError();
}

// Drop the idle cached plans of dev (planning ran out of memory).
void plans_release_idle(int dev)
{
    plan_entry drop[FFT_CACHE];
    int nd = 0;
    {
        std::lock_guard<std::mutex> lk(g_mu);
        for (plan_entry &e : g_cache)
            if (e.live && !e.busy && e.k.dev == dev) {
                drop[nd++] = e;
                e.live = false;
            }
    }
    for (int i = 0; i < nd; i++) plan_destroy(drop[i].h, drop[i].k.stream, dev);
}

// A plan without a work area of its own (as CuPy and PyTorch make them):
// each exec takes one from the device pool, so cached plans hold no device
// memory that the pool could not give back when it runs short.
cufftResult plan_make(const plan_key &k, cufftHandle *h, size_t *ws)
{
    int n = k.n, ie = k.nin, oe = k.nout;
    cufftResult r = cufftCreate(h);
    if (r != CUFFT_SUCCESS) return r;
    r = cufftSetAutoAllocation(*h, 0);
    if (r == CUFFT_SUCCESS)
        r = cufftMakePlanMany(*h, 1, &n, &ie, k.istride, k.idist, &oe, k.ostride, k.odist, k.type, k.batch, ws);
    if (r != CUFFT_SUCCESS) {
        (void)cufftDestroy(*h);
        *h = 0;
    }
    return r;
}

// A plan for k, marked busy, and its work area size; *slot: its cache
// slot, -1 for a plan made for this call alone. The device k.dev is current.
nd_status plan_take(const plan_key &k, cufftHandle *h, size_t *ws, int *slot)
{
    {
        std::lock_guard<std::mutex> lk(g_mu);
        for (int i = 0; i < FFT_CACHE; i++) {
            plan_entry &e = g_cache[i];
            if (e.live && !e.busy && e.k == k) {
                e.busy = true;
                e.used = ++g_clock;
                *h = e.h;
                *ws = e.ws;
                *slot = i;
                return ND_OK;
            }
        }
    }
    cufftHandle p = 0;
    size_t pws = 0;
    cufftResult r = plan_make(k, &p, &pws);
    if (r == CUFFT_ALLOC_FAILED) {
        plans_release_idle(k.dev);
        (void)nd__cuda_memory_release_cached(k.dev);
        r = plan_make(k, &p, &pws);
    }
    if (r != CUFFT_SUCCESS) return cufft_status(r, "cufftPlanMany");
    plan_entry old = plan_entry();
    bool evict = false;
    *slot = -1;
    {
        std::lock_guard<std::mutex> lk(g_mu);
        int best = -1;
        for (int i = 0; i < FFT_CACHE && best < 0; i++)
            if (!g_cache[i].live) best = i;
        for (int i = 0; i < FFT_CACHE && best < 0; i++)
            if (!g_cache[i].busy && (best < 0 || g_cache[i].used < g_cache[best].used)) best = i;
        if (best >= 0) {
            plan_entry &e = g_cache[best];
            if (e.live) {
                old = e;
                evict = true;
            }
            e.k = k;
            e.h = p;
            e.ws = pws;
            e.live = true;
            e.busy = true;
            e.used = ++g_clock;
            *slot = best;
        }
    }
    if (evict) plan_destroy(old.h, old.k.stream, old.k.dev);
    *h = p;
    *ws = pws;
    return ND_OK;
}

void plan_give(int slot, cufftHandle h, cudaStream_t s, int dev)
{
    if (slot < 0) {
        plan_destroy(h, s, dev);
        return;
    }
    std::lock_guard<std::mutex> lk(g_mu);
    g_cache[slot].busy = false;
}

// ------------------------------------------------------------------
// The strided copy / post-processing kernel
// ------------------------------------------------------------------
// nd dims, the transformed axis last; strides in elements (complex
// elements for complex data).
struct xfer_geom {
    int nd;
    int64_t shape[ND_MAX_DIMS];
    int64_t s[ND_MAX_DIMS]; // source
    int64_t d[ND_MAX_DIMS]; // destination
    int64_t total;
    int64_t nyq;  // zero_im: the imaginary parts of axis elements 0 and nyq are zeroed (-1: only 0)
    bool conj;    // negate imaginary parts
    bool rev;     // destination element j comes from source element (n - j) mod n along the axis
    bool zero_im;
    double scale;
};

// C = 2: complex elements of two R, C = 1: real elements.
template <typename R, int C>
__global__ void xfer_kernel(R *dst, const R *src, xfer_geom g)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const int64_t n = g.shape[g.nd - 1];
    const R sc = (R)g.scale;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < g.total; i += step) {
        int64_t r = i;
        const int64_t j = r % n;
        r /= n;
        const int64_t js = g.rev && j > 0 ? n - j : j;
        int64_t so = js * g.s[g.nd - 1], dof = j * g.d[g.nd - 1];
        for (int k = g.nd - 2; k >= 0; k--) {
            const int64_t c = r % g.shape[k];
            r /= g.shape[k];
            so += c * g.s[k];
            dof += c * g.d[k];
        }
        if (C == 1) {
            dst[dof] = src[so] * sc;
        } else {
            R re = src[2 * so], im = src[2 * so + 1];
            if (g.zero_im && (j == 0 || j == g.nyq)) im = (R)0;
            if (g.conj) im = -im;
            dst[2 * dof] = re * sc;
            dst[2 * dof + 1] = im * sc;
        }
    }
}

nd_status xfer(cudaStream_t s, bool dbl, bool cplx, void *dst, const void *src, const xfer_geom &g)
{
    if (g.total == 0) return ND_OK;
    const unsigned grid = nd_grid_for(g.total, 256);
    cudaError_t e;
    if (dbl)
        e = cplx ? nd_launch(xfer_kernel<double, 2>, grid, 256, 0, s, (double *)dst, (const double *)src, g)
                 : nd_launch(xfer_kernel<double, 1>, grid, 256, 0, s, (double *)dst, (const double *)src, g);
    else
        e = cplx ? nd_launch(xfer_kernel<float, 2>, grid, 256, 0, s, (float *)dst, (const float *)src, g)
                 : nd_launch(xfer_kernel<float, 1>, grid, 256, 0, s, (float *)dst, (const float *)src, g);
    return nd_cuda_status(e, "cuFFT", "the FFT copy kernel (xfer_kernel)");
}

// The geometry of (batch axes of g, then the axis) with the strides of one
// side of the array (istr/is or ostr/os) and of a contiguous (batch, n).
void side_geom(xfer_geom &x, const nd_fft_geom &g, bool in_side, int64_t n)
{
    x.nd = g.nb + 1;
    for (int k = 0; k < g.nb; k++) x.shape[k] = g.shape[k];
    x.shape[g.nb] = n;
    x.total = g.batch * n;
    x.nyq = -1;
    x.conj = x.rev = x.zero_im = false;
    x.scale = 1.0;
    // the array's strides on the source (pack) or destination (unpack) side,
    // the contiguous scratch on the other; the caller swaps as needed
    int64_t c = n;
    x.s[g.nb] = in_side ? g.is : 1;
    x.d[g.nb] = in_side ? 1 : g.os;
    for (int k = g.nb - 1; k >= 0; k--) {
        x.s[k] = in_side ? g.istr[k] : c;
        x.d[k] = in_side ? c : g.ostr[k];
        c *= g.shape[k];
    }
}

bool fits(int64_t v) { return v > 0 && v <= INT_MAX; }

// Batch count per exec so that one exec's elements span at most INT_MAX
// (0: even one transform does not fit).
int64_t chunk_for(int64_t batch, int64_t n, int64_t stride, int64_t dist)
{
    const int64_t one = (n - 1) * stride + 1;
    if (one > INT_MAX) return 0;
    if (batch <= 1 || dist == 0) return batch < INT_MAX ? batch : INT_MAX;
    int64_t cb = (INT_MAX - one) / dist + 1;
    if (cb > batch) cb = batch;
    if (cb > INT_MAX) cb = INT_MAX;
    return cb;
}

} // namespace

extern "C" nd_status nd__cuda_fft(nd_array *out, const nd_array *in, int axis, int64_t n, int kind, int sign,
                                  double scale)
{
    nd_fft_geom g;
    nd__fft_geom(&g, out, in, axis);
    if (g.batch == 0) return ND_OK;
    if (n > INT_MAX) return nd__err(ND_ERR_UNSUPPORTED, "cuFFT", "transform length %lld exceeds cuFFT's int lengths", (long long)n);
    const bool dbl = in->dtype == ND_FLOAT64 || in->dtype == ND_COMPLEX128;
    const bool icplx = kind != ND_FFT_R2C, ocplx = kind != ND_FFT_C2R;
    const size_t isz = nd__itemsize(in->dtype), osz = nd__itemsize(out->dtype);
    const bool conj = kind == ND_FFT_R2C && sign > 0, rev = kind == ND_FFT_C2R && sign < 0;
    // strides along the axis are irrelevant for one-element rows
    const int64_t is = g.nin == 1 ? 1 : g.is, os = g.nout == 1 ? 1 : g.os;
    const int64_t idist0 = g.nb ? g.istr[0] : 0, odist0 = g.nb ? g.ostr[0] : 0;
    bool din = kind != ND_FFT_C2R && g.nb <= 1 && fits(is) && (g.nb == 0 || fits(idist0));
    bool dout = !rev && g.nb <= 1 && fits(os) && (g.nb == 0 || fits(odist0));
    int64_t cin = din ? chunk_for(g.batch, g.nin, is, idist0) : 1, cout = dout ? chunk_for(g.batch, g.nout, os, odist0) : 1;
    if (cin == 0) din = false;
    if (cout == 0) dout = false;

    const nd_device dev = out->device;
    nd_device_guard guard(dev.id);
    void *stream = nd__current_stream(dev);
    cudaStream_t s = nd_stream_of(stream);
    void *sin = nullptr, *sout = nullptr;
    nd_status st = ND_OK;
    const char *ip = nd__ptr(in);
    char *op = nd__ptr(out);
    int64_t i_s = is, i_d = idist0, o_s = os, o_d = odist0;
    xfer_geom x;
    if (!din) { // pack the input into a contiguous (batch, nin)
        st = nd__cuda_alloc(dev.id, (size_t)(g.batch * g.nin) * isz, stream, &sin);
        if (st) return st;
        side_geom(x, g, true, g.nin);
        if (kind == ND_FFT_C2R) {
            x.zero_im = true;
            x.nyq = n % 2 == 0 ? n / 2 : -1;
        }
        st = xfer(s, dbl, icplx, sin, ip, x);
        ip = (const char *)sin;
        i_s = 1, i_d = g.nin;
    }
    if (!st && !dout) {
        st = nd__cuda_alloc(dev.id, (size_t)(g.batch * g.nout) * osz, stream, &sout);
        o_s = 1, o_d = g.nout;
    }
    char *xo = dout ? op : (char *)sout;
    if (!st) {
        cufftType type = kind == ND_FFT_C2C   ? (dbl ? CUFFT_Z2Z : CUFFT_C2C)
                         : kind == ND_FFT_R2C ? (dbl ? CUFFT_D2Z : CUFFT_R2C)
                                              : (dbl ? CUFFT_Z2D : CUFFT_C2R);
        // the batch per exec: both sides' chunks (a packed side never limits: contiguous rows fit)
        int64_t cb = g.batch;
        if (din && cin < cb) cb = cin;
        if (dout && cout < cb) cb = cout;
        if (!din || !dout) {
            const int64_t lim = chunk_for(g.batch, (int64_t)(g.nin > g.nout ? g.nin : g.nout), 1,
                                          g.nin > g.nout ? g.nin : g.nout);
            if (lim < cb) cb = lim;
        }
        if (cb < 1) cb = 1;
        for (int64_t b0 = 0; b0 < g.batch && !st; b0 += cb) {
            const int64_t nb = g.batch - b0 < cb ? g.batch - b0 : cb;
            plan_key k;
            k.dev = dev.id;
            k.stream = s;
            k.type = type;
            k.n = (int)n;
            k.nin = (int)g.nin;
            k.nout = (int)g.nout;
            k.istride = (int)i_s;
            k.idist = nb > 1 ? (int)i_d : 1;
            k.ostride = (int)o_s;
            k.odist = nb > 1 ? (int)o_d : 1;
            k.batch = (int)nb;
            cufftHandle h = 0;
            size_t ws = 0;
            int slot = -1;
            if ((st = plan_take(k, &h, &ws, &slot))) break;
            // the work area: from the pool, on this stream, for this exec
            void *work = nullptr;
            if (ws && (st = nd__cuda_alloc(dev.id, ws, stream, &work))) {
                plan_give(slot, h, s, dev.id);
                break;
            }
            cufftResult r = cufftSetStream(h, s);
            const char *what = "cufftSetStream";
            if (r == CUFFT_SUCCESS && ws) {
                what = "cufftSetWorkArea";
                r = cufftSetWorkArea(h, work);
            }
            if (r == CUFFT_SUCCESS) {
                void *pi = (void *)(ip + (ptrdiff_t)(b0 * i_d) * (ptrdiff_t)isz);
                void *po = (void *)(xo + (ptrdiff_t)(b0 * o_d) * (ptrdiff_t)osz);
                const int dir = sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
                switch (type) {
                case CUFFT_C2C: what = "cufftExecC2C", r = cufftExecC2C(h, (cufftComplex *)pi, (cufftComplex *)po, dir); break;
                case CUFFT_Z2Z: what = "cufftExecZ2Z", r = cufftExecZ2Z(h, (cufftDoubleComplex *)pi, (cufftDoubleComplex *)po, dir); break;
                case CUFFT_R2C: what = "cufftExecR2C", r = cufftExecR2C(h, (cufftReal *)pi, (cufftComplex *)po); break;
                case CUFFT_D2Z: what = "cufftExecD2Z", r = cufftExecD2Z(h, (cufftDoubleReal *)pi, (cufftDoubleComplex *)po); break;
                case CUFFT_C2R: what = "cufftExecC2R", r = cufftExecC2R(h, (cufftComplex *)pi, (cufftReal *)po); break;
                default: what = "cufftExecZ2D", r = cufftExecZ2D(h, (cufftDoubleComplex *)pi, (cufftDoubleReal *)po); break;
                }
            }
            plan_give(slot, h, s, dev.id);
            if (work) nd__cuda_free(dev.id, work); // stream-ordered: the exec's stream is the block's
            if (r != CUFFT_SUCCESS) st = cufft_status(r, what);
        }
    }
    if (!st && (scale != 1.0 || conj || rev)) {
        if (dout) { // in place on out
            side_geom(x, g, false, g.nout);
            for (int k = 0; k < x.nd; k++) x.s[k] = x.d[k];
            x.s[g.nb] = x.d[g.nb] = os;
            x.conj = conj;
            x.scale = scale;
            st = xfer(s, dbl, ocplx, op, op, x);
        }
    }
    if (!st && !dout) { // unpack (with the post-processing)
        side_geom(x, g, false, g.nout);
        x.conj = conj;
        x.rev = rev;
        x.scale = scale;
        st = xfer(s, dbl, ocplx, op, sout, x);
    }
    if (sin) nd__cuda_free(dev.id, sin);
    if (sout) nd__cuda_free(dev.id, sout);
    return st;
}
