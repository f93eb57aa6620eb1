/* The compiled-kernel cache on disk (rules in src/core/kcache.h). */
#include "core/kcache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KC_MAGIC "NDKCACH1"
#define KC_MAX_ENTRY ((size_t)1 << 30) /* no artefact is this big: a larger file is not ours */

typedef struct {
    char magic[8];
    uint64_t len; /* of the artefact before the trailer */
    uint64_t sum; /* checksum of those bytes */
    char key[ND_KCACHE_KEY_HEX];
} kc_trailer;

/* FNV-1a over bytes, then a splitmix64 finish so that every input bit
 * reaches every output bit. */
static uint64_t kc_hash(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    h ^= (uint64_t)n;
    h += 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

void nd__kcache_key(const char *text, size_t len, char hex[ND_KCACHE_KEY_HEX + 1])
{
    const uint64_t a = kc_hash(text, len, 0), b = kc_hash(text, len, 0x5851f42d4c957f2dull);
    snprintf(hex, ND_KCACHE_KEY_HEX + 1, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}

static bool kc_off(void)
{
    const char *e = getenv("ND_KERNEL_CACHE");
    return e && strcmp(e, "0") == 0;
}

/* mkdir -p with mode 0700 for the parts it creates. */
static bool kc_mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        const bool ok = mkdir(path, 0700) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok) return false;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

static _Thread_local char kc_dir_buf[PATH_MAX];

const char *nd__kcache_dir(void)
{
    if (kc_off()) return NULL;
    const char *d = getenv("ND_KERNEL_CACHE_DIR");
    int n;
    if (d && *d) {
        n = snprintf(kc_dir_buf, sizeof kc_dir_buf, "%s", d);
    } else if ((d = getenv("XDG_CACHE_HOME")) && *d == '/') {
        n = snprintf(kc_dir_buf, sizeof kc_dir_buf, "%s/ndgpu/kernels", d);
    } else if ((d = getenv("HOME")) && *d == '/') {
        n = snprintf(kc_dir_buf, sizeof kc_dir_buf, "%s/.cache/ndgpu/kernels", d);
    } else {
        return NULL;
    }
    if (n <= 0 || (size_t)n >= sizeof kc_dir_buf - 64) return NULL; /* room for "/<key>.<ext>" */
    while (n > 1 && kc_dir_buf[n - 1] == '/') kc_dir_buf[--n] = '\0';
    if (!kc_mkdirs(kc_dir_buf)) return NULL;
    struct stat st;
    /* private: a directory, ours, writable by nobody else */
    if (stat(kc_dir_buf, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH)))
        return NULL;
    return kc_dir_buf;
}

bool nd__kcache_enabled(void) { return nd__kcache_dir() != NULL; }

static bool kc_valid_name(const char *hex, const char *ext)
{
    if (!hex || strlen(hex) != ND_KCACHE_KEY_HEX || !ext || !*ext || strlen(ext) > 8) return false;
    for (const char *p = hex; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return false;
    for (const char *p = ext; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))) return false;
    return true;
}

static bool kc_entry_path(const char *hex, const char *ext, char *path, size_t cap)
{
    if (!kc_valid_name(hex, ext)) return false;
    const char *dir = nd__kcache_dir();
    if (!dir) return false;
    const int n = snprintf(path, cap, "%s/%s.%s", dir, hex, ext);
    return n > 0 && (size_t)n < cap;
}

/* The whole file at path, or NULL (too big, unreadable, not a regular file). */
static void *kc_slurp(const char *path, size_t *len)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size <= KC_MAX_ENTRY) {
        const size_t n = (size_t)st.st_size;
        buf = nd__malloc(n);
        size_t got = 0;
        while (buf && got < n) {
            const ssize_t r = read(fd, buf + got, n - got);
            if (r <= 0) {
                if (r < 0 && errno == EINTR) continue;
                break;
            }
            got += (size_t)r;
        }
        if (buf && got != n) {
            nd__free(buf);
            buf = NULL;
        }
        *len = n;
    }
    close(fd);
    return buf;
}

/* Whether buf[0..n) is a whole entry of key hex; *len the artefact's length. */
static bool kc_verify(const char *buf, size_t n, const char *hex, size_t *len)
{
    if (n < sizeof(kc_trailer)) return false;
    kc_trailer t;
    memcpy(&t, buf + n - sizeof t, sizeof t);
    if (memcmp(t.magic, KC_MAGIC, sizeof t.magic) != 0 || t.len != n - sizeof t ||
        memcmp(t.key, hex, ND_KCACHE_KEY_HEX) != 0 || t.sum != kc_hash(buf, (size_t)t.len, 0))
        return false;
    *len = (size_t)t.len;
    return true;
}

/* Read and verify the entry at path: its bytes (trailer included) in
 * *buf, or false after removing an entry that failed. */
static bool kc_load(const char *path, const char *hex, void **buf, size_t *len)
{
    size_t n = 0;
    char *b = kc_slurp(path, &n);
    if (!b) return false;
    if (!kc_verify(b, n, hex, len)) {
        nd__free(b);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
        return false;
    }
    *buf = b;
    return true;
}

bool nd__kcache_read(const char *hex, const char *ext, void **blob, size_t *len)
{
    char path[PATH_MAX];
    if (!blob || !len || !kc_entry_path(hex, ext, path, sizeof path)) return false;
    return kc_load(path, hex, blob, len);
}

bool nd__kcache_path(const char *hex, const char *ext, char *path, size_t cap)
{
    void *b = NULL;
    size_t n = 0;
    if (!path || !kc_entry_path(hex, ext, path, cap) || !kc_load(path, hex, &b, &n)) return false;
    nd__free(b);
    return true;
}

static bool kc_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        const ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

bool nd__kcache_store(const char *hex, const char *ext, const void *blob, size_t len)
{
    char path[PATH_MAX], tmp[PATH_MAX];
    if (!blob || len == 0 || len > KC_MAX_ENTRY || !kc_entry_path(hex, ext, path, sizeof path)) return false;
    const char *dir = nd__kcache_dir();
    const int n = snprintf(tmp, sizeof tmp, "%s/.%s.%s.XXXXXX", dir, hex, ext);
    if (n <= 0 || (size_t)n >= sizeof tmp) return false;
    const int fd = mkstemp(tmp);
    if (fd < 0) return false;
    kc_trailer t;
    memcpy(t.magic, KC_MAGIC, sizeof t.magic);
    t.len = (uint64_t)len;
    t.sum = kc_hash(blob, len, 0);
    memcpy(t.key, hex, ND_KCACHE_KEY_HEX);
    bool ok = kc_write_all(fd, blob, len) && kc_write_all(fd, &t, sizeof t);
    ok = (close(fd) == 0) && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) unlink(tmp);
    return ok;
}

bool nd__kcache_store_file(const char *hex, const char *ext, const char *src)
{
    size_t n = 0;
    void *b = src ? kc_slurp(src, &n) : NULL;
    if (!b) return false;
    const bool ok = nd__kcache_store(hex, ext, b, n);
    nd__free(b);
    return ok;
}
