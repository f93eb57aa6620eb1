/*
 * The emulated GPU's library management (tests/emu/cuda_runtime.h:
 * cudaLibraryLoadData, cudaLibraryGetKernel, cudaLibraryUnload) and
 * cudaLaunchKernel for the kernels of such a library: the images of the
 * NVRTC stand-in (tests/emu/nvrtc_emu.cpp), shared objects for the host.
 *
 *  - cudaLibraryLoadData checks the image's header (else
 *    cudaErrorInvalidKernelImage), writes the shared object to a private
 *    temporary file, dlopens it (then removes the file) and points its
 *    hooks (threadIdx & co., __syncthreads) at the emulated device;
 *  - cudaLibraryGetKernel finds the kernel's entry point
 *    (cudaErrorSymbolNotFound when the source has no extern "C" __global__
 *    function of that name);
 *  - cudaLaunchKernel copies the argument values (their sizes are the
 *    kernel's parameter types, read from the object) and queues the grid on
 *    the stream like every other launch (tests/emu/emu_device.h:
 *    nd_emu::launch), so the kernel runs in order with the library's work.
 *    A source that uses __syncthreads runs its blocks' threads as fibers
 *    (counting barriers); the others run a block's threads one by one.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/cuda_seam.h" // emu_device.h and nd_launch_ok
#include "nvrtc.h"

namespace {
struct u3 {
    unsigned x, y, z;
};
// The object's hooks (nvrtc_emu.cpp's kShim declares the same struct).
struct rtc_hooks {
    u3 (*thread_idx)(void);
    u3 (*block_idx)(void);
    u3 (*block_dim)(void);
    u3 (*grid_dim)(void);
    void (*syncthreads)(void);
};
u3 h_thread_idx() { return {threadIdx.x, threadIdx.y, threadIdx.z}; }
u3 h_block_idx() { return {blockIdx.x, blockIdx.y, blockIdx.z}; }
u3 h_block_dim() { return {blockDim.x, blockDim.y, blockDim.z}; }
u3 h_grid_dim() { return {gridDim.x, gridDim.y, gridDim.z}; }
void h_sync() { nd_emu::syncthreads(); }

constexpr int kMaxParams = 256;
constexpr size_t kSlot = 16; // every parameter gets a 16-byte aligned slot
} // namespace

struct nd_emu_kernel {
    void (*entry)(void **);
    int nparams;
    unsigned sizes[kMaxParams];
    bool sync;
};

struct nd_emu_library {
    void *so;
    unsigned flags;
    std::mutex mu;
    std::vector<std::pair<std::string, nd_emu_kernel *>> kernels;
};

extern "C" cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, enum cudaJitOption *jitOptions,
                                           void **jitOptionsValues, unsigned numJitOptions,
                                           enum cudaLibraryOption *libraryOptions, void **libraryOptionValues,
                                           unsigned numLibraryOptions)
{
    (void)jitOptions, (void)jitOptionsValues, (void)numJitOptions;
    (void)libraryOptions, (void)libraryOptionValues, (void)numLibraryOptions;
    cudaError_t e = nd_emu_enter();
    if (e != cudaSuccess) return e;
    if (!library || !code) {
        nd_emu_set_last_error(cudaErrorInvalidValue);
        return cudaErrorInvalidValue;
    }
    nd_emu_rtc_header h;
    memcpy(&h, code, sizeof h);
    if (memcmp(h.magic, ND_EMU_RTC_MAGIC, 8) != 0 || h.version != 1 || h.length == 0) {
        nd_emu_set_last_error(cudaErrorInvalidKernelImage);
        return cudaErrorInvalidKernelImage;
    }
    const char *tmp = getenv("TMPDIR");
    std::string path = std::string(tmp && tmp[0] ? tmp : "/tmp") + "/ndgpu-emu-lib-XXXXXX";
    int fd = mkstemp(&path[0]);
    if (fd < 0) {
        nd_emu_set_last_error(cudaErrorUnknown);
        return cudaErrorUnknown;
    }
    const char *p = (const char *)code + sizeof h;
    size_t left = h.length;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w <= 0) break;
        p += w;
        left -= (size_t)w;
    }
    close(fd);
    void *so = left == 0 ? dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
    unlink(path.c_str());
    rtc_hooks *hooks = so ? (rtc_hooks *)dlsym(so, "nd_rtc_hooks") : nullptr;
    if (!hooks) {
        if (so) dlclose(so);
        nd_emu_set_last_error(cudaErrorInvalidKernelImage);
        return cudaErrorInvalidKernelImage;
    }
    *hooks = rtc_hooks{h_thread_idx, h_block_idx, h_block_dim, h_grid_dim, h_sync};
    nd_emu_library *lib = new nd_emu_library;
    lib->so = so;
    lib->flags = h.flags;
    *library = lib;
    return cudaSuccess;
}

extern "C" cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
    if (!library) {
        nd_emu_set_last_error(cudaErrorInvalidResourceHandle);
        return cudaErrorInvalidResourceHandle;
    }
    (void)cudaDeviceSynchronize(); // no kernel of it may still be queued
    for (auto &k : library->kernels) delete k.second;
    dlclose(library->so);
    delete library;
    return cudaSuccess;
}

extern "C" cudaError_t cudaLibraryGetKernel(cudaKernel_t *kernel, cudaLibrary_t library, const char *name)
{
    cudaError_t e = nd_emu_enter();
    if (e != cudaSuccess) return e;
    if (!kernel || !library || !name) {
        nd_emu_set_last_error(cudaErrorInvalidValue);
        return cudaErrorInvalidValue;
    }
    std::lock_guard<std::mutex> lk(library->mu);
    for (auto &k : library->kernels)
        if (k.first == name) {
            *kernel = k.second;
            return cudaSuccess;
        }
    const std::string n(name);
    void *entry = dlsym(library->so, ("nd_rtc_entry_" + n).c_str());
    void *sizes = dlsym(library->so, ("nd_rtc_sizes_" + n).c_str());
    if (!entry || !sizes) {
        nd_emu_set_last_error(cudaErrorSymbolNotFound);
        return cudaErrorSymbolNotFound;
    }
    nd_emu_kernel *k = new nd_emu_kernel();
    memcpy(&k->entry, &entry, sizeof entry);
    int (*get_sizes)(unsigned *);
    memcpy(&get_sizes, &sizes, sizeof sizes);
    unsigned tmp[1024];
    k->nparams = get_sizes(tmp);
    if (k->nparams > kMaxParams) {
        delete k;
        nd_emu_set_last_error(cudaErrorInvalidValue);
        return cudaErrorInvalidValue;
    }
    memcpy(k->sizes, tmp, sizeof(unsigned) * (size_t)k->nparams);
    k->sync = (library->flags & ND_EMU_RTC_SYNC) != 0;
    library->kernels.emplace_back(n, k);
    *kernel = k;
    return cudaSuccess;
}

namespace {
// One launch: the kernel and a copy of its arguments' values.
struct rtc_call {
    const nd_emu_kernel *k;
    std::shared_ptr<std::vector<unsigned char>> args;
    void operator()() const
    {
        if (k->sync) nd_emu::bs.sync_declared = true; // as ND_SYNC_KERNEL(): fiber mode, counting barriers
        void *p[kMaxParams];
        unsigned char *base = args->data();
        size_t off = 0;
        for (int i = 0; i < k->nparams; i++) {
            p[i] = base + off;
            off += (k->sizes[i] + kSlot - 1) / kSlot * kSlot;
        }
        k->entry(p);
    }
};
} // namespace

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t s)
{
    cudaError_t e = nd_emu_enter();
    if (e != cudaSuccess) return e;
    const nd_emu_kernel *k = (const nd_emu_kernel *)func;
    if (!k || (k->nparams > 0 && !args)) {
        nd_emu_set_last_error(cudaErrorInvalidValue);
        return cudaErrorInvalidValue;
    }
    if (!nd_launch_ok(grid, block, shmem)) {
        nd_emu_set_last_error(cudaErrorInvalidConfiguration);
        return cudaErrorInvalidConfiguration;
    }
    size_t total = 0;
    for (int i = 0; i < k->nparams; i++) total += (k->sizes[i] + kSlot - 1) / kSlot * kSlot;
    auto blob = std::make_shared<std::vector<unsigned char>>(total + kSlot);
    size_t off = 0;
    for (int i = 0; i < k->nparams; i++) {
        memcpy(blob->data() + off, args[i], k->sizes[i]);
        off += (k->sizes[i] + kSlot - 1) / kSlot * kSlot;
    }
    return nd_emu::launch(rtc_call{k, blob}, grid, block, shmem, s);
}
