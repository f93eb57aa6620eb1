/*
 * The emulated GPU's NVRTC (tests/emu/nvrtc.h). nvrtcCompileProgram writes
 * the CUDA source behind a small CUDA header (kShim below) into a private
 * temporary directory and compiles it for the host with the system C++
 * compiler ($ND_EMU_RTC_CXX, else g++) into a shared object; the "CUBIN" is
 * that object behind an nd_emu_rtc_header. tests/emu/rtc_library_emu.cpp
 * loads it (cudaLibraryLoadData) and launches its kernels on the emulated
 * device's streams, in order with the library's own work.
 *
 * What the header gives a kernel (docs/kernels.md lists it):
 *  - __global__, __device__, __host__, __forceinline__, __launch_bounds__,
 *    __restrict__, __align__; threadIdx, blockIdx, blockDim, gridDim,
 *    warpSize;
 *  - __shared__ (static: per block) and extern __shared__ (dynamic, up to
 *    48 KiB), __syncthreads(): a source that names __syncthreads runs each
 *    block's threads as fibers (tests/emu/emu_device.h), so the barrier
 *    counts as on a GPU; other sources run a block's threads one after
 *    another;
 *  - atomicAdd/Sub/Exch/Min/Max/CAS/And/Or/Xor on 32- and 64-bit integers,
 *    atomicAdd/Exch/CAS on float and double (real atomics: blocks run in
 *    parallel), __threadfence*;
 *  - the C math library (sinf, expf, ...), min/max, __ldg, rsqrt(f),
 *    float2/float4/int2/int4/double2 with make_*, printf.
 * Warp shuffles, votes, cooperative groups, textures, half types and the
 * CUDA headers (#include <cuda_fp16.h> ...) are not there: such a source is
 * a compile error on the emulated device (the log says what is missing).
 *
 * Kernels are found by reading the source: every `__global__` function
 * declared extern "C" (alone or in an extern "C" { } block) and not a
 * template gets an entry point that unpacks cudaLaunchKernel's argument
 * array with the parameter types of the kernel itself. A kernel outside
 * extern "C" has no entry point, as its name is mangled on a GPU.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "nvrtc.h"

extern char **environ;

namespace {

const char *kShim = R"SHIM(// the emulated GPU's CUDA header (tests/emu/nvrtc_emu.cpp)
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <climits>
#include <cfloat>
#include <math.h>
#include <stdint.h>
#include <type_traits>
#include <utility>
struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern "C" {
struct nd_rtc_hooks_t {
    uint3 (*thread_idx)(void);
    uint3 (*block_idx)(void);
    uint3 (*block_dim)(void);
    uint3 (*grid_dim)(void);
    void (*syncthreads)(void);
};
__attribute__((visibility("default"))) nd_rtc_hooks_t nd_rtc_hooks;
}
alignas(16) static thread_local unsigned char nd_rtc_dyn_smem[48 * 1024];
#define threadIdx (nd_rtc_hooks.thread_idx())
#define blockIdx (nd_rtc_hooks.block_idx())
#define blockDim (nd_rtc_hooks.block_dim())
#define gridDim (nd_rtc_hooks.grid_dim())
#define warpSize 32
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __shared__ static thread_local
#define __constant__ static
#define __syncthreads() (nd_rtc_hooks.syncthreads())
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_system() __atomic_thread_fence(__ATOMIC_SEQ_CST)
namespace nd_rtc {
template <class T> struct id { typedef T type; };
template <class T, class F> inline T cas_loop(T *p, F f)
{
    T old, nv;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do nv = f(old);
    while (!__atomic_compare_exchange(p, &old, &nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return old;
}
}
template <class T> inline T atomicAdd(T *p, typename nd_rtc::id<T>::type v)
{
    if constexpr (std::is_integral<T>::value) return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    else return nd_rtc::cas_loop(p, [v](T o) { return (T)(o + v); });
}
template <class T> inline T atomicSub(T *p, typename nd_rtc::id<T>::type v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
template <class T> inline T atomicAnd(T *p, typename nd_rtc::id<T>::type v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <class T> inline T atomicOr(T *p, typename nd_rtc::id<T>::type v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> inline T atomicXor(T *p, typename nd_rtc::id<T>::type v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
template <class T> inline T atomicExch(T *p, typename nd_rtc::id<T>::type v)
{
    T old;
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
    return old;
}
template <class T> inline T atomicMin(T *p, typename nd_rtc::id<T>::type v)
{
    return nd_rtc::cas_loop(p, [v](T o) { return v < o ? v : o; });
}
template <class T> inline T atomicMax(T *p, typename nd_rtc::id<T>::type v)
{
    return nd_rtc::cas_loop(p, [v](T o) { return v > o ? v : o; });
}
template <class T> inline T atomicCAS(T *p, typename nd_rtc::id<T>::type cmp, typename nd_rtc::id<T>::type v)
{
    __atomic_compare_exchange(p, &cmp, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}
template <class A, class B> inline auto min(A a, B b) -> decltype(a < b ? a : b) { return b < a ? b : a; }
template <class A, class B> inline auto max(A a, B b) -> decltype(a < b ? a : b) { return a < b ? b : a; }
template <class T> inline T __ldg(const T *p) { return *p; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) double2 { double x, y; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }
namespace nd_rtc {
template <class T> using arg_t = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
template <class... P, std::size_t... I> inline void call(void (*f)(P...), void **a, std::index_sequence<I...>)
{
    f(*static_cast<arg_t<P> *>(a[I])...);
}
template <class... P> inline void entry(void (*f)(P...), void **a) { call(f, a, std::index_sequence_for<P...>{}); }
template <class... P> inline int sizes(void (*)(P...), unsigned *out)
{
    const unsigned s[] = {(unsigned)sizeof(arg_t<P>)..., 0u};
    for (std::size_t i = 0; i < sizeof...(P); i++) out[i] = s[i];
    return (int)sizeof...(P);
}
}
)SHIM";

struct program {
    std::string src, name, log;
    std::vector<char> image;
};

bool ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// The source with comments and string/char literals blanked (same length),
// for scanning.
std::string blank(const std::string &s)
{
    std::string r = s;
    size_t i = 0, n = s.size();
    while (i < n) {
        if (s.compare(i, 2, "//") == 0) {
            while (i < n && s[i] != '\n') r[i++] = ' ';
        } else if (s.compare(i, 2, "/*") == 0) {
            size_t e = s.find("*/", i + 2);
            e = e == std::string::npos ? n : e + 2;
            for (; i < e; i++)
                if (r[i] != '\n') r[i] = ' ';
        } else if (s[i] == '"' || s[i] == '\'') {
            char q = s[i++];
            while (i < n && s[i] != q && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < n) r[i++] = ' ';
                r[i++] = ' ';
            }
            i++;
        } else {
            i++;
        }
    }
    return r;
}

// A word at position i of t (identifier boundaries on both sides).
bool word_at(const std::string &t, size_t i, const char *w)
{
    size_t n = strlen(w);
    return t.compare(i, n, w) == 0 && (i == 0 || !ident_char(t[i - 1])) && (i + n >= t.size() || !ident_char(t[i + n]));
}

// extern "C" followed (after blanks) at position i of the original source
// s: the length of `extern "C"`, else 0.
size_t extern_c_at(const std::string &s, const std::string &t, size_t i)
{
    if (!word_at(t, i, "extern")) return 0;
    size_t j = i + 6;
    while (j < s.size() && isspace((unsigned char)s[j])) j++;
    return s.compare(j, 3, "\"C\"") == 0 ? j + 3 - i : 0;
}

// The names of the extern "C" __global__ functions of s, and whether s uses
// __syncthreads.
void scan_kernels(const std::string &s, std::vector<std::string> *names, bool *sync)
{
    const std::string t = blank(s);
    *sync = t.find("__syncthreads") != std::string::npos;
    int depth = 0;
    std::vector<int> c_blocks; // brace depths of open extern "C" { blocks
    bool c_pending = false;    // extern "C" seen, its declaration or block not yet ended
    size_t stmt_start = 0;     // where the current declaration began
    for (size_t i = 0; i < t.size(); i++) {
        char c = t[i];
        if (size_t n = extern_c_at(s, t, i)) {
            size_t j = i + n;
            while (j < t.size() && isspace((unsigned char)t[j])) j++;
            if (j < t.size() && t[j] == '{') {
                c_blocks.push_back(depth);
                depth++;
                i = j;
                stmt_start = j + 1;
                continue;
            }
            c_pending = true;
            i += n - 1;
            continue;
        }
        if (c == '{' || c == '}' || c == ';') {
            if (c == '{') depth++;
            if (c == '}') {
                depth--;
                if (!c_blocks.empty() && c_blocks.back() == depth) c_blocks.pop_back();
            }
            c_pending = false;
            stmt_start = i + 1;
        } else if (word_at(t, i, "__global__")) {
            const bool at_c_level = !c_blocks.empty() && depth == c_blocks.back() + 1;
            const bool is_c = (c_pending || at_c_level);
            const bool templ = t.substr(stmt_start, i - stmt_start).find("template") != std::string::npos;
            // the name: the identifier before the first '(' that is not __launch_bounds__'s
            size_t j = i + 10;
            std::string last;
            while (j < t.size() && t[j] != ';' && t[j] != '{') {
                if (ident_char(t[j])) {
                    size_t k = j;
                    while (k < t.size() && ident_char(t[k])) k++;
                    last = t.substr(j, k - j);
                    j = k;
                    continue;
                }
                if (t[j] == '(') {
                    if (last == "__launch_bounds__") { // skip its parentheses
                        int d = 0;
                        for (; j < t.size(); j++) {
                            if (t[j] == '(') d++;
                            else if (t[j] == ')' && --d == 0) break;
                        }
                        j++;
                        last.clear();
                        continue;
                    }
                    break;
                }
                j++;
            }
            if (is_c && !templ && !last.empty() && j < t.size() && t[j] == '(') names->push_back(last);
            i += 9;
        }
    }
}

// extern __shared__ T name[]; -> a pointer to the block's dynamic shared
// memory (per OS thread, where a block's threads all run).
std::string rewrite_dynamic_shared(const std::string &s)
{
    std::string out = s, t = blank(s);
    size_t pos = 0;
    while ((pos = t.find("extern", pos)) != std::string::npos) {
        if (!word_at(t, pos, "extern")) {
            pos++;
            continue;
        }
        size_t j = pos + 6;
        while (j < t.size() && isspace((unsigned char)t[j])) j++;
        if (!word_at(t, j, "__shared__")) {
            pos = j;
            continue;
        }
        size_t semi = t.find(';', j);
        size_t br = t.find('[', j);
        if (semi == std::string::npos || br == std::string::npos || br > semi) {
            pos = j;
            continue;
        }
        size_t ne = br;
        while (ne > j && isspace((unsigned char)t[ne - 1])) ne--;
        size_t nb = ne;
        while (nb > j && ident_char(t[nb - 1])) nb--;
        std::string name = s.substr(nb, ne - nb);
        std::string type = s.substr(j + 10, nb - (j + 10));
        std::string repl = "static thread_local " + type + " *const " + name + " = reinterpret_cast<" + type +
                           " *>(nd_rtc_dyn_smem);";
        // keep the line count: the replacement has no newline, pad with the
        // newlines of the text replaced
        size_t nl = 0;
        for (size_t k = pos; k <= semi; k++) nl += s[k] == '\n';
        repl += std::string(nl, '\n');
        out.replace(pos, semi + 1 - pos, repl);
        t.replace(pos, semi + 1 - pos, std::string(repl.size(), ' '));
        pos += repl.size();
    }
    return out;
}

bool write_file(const std::string &path, const std::string &text)
{
    FILE *f = fopen(path.c_str(), "wb");
    if (!f) return false;
    bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
    return (fclose(f) == 0) && ok;
}

bool read_file(const std::string &path, std::string *out)
{
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) return false;
    char buf[65536];
    size_t n;
    out->clear();
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
    fclose(f);
    return true;
}

void remove_dir(const std::string &dir)
{
    if (DIR *d = opendir(dir.c_str())) {
        while (struct dirent *e = readdir(d))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink((dir + "/" + e->d_name).c_str());
        closedir(d);
    }
    rmdir(dir.c_str());
}

// Run argv with stdout and stderr into log_path; the exit status (-1: not run).
int run(const std::vector<std::string> &args, const std::string &log_path)
{
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// NVRTC options: -D, -U, -I go to the host compiler; the ones that only
// steer code generation are accepted and ignored; others are invalid.
bool host_option(const std::string &o, std::vector<std::string> *cmd, std::string *bad)
{
    static const char *ignored[] = {"-arch", "--gpu-architecture", "-std", "--std", "-G", "--device-debug", "-lineinfo",
                                    "--generate-line-info", "-use_fast_math", "--use_fast_math", "-fmad",
                                    "--fmad", "-ftz", "--ftz", "-prec-div", "--prec-div", "-prec-sqrt",
                                    "--prec-sqrt", "-maxrregcount", "--maxrregcount", "-default-device",
                                    "--device-as-default-execution-space", "-rdc", "--relocatable-device-code",
                                    "-w", "--disable-warnings", "-restrict", "--restrict", "-extra-device-vectorization",
                                    "--extra-device-vectorization", "-dopt", "--dopt", "-Xptxas"};
    if (o.compare(0, 2, "-D") == 0 || o.compare(0, 2, "-U") == 0 || o.compare(0, 2, "-I") == 0) {
        if (o.size() == 2) {
            *bad = o + " (give its value in the same option, e.g. -DN=4)";
            return false;
        }
        cmd->push_back(o);
        return true;
    }
    if (o.compare(0, 15, "--define-macro=") == 0) {
        cmd->push_back("-D" + o.substr(15));
        return true;
    }
    if (o.compare(0, 15, "--include-path=") == 0) {
        cmd->push_back("-I" + o.substr(15));
        return true;
    }
    std::string key = o.substr(0, o.find('='));
    for (const char *ig : ignored)
        if (key == ig) return true;
    *bad = o;
    return false;
}

// ND_EMU_RTC_KEEP=DIR: every program compiled is also written to
// DIR/<hash>.cu with its options, one a line, in DIR/<hash>.opts and its
// outcome (".ok" or ".fail", empty files), so that tools/nvrtc-check.py
// can compile the very same sources with the real NVRTC (which needs no
// GPU): what the emulated device accepted must compile for a real one.
void keep_source(const program *p, int nopt, const char *const *opts, nvrtcResult r)
{
    const char *keep = getenv("ND_EMU_RTC_KEEP");
    if (!keep || !keep[0]) return;
    std::string o;
    for (int i = 0; i < nopt; i++) (o += opts[i] ? opts[i] : "") += '\n';
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : p->src) h = (h ^ c) * 1099511628211ull;
    for (unsigned char c : o) h = (h ^ c) * 1099511628211ull;
    char name[32];
    snprintf(name, sizeof name, "/%016llx", (unsigned long long)h);
    const std::string base = std::string(keep) + name;
    mkdir(keep, 0700);
    write_file(base + ".cu", p->src);
    write_file(base + ".opts", o);
    write_file(base + (r == NVRTC_SUCCESS ? ".ok" : ".fail"), "");
}

nvrtcResult compile(program *p, int nopt, const char *const *opts)
{
    const char *cxx = getenv("ND_EMU_RTC_CXX");
    std::vector<std::string> cmd = {cxx && cxx[0] ? cxx : "g++", "-std=c++17", "-O1", "-fPIC", "-shared",
                                    "-fvisibility=hidden", "-fno-exceptions", "-w"};
    for (int i = 0; i < nopt; i++) {
        std::string bad;
        if (!opts[i] || !host_option(opts[i], &cmd, &bad)) {
            p->log = "nvrtc error: invalid option: " + (opts[i] ? bad : std::string("(null)")) + "\n";
            return NVRTC_ERROR_INVALID_OPTION;
        }
    }
    std::vector<std::string> names;
    bool sync = false;
    scan_kernels(p->src, &names, &sync);
    std::string unit = kShim;
    unit += "#line 1 \"" + p->name + "\"\n";
    unit += rewrite_dynamic_shared(p->src);
    unit += "\n#line 1 \"<kernel entry points>\"\n";
    for (const std::string &n : names)
        unit += "extern \"C\" __attribute__((visibility(\"default\"))) void nd_rtc_entry_" + n +
                "(void **a) { nd_rtc::entry(" + n + ", a); }\n"
                "extern \"C\" __attribute__((visibility(\"default\"))) int nd_rtc_sizes_" + n +
                "(unsigned *s) { return nd_rtc::sizes(" + n + ", s); }\n";

    const char *tmp = getenv("TMPDIR");
    std::string dir = std::string(tmp && tmp[0] ? tmp : "/tmp") + "/ndgpu-nvrtc-XXXXXX";
    if (!mkdtemp(&dir[0])) {
        p->log = "nvrtc (emulated): cannot make a temporary directory " + dir + "\n";
        return NVRTC_ERROR_INTERNAL_ERROR;
    }
    const std::string cu = dir + "/k.cpp", so = dir + "/k.so", log = dir + "/log";
    nvrtcResult r = NVRTC_SUCCESS;
    if (!write_file(cu, unit)) {
        p->log = "nvrtc (emulated): cannot write " + cu + "\n";
        r = NVRTC_ERROR_INTERNAL_ERROR;
    } else {
        cmd.push_back(cu);
        cmd.push_back("-o");
        cmd.push_back(so);
        int rc = run(cmd, log);
        std::string text, obj;
        read_file(log, &text);
        if (rc != 0) {
            p->log = rc < 0 ? "nvrtc (emulated): cannot run " + cmd[0] + " (ND_EMU_RTC_CXX names another)\n" : text;
            r = rc < 0 ? NVRTC_ERROR_INTERNAL_ERROR : NVRTC_ERROR_COMPILATION;
        } else if (!read_file(so, &obj) || obj.empty()) {
            p->log = "nvrtc (emulated): no shared object from " + cmd[0] + "\n";
            r = NVRTC_ERROR_INTERNAL_ERROR;
        } else {
            p->log = text;
            nd_emu_rtc_header h;
            memcpy(h.magic, ND_EMU_RTC_MAGIC, 8);
            h.version = 1;
            h.flags = sync ? ND_EMU_RTC_SYNC : 0u;
            h.length = obj.size();
            p->image.resize(sizeof h + obj.size());
            memcpy(p->image.data(), &h, sizeof h);
            memcpy(p->image.data() + sizeof h, obj.data(), obj.size());
        }
    }
    remove_dir(dir);
    keep_source(p, nopt, opts, r);
    return r;
}

} // namespace

extern "C" {
const char *nvrtcGetErrorString(nvrtcResult r)
{
    switch (r) {
    case NVRTC_SUCCESS: return "NVRTC_SUCCESS";
    case NVRTC_ERROR_OUT_OF_MEMORY: return "NVRTC_ERROR_OUT_OF_MEMORY";
    case NVRTC_ERROR_PROGRAM_CREATION_FAILURE: return "NVRTC_ERROR_PROGRAM_CREATION_FAILURE";
    case NVRTC_ERROR_INVALID_INPUT: return "NVRTC_ERROR_INVALID_INPUT";
    case NVRTC_ERROR_INVALID_PROGRAM: return "NVRTC_ERROR_INVALID_PROGRAM";
    case NVRTC_ERROR_INVALID_OPTION: return "NVRTC_ERROR_INVALID_OPTION";
    case NVRTC_ERROR_COMPILATION: return "NVRTC_ERROR_COMPILATION";
    case NVRTC_ERROR_BUILTIN_OPERATION_FAILURE: return "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE";
    case NVRTC_ERROR_INTERNAL_ERROR: return "NVRTC_ERROR_INTERNAL_ERROR";
    default: return "NVRTC_ERROR unknown";
    }
}
nvrtcResult nvrtcVersion(int *major, int *minor)
{
    if (!major || !minor) return NVRTC_ERROR_INVALID_INPUT;
    *major = 13;
    *minor = 0;
    return NVRTC_SUCCESS;
}
static const int kArchs[] = {75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
nvrtcResult nvrtcGetNumSupportedArchs(int *n)
{
    if (!n) return NVRTC_ERROR_INVALID_INPUT;
    *n = (int)(sizeof kArchs / sizeof kArchs[0]);
    return NVRTC_SUCCESS;
}
nvrtcResult nvrtcGetSupportedArchs(int *a)
{
    if (!a) return NVRTC_ERROR_INVALID_INPUT;
    memcpy(a, kArchs, sizeof kArchs);
    return NVRTC_SUCCESS;
}
nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int numHeaders,
                               const char *const *headers, const char *const *includeNames)
{
    (void)headers, (void)includeNames;
    if (!prog || !src || numHeaders < 0) return NVRTC_ERROR_INVALID_INPUT;
    if (numHeaders > 0) return NVRTC_ERROR_INVALID_INPUT; // the emulated NVRTC takes no in-memory headers
    program *p = new (std::nothrow) program;
    if (!p) return NVRTC_ERROR_OUT_OF_MEMORY;
    p->src = src;
    p->name = name && name[0] ? name : "default_program";
    for (char &c : p->name)
        if (c == '"' || c == '\\' || c == '\n') c = '_';
    *prog = (nvrtcProgram)p;
    return NVRTC_SUCCESS;
}
nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
{
    if (!prog) return NVRTC_ERROR_INVALID_INPUT;
    delete (program *)*prog;
    *prog = nullptr;
    return NVRTC_SUCCESS;
}
nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char *const *options)
{
    if (!prog) return NVRTC_ERROR_INVALID_PROGRAM;
    if (numOptions < 0 || (numOptions > 0 && !options)) return NVRTC_ERROR_INVALID_INPUT;
    program *p = (program *)prog;
    p->image.clear();
    return compile(p, numOptions, options);
}
static nvrtcResult image_size(nvrtcProgram prog, size_t *n)
{
    if (!prog) return NVRTC_ERROR_INVALID_PROGRAM;
    if (!n) return NVRTC_ERROR_INVALID_INPUT;
    *n = ((program *)prog)->image.size();
    return NVRTC_SUCCESS;
}
static nvrtcResult image(nvrtcProgram prog, char *out)
{
    if (!prog) return NVRTC_ERROR_INVALID_PROGRAM;
    if (!out) return NVRTC_ERROR_INVALID_INPUT;
    const std::vector<char> &im = ((program *)prog)->image;
    if (!im.empty()) memcpy(out, im.data(), im.size());
    return NVRTC_SUCCESS;
}
nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *n) { return image_size(prog, n); }
nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *out) { return image(prog, out); }
nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *n) { return image_size(prog, n); }
nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *out) { return image(prog, out); }
nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *n)
{
    if (!prog) return NVRTC_ERROR_INVALID_PROGRAM;
    if (!n) return NVRTC_ERROR_INVALID_INPUT;
    *n = ((program *)prog)->log.size() + 1;
    return NVRTC_SUCCESS;
}
nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *out)
{
    if (!prog) return NVRTC_ERROR_INVALID_PROGRAM;
    if (!out) return NVRTC_ERROR_INVALID_INPUT;
    const std::string &l = ((program *)prog)->log;
    memcpy(out, l.c_str(), l.size() + 1);
    return NVRTC_SUCCESS;
}
}
