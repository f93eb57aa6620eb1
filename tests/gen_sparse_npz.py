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


if __name__ == "__main__":
    main()
