/* The FFT loops for one precision and one ISA path; src/cpu/fft_kernels.c
 * includes this file once per (T, path) with
 *   T     float or double, TSZ its size (4 or 8, for #if),
 *   SFX   the name suffix (f_avx512, ...),
 *   TGT   the function attribute (ND_ISA_TARGET_AVX512, ...; empty for
 *         the baseline),
 *   VB    the vector width in bytes (16 baseline, 32 AVX2, 64 AVX-512),
 *   TMPL_BASE  1 in the baseline instance, which also defines the
 *         loops that are not worth specialising (the real-transform
 *         passes).
 * Vector extensions (vector_size types, __builtin_shufflevector: GCC 12
 * and clang alike) give one body for every width. The vector of a
 * loop holds VL complex values (VB / (2 TSZ)) of adjacent lanes or of the
 * contiguous run of a Stockham stage; a one-complex vector type handles
 * the tails, so there is no scalar copy of the arithmetic. No FMA (the
 * build is ISO C: no contraction), so each path gives the same bits for
 * the same data as far as the vector width does not change the order of
 * operations, which it never does here: every value is computed by the
 * same expression whatever its lane. */

#define FFT_CAT2(a, b) a##_##b
#define FFT_CAT(a, b) FFT_CAT2(a, b)
#define FN(x) FFT_CAT(x, SFX)
#define NE (VB / TSZ)
#define VL (NE / 2)
#define INL __attribute__((always_inline)) static inline TGT

typedef T FN(vec) __attribute__((vector_size(VB)));
typedef T FN(v1) __attribute__((vector_size(2 * TSZ)));

#if NE == 2
#define SWAPI 1, 0
#define REVC 0, 1
#define DUPRE 0, 0
#define DUPIM 1, 1
#elif NE == 4
#define SWAPI 1, 0, 3, 2
#define REVC 2, 3, 0, 1
#define DUPRE 0, 0, 2, 2
#define DUPIM 1, 1, 3, 3
#elif NE == 8
#define SWAPI 1, 0, 3, 2, 5, 4, 7, 6
#define REVC 6, 7, 4, 5, 2, 3, 0, 1
#define DUPRE 0, 0, 2, 2, 4, 4, 6, 6
#define DUPIM 1, 1, 3, 3, 5, 5, 7, 7
#elif NE == 16
#define SWAPI 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14
#define REVC 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1
#define DUPRE 0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14
#define DUPIM 1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15
#else
#error "fft_tmpl.h: unsupported vector width"
#endif

/* Transpose masks: round s of a VL x VL complex transpose swaps the
 * off-diagonal s x s blocks of each pair (v[i], v[i + s]), i & s == 0:
 * lo = (a chunk 2m, b chunk 2m), hi = (a chunk 2m+1, b chunk 2m+1),
 * chunks of s complex values; b's complex c is c + VL in the shuffle. */
#define TQ_LO(s, c) ((((c) / (s)) % 2 == 0) ? (c) : ((c) - (s) + VL))
#define TQ_HI(s, c) ((((c) / (s)) % 2 == 0) ? ((c) + (s)) : ((c) + VL))
#define TQ_EL(F, s, i) ((2 * F(s, (i) / 2) + (i) % 2) % (2 * NE)) /* in range even where unused */
#if NE == 2
#define TQ_MASK(F, s) TQ_EL(F, s, 0), TQ_EL(F, s, 1)
#elif NE == 4
#define TQ_MASK(F, s) TQ_EL(F, s, 0), TQ_EL(F, s, 1), TQ_EL(F, s, 2), TQ_EL(F, s, 3)
#elif NE == 8
#define TQ_MASK(F, s)                                                                                  \
    TQ_EL(F, s, 0), TQ_EL(F, s, 1), TQ_EL(F, s, 2), TQ_EL(F, s, 3), TQ_EL(F, s, 4), TQ_EL(F, s, 5), \
        TQ_EL(F, s, 6), TQ_EL(F, s, 7)
#else
#define TQ_MASK(F, s)                                                                                  \
    TQ_EL(F, s, 0), TQ_EL(F, s, 1), TQ_EL(F, s, 2), TQ_EL(F, s, 3), TQ_EL(F, s, 4), TQ_EL(F, s, 5),      \
        TQ_EL(F, s, 6), TQ_EL(F, s, 7), TQ_EL(F, s, 8), TQ_EL(F, s, 9), TQ_EL(F, s, 10), TQ_EL(F, s, 11), \
        TQ_EL(F, s, 12), TQ_EL(F, s, 13), TQ_EL(F, s, 14), TQ_EL(F, s, 15)
#endif

/* ---- the two vector types: v (VL complex), s (one complex) ---- */
#define TY_v FN(vec)
#define TY_s FN(v1)
INL FN(vec) FN(ldv)(const T *p) { FN(vec) v; memcpy(&v, p, sizeof v); return v; }
INL FN(v1) FN(lds)(const T *p) { FN(v1) v; memcpy(&v, p, sizeof v); return v; }
INL void FN(stv)(T *p, FN(vec) v) { memcpy(p, &v, sizeof v); }
INL void FN(sts)(T *p, FN(v1) v) { memcpy(p, &v, sizeof v); }
INL FN(vec) FN(altv)(T a, T b)
{
    FN(vec) v = {0}; /* every lane is set below; gcc 12 -fsanitize=thread cannot see it (maybe-uninitialized) */
    for (int i = 0; i < NE; i++) v[i] = (i & 1) ? b : a;
    return v;
}
INL FN(v1) FN(alts)(T a, T b) { return (FN(v1)){a, b}; }
INL FN(vec) FN(swv)(FN(vec) a) { return __builtin_shufflevector(a, a, SWAPI); }
INL FN(v1) FN(sws)(FN(v1) a) { return __builtin_shufflevector(a, a, 1, 0); }
/* times -i: (re, im) -> (im, -re) */
INL FN(vec) FN(mmiv)(FN(vec) a) { return FN(swv)(a) * FN(altv)(1, -1); }
INL FN(v1) FN(mmis)(FN(v1) a) { return FN(sws)(a) * FN(alts)(1, -1); }
/* a * w for w = (wr, wi) given as WR = (wr, wr, ...), WI = (-wi, wi, ...) */
INL FN(vec) FN(cmulv)(FN(vec) a, FN(vec) wr, FN(vec) wi) { return a * wr + FN(swv)(a) * wi; }
INL FN(v1) FN(cmuls)(FN(v1) a, FN(v1) wr, FN(v1) wi) { return a * wr + FN(sws)(a) * wi; }
/* a * b, both vectors of complex values */
INL FN(vec) FN(cmulvv)(FN(vec) a, FN(vec) b)
{
    FN(vec) br = __builtin_shufflevector(b, b, DUPRE), bi = __builtin_shufflevector(b, b, DUPIM);
    return a * br + FN(swv)(a) * (bi * FN(altv)(-1, 1));
}

/* v[i] = complex values (i, 0 .. VL-1) of a VL x VL block -> v[j] =
 * (0 .. VL-1, j) */
#define TQ_ROUND(S)                                                                      \
    if (VL > (S))                                                                        \
        _Pragma("GCC unroll 16") for (int i = 0; i < VL; i++)                            \
            if (!(i & (S))) {                                                            \
                const FN(vec) a = v[i], b = v[i + (S)];                                  \
                v[i] = __builtin_shufflevector(a, b, TQ_MASK(TQ_LO, S));                 \
                v[i + (S)] = __builtin_shufflevector(a, b, TQ_MASK(TQ_HI, S));           \
            }
INL void FN(transpose)(FN(vec) *v)
{
    TQ_ROUND(4)
    TQ_ROUND(2)
    TQ_ROUND(1)
}
#undef TQ_ROUND

#define LD_v FN(ldv)
#define LD_s FN(lds)
#define ST_v FN(stv)
#define ST_s FN(sts)
#define ALT_v FN(altv)
#define ALT_s FN(alts)
#define MMI_v FN(mmiv)
#define MMI_s FN(mmis)
#define CMUL_v FN(cmulv)
#define CMUL_s FN(cmuls)
/* twiddle k (pointer wp to (re, im)) as WR/WI of both types */
#define DECL_TW(k, wp)                                                                   \
    const T w##k##re_ = (wp)[0], w##k##im_ = (wp)[1];                                    \
    const TY_v w##k##rv = ALT_v(w##k##re_, w##k##re_), w##k##iv = ALT_v(-w##k##im_, w##k##im_); \
    const TY_s w##k##rs = ALT_s(w##k##re_, w##k##re_), w##k##is = ALT_s(-w##k##im_, w##k##im_)

static const T FN(ones)[8] = {1, 0, 1, 0, 1, 0, 1, 0};

/* ------------------------------------------------------------------ */
/* Stockham stages: y[q + S (r p + k)] = w_p^k sum_j x[q + S (p + j m)] w_r^{jk}
 * for p < m, q < S (complex indices; S = stride * lanes).              */
/* ------------------------------------------------------------------ */
#define R2_BODY(K, W)                                                                    \
    for (; q + (W) <= S; q += (W)) {                                                     \
        TY_##K a0 = LD_##K(xp + 2 * q), a1 = LD_##K(xp + 2 * (q + Sm));                  \
        TY_##K b1 = a0 - a1;                                                             \
        if (twd) b1 = CMUL_##K(b1, w1r##K, w1i##K);                                      \
        ST_##K(yp + 2 * q, a0 + a1);                                                     \
        ST_##K(yp + 2 * (q + S), b1);                                                    \
    }
INL void FN(r2p)(const T *restrict xp, T *restrict yp, int64_t S, int64_t Sm, const T *w, const bool twd)
{
    DECL_TW(1, w);
    int64_t q = 0;
    R2_BODY(v, VL)
    R2_BODY(s, 1)
}
TGT static void FN(st2)(const T *restrict x, T *restrict y, int64_t S, int64_t m, const T *tw)
{
    const int64_t Sm = S * m;
    FN(r2p)(x, y, S, Sm, FN(ones), false);
    for (int64_t p = 1; p < m; p++) FN(r2p)(x + 2 * S * p, y + 4 * S * p, S, Sm, tw + 2 * p, true);
}

#define R3_BODY(K, W)                                                                    \
    for (; q + (W) <= S; q += (W)) {                                                     \
        TY_##K a0 = LD_##K(xp + 2 * q), a1 = LD_##K(xp + 2 * (q + Sm)), a2 = LD_##K(xp + 2 * (q + 2 * Sm)); \
        TY_##K t1 = a1 + a2, t2 = MMI_##K(a1 - a2) * (T)c3s;                             \
        TY_##K b0 = a0 + t1, m1 = a0 - t1 * (T)0.5;                                      \
        TY_##K b1 = m1 + t2, b2 = m1 - t2;                                               \
        if (twd) {                                                                       \
            b1 = CMUL_##K(b1, w1r##K, w1i##K);                                           \
            b2 = CMUL_##K(b2, w2r##K, w2i##K);                                           \
        }                                                                                \
        ST_##K(yp + 2 * q, b0);                                                          \
        ST_##K(yp + 2 * (q + S), b1);                                                    \
        ST_##K(yp + 2 * (q + 2 * S), b2);                                                \
    }
INL void FN(r3p)(const T *restrict xp, T *restrict yp, int64_t S, int64_t Sm, const T *w, const bool twd)
{
    const double c3s = 0.86602540378443864676372317075294; /* sin(2 pi / 3) */
    DECL_TW(1, w);
    DECL_TW(2, w + 2);
    int64_t q = 0;
    R3_BODY(v, VL)
    R3_BODY(s, 1)
}
TGT static void FN(st3)(const T *restrict x, T *restrict y, int64_t S, int64_t m, const T *tw)
{
    const int64_t Sm = S * m;
    FN(r3p)(x, y, S, Sm, FN(ones), false);
    for (int64_t p = 1; p < m; p++) FN(r3p)(x + 2 * S * p, y + 6 * S * p, S, Sm, tw + 4 * p, true);
}

#define R4_BODY(K, W)                                                                    \
    for (; q + (W) <= S; q += (W)) {                                                     \
        TY_##K a0 = LD_##K(xp + 2 * q), a1 = LD_##K(xp + 2 * (q + Sm)), a2 = LD_##K(xp + 2 * (q + 2 * Sm)), \
               a3 = LD_##K(xp + 2 * (q + 3 * Sm));                                       \
        TY_##K t0 = a0 + a2, t1 = a0 - a2, t2 = a1 + a3, t3 = MMI_##K(a1 - a3);          \
        TY_##K b0 = t0 + t2, b1 = t1 + t3, b2 = t0 - t2, b3 = t1 - t3;                   \
        if (twd) {                                                                       \
            b1 = CMUL_##K(b1, w1r##K, w1i##K);                                           \
            b2 = CMUL_##K(b2, w2r##K, w2i##K);                                           \
            b3 = CMUL_##K(b3, w3r##K, w3i##K);                                           \
        }                                                                                \
        ST_##K(yp + 2 * q, b0);                                                          \
        ST_##K(yp + 2 * (q + S), b1);                                                    \
        ST_##K(yp + 2 * (q + 2 * S), b2);                                                \
        ST_##K(yp + 2 * (q + 3 * S), b3);                                                \
    }
INL void FN(r4p)(const T *restrict xp, T *restrict yp, int64_t S, int64_t Sm, const T *w, const bool twd)
{
    DECL_TW(1, w);
    DECL_TW(2, w + 2);
    DECL_TW(3, w + 4);
    int64_t q = 0;
    R4_BODY(v, VL)
    R4_BODY(s, 1)
}
TGT static void FN(st4)(const T *restrict x, T *restrict y, int64_t S, int64_t m, const T *tw)
{
    const int64_t Sm = S * m;
    FN(r4p)(x, y, S, Sm, FN(ones), false);
    for (int64_t p = 1; p < m; p++) FN(r4p)(x + 2 * S * p, y + 8 * S * p, S, Sm, tw + 6 * p, true);
}

/* radix 5: c1 = cos(2 pi/5), c2 = cos(4 pi/5), s1 = sin(2 pi/5), s2 = sin(4 pi/5) */
#define R5_BODY(K, W)                                                                    \
    for (; q + (W) <= S; q += (W)) {                                                     \
        TY_##K a0 = LD_##K(xp + 2 * q), a1 = LD_##K(xp + 2 * (q + Sm)), a2 = LD_##K(xp + 2 * (q + 2 * Sm)), \
               a3 = LD_##K(xp + 2 * (q + 3 * Sm)), a4 = LD_##K(xp + 2 * (q + 4 * Sm));  \
        TY_##K t1 = a1 + a4, t2 = a2 + a3, t3 = a1 - a4, t4 = a2 - a3;                   \
        TY_##K m1 = a0 + t1 * (T)c1 + t2 * (T)c2, m2 = a0 + t1 * (T)c2 + t2 * (T)c1;     \
        TY_##K n1 = MMI_##K(t3 * (T)s1 + t4 * (T)s2), n2 = MMI_##K(t3 * (T)s2 - t4 * (T)s1); \
        TY_##K b0 = a0 + t1 + t2, b1 = m1 + n1, b4 = m1 - n1, b2 = m2 + n2, b3 = m2 - n2; \
        if (twd) {                                                                       \
            b1 = CMUL_##K(b1, w1r##K, w1i##K);                                           \
            b2 = CMUL_##K(b2, w2r##K, w2i##K);                                           \
            b3 = CMUL_##K(b3, w3r##K, w3i##K);                                           \
            b4 = CMUL_##K(b4, w4r##K, w4i##K);                                           \
        }                                                                                \
        ST_##K(yp + 2 * q, b0);                                                          \
        ST_##K(yp + 2 * (q + S), b1);                                                    \
        ST_##K(yp + 2 * (q + 2 * S), b2);                                                \
        ST_##K(yp + 2 * (q + 3 * S), b3);                                                \
        ST_##K(yp + 2 * (q + 4 * S), b4);                                                \
    }
INL void FN(r5p)(const T *restrict xp, T *restrict yp, int64_t S, int64_t Sm, const T *w, const bool twd)
{
    const double c1 = 0.30901699437494742410229341718282, c2 = -0.80901699437494742410229341718282,
                 s1 = 0.95105651629515357211643933337938, s2 = 0.58778525229247312916870595463907;
    DECL_TW(1, w);
    DECL_TW(2, w + 2);
    DECL_TW(3, w + 4);
    DECL_TW(4, w + 6);
    int64_t q = 0;
    R5_BODY(v, VL)
    R5_BODY(s, 1)
}
TGT static void FN(st5)(const T *restrict x, T *restrict y, int64_t S, int64_t m, const T *tw)
{
    const int64_t Sm = S * m;
    FN(r5p)(x, y, S, Sm, FN(ones), false);
    for (int64_t p = 1; p < m; p++) FN(r5p)(x + 2 * S * p, y + 10 * S * p, S, Sm, tw + 8 * p, true);
}

/* generic odd prime radix r <= FFT_MAXRAD: with w_r^e = c_e + i d_e,
 * b_k = P + i Q, b_{r-k} = P - i Q, P = a0 + sum_j c_{jk} (a_j + a_{r-j}),
 * Q = sum_j d_{jk} (a_j - a_{r-j}); i Q = -MMI(Q). rt: the r roots. */
#define RG_BODY(K, W)                                                                    \
    for (; q + (W) <= S; q += (W)) {                                                     \
        TY_##K a0 = LD_##K(xp + 2 * q), sum = a0;                                        \
        TY_##K tp[FFT_MAXRAD / 2], tm[FFT_MAXRAD / 2];                                   \
        for (int j = 1; j <= h; j++) {                                                   \
            TY_##K u = LD_##K(xp + 2 * (q + j * Sm)), v = LD_##K(xp + 2 * (q + (r - j) * Sm)); \
            tp[j - 1] = u + v;                                                           \
            tm[j - 1] = u - v;                                                           \
            sum += tp[j - 1];                                                            \
        }                                                                                \
        ST_##K(yp + 2 * q, sum);                                                         \
        for (int k = 1; k <= h; k++) {                                                   \
            TY_##K P = a0, Q = ALT_##K(0, 0);                                                \
            int e = k;                                                                   \
            for (int j = 0; j < h; j++) {                                                \
                P += tp[j] * rt[2 * e];                                                  \
                Q += tm[j] * rt[2 * e + 1];                                              \
                e += k;                                                                  \
                if (e >= r) e -= r;                                                      \
            }                                                                            \
            TY_##K iq = MMI_##K(Q), bk = P - iq, bn = P + iq;                            \
            if (twd) {                                                                   \
                const T *wk = w + 2 * (k - 1), *wn = w + 2 * (r - k - 1);                \
                bk = CMUL_##K(bk, ALT_##K(wk[0], wk[0]), ALT_##K(-wk[1], wk[1]));        \
                bn = CMUL_##K(bn, ALT_##K(wn[0], wn[0]), ALT_##K(-wn[1], wn[1]));        \
            }                                                                            \
            ST_##K(yp + 2 * (q + k * S), bk);                                            \
            ST_##K(yp + 2 * (q + (r - k) * S), bn);                                      \
        }                                                                                \
    }
INL void FN(rgp)(const T *restrict xp, T *restrict yp, int64_t S, int64_t Sm, const T *w, const T *rt, int r,
                 const bool twd)
{
    const int h = (r - 1) / 2;
    int64_t q = 0;
    RG_BODY(v, VL)
    RG_BODY(s, 1)
}
TGT static void FN(stg)(const T *restrict x, T *restrict y, int64_t S, int64_t m, const T *tw, int r)
{
    const int64_t Sm = S * m;
    const T *rt = tw + 2 * (int64_t)(r - 1) * m;
    FN(rgp)(x, y, S, Sm, NULL, rt, r, false);
    for (int64_t p = 1; p < m; p++)
        FN(rgp)(x + 2 * S * p, y + 2 * (int64_t)r * S * p, S, Sm, tw + 2 * (int64_t)(r - 1) * p, rt, r, true);
}

TGT static void *FN(run)(const fft_direct *d, void *xv, void *yv, int64_t L)
{
    T *x = xv, *y = yv;
    int64_t len = d->n, s = 1;
    const T *twb = d->tw;
    for (int i = 0; i < d->nst; i++) {
        const int r = d->rad[i];
        const int64_t m = len / r, S = s * L;
        const T *tw = twb + 2 * d->twoff[i];
        switch (r) {
        case 2: FN(st2)(x, y, S, m, tw); break;
        case 3: FN(st3)(x, y, S, m, tw); break;
        case 4: FN(st4)(x, y, S, m, tw); break;
        case 5: FN(st5)(x, y, S, m, tw); break;
        default: FN(stg)(x, y, S, m, tw, r); break;
        }
        T *t = x;
        x = y;
        y = t;
        len = m;
        s *= r;
    }
    return x;
}

/* ------------------------------------------------------------------ */
/* Data movement                                                       */
/* ------------------------------------------------------------------ */
/* rows per tile of the transposing copies */
#define TILE 16
/* rows ahead that the strided row copies prefetch */
#define PF_ROWS 8

TGT static void FN(gather)(void *dstv, const void *srcv, int64_t rows, int64_t L, int64_t sj, int64_t sl, int64_t imoff,
                           int flags)
{
    T *restrict dst = dstv;
    const T *src = srcv;
    const T sg = (flags & FFT_CONJ) ? (T)-1 : (T)1;
    if (flags & FFT_REAL) {
        for (int64_t j0 = 0; j0 < rows; j0 += TILE) {
            const int64_t jn = rows - j0 < TILE ? rows - j0 : TILE;
            for (int64_t l = 0; l < L; l++) {
                const T *s = src + j0 * sj + l * sl;
                T *d = dst + 2 * (j0 * L + l);
                for (int64_t j = 0; j < jn; j++) {
                    d[2 * j * L] = s[j * sj];
                    d[2 * j * L + 1] = 0;
                }
            }
        }
        return;
    }
    if (L == 1 && sj == 2 && imoff == 1) { /* one contiguous sequence: one long row */
        L = rows;
        rows = 1;
        sl = 2;
    }
    if (sl == 2 && imoff == 1) { /* lanes adjacent: row copies */
        const TY_v sv = ALT_v(1, sg);
        const TY_s ss = ALT_s(1, sg);
        /* rows far apart (a column block): each row is on another page,
         * where the hardware prefetchers do not follow; fetch ahead */
        const bool pf = (sj < 0 ? -sj : sj) * TSZ >= 1024;
        for (int64_t j = 0; j < rows; j++) {
            if (pf && j + PF_ROWS < rows) {
                const char *a = (const char *)(src + (j + PF_ROWS) * sj);
                for (int64_t b = 0; b < 2 * L * TSZ; b += 64) __builtin_prefetch(a + b, 0, 3);
            }
            const T *s = src + j * sj;
            T *d = dst + 2 * j * L;
            int64_t q = 0;
            for (; q + VL <= L; q += VL) ST_v(d + 2 * q, LD_v(s + 2 * q) * sv);
            for (; q < L; q++) ST_s(d + 2 * q, LD_s(s + 2 * q) * ss);
        }
        return;
    }
    if (sj == 2 && imoff == 1) { /* each transform contiguous: VL x VL transposes */
        const TY_v sv = ALT_v(1, sg);
        const TY_s ss = ALT_s(1, sg);
        const int64_t lv = L - L % VL, jv = rows - rows % VL;
        for (int64_t l0 = 0; l0 < lv; l0 += VL)
            for (int64_t j0 = 0; j0 < jv; j0 += VL) {
                FN(vec) v[VL];
                _Pragma("GCC unroll 16") for (int i = 0; i < VL; i++) v[i] = LD_v(src + (l0 + i) * sl + 2 * j0);
                FN(transpose)(v);
                _Pragma("GCC unroll 16") for (int i = 0; i < VL; i++) ST_v(dst + 2 * ((j0 + i) * L + l0), v[i] * sv);
            }
        for (int64_t j = 0; j < rows; j++)
            for (int64_t l = j < jv ? lv : 0; l < L; l++) ST_s(dst + 2 * (j * L + l), LD_s(src + l * sl + 2 * j) * ss);
        return;
    }
    for (int64_t j0 = 0; j0 < rows; j0 += TILE) {
        const int64_t jn = rows - j0 < TILE ? rows - j0 : TILE;
        for (int64_t l = 0; l < L; l++) {
            const T *s = src + j0 * sj + l * sl;
            T *d = dst + 2 * (j0 * L + l);
            for (int64_t j = 0; j < jn; j++) {
                d[2 * j * L] = s[j * sj];
                d[2 * j * L + 1] = sg * s[j * sj + imoff];
            }
        }
    }
}

TGT static void FN(scatter)(void *dstv, const void *srcv, int64_t rows, int64_t L, int64_t sj, int64_t sl, int64_t imoff,
                            int flags, double scale)
{
    T *dst = dstv;
    const T *restrict src = srcv;
    const T sc = (T)scale, sg = (flags & FFT_CONJ) ? -sc : sc;
    if (flags & FFT_REAL) {
        for (int64_t j0 = 0; j0 < rows; j0 += TILE) {
            const int64_t jn = rows - j0 < TILE ? rows - j0 : TILE;
            for (int64_t l = 0; l < L; l++) {
                T *d = dst + j0 * sj + l * sl;
                const T *s = src + 2 * (j0 * L + l);
                for (int64_t j = 0; j < jn; j++) d[j * sj] = sc * s[2 * j * L];
            }
        }
        return;
    }
    if (L == 1 && sj == 2 && imoff == 1) {
        L = rows;
        rows = 1;
        sl = 2;
    }
    if (sl == 2 && imoff == 1) {
        const TY_v sv = ALT_v(sc, sg);
        const TY_s ss = ALT_s(sc, sg);
        const bool pf = (sj < 0 ? -sj : sj) * TSZ >= 1024;
        for (int64_t j = 0; j < rows; j++) {
            if (pf && j + PF_ROWS < rows) {
                char *a = (char *)(dst + (j + PF_ROWS) * sj);
                for (int64_t b = 0; b < 2 * L * TSZ; b += 64) __builtin_prefetch(a + b, 1, 3);
            }
            T *d = dst + j * sj;
            const T *s = src + 2 * j * L;
            int64_t q = 0;
            for (; q + VL <= L; q += VL) ST_v(d + 2 * q, LD_v(s + 2 * q) * sv);
            for (; q < L; q++) ST_s(d + 2 * q, LD_s(s + 2 * q) * ss);
        }
        return;
    }
    if (sj == 2 && imoff == 1) {
        const TY_v sv = ALT_v(sc, sg);
        const TY_s ss = ALT_s(sc, sg);
        const int64_t lv = L - L % VL, jv = rows - rows % VL;
        for (int64_t l0 = 0; l0 < lv; l0 += VL)
            for (int64_t j0 = 0; j0 < jv; j0 += VL) {
                FN(vec) v[VL];
                _Pragma("GCC unroll 16") for (int i = 0; i < VL; i++) v[i] = LD_v(src + 2 * ((j0 + i) * L + l0));
                FN(transpose)(v);
                _Pragma("GCC unroll 16") for (int i = 0; i < VL; i++) ST_v(dst + (l0 + i) * sl + 2 * j0, v[i] * sv);
            }
        for (int64_t j = 0; j < rows; j++)
            for (int64_t l = j < jv ? lv : 0; l < L; l++) ST_s(dst + l * sl + 2 * j, LD_s(src + 2 * (j * L + l)) * ss);
        return;
    }
    for (int64_t j0 = 0; j0 < rows; j0 += TILE) {
        const int64_t jn = rows - j0 < TILE ? rows - j0 : TILE;
        for (int64_t l = 0; l < L; l++) {
            T *d = dst + j0 * sj + l * sl;
            const T *s = src + 2 * (j0 * L + l);
            for (int64_t j = 0; j < jn; j++) {
                d[j * sj] = sc * s[2 * j * L];
                d[j * sj + imoff] = sg * s[2 * j * L + 1];
            }
        }
    }
}

TGT static void FN(cmul_rows)(void *bufv, int64_t rows, int64_t L, const void *wv, int flags)
{
    T *buf = bufv;
    const T *w = wv;
    const T ci = (flags & FFT_CONJ_IN) ? (T)-1 : (T)1, co = (flags & FFT_CONJ_OUT) ? (T)-1 : (T)1;
    const TY_v civ = ALT_v(1, ci), cov = ALT_v(1, co);
    const TY_s cis = ALT_s(1, ci), cos_ = ALT_s(1, co);
    if (L == 1) {
        int64_t j = 0;
        for (; j + VL <= rows; j += VL)
            ST_v(buf + 2 * j, FN(cmulvv)(LD_v(buf + 2 * j) * civ, LD_v(w + 2 * j)) * cov);
        for (; j < rows; j++) {
            DECL_TW(1, w + 2 * j);
            ST_s(buf + 2 * j, CMUL_s(LD_s(buf + 2 * j) * cis, w1rs, w1is) * cos_);
            (void)w1rv, (void)w1iv;
        }
        return;
    }
    for (int64_t j = 0; j < rows; j++) {
        T *b = buf + 2 * j * L;
        DECL_TW(1, w + 2 * j);
        int64_t q = 0;
        for (; q + VL <= L; q += VL) ST_v(b + 2 * q, CMUL_v(LD_v(b + 2 * q) * civ, w1rv, w1iv) * cov);
        for (; q < L; q++) ST_s(b + 2 * q, CMUL_s(LD_s(b + 2 * q) * cis, w1rs, w1is) * cos_);
    }
}

TGT static void FN(fourstep_tw)(void *Zv, const void *Rv, int64_t n1, int64_t Lb, const void *tbv, const void *tlv,
                                int64_t B)
{
    T *Z = Zv;
    const T *R = Rv, *tb = tbv, *tl = tlv;
    const int64_t kv = n1 - n1 % VL, lv = Lb - Lb % VL;
    for (int64_t k0 = 0; k0 < kv; k0 += VL)
        for (int64_t l0 = 0; l0 < lv; l0 += VL) {
            FN(vec) v[VL];
            _Pragma("GCC unroll 16") for (int i = 0; i < VL; i++) {
                const int64_t k1 = k0 + i;
                const FN(vec) wr = ALT_v(tb[2 * k1], tb[2 * k1]), wi = ALT_v(-tb[2 * k1 + 1], tb[2 * k1 + 1]);
                v[i] = FN(cmulvv)(LD_v(R + 2 * (k1 * Lb + l0)), CMUL_v(LD_v(tl + 2 * (k1 * B + l0)), wr, wi));
            }
            FN(transpose)(v);
            _Pragma("GCC unroll 16") for (int i = 0; i < VL; i++) ST_v(Z + 2 * ((l0 + i) * n1 + k0), v[i]);
        }
    for (int64_t k1 = 0; k1 < n1; k1++) {
        const FN(v1) wr = ALT_s(tb[2 * k1], tb[2 * k1]), wi = ALT_s(-tb[2 * k1 + 1], tb[2 * k1 + 1]);
        for (int64_t l = k1 < kv ? lv : 0; l < Lb; l++) {
            const FN(v1) t = CMUL_s(LD_s(tl + 2 * (k1 * B + l)), wr, wi);
            ST_s(Z + 2 * (l * n1 + k1), CMUL_s(LD_s(R + 2 * (k1 * Lb + l)), ALT_s(t[0], t[0]), ALT_s(-t[1], t[1])));
        }
    }
}

/* r2c: E = (A + conj B) / 2, O = -i (A - conj B) / 2, X[k] = E + w O,
 * X[h-k] = conj(E - w O), with A = Z[k], B = Z[h-k] (lane-aligned). */
#define R2C_PAIR(K, A, B, W_MUL, XK, XKK)                                                \
    do {                                                                                 \
        TY_##K cj_ = ALT_##K(1, -1), bc_ = (B) * cj_;                                    \
        TY_##K e_ = ((A) + bc_) * (T)0.5, o_ = MMI_##K(((A) - bc_) * (T)0.5);            \
        TY_##K wo_ = W_MUL(o_);                                                          \
        XK = (e_ + wo_) * scv##K;                                                        \
        XKK = (e_ - wo_) * cj_ * scv##K;                                                 \
    } while (0)
/* c2r: F = A + conj B, G = (A - conj B) conj(w); writes conj Z[k] =
 * conj(F - MMI(G)) and conj Z[h-k] = F + MMI(G) (A = X[k], B = X[h-k]). */
#define C2R_PAIR(K, A, B, WC_MUL, ZK, ZKK)                                               \
    do {                                                                                 \
        TY_##K cj_ = ALT_##K(1, -1), bc_ = (B) * cj_;                                    \
        TY_##K f_ = (A) + bc_, g_ = MMI_##K(WC_MUL((A) - bc_));                          \
        ZK = (f_ - g_) * cj_;                                                            \
        ZKK = f_ + g_;                                                                   \
    } while (0)

INL FN(vec) FN(revv)(FN(vec) a) { return __builtin_shufflevector(a, a, REVC); }

TGT static void FN(r2c_post)(const void *Zv, int64_t zk, int64_t zl, void *Xv, int64_t xk, int64_t xl, int64_t h,
                             int64_t L, int64_t k0, int64_t k1, const void *wv, double scale)
{
    const T *Z = Zv, *w = wv;
    T *X = Xv;
    const T sc = (T)scale;
    const TY_v scvv = ALT_v(sc, sc);
    const TY_s scvs = ALT_s(sc, sc);
    if (k0 == 0) {
        for (int64_t l = 0; l < L; l++) {
            const T *za = Z + l * zl;
            const T ar = za[0], ai = za[1];
            T *xa = X + l * xl, *xb = X + h * xk + l * xl;
            xa[0] = (ar + ai) * sc;
            xa[1] = 0;
            xb[0] = (ar - ai) * sc;
            xb[1] = 0;
        }
        k0 = 1;
    }
    int64_t k = k0;
    if (L == 1 && zk == 2 && xk == 2) /* one contiguous sequence: pairs of reversed vectors */
        for (; k + VL <= k1 && 2 * (k + VL - 1) < h; k += VL) {
            const int64_t kb = h - k - VL + 1;
            TY_v A = LD_v(Z + 2 * k), B = FN(revv)(LD_v(Z + 2 * kb)), W = LD_v(w + 2 * k), xa, xb;
#define WMUL_VV(o) FN(cmulvv)(o, W)
            R2C_PAIR(v, A, B, WMUL_VV, xa, xb);
#undef WMUL_VV
            ST_v(X + 2 * k, xa);
            ST_v(X + 2 * kb, FN(revv)(xb));
        }
    for (; k < k1; k++) {
        const int64_t kk = h - k;
        DECL_TW(1, w + 2 * k);
        int64_t l = 0;
#define WMUL_V(o) CMUL_v(o, w1rv, w1iv)
#define WMUL_S(o) CMUL_s(o, w1rs, w1is)
        if (zl == 2 && xl == 2)
            for (; l + VL <= L; l += VL) {
                TY_v A = LD_v(Z + k * zk + 2 * l), B = LD_v(Z + kk * zk + 2 * l), xa, xb;
                R2C_PAIR(v, A, B, WMUL_V, xa, xb);
                ST_v(X + k * xk + 2 * l, xa);
                if (kk != k) ST_v(X + kk * xk + 2 * l, xb);
            }
        for (; l < L; l++) {
            TY_s A = LD_s(Z + k * zk + l * zl), B = LD_s(Z + kk * zk + l * zl), xa, xb;
            R2C_PAIR(s, A, B, WMUL_S, xa, xb);
            ST_s(X + k * xk + l * xl, xa);
            if (kk != k) ST_s(X + kk * xk + l * xl, xb);
        }
#undef WMUL_V
#undef WMUL_S
    }
}

TGT static void FN(c2r_pre)(const void *Xv, int64_t xk, int64_t xl, void *Zv, int64_t zk, int64_t zl, int64_t h,
                            int64_t L, int64_t k0, int64_t k1, const void *wv)
{
    const T *X = Xv, *w = wv;
    T *Z = Zv;
    if (k0 == 0) { /* imaginary parts of X[0] and X[h] ignored */
        for (int64_t l = 0; l < L; l++) {
            const T ar = X[l * xl], br = X[h * xk + l * xl];
            T *za = Z + l * zl;
            za[0] = ar + br;
            za[1] = br - ar;
        }
        k0 = 1;
    }
    int64_t k = k0;
    if (L == 1 && zk == 2 && xk == 2)
        for (; k + VL <= k1 && 2 * (k + VL - 1) < h; k += VL) {
            const int64_t kb = h - k - VL + 1;
            TY_v A = LD_v(X + 2 * k), B = FN(revv)(LD_v(X + 2 * kb)), W = LD_v(w + 2 * k) * ALT_v(1, -1), za, zb;
#define WMUL_VV(o) FN(cmulvv)(o, W)
            C2R_PAIR(v, A, B, WMUL_VV, za, zb);
#undef WMUL_VV
            ST_v(Z + 2 * k, za);
            ST_v(Z + 2 * kb, FN(revv)(zb));
        }
    for (; k < k1; k++) {
        const int64_t kk = h - k;
        const T wc[2] = {w[2 * k], -w[2 * k + 1]};
        DECL_TW(1, wc);
        int64_t l = 0;
#define WMUL_V(o) CMUL_v(o, w1rv, w1iv)
#define WMUL_S(o) CMUL_s(o, w1rs, w1is)
        if (zl == 2 && xl == 2)
            for (; l + VL <= L; l += VL) {
                TY_v A = LD_v(X + k * xk + 2 * l), B = LD_v(X + kk * xk + 2 * l), za, zb;
                C2R_PAIR(v, A, B, WMUL_V, za, zb);
                ST_v(Z + k * zk + 2 * l, za);
                if (kk != k) ST_v(Z + kk * zk + 2 * l, zb);
            }
        for (; l < L; l++) {
            TY_s A = LD_s(X + k * xk + l * xl), B = LD_s(X + kk * xk + l * xl), za, zb;
            C2R_PAIR(s, A, B, WMUL_S, za, zb);
            ST_s(Z + k * zk + l * zl, za);
            if (kk != k) ST_s(Z + kk * zk + l * zl, zb);
        }
#undef WMUL_V
#undef WMUL_S
    }
}

#if TMPL_BASE
static void FN(herm_fill)(void *bufv, int64_t n, int64_t L)
{
    T *b = bufv;
    for (int64_t k = (n - 1) / 2; k >= 1; k--)
        for (int64_t l = 0; l < L; l++) {
            T *src = b + 2 * (k * L + l), *hi = b + 2 * ((n - k) * L + l);
            hi[0] = src[0];
            hi[1] = src[1];
            src[1] = -src[1];
        }
    for (int64_t l = 0; l < L; l++) b[2 * l + 1] = 0;
}
#endif

#undef FN
#undef NE
#undef VL
#undef INL
#undef SWAPI
#undef TQ_MASK
#undef TQ_LO
#undef TQ_HI
#undef TQ_EL
#undef REVC
#undef R2C_PAIR
#undef C2R_PAIR
#undef DUPRE
#undef DUPIM
#undef TY_v
#undef TY_s
#undef LD_v
#undef LD_s
#undef ST_v
#undef ST_s
#undef ALT_v
#undef ALT_s
#undef MMI_v
#undef MMI_s
#undef CMUL_v
#undef CMUL_s
#undef DECL_TW
#undef R2_BODY
#undef R3_BODY
#undef R4_BODY
#undef R5_BODY
#undef RG_BODY
#undef TILE
#undef PF_ROWS
