/*
 * Run-time compiled elementwise kernels on the CPU (the slot kernel_ew,
 * contract in src/shared/kernel_slots.h): the generated C unit is
 * compiled by the system C compiler into a shared object for the running
 * CPU, loaded with dlopen, cached in the process (by key, so that two
 * kernels with one body share the code) and on disk (src/core/kcache.h),
 * and run over the thread pool.
 *
 * The compiler: $ND_CC, else cc, found on PATH. Flags: -O3 -march=native
 * (the code never leaves this machine's cache: the key holds the CPU)
 * -ffp-contract=off (no FMA contraction: a*b+c rounds twice, as the
 * library's own ops do) -fno-math-errno -fopenmp-simd (the element loop
 * is `omp simd`) -fPIC -shared. Its output goes to a file, never to the
 * terminal; a failure comes back in the status's message.
 *
 * The key: the unit, the embedded headers it includes, the flags, the
 * compiler (resolved path, size and modification time: a compiler update
 * recompiles without running the compiler to ask its version) and the
 * CPU (model name and the library's CPU path).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/kcache.h"
#include "cpu.h"
#include "shared/kernel_slots.h"

extern char **environ;

typedef void (*kjit_range_fn)(const nd_k_args *a, int64_t begin, int64_t end);

/* Loaded code, by key, for the process (never unloaded). */
typedef struct kjit_code {
    struct kjit_code *next;
    char key[ND_KCACHE_KEY_HEX + 1];
    kjit_range_fn fn;
} kjit_code;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static kjit_code *g_codes;

static const char *const kjit_flags[] = {"-std=c11",       "-O3",          "-march=native", "-ffp-contract=off",
                                         "-fno-math-errno", "-fopenmp-simd", "-fPIC",         "-shared",
                                         "-w",              NULL};

/* The compiler's resolved path, or false (then msg says what is missing). */
static bool find_compiler(char *path, size_t cap, const char **name)
{
    const char *cc = getenv("ND_CC");
    if (!cc || !*cc) cc = "cc";
    *name = cc;
    char cand[PATH_MAX];
    if (strchr(cc, '/')) {
        if (access(cc, X_OK) != 0) return false;
        snprintf(cand, sizeof cand, "%s", cc);
    } else {
        const char *p = getenv("PATH");
        if (!p || !*p) p = "/usr/local/bin:/usr/bin:/bin";
        bool found = false;
        while (*p && !found) {
            const char *e = strchr(p, ':');
            const size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n > 0 && n + strlen(cc) + 2 < sizeof cand) {
                memcpy(cand, p, n);
                cand[n] = '/';
                strcpy(cand + n + 1, cc);
                found = access(cand, X_OK) == 0;
            }
            p += n + (e ? 1 : 0);
        }
        if (!found) return false;
    }
    /* run as found: a wrapper such as ccache's cc link looks at its own
     * name (the key resolves the link, src/cpu/kjit.c key_text) */
    snprintf(path, cap, "%s", cand);
    return true;
}

/* "model name" of /proc/cpuinfo (once). */
static char g_cpu_model[128];
static pthread_once_t g_cpu_once = PTHREAD_ONCE_INIT;
static void read_cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *c = strchr(line, ':');
        const char *m = c ? c + 1 : line;
        const size_t n = strlen(m) < sizeof g_cpu_model - 1 ? strlen(m) : sizeof g_cpu_model - 1;
        memcpy(g_cpu_model, m, n);
        g_cpu_model[n] = '\0';
        break;
    }
    if (f) fclose(f);
}

/* Everything the code depends on, as one text: the cache key's input. */
static char *key_text(const char *src, const char *ccpath)
{
    pthread_once(&g_cpu_once, read_cpu_model);
    char real[PATH_MAX];
    if (!realpath(ccpath, real)) snprintf(real, sizeof real, "%s", ccpath);
    struct stat st;
    memset(&st, 0, sizeof st);
    stat(real, &st);
    size_t cap = strlen(src) + strlen(ccpath) + strlen(real) + 1024;
    for (int h = 0; h < nd__kernel_header_count; h++) cap += strlen(nd__kernel_header_texts[h]) + 64;
    char *t = nd__malloc(cap);
    if (!t) return NULL;
    size_t len = (size_t)snprintf(t, cap, "ndgpu-kjit-1\ncc %s %s %lld %lld\ncpu %s %s\nflags", ccpath, real,
                                  (long long)st.st_size, (long long)st.st_mtime, g_cpu_model,
                                  nd__cpu_isa_name(nd__cpu_isa()));
    for (int f = 0; kjit_flags[f]; f++) len += (size_t)snprintf(t + len, cap - len, " %s", kjit_flags[f]);
    for (int h = 0; h < nd__kernel_header_count; h++)
        len += (size_t)snprintf(t + len, cap - len, "\n== %s\n%s", nd__kernel_header_names[h], nd__kernel_header_texts[h]);
    snprintf(t + len, cap - len, "\n== unit\n%s", src);
    return t;
}

/* dir + "/" + name into out[PATH_MAX] (the scratch directory's name is
 * short: nothing is cut). */
static void pjoin(char *out, const char *dir, const char *name)
{
    const size_t a = strlen(dir), b = strlen(name);
    if (a + b + 2 > PATH_MAX) {
        out[0] = '\0';
        return;
    }
    memcpy(out, dir, a);
    out[a] = '/';
    memcpy(out + a + 1, name, b + 1);
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    const size_t n = strlen(text);
    const bool ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0) && ok;
}

/* Remove the scratch directory (its files and its shared/ folder). */
static void remove_dir(const char *dir)
{
    char p[PATH_MAX];
    const char *const files[] = {"unit.c", "k.so", "log", NULL};
    for (int i = 0; files[i]; i++) {
        pjoin(p, dir, files[i]);
        unlink(p);
    }
    for (int h = 0; h < nd__kernel_header_count; h++) {
        pjoin(p, dir, nd__kernel_header_names[h]);
        unlink(p);
    }
    pjoin(p, dir, "shared");
    rmdir(p);
    rmdir(dir);
}

/* The compiler's output: the first lines, for a message. */
static void read_log(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    const size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    if (n == cap - 1 && cap > 16) strcpy(buf + cap - 16, "\n[...]");
}

/* Compile src in dir into dir/k.so. */
static nd_status compile(const nd_k_call *c, const char *dir, const char *ccpath)
{
    char p[PATH_MAX], so[PATH_MAX], log[PATH_MAX], inc[PATH_MAX + 2];
    pjoin(p, dir, "shared");
    if (mkdir(p, 0700) != 0) return nd__err(ND_ERR_BACKEND, c->func, "cannot create %s: %s", p, strerror(errno));
    for (int h = 0; h < nd__kernel_header_count; h++) {
        pjoin(p, dir, nd__kernel_header_names[h]);
        if (!write_file(p, nd__kernel_header_texts[h]))
            return nd__err(ND_ERR_BACKEND, c->func, "cannot write %s", p);
    }
    pjoin(p, dir, "unit.c");
    if (!write_file(p, c->src)) return nd__err(ND_ERR_BACKEND, c->func, "cannot write %s", p);
    pjoin(so, dir, "k.so");
    pjoin(log, dir, "log");
    memcpy(inc, "-I", 2);
    memcpy(inc + 2, dir, strlen(dir) + 1);
    const char *argv[24];
    int a = 0;
    argv[a++] = ccpath;
    for (int f = 0; kjit_flags[f]; f++) argv[a++] = kjit_flags[f];
    argv[a++] = inc;
    argv[a++] = "-o";
    argv[a++] = so;
    argv[a++] = p;
    argv[a++] = "-lm";
    argv[a] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    const int e = posix_spawn(&pid, ccpath, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0) return nd__err(ND_ERR_UNSUPPORTED, c->func, "cannot run the C compiler %s: %s", ccpath, strerror(e));
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) return ND_OK;
    char msg[2048];
    read_log(log, msg, sizeof msg);
    return nd__err(ND_ERR_INVALID, c->func, "kernel '%s' does not compile (%s):\n%s", c->name, ccpath, msg);
}

/* dlopen path and find nd_k_range. */
static kjit_range_fn load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return NULL;
    kjit_range_fn fn;
    void *sym = dlsym(h, "nd_k_range");
    memcpy(&fn, &sym, sizeof fn);
    if (!fn) dlclose(h);
    return fn;
}

static kjit_range_fn find_loaded(const char *key)
{
    for (const kjit_code *k = g_codes; k; k = k->next)
        if (strcmp(k->key, key) == 0) return k->fn;
    return NULL;
}

/* The code of c->src: loaded already, from the disk cache, or compiled. */
static nd_status code_of(const nd_k_call *c, kjit_range_fn *out)
{
    char ccpath[PATH_MAX];
    const char *ccname;
    if (!find_compiler(ccpath, sizeof ccpath, &ccname))
        return nd__err(ND_ERR_UNSUPPORTED, c->func,
                       "kernel '%s': no C compiler: '%s' was not found (install gcc, or name one in ND_CC)", c->name,
                       ccname);
    char *kt = key_text(c->src, ccpath);
    if (!kt) return nd__err(ND_ERR_NOMEM, c->func, "out of memory");
    char key[ND_KCACHE_KEY_HEX + 1];
    nd__kcache_key(kt, strlen(kt), key);
    nd__free(kt);
    pthread_mutex_lock(&g_mu);
    kjit_range_fn fn = find_loaded(key);
    nd_status st = ND_OK;
    char path[PATH_MAX];
    if (!fn && nd__kcache_path(key, "so", path, sizeof path)) fn = load(path);
    if (!fn) {
        char dir[PATH_MAX];
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/ndgpu-kernel-XXXXXX", tmp && *tmp == '/' && strlen(tmp) < 256 ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            st = nd__err(ND_ERR_BACKEND, c->func, "cannot create a directory for the compiler: %s", strerror(errno));
        } else {
            st = compile(c, dir, ccpath);
            if (!st) {
                char so[PATH_MAX];
                pjoin(so, dir, "k.so");
                if (nd__kcache_store_file(key, "so", so) && nd__kcache_path(key, "so", path, sizeof path))
                    fn = load(path);
                if (!fn) fn = load(so); /* no disk cache: from the scratch file */
                if (!fn)
                    st = nd__err(ND_ERR_BACKEND, c->func, "kernel '%s': the compiled code does not load: %s", c->name,
                                 dlerror());
            }
            remove_dir(dir);
        }
    }
    if (fn && !find_loaded(key)) {
        kjit_code *k = nd__malloc(sizeof *k); /* kept for the process, like the loaded code */
        if (k) {
            memcpy(k->key, key, sizeof k->key);
            k->fn = fn;
            k->next = g_codes;
            g_codes = k;
        }
    }
    pthread_mutex_unlock(&g_mu);
    *out = fn;
    return st;
}

typedef struct {
    kjit_range_fn fn;
    const nd_k_args *a;
} kjit_job;

static void kjit_range(void *ctx, int64_t begin, int64_t end)
{
    const kjit_job *j = ctx;
    j->fn(j->a, begin, end);
}

nd_status nd__cpu_kernel_ew(nd_k_call *c)
{
    kjit_range_fn fn;
    void *h = __atomic_load_n(c->handle, __ATOMIC_ACQUIRE);
    memcpy(&fn, &h, sizeof fn);
    if (!fn) {
        const nd_status st = code_of(c, &fn);
        if (st) return st;
        memcpy(&h, &fn, sizeof h);
        __atomic_store_n(c->handle, h, __ATOMIC_RELEASE);
    }
    if (c->ordered) {
        fn(c->args, 0, c->args->n);
    } else {
        kjit_job j = {fn, c->args};
        nd__parallel_for(c->args->n, c->cost, kjit_range, &j);
    }
    return ND_OK;
}
