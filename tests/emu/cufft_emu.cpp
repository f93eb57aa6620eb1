// The emulated GPU's cuFFT (tests/emu/cufft.h) over the library's CPU FFT
// engine (src/cpu/fft_core.h). C++17; never part of a library users build.
//
// The point is to execute the library's cuFFT calls for real: the plan's
// advanced layout (strides and distances in elements of each side's type),
// the batch, the direction and the type are passed on to the engine
// unchanged, so a wrong mapping from an array's geometry gives wrong numbers
// here just as it would on a GPU. Results are unnormalised, as cuFFT's.
//
// Plans. cufftPlanMany (= cufftCreate + cufftMakePlanMany) records the
// layout under a new handle (small integers, as cuFFT's); the engine's
// plans come from its own cache. Each plan has a work area of
// batch * n * 16 bytes, which cuFFT allocates on the device (cudaMalloc,
// outside any pool) when the plan is made and frees at cufftDestroy, unless
// cufftSetAutoAllocation(plan, 0) came first: then the caller hands one
// to cufftSetWorkArea before each exec, and the exec checks that it is
// live device memory of that size (else CUFFT_INVALID_VALUE) and
// overwrites it (0xa5) when the transform runs. cufftSetStream binds the
// stream, checked when an exec is queued. cufftDestroy forgets the handle;
// queued execs hold copies of everything they need, so destroying a plan
// with work in flight is safe here (cuFFT itself frees the work area,
// which waits).
//
// Checks, in this order (the first failing one is returned):
//  cufftPlanMany:
//   1. plan or n NULL: CUFFT_INVALID_VALUE;
//   2. type not one of the six: CUFFT_INVALID_TYPE;
//   3. rank not 1: CUFFT_NOT_IMPLEMENTED (a limit of the stand-in: cuFFT
//      takes ranks 1 to 3; libndgpu plans rank 1 only);
//   4. n[0] < 1 or batch < 1: CUFFT_INVALID_SIZE;
//   5. advanced layout (inembed and onembed both non-NULL; either NULL is
//      the basic layout, istride etc. ignored): istride, ostride < 1, or
//      idist, odist < 1 with batch > 1: CUFFT_INVALID_VALUE;
//   6. the 32-bit API: one side's data spanning more than INT_MAX elements
//      ((n-1)*stride + (batch-1)*dist + 1): CUFFT_INVALID_SIZE (cuFFT wants
//      cufftMakePlanMany64 for those).
//  cufftExec*:
//   1. unknown or destroyed handle: CUFFT_INVALID_PLAN;
//   2. exec function of another type than the plan's: CUFFT_INVALID_TYPE
//      (cuFFT documents nothing here; a mismatch is a caller's bug);
//   3. direction not CUFFT_FORWARD / CUFFT_INVERSE (C2C, Z2Z): CUFFT_INVALID_VALUE;
//   4. idata or odata NULL, or (a debugging aid: a GPU would fault) either
//      side's span outside one live device allocation: CUFFT_INVALID_VALUE;
//   5. idata == odata for a real type (in-place real transforms need cuFFT's
//      padded layout): CUFFT_NOT_IMPLEMENTED; idata == odata for C2C/Z2Z
//      with another output layout than the input's, or out-of-place sides
//      that overlap: CUFFT_INVALID_VALUE (a GPU gives wrong numbers);
//   6. the engine's plan cannot be made (out of memory): CUFFT_ALLOC_FAILED;
//   7. destroyed stream (or one the runtime refuses): CUFFT_EXEC_FAILED.
// Then the transform is queued on the stream; running there it computes,
// with the engine's plan for (n, precision):
//   C2C/Z2Z: out[k] = sum_j in[j] exp(direction 2 pi i j k / n);
//   R2C/D2Z: the n/2 + 1 first outputs of the forward transform;
//   C2R/Z2D: the real inverse transform of the n/2 + 1 Hermitian inputs
//            (the imaginary parts of X[0] and, n even, X[n/2] ignored),
//            then the input is filled with NaN (see the header).
// An out-of-memory failure inside the engine, found only when the queued
// transform runs, is reported as a device fault (nd_emu_device_fault).
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "cufft.h"
#include "core/internal.h"
extern "C" {
#include "cpu/fft_core.h"
}

namespace {

struct plan_rec {
    cufftType type;
    int64_t n, nin, nout; // n; the elements per transform on each side
    int64_t istride, idist, ostride, odist, batch;
    cudaStream_t stream;
    bool made;       // cufftMakePlanMany succeeded
    bool auto_alloc; // cuFFT allocates the work area (the default)
    void *work;      // the work area (its own or the caller's)
    size_t work_size;
};

std::mutex &mu = *new std::mutex;
std::map<cufftHandle, plan_rec> &plans = *new std::map<cufftHandle, plan_rec>;
cufftHandle next_handle = 1;

bool valid_type(cufftType t)
{
    return t == CUFFT_C2C || t == CUFFT_Z2Z || t == CUFFT_R2C || t == CUFFT_D2Z || t == CUFFT_C2R || t == CUFFT_Z2D;
}
bool real_in(cufftType t) { return t == CUFFT_R2C || t == CUFFT_D2Z; }
bool real_out(cufftType t) { return t == CUFFT_C2R || t == CUFFT_Z2D; }
bool dbl_type(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
size_t in_size(cufftType t) { return (dbl_type(t) ? 8 : 4) * (real_in(t) ? 1 : 2); }
size_t out_size(cufftType t) { return (dbl_type(t) ? 8 : 4) * (real_out(t) ? 1 : 2); }

// Elements spanned by one side (all positive: checked at planning).
int64_t span(int64_t n, int64_t stride, int64_t dist, int64_t batch) { return (n - 1) * stride + (batch - 1) * dist + 1; }

struct fft_job {
    plan_rec p;
    void *work; // the caller's work area, overwritten when the transform runs
    int sign;
    const void *in;
    void *out;
    nd_fft_plan *eng;
};

void run_job(void *arg)
{
    fft_job *j = (fft_job *)arg;
    const plan_rec &p = j->p;
    if (j->work) memset(j->work, 0xa5, p.work_size);
    bool ok;
    if (p.type == CUFFT_C2C || p.type == CUFFT_Z2Z)
        ok = nd__fft_c2c(j->eng, j->sign, p.batch, j->in, p.istride, p.idist, j->out, p.ostride, p.odist, 1.0);
    else if (real_in(p.type))
        ok = nd__fft_r2c(j->eng, p.batch, j->in, p.istride, p.idist, j->out, p.ostride, p.odist, 1.0);
    else
        ok = nd__fft_c2r(j->eng, p.batch, j->in, p.istride, p.idist, j->out, p.ostride, p.odist, 1.0);
    if (!ok) nd_emu_device_fault("cuFFT stand-in: the CPU engine ran out of memory during a queued transform");
    if (ok && real_out(p.type)) { // C2R may overwrite its input: make sure nobody relies on it
        const size_t half = dbl_type(p.type) ? 8 : 4;
        for (int64_t b = 0; b < p.batch; b++)
            for (int64_t k = 0; k < p.nin; k++) {
                char *e = (char *)j->in + (size_t)(b * p.idist + k * p.istride) * 2 * half;
                if (half == 8) {
                    const double v[2] = {NAN, NAN};
                    memcpy(e, v, 16);
                } else {
                    const float v[2] = {NAN, NAN};
                    memcpy(e, v, 8);
                }
            }
    }
}

// The job is no longer queued or held by a graph (which replays it).
void drop_job(void *arg)
{
    fft_job *j = (fft_job *)arg;
    nd__fft_plan_release(j->eng);
    delete j;
}

cufftResult submit(cufftHandle plan, cufftType want, const void *idata, void *odata, int direction)
{
    plan_rec p;
    {
        std::lock_guard<std::mutex> lk(mu);
        auto it = plans.find(plan);
        if (it == plans.end() || !it->second.made) return CUFFT_INVALID_PLAN;
        p = it->second;
    }
    if (p.type != want) return CUFFT_INVALID_TYPE;
    if (!p.auto_alloc && (!p.work || !nd_emu_is_device_range(p.work, p.work_size))) return CUFFT_INVALID_VALUE;
    const bool c2c = p.type == CUFFT_C2C || p.type == CUFFT_Z2Z;
    if (c2c && direction != CUFFT_FORWARD && direction != CUFFT_INVERSE) return CUFFT_INVALID_VALUE;
    if (!idata || !odata) return CUFFT_INVALID_VALUE;
    const size_t ib = (size_t)span(p.nin, p.istride, p.idist, p.batch) * in_size(p.type);
    const size_t ob = (size_t)span(p.nout, p.ostride, p.odist, p.batch) * out_size(p.type);
    if (!nd_emu_is_device_range(idata, ib) || !nd_emu_is_device_range(odata, ob)) return CUFFT_INVALID_VALUE;
    if (idata == odata) {
        if (!c2c) return CUFFT_NOT_IMPLEMENTED;
        if (p.istride != p.ostride || (p.batch > 1 && p.idist != p.odist)) return CUFFT_INVALID_VALUE;
    } else {
        const uintptr_t i0 = (uintptr_t)idata, o0 = (uintptr_t)odata;
        if (i0 < o0 + ob && o0 < i0 + ib) return CUFFT_INVALID_VALUE;
    }
    fft_job *j = new (std::nothrow) fft_job();
    if (!j) return CUFFT_ALLOC_FAILED;
    j->p = p;
    j->work = p.auto_alloc ? nullptr : p.work;
    j->sign = c2c ? direction : real_in(p.type) ? -1 : 1;
    j->in = idata;
    j->out = odata;
    j->eng = nd__fft_plan_get(p.n, dbl_type(p.type));
    if (!j->eng) {
        delete j;
        return CUFFT_ALLOC_FAILED;
    }
    if (!nd_emu_stream_valid(p.stream)) {
        drop_job(j);
        return CUFFT_EXEC_FAILED;
    }
    if (nd_emu_enqueue_owned(p.stream, run_job, j, drop_job) != cudaSuccess) return CUFFT_EXEC_FAILED; // dropped
    return CUFFT_SUCCESS;
}

} // namespace

extern "C" {

cufftResult cufftCreate(cufftHandle *plan)
{
    if (!plan) return CUFFT_INVALID_VALUE;
    plan_rec p = plan_rec();
    p.auto_alloc = true;
    std::lock_guard<std::mutex> lk(mu);
    try {
        plans[next_handle] = p;
    } catch (const std::bad_alloc &) {
        return CUFFT_ALLOC_FAILED;
    }
    *plan = next_handle++;
    return CUFFT_SUCCESS;
}

cufftResult cufftSetAutoAllocation(cufftHandle plan, int autoAllocate)
{
    std::lock_guard<std::mutex> lk(mu);
    auto it = plans.find(plan);
    if (it == plans.end()) return CUFFT_INVALID_PLAN;
    if (it->second.made) return CUFFT_INVALID_VALUE; // only before the plan is made
    it->second.auto_alloc = autoAllocate != 0;
    return CUFFT_SUCCESS;
}

cufftResult cufftSetWorkArea(cufftHandle plan, void *workArea)
{
    std::lock_guard<std::mutex> lk(mu);
    auto it = plans.find(plan);
    if (it == plans.end() || !it->second.made) return CUFFT_INVALID_PLAN;
    if (it->second.auto_alloc) return CUFFT_INVALID_VALUE; // the stand-in keeps cuFFT's own
    it->second.work = workArea;
    return CUFFT_SUCCESS;
}

cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                              int ostride, int odist, cufftType type, int batch, size_t *workSize)
{
    if (!n) return CUFFT_INVALID_VALUE;
    {
        std::lock_guard<std::mutex> lk(mu);
        auto it = plans.find(plan);
        if (it == plans.end() || it->second.made) return CUFFT_INVALID_PLAN;
    }
    if (!valid_type(type)) return CUFFT_INVALID_TYPE;
    if (rank != 1) return CUFFT_NOT_IMPLEMENTED;
    if (n[0] < 1 || batch < 1) return CUFFT_INVALID_SIZE;
    plan_rec p;
    p.type = type;
    p.n = n[0];
    p.nin = type == CUFFT_C2R || type == CUFFT_Z2D ? p.n / 2 + 1 : p.n;
    p.nout = type == CUFFT_R2C || type == CUFFT_D2Z ? p.n / 2 + 1 : p.n;
    p.batch = batch;
    p.stream = nullptr;
    if (inembed && onembed) {
        if (istride < 1 || ostride < 1 || (batch > 1 && (idist < 1 || odist < 1))) return CUFFT_INVALID_VALUE;
        p.istride = istride, p.idist = batch > 1 ? idist : 0;
        p.ostride = ostride, p.odist = batch > 1 ? odist : 0;
    } else { // the basic layout: contiguous transforms, one after the other
        p.istride = 1, p.idist = p.nin;
        p.ostride = 1, p.odist = p.nout;
    }
    if (span(p.nin, p.istride, p.idist, p.batch) > INT_MAX || span(p.nout, p.ostride, p.odist, p.batch) > INT_MAX)
        return CUFFT_INVALID_SIZE;
    p.made = true;
    p.work_size = (size_t)p.batch * (size_t)p.n * 16;
    p.work = nullptr;
    std::lock_guard<std::mutex> lk(mu);
    auto it = plans.find(plan);
    if (it == plans.end()) return CUFFT_INVALID_PLAN;
    p.auto_alloc = it->second.auto_alloc;
    if (p.auto_alloc && cudaMalloc(&p.work, p.work_size) != cudaSuccess) {
        (void)cudaGetLastError();
        return CUFFT_ALLOC_FAILED;
    }
    it->second = p;
    if (workSize) *workSize = p.work_size;
    return CUFFT_SUCCESS;
}

cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                          int ostride, int odist, cufftType type, int batch)
{
    if (!plan || !n) return CUFFT_INVALID_VALUE;
    cufftHandle h;
    cufftResult r = cufftCreate(&h);
    if (r != CUFFT_SUCCESS) return r;
    size_t ws = 0;
    r = cufftMakePlanMany(h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, &ws);
    if (r != CUFFT_SUCCESS) {
        std::lock_guard<std::mutex> lk(mu);
        plans.erase(h);
        return r;
    }
    *plan = h;
    return CUFFT_SUCCESS;
}

cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream)
{
    std::lock_guard<std::mutex> lk(mu);
    auto it = plans.find(plan);
    if (it == plans.end()) return CUFFT_INVALID_PLAN;
    it->second.stream = stream;
    return CUFFT_SUCCESS;
}

cufftResult cufftDestroy(cufftHandle plan)
{
    void *own = nullptr;
    {
        std::lock_guard<std::mutex> lk(mu);
        auto it = plans.find(plan);
        if (it == plans.end()) return CUFFT_INVALID_PLAN;
        if (it->second.auto_alloc) own = it->second.work;
        plans.erase(it);
    }
    if (own && cudaFree(own) != cudaSuccess) (void)cudaGetLastError(); // waits, as cuFFT's
    return CUFFT_SUCCESS;
}

cufftResult cufftGetVersion(int *version)
{
    if (!version) return CUFFT_INVALID_VALUE;
    *version = CUFFT_VERSION;
    return CUFFT_SUCCESS;
}

cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction)
{
    return submit(plan, CUFFT_C2C, idata, odata, direction);
}
cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction)
{
    return submit(plan, CUFFT_Z2Z, idata, odata, direction);
}
cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata)
{
    return submit(plan, CUFFT_R2C, idata, odata, CUFFT_FORWARD);
}
cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata)
{
    return submit(plan, CUFFT_D2Z, idata, odata, CUFFT_FORWARD);
}
cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata)
{
    return submit(plan, CUFFT_C2R, idata, odata, CUFFT_INVERSE);
}
cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata)
{
    return submit(plan, CUFFT_Z2D, idata, odata, CUFFT_INVERSE);
}

} // extern "C"
