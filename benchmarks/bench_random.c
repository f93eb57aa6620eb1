/* bench_random - 1e7 draws of the random distributions of
 * src/shared/philox_dist.h through the public API (NumPy:
 * numpy.random.Generator(numpy.random.Philox(seed)).<dist>(params, size)):
 * gamma (Marsaglia-Tsang, shape 2.5; boosted from shape 1.5, shape 0.5), binomial
 * (inversion: n 20, p 0.3; BTPE: n 1000, p 0.3), Poisson (inversion: lam 5;
 * PTRS: lam 100), exponential and beta. The values differ from NumPy's (other
 * streams), so no checksum is compared with NumPy's (the record carries
 * ours): each case is checked once on the sample mean (within 6 standard errors of the distribution's mean); the
 * timed calls write into an existing output. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 10000000

typedef struct dist_case {
    const char *op;   /* NumPy's Generator method */
    nd_dtype dtype;   /* float64 or int64, as NumPy returns */
    double a, b;      /* parameters */
    double mean, var; /* of the distribution */
    const char *note;
} dist_case;

static const dist_case CASES[] = {
    {"gamma", ND_FLOAT64, 2.5, 1.0, 2.5, 2.5, "Marsaglia-Tsang"},
    {"gamma", ND_FLOAT64, 0.5, 1.0, 0.5, 0.5, "boosted"},
    {"binomial", ND_INT64, 20, 0.3, 6.0, 4.2, "inversion"},
    {"binomial", ND_INT64, 1000, 0.3, 300.0, 210.0, "BTPE"},
    {"poisson", ND_INT64, 5.0, 0, 5.0, 5.0, "inversion"},
    {"poisson", ND_INT64, 100.0, 0, 100.0, 100.0, "PTRS"},
    {"exponential", ND_FLOAT64, 1.0, 0, 1.0, 1.0, ""},
    {"beta", ND_FLOAT64, 2.0, 5.0, 2.0 / 7, 10.0 / 392, "two gammas"},
};
#define NCASES ((int)(sizeof CASES / sizeof *CASES))

typedef struct rcall {
    const dist_case *d;
    nd_rng *rng;
    nd_device dev;
    nd_array *out;
} rcall;

static int draw(void *p)
{
    rcall *c = p;
    const dist_case *d = c->d;
    const int64_t n = N;
    if (!strcmp(d->op, "gamma")) return nd_random_gamma(&c->out, c->rng, d->dtype, 1, &n, d->a, d->b, c->dev);
    if (!strcmp(d->op, "binomial"))
        return nd_random_binomial(&c->out, c->rng, d->dtype, 1, &n, (int64_t)d->a, d->b, c->dev);
    if (!strcmp(d->op, "poisson")) return nd_random_poisson(&c->out, c->rng, d->dtype, 1, &n, d->a, c->dev);
    if (!strcmp(d->op, "exponential")) return nd_random_exponential(&c->out, c->rng, d->dtype, 1, &n, d->a, c->dev);
    return nd_random_beta(&c->out, c->rng, d->dtype, 1, &n, d->a, d->b, c->dev);
}

static void run_case(const bench_case *c)
{
    const dist_case *d = &CASES[c->op];
    bench_record r;
    bench_record_init(&r, "random", c);
    snprintf(r.op, sizeof r.op, "%s", d->op);
    snprintf(r.layout, sizeof r.layout, "%s", d->note[0] ? d->note : "contig");
    int64_t n = N;
    bench_fmt_shape(r.shape, sizeof r.shape, 1, &n);
    if (!strcmp(d->op, "poisson") || !strcmp(d->op, "exponential"))
        snprintf(r.call, sizeof r.call, "{\"fn\": \"random\", \"dist\": \"%s\", \"args\": [%.17g], \"n\": %d}", d->op,
                 d->a, N);
    else if (!strcmp(d->op, "binomial"))
        snprintf(r.call, sizeof r.call, "{\"fn\": \"random\", \"dist\": \"%s\", \"args\": [%d, %.17g], \"n\": %d}",
                 d->op, (int)d->a, d->b, N);
    else
        snprintf(r.call, sizeof r.call, "{\"fn\": \"random\", \"dist\": \"%s\", \"args\": [%.17g, %.17g], \"n\": %d}",
                 d->op, d->a, d->b, N);
    snprintf(r.note, sizeof r.note, "%s", d->note);
    r.ninputs = 0;
    rcall call = {.d = d, .dev = c->dev};
    int s = nd_rng_create(&call.rng, 12345);
    if (s == ND_OK) s = draw(&call);
    if (s != ND_OK) bench_fail_nd(&r, d->op, s);
    if (s == ND_OK) r.bytes = (double)nd_nbytes(call.out);
    double *got = NULL;
    if (s == ND_OK && bench_verify() && (got = bench_fetch(call.out, &r))) {
        long double sum = 0;
        for (int64_t i = 0; i < n; i++) sum += got[i];
        double mean = (double)(sum / n), tol = 6 * sqrt(d->var / (double)n);
        if (!(fabs(mean - d->mean) <= tol)) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "sample mean %.6g, the distribution's %.6g (tolerance %.2g)", mean,
                     d->mean, tol);
        } else {
            /* our values' checksum (NumPy's differ: its twin gives none to compare) */
            bench_checksum(got, n, r.checksum);
            r.has_checksum = true;
        }
    }
    free(got);
    if (r.status == BS_OK) {
        s = bench_measure(draw, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, d->op, s);
    }
    bench_emit(&r);
    nd_release(call.out);
    nd_rng_destroy(call.rng);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_random",
               "1e7 draws: gamma, binomial, Poisson (both algorithms of each), exponential, beta.");
    for (int dv = 0; dv < bench_num_devices(); dv++)
        for (int i = 0; i < NCASES; i++) {
            const dist_case *d = &CASES[i];
            bench_case c = {.op = i, .dtype = d->dtype, .dev = bench_device(dv)};
            snprintf(c.key, sizeof c.key, "%s/%s/%d/%s/%s", d->op, nd_dtype_name(d->dtype), N,
                     d->note[0] ? d->note : "contig", bench_dev_name(c.dev));
            bench_add_case(&c);
        }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
