// Run-time compilation of CUDA source: the rtc slots of the descriptor
// (contract: src/core/rtc_slot.h), used by the raw kernels (src/kernel/raw.c).
//
// NVRTC is loaded at run time with dlopen (ND_NVRTC_LIBRARY, else
// libnvrtc.so.<runtime major>, else libnvrtc.so), so that the library links
// and runs on machines without it; a missing NVRTC is ND_ERR_UNSUPPORTED
// naming libnvrtc. The emulated GPU links its stand-in instead
// (ND_RTC_NVRTC_LINKED, src/cuda/cuda_seam.h).
//
// A program is compiled for the device's exact architecture: CUBIN for
// sm_XY when NVRTC lists it among its supported architectures, else PTX for
// the newest architecture it knows below the device's (the driver finishes
// it). The image is loaded with the runtime's library management
// (cudaLibraryLoadData, cudaLibraryGetKernel, cudaLaunchKernel on a
// cudaKernel_t; CUDA 12 and later), so the library needs no driver API.
//
// Caches: every image compiled or read in this process stays in memory,
// with its library loaded per device (never unloaded: kernel handles stay
// valid for the life of the process, as CuPy's memoised modules); on disk
// through src/core/kcache.h. The key is the text of everything the image
// depends on: the source, the options, the architecture, the NVRTC version.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "core/rtc_slot.h"
extern "C" {
#include "core/kcache.h"
}
#include <nvrtc.h>

#define ND_RTC_MAX_DEVICES 64
#define ND_RTC_LOG_MAX 760 // bytes of NVRTC's log kept in a message (nd_last_error holds 1024)

struct nd_rtc_module {
    cudaLibrary_t lib;
};

namespace {

// ---- NVRTC, loaded once ------------------------------------------------
struct nvrtc_api {
    bool ok;
    char why[320];
    int major, minor;
    int archs[64];
    int narchs; // 0: the NVRTC cannot list them (sm_XY is tried as it is)
    decltype(&nvrtcVersion) version;
    decltype(&nvrtcGetErrorString) error_string;
    decltype(&nvrtcCreateProgram) create;
    decltype(&nvrtcCompileProgram) compile;
    decltype(&nvrtcDestroyProgram) destroy;
    decltype(&nvrtcGetProgramLogSize) log_size;
    decltype(&nvrtcGetProgramLog) log;
    decltype(&nvrtcGetCUBINSize) cubin_size;
    decltype(&nvrtcGetCUBIN) cubin;
    decltype(&nvrtcGetPTXSize) ptx_size;
    decltype(&nvrtcGetPTX) ptx;
    decltype(&nvrtcGetNumSupportedArchs) num_archs;
    decltype(&nvrtcGetSupportedArchs) supported_archs;
};
nvrtc_api g_nv;
pthread_once_t g_nv_once = PTHREAD_ONCE_INIT;

#ifdef ND_RTC_NVRTC_LINKED
void nvrtc_load()
{
    g_nv.version = nvrtcVersion;
    g_nv.error_string = nvrtcGetErrorString;
    g_nv.create = nvrtcCreateProgram;
    g_nv.compile = nvrtcCompileProgram;
    g_nv.destroy = nvrtcDestroyProgram;
    g_nv.log_size = nvrtcGetProgramLogSize;
    g_nv.log = nvrtcGetProgramLog;
    g_nv.cubin_size = nvrtcGetCUBINSize;
    g_nv.cubin = nvrtcGetCUBIN;
    g_nv.ptx_size = nvrtcGetPTXSize;
    g_nv.ptx = nvrtcGetPTX;
    g_nv.num_archs = nvrtcGetNumSupportedArchs;
    g_nv.supported_archs = nvrtcGetSupportedArchs;
    g_nv.ok = true;
}
#else
template <typename F>
bool sym(void *h, F *out, const char *name)
{
    void *p = dlsym(h, name);
    memcpy(out, &p, sizeof p); // POSIX: a dlsym pointer converts to a function pointer
    return p != nullptr;
}

void nvrtc_load()
{
    const char *env = getenv("ND_NVRTC_LIBRARY");
    char soname[32];
    snprintf(soname, sizeof soname, "libnvrtc.so.%d", CUDART_VERSION / 1000);
    void *h = nullptr;
    if (env && env[0]) {
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            snprintf(g_nv.why, sizeof g_nv.why, "NVRTC (ND_NVRTC_LIBRARY=%s) cannot be loaded: %s", env, dlerror());
            return;
        }
    } else {
        h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (!h) h = dlopen("libnvrtc.so", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            snprintf(g_nv.why, sizeof g_nv.why,
                     "NVRTC not found (neither %s nor libnvrtc.so can be loaded; install the CUDA toolkit's NVRTC "
                     "or name it with ND_NVRTC_LIBRARY)",
                     soname);
            return;
        }
    }
    bool ok = sym(h, &g_nv.version, "nvrtcVersion") && sym(h, &g_nv.error_string, "nvrtcGetErrorString") &&
              sym(h, &g_nv.create, "nvrtcCreateProgram") && sym(h, &g_nv.compile, "nvrtcCompileProgram") &&
              sym(h, &g_nv.destroy, "nvrtcDestroyProgram") && sym(h, &g_nv.log_size, "nvrtcGetProgramLogSize") &&
              sym(h, &g_nv.log, "nvrtcGetProgramLog") && sym(h, &g_nv.ptx_size, "nvrtcGetPTXSize") &&
              sym(h, &g_nv.ptx, "nvrtcGetPTX");
    if (!ok) {
        snprintf(g_nv.why, sizeof g_nv.why, "the NVRTC loaded (libnvrtc) lacks nvrtcCompileProgram & co.");
        return;
    }
    // CUBIN output and the architecture list: NVRTC 11.1 / 11.2 and later
    if (!sym(h, &g_nv.cubin_size, "nvrtcGetCUBINSize") || !sym(h, &g_nv.cubin, "nvrtcGetCUBIN"))
        g_nv.cubin_size = nullptr, g_nv.cubin = nullptr;
    if (!sym(h, &g_nv.num_archs, "nvrtcGetNumSupportedArchs") ||
        !sym(h, &g_nv.supported_archs, "nvrtcGetSupportedArchs"))
        g_nv.num_archs = nullptr, g_nv.supported_archs = nullptr;
    g_nv.ok = true;
}
#endif

void nvrtc_init()
{
    nvrtc_load();
    if (!g_nv.ok) return;
    if (g_nv.version(&g_nv.major, &g_nv.minor) != NVRTC_SUCCESS) {
        g_nv.ok = false;
        snprintf(g_nv.why, sizeof g_nv.why, "libnvrtc: nvrtcVersion failed");
        return;
    }
    int n = 0;
    if (g_nv.num_archs && g_nv.num_archs(&n) == NVRTC_SUCCESS && n > 0 && n <= 64 &&
        g_nv.supported_archs(g_nv.archs) == NVRTC_SUCCESS)
        g_nv.narchs = n;
}

// ---- the caches -----------------------------------------------------------
struct image_entry {
    std::string image;                       // CUBIN or NUL-terminated PTX
    nd_rtc_module *on_dev[ND_RTC_MAX_DEVICES]; // its library loaded per device
};
std::mutex &g_mu = *new std::mutex;
std::unordered_map<std::string, image_entry *> &g_images = *new std::unordered_map<std::string, image_entry *>;
std::vector<image_entry *> &g_forgotten = *new std::vector<image_entry *>; // nd__cuda_rtc_forget_images

// The target of device dev: *arch ("sm_90" or "compute_86") and whether it
// is CUBIN.
nd_status pick_arch(int dev, char *arch, size_t cap, bool *cubin, const char *fn)
{
    int ma = 0, mi = 0;
    ND_CUDA_TRY(cudaDeviceGetAttribute(&ma, cudaDevAttrComputeCapabilityMajor, dev), fn);
    ND_CUDA_TRY(cudaDeviceGetAttribute(&mi, cudaDevAttrComputeCapabilityMinor, dev), fn);
    const int cc = ma * 10 + mi;
    bool known = g_nv.narchs == 0;
    int below = 0;
    for (int i = 0; i < g_nv.narchs; i++) {
        if (g_nv.archs[i] == cc) known = true;
        if (g_nv.archs[i] < cc && g_nv.archs[i] > below) below = g_nv.archs[i];
    }
    if (known && g_nv.cubin) {
        snprintf(arch, cap, "sm_%d", cc);
        *cubin = true;
    } else if (known || below) {
        snprintf(arch, cap, "compute_%d", known ? cc : below);
        *cubin = false;
    } else {
        return nd__err(ND_ERR_UNSUPPORTED, fn, "NVRTC %d.%d knows no architecture up to sm_%d of cuda:%d", g_nv.major,
                       g_nv.minor, cc, dev);
    }
    return ND_OK;
}

// A message with NVRTC's log (truncated to fit nd_last_error).
nd_status compile_error(nvrtcProgram p, nvrtcResult r, const char *arch, const char *fn)
{
    std::string log;
    size_t n = 0;
    if (g_nv.log_size(p, &n) == NVRTC_SUCCESS && n > 1) {
        log.resize(n);
        if (g_nv.log(p, &log[0]) != NVRTC_SUCCESS) log.clear();
        while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    }
    bool cut = log.size() > ND_RTC_LOG_MAX;
    if (cut) log.resize(ND_RTC_LOG_MAX);
    nd_status code = r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION ? ND_ERR_INVALID : ND_ERR_BACKEND;
    return nd__err(code, fn, "NVRTC could not compile the source for %s (%s)%s%s%s", arch, g_nv.error_string(r),
                   log.empty() ? "" : ":\n", log.c_str(), cut ? "\n[log truncated]" : "");
}

// Compile src for arch into *image.
nd_status compile(const nd_rtc_source *src, const char *arch, bool cubin, std::string *image, const char *fn)
{
    nvrtcProgram p = nullptr;
    nvrtcResult r = g_nv.create(&p, src->text, src->name ? src->name : "kernel.cu", 0, nullptr, nullptr);
    if (r != NVRTC_SUCCESS)
        return nd__err(r == NVRTC_ERROR_OUT_OF_MEMORY ? ND_ERR_NOMEM : ND_ERR_BACKEND, fn, "nvrtcCreateProgram: %s",
                       g_nv.error_string(r));
    std::string archopt = std::string("-arch=") + arch;
    const char **opts = (const char **)nd__malloc(sizeof(char *) * (size_t)(src->noptions + 2));
    if (!opts) {
        g_nv.destroy(&p);
        return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    }
    int no = 0;
    opts[no++] = archopt.c_str();
    opts[no++] = "-std=c++17";
    for (int i = 0; i < src->noptions; i++) opts[no++] = src->options[i];
    r = g_nv.compile(p, no, opts);
    nd__free(opts);
    nd_status st = ND_OK;
    if (r != NVRTC_SUCCESS) {
        st = compile_error(p, r, arch, fn);
    } else {
        size_t n = 0;
        r = cubin ? g_nv.cubin_size(p, &n) : g_nv.ptx_size(p, &n);
        if (r == NVRTC_SUCCESS && n > 0) {
            image->resize(n);
            r = cubin ? g_nv.cubin(p, &(*image)[0]) : g_nv.ptx(p, &(*image)[0]);
        }
        if (r != NVRTC_SUCCESS || n == 0)
            st = nd__err(ND_ERR_BACKEND, fn, "NVRTC produced no %s image (%s)", cubin ? "CUBIN" : "PTX",
                         g_nv.error_string(r));
    }
    g_nv.destroy(&p);
    return st;
}

nd_status load(const std::string &image, int dev, nd_rtc_module **out, const char *fn)
{
    nd_device_guard g(dev);
    cudaLibrary_t lib = nullptr;
    cudaError_t e = cudaLibraryLoadData(&lib, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e != cudaSuccess) return nd_cuda_status(e, fn, "cudaLibraryLoadData");
    nd_rtc_module *m = new (std::nothrow) nd_rtc_module{lib};
    if (!m) {
        (void)cudaLibraryUnload(lib);
        return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    }
    *out = m;
    return ND_OK;
}

} // namespace

extern "C" nd_status nd__cuda_rtc_compile(nd_rtc_module **mod, int dev, const nd_rtc_source *src, int *origin,
                                          const char *fn)
{
    pthread_once(&g_nv_once, nvrtc_init);
    if (!g_nv.ok) return nd__err(ND_ERR_UNSUPPORTED, fn, "%s", g_nv.why);
    if (dev < 0 || dev >= ND_RTC_MAX_DEVICES) return nd__err(ND_ERR_DEVICE, fn, "cuda:%d: too many devices", dev);
    char arch[32];
    bool cubin = false;
    nd_status st = pick_arch(dev, arch, sizeof arch, &cubin, fn);
    if (st) return st;

    // the key: everything the image depends on
    std::string text;
    char head[96];
#ifdef ND_RTC_NVRTC_LINKED
    const char *which = "linked"; // the emulated GPU's stand-in: its images are host code
#else
    const char *which = "dlopen";
#endif
    snprintf(head, sizeof head, "ndgpu-rtc 1\nnvrtc %d.%d %s\n%s\n-std=c++17\n", g_nv.major, g_nv.minor, which, arch);
    text += head;
    for (int i = 0; i < src->noptions; i++) (text += src->options[i]) += '\n';
    text += '\0';
    text += src->name ? src->name : "kernel.cu";
    text += '\0';
    text += src->text;
    char hex[ND_KCACHE_KEY_HEX + 1];
    nd__kcache_key(text.data(), text.size(), hex);
    const char *ext = cubin ? "cubin" : "ptx";
    const std::string key = std::string(hex) + "." + ext;

    // compiling holds the lock: one compilation of a program at a time, and
    // a second thread asking for it finds it done
    std::lock_guard<std::mutex> lk(g_mu);
    auto it = g_images.find(key);
    if (it != g_images.end() && it->second->on_dev[dev]) {
        *mod = it->second->on_dev[dev];
        *origin = ND_RTC_FROM_MEMORY;
        return ND_OK;
    }
    image_entry *e = it != g_images.end() ? it->second : nullptr;
    int from = ND_RTC_FROM_MEMORY;
    std::string image;
    if (!e) {
        void *blob = nullptr;
        size_t len = 0;
        if (nd__kcache_read(hex, ext, &blob, &len)) {
            image.assign((const char *)blob, len);
            nd__free(blob);
            from = ND_RTC_FROM_DISK;
        } else {
            if ((st = compile(src, arch, cubin, &image, fn))) return st;
            from = ND_RTC_COMPILED;
        }
    } else {
        image = e->image;
    }
    nd_rtc_module *m = nullptr;
    st = load(image, dev, &m, fn);
    if (st && from == ND_RTC_FROM_DISK) { // a verified entry the runtime refuses: compile it afresh
        image.clear();
        if ((st = compile(src, arch, cubin, &image, fn))) return st;
        from = ND_RTC_COMPILED;
        st = load(image, dev, &m, fn);
    }
    if (st) return st;
    if (from == ND_RTC_COMPILED) (void)nd__kcache_store(hex, ext, image.data(), image.size()); // best effort
    if (!e) {
        e = new (std::nothrow) image_entry();
        if (!e) return nd__err(ND_ERR_NOMEM, fn, "out of host memory"); // m stays loaded: harmless
        e->image.swap(image);
        g_images.emplace(key, e);
    }
    e->on_dev[dev] = m;
    *mod = m;
    *origin = from;
    return ND_OK;
}

extern "C" bool nd__cuda_rtc_available(char *why, size_t cap)
{
    pthread_once(&g_nv_once, nvrtc_init);
    if (!g_nv.ok && why && cap) snprintf(why, cap, "%s", g_nv.why);
    return g_nv.ok;
}

extern "C" void nd__cuda_rtc_forget_images(void)
{
    // the modules stay loaded (their handles may be held): only the lookup goes
    std::lock_guard<std::mutex> lk(g_mu);
    for (auto &kv : g_images) g_forgotten.push_back(kv.second);
    g_images.clear();
}

extern "C" nd_status nd__cuda_rtc_kernel(void **kernel, nd_rtc_module *mod, const char *name, const char *fn)
{
    cudaKernel_t k = nullptr;
    cudaError_t e = cudaLibraryGetKernel(&k, mod->lib, name);
    if (e == cudaErrorSymbolNotFound || e == cudaErrorInvalidValue || e == cudaErrorInvalidDeviceFunction) {
        (void)cudaGetLastError();
        return nd__err(ND_ERR_INVALID, fn,
                       "the module has no kernel named '%s' (a kernel must be __global__ and extern \"C\")", name);
    }
    if (e != cudaSuccess) return nd_cuda_status(e, fn, "cudaLibraryGetKernel");
    *kernel = (void *)k;
    return ND_OK;
}

extern "C" nd_status nd__cuda_rtc_launch(void *kernel, int dev, const unsigned g[3], const unsigned b[3], size_t shmem,
                                         void **args, const char *fn)
{
    dim3 grid(g[0], g[1], g[2]), block(b[0], b[1], b[2]);
    if (!nd_launch_ok(grid, block, shmem))
        return nd__err(ND_ERR_INVALID, fn,
                       "launch of grid (%u, %u, %u), block (%u, %u, %u) with %zu bytes of shared memory is beyond a "
                       "GPU's limits (every extent >= 1; block x, y <= 1024, z <= 64, x*y*z <= 1024; grid y, z <= "
                       "65535; shared memory <= 48 KiB)",
                       g[0], g[1], g[2], b[0], b[1], b[2], shmem);
    nd_device_guard gd(dev);
    cudaStream_t s = nd_stream_of(nd__current_stream(nd_cuda(dev)));
    ND_CUDA_TRY(cudaLaunchKernel((const void *)kernel, grid, block, args, shmem, s), fn);
    return ND_OK;
}
