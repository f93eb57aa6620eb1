/* Thread-local error messages and status names. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"

static _Thread_local char nd_errbuf[1024];

const char *nd_last_error(void) { return nd_errbuf; }

void nd__clear_error(void) { nd_errbuf[0] = '\0'; }

/* "func: message" into this thread's buffer: the one formatter behind the
 * library's internal nd__err and the exported nd_set_error. */
static nd_status nd_verr(nd_status code, const char *func, const char *fmt, va_list ap)
{
    int n = snprintf(nd_errbuf, sizeof nd_errbuf, "%s: ", func ? func : "libndgpu");
    if (n < 0 || (size_t)n >= sizeof nd_errbuf) return code;
    vsnprintf(nd_errbuf + n, sizeof nd_errbuf - (size_t)n, fmt, ap);
    return code;
}

nd_status nd__err(nd_status code, const char *func, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nd_verr(code, func, fmt, ap);
    va_end(ap);
    return code;
}

nd_status nd_set_error(nd_status code, const char *func, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nd_verr(code, func, fmt, ap);
    va_end(ap);
    return code;
}

nd_status nd__err_prefix(nd_status code, const char *func)
{
    char tmp[sizeof nd_errbuf];
    size_t flen = strlen(func);
    /* already prefixed by this function: keep as is */
    if (strncmp(nd_errbuf, func, flen) == 0 && nd_errbuf[flen] == ':') return code;
    memcpy(tmp, nd_errbuf, sizeof tmp);
    size_t n = flen + 2 < sizeof nd_errbuf ? flen + 2 : sizeof nd_errbuf - 1;
    memcpy(nd_errbuf, func, n - 2 < flen ? n - 2 : flen);
    memcpy(nd_errbuf + n - 2, ": ", 2);
    size_t rest = strnlen(tmp, sizeof tmp - 1);
    if (rest > sizeof nd_errbuf - 1 - n) rest = sizeof nd_errbuf - 1 - n;
    memcpy(nd_errbuf + n, tmp, rest);
    nd_errbuf[n + rest] = '\0';
    return code;
}

char *nd__fmt_shape(char *buf, size_t cap, int ndim, const int64_t *shape)
{
    size_t n = 0;
    if (cap == 0) return buf;
    buf[0] = '\0';
    n += (size_t)snprintf(buf + n, cap - n, "(");
    for (int i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? "," : "", (long long)shape[i]);
    if (n < cap) n += (size_t)snprintf(buf + n, cap - n, ndim == 1 ? ",)" : ")");
    return buf;
}

const char *nd_status_name(nd_status s)
{
    switch (s) {
    case ND_OK: return "ND_OK";
    case ND_ERR_INVALID: return "ND_ERR_INVALID";
    case ND_ERR_SHAPE: return "ND_ERR_SHAPE";
    case ND_ERR_DTYPE: return "ND_ERR_DTYPE";
    case ND_ERR_DEVICE: return "ND_ERR_DEVICE";
    case ND_ERR_NOMEM: return "ND_ERR_NOMEM";
    case ND_ERR_BACKEND: return "ND_ERR_BACKEND";
    case ND_ERR_IO: return "ND_ERR_IO";
    case ND_ERR_UNSUPPORTED: return "ND_ERR_UNSUPPORTED";
    case ND_ERR_INTERNAL: return "ND_ERR_INTERNAL";
    }
    return "ND_ERR_UNKNOWN";
}

void nd__remove_failed_output(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode)) remove(path);
}
