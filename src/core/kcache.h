/*
 * The compiled-kernel cache on disk (src/core/kcache.c): what the run-time
 * compilers produce (a shared object from the system C compiler for the
 * CPU, a CUBIN or PTX image from NVRTC for a GPU) is kept between processes
 * so that a kernel compiles once per machine, not once per process.
 *
 * Where: $ND_KERNEL_CACHE_DIR, else $XDG_CACHE_HOME/ndgpu/kernels, else
 * $HOME/.cache/ndgpu/kernels; created with mode 0700 on first store.
 * ND_KERNEL_CACHE=0 turns the disk cache off (every process compiles
 * again; the in-memory caches of the callers still work). A directory
 * that is not the user's own, or that others may write to, is not used:
 * a cached shared object is loaded into the process, so its directory
 * must be as private as the program itself.
 *
 * Entries: <key>.<ext>, the artefact's bytes followed by a trailer (magic,
 * length, checksum of the bytes, key). A read checks all of it and removes
 * an entry that fails (truncated, corrupt, another key's, another
 * format's), so the caller compiles again. Stores write a private
 * temporary file in the directory and rename it into place: several
 * processes compiling the same kernel at once each publish a whole entry,
 * the last rename wins, readers never see a partial one. ELF loaders
 * ignore bytes after the image, so a cached shared object is loaded from
 * its entry directly (nd__kcache_path).
 *
 * The cache is best effort: a failure to store is not an error of the
 * kernel that was compiled.
 */
#ifndef ND_CORE_KCACHE_H
#define ND_CORE_KCACHE_H
#include <stdbool.h>
#include <stddef.h>

#include "core/internal.h"

/* Length of a key in hex, without the terminating NUL. */
#define ND_KCACHE_KEY_HEX 32

/* Whether the disk cache is on (ND_KERNEL_CACHE is not "0" and a usable
 * directory is named). The variables are read on every call, so a
 * program may change them between compilations. */
ND_INTERNAL bool nd__kcache_enabled(void);
/* The cache directory (created when missing), or NULL when the disk cache
 * is off or the directory is unusable. */
ND_INTERNAL const char *nd__kcache_dir(void);
/* The 128-bit key of text (everything the artefact depends on: source,
 * options, compiler identity, target) as 32 hex digits and a NUL. Not a
 * cryptographic hash: the directory is private, the key only names. */
ND_INTERNAL void nd__kcache_key(const char *text, size_t len, char hex[ND_KCACHE_KEY_HEX + 1]);
/* The verified entry (key, ext) read whole: true with *blob (nd__malloc,
 * the caller frees with nd__free) and *len, the artefact without its
 * trailer; false when there is none, the disk cache is off, or the entry
 * failed verification (then it is removed). */
ND_INTERNAL bool nd__kcache_read(const char *hex, const char *ext, void **blob, size_t *len);
/* The path of the verified entry (key, ext) in path[cap], for loaders that
 * need a file (dlopen); false as for nd__kcache_read. */
ND_INTERNAL bool nd__kcache_path(const char *hex, const char *ext, char *path, size_t cap);
/* Store len bytes of blob as entry (key, ext); true when the entry is in
 * place. */
ND_INTERNAL bool nd__kcache_store(const char *hex, const char *ext, const void *blob, size_t len);
/* Store the file at src as entry (key, ext) (its bytes, then the trailer);
 * true when the entry is in place. */
ND_INTERNAL bool nd__kcache_store_file(const char *hex, const char *ext, const char *src);
#endif
