/* The generator object, shared by the files of src/random/. */
#ifndef ND_RANDOM_IMPL_H
#define ND_RANDOM_IMPL_H
#include <stdint.h>

struct nd_rng {
    uint64_t seed;
    uint64_t offset; /* in 128-bit Philox blocks */
};

#endif
