#!/usr/bin/env python3
"""Writes tests/data/sparse/: .npz files made by scipy.sparse.save_npz (the
default compressed form and compressed=False) and, beside each, the dense
matrix as .npy, for tests/test_sparse_npz.c (which needs no Python).

    python3 tests/gen_sparse_npz.py      (scipy >= 1.11)
"""
import os

import numpy as np
import scipy.sparse as sp

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sparse")


def save(name, m, compressed):
    sp.save_npz(os.path.join(OUT, name + ".npz"), m, compressed=compressed)
    np.save(os.path.join(OUT, name + "_dense.npy"), m.toarray())


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(41)
    a = sp.random_array((40, 30), density=0.2, format="csr", dtype=np.float64, rng=rng)
    save("csr_f64_z", a, True)                                    # save_npz's default: deflated members
    b = sp.csc_array(sp.random_array((25, 33), density=0.15, dtype=np.float32, rng=rng))
    b.indices = b.indices.astype(np.int64)
    b.indptr = b.indptr.astype(np.int64)
    save("csc_f32_i64", b, False)                                 # stored members, int64 indices
    c = sp.random_array((17, 21), density=0.3, format="coo", dtype=np.complex128, rng=rng)
    c = sp.coo_array((c.data + 1j * rng.standard_normal(c.nnz), (c.row, c.col)), shape=c.shape)
    save("coo_c128_z", c, True)
    # unsorted indices with a duplicate, as csr_array((data, indices, indptr)) keeps them
    d = sp.csr_array((np.array([1.5, -2.0, 3.0, 0.25]), np.array([3, 0, 3, 1]), np.array([0, 3, 3, 4])), shape=(3, 5))
    save("csr_unsorted", d, False)
    # a matrix scipy can hold but the library refuses: integer values
    sp.save_npz(os.path.join(OUT, "csr_int64.npz"), sp.csr_array(np.array([[0, 2], [3, 0]], dtype=np.int64)))
    half()


def half():
    """float16 values (scipy saves them; .npy '<f2'), and a file whose data
    are 2-byte void records ('<V2', what np.save writes for bfloat16 of
    ml_dtypes), which scipy cannot hold and the library refuses."""
    rng = np.random.default_rng(16)
    e = sp.random_array((23, 19), density=0.25, format="csr", dtype=np.float64, rng=rng)
    e = sp.csr_array((e.data.astype(np.float16), e.indices, e.indptr), shape=e.shape)
    # (scipy's sparsetools have no float16 loops: the dense matrix through float32, exactly)
    sp.save_npz(os.path.join(OUT, "csr_f16_z.npz"), e)
    np.save(os.path.join(OUT, "csr_f16_z_dense.npy"), e.astype(np.float32).toarray().astype(np.float16))
    np.savez_compressed(os.path.join(OUT, "csr_bf16_void.npz"), indices=e.indices, indptr=e.indptr,
                        format=np.array(b"csr"), shape=np.array(e.shape), data=e.data.view("V2"))


if __name__ == "__main__":
    main()
