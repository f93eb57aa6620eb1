/* The fuzz targets' input reader: bytes taken one at a time from the
 * libFuzzer input, zeros once it is exhausted (so that every program the
 * input describes is complete). */
#ifndef NDGPU_FUZZ_READER_H
#define NDGPU_FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const uint8_t *p;
    size_t n;
} reader;

static inline unsigned u8(reader *r)
{
    if (!r->n) return 0;
    r->n--;
    return *r->p++;
}

/* 8 bytes, big-endian, as an int64 (any bit pattern) */
static inline int64_t raw64(reader *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | u8(r);
    return (int64_t)v;
}

#endif
