#!/usr/bin/env python3
"""Real clients of the array API on ndgpu arrays: scikit-learn (with
array_api_dispatch=True) and SciPy (SCIPY_ARRAY_API=1), each check against
NumPy's results, and each check also run on array-api-strict.

    ND_DEVICE=cpu NDGPU_LIBRARY=build/libndgpu.so PYTHONPATH=python python3 tests/test_clients.py
    ND_DEVICE=cuda:0 NDGPU_LIBRARY=build-emu/libndgpu.so PYTHONPATH=python python3 tests/test_clients.py
    ... tests/test_clients.py -k pca       # the checks whose name contains 'pca'
    ... tests/test_clients.py -v           # the errors in full

Every check runs three times: on NumPy arrays with scikit-learn's array API
dispatch off (the reference: scikit-learn's and SciPy's NumPy paths), on
array-api-strict arrays and on ndgpu arrays (dispatch on). The results of
ndgpu are compared with the reference: float64 within 1e-12 of the largest
magnitude of each result (randomised algorithms are seeded: their random
draws are NumPy's and the same in every run), integers and labels exactly.
A table prints check, strict, ndgpu.

Fails when a check that works on array-api-strict does not work on ndgpu,
when a result differs from NumPy's, when a check does not work on ndgpu on
the CPU, or when an array result is not of the input's namespace where
array-api-strict's is.

With ND_DEVICE=cuda:0 the ndgpu arrays live on that device and the strict
arrays on array-api-strict's 'device1', a device it will not convert to
NumPy: the paths that convert their input through NumPy (scipy.special,
scipy.stats and scipy.cluster for namespaces SciPy has no native support
for, and a few scikit-learn helpers) refuse there, as they do on CuPy and
PyTorch GPU tensors: those are marked "refused (host)" in the table and
expected, provided ndgpu refuses with its own TypeError (no implicit copy
to the host) and not some other error.

SKIPPED when scikit-learn, SciPy or array-api-strict is not importable.
Exits 1 on a failure.
"""
import os
import pickle
import subprocess
import sys
import warnings

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before SciPy or scikit-learn are imported

try:
    import numpy as np
    import scipy
    import sklearn
    import array_api_strict
except ImportError as e:
    print(f"python-clients-test: SKIPPED ({e.name} not importable)")
    sys.exit(0)
import ndgpu

VERBOSE = "-v" in sys.argv
FILTER = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
RTOL = 1e-12
# the refusals of implicit device-to-host copies (_interop.py)
REFUSALS = ("not converted to a NumPy array implicitly", "does not copy the data to the host implicitly")


class Backend:
    """An array library under test: makes its arrays from NumPy data and
    reads results back to NumPy."""

    def __init__(self, name, xp, device, dispatch):
        self.name, self.xp, self.device, self.dispatch = name, xp, device, dispatch

    def asarray(self, a):
        if self.xp is np:
            return np.asarray(a)
        return self.xp.asarray(a, device=self.device)

    def owns(self, r):
        if self.xp is np:
            return isinstance(r, np.ndarray)
        return getattr(r, "__array_namespace__", None) is not None and r.__array_namespace__() is self.xp

    def to_numpy(self, r):
        if isinstance(r, (np.ndarray, np.generic)):
            return np.asarray(r)
        if isinstance(r, ndgpu.Array):
            return np.from_dlpack(r.to_device("cpu"))  # not through __array__, which is under test
        if type(r).__module__.startswith("array_api_strict"):
            return np.asarray(array_api_strict.asarray(r, device=array_api_strict.Device("CPU_DEVICE")))
        return r


on_gpu = ndgpu.asarray(0).device != "cpu"
NUMPY = Backend("numpy", np, None, False)
STRICT = Backend("strict", array_api_strict, array_api_strict.Device("device1" if on_gpu else "CPU_DEVICE"), True)
NDGPU = Backend("ndgpu", ndgpu, ndgpu.asarray(0).device, True)

# ---- data (seeded)
rng = np.random.default_rng(0)
X = rng.standard_normal((60, 5)) @ rng.standard_normal((5, 5)) + rng.standard_normal(5)
Xpos = np.abs(X) + 0.1
y_reg = X @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.1 * rng.standard_normal(60)
y_cls = (X[:, 0] + X[:, 1] > np.median(X[:, 0] + X[:, 1])).astype(np.int64) + (X[:, 2] > 1).astype(np.int64)
y_pred_cls = np.where(rng.random(60) < 0.8, y_cls, (y_cls + 1) % 3)
y_pred_reg = y_reg + 0.3 * rng.standard_normal(60)
Y = rng.standard_normal((7, 5))
a1 = rng.standard_normal(40)
a2 = 0.6 * a1 + rng.standard_normal(40)
p01 = rng.uniform(0.01, 0.99, 30)
sig = rng.standard_normal((4, 32))

CHECKS = []


def client(name, dispatch=True):
    """Register check f(B) -> result; dispatch=False runs every backend with
    scikit-learn's array API dispatch off (its NumPy paths)."""
    def deco(f):
        CHECKS.append((name, f, dispatch))
        return f
    return deco


# ---- scikit-learn
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.linear_model import LinearRegression, Ridge, RidgeCV, RidgeClassifier  # noqa: E402
from sklearn import metrics, preprocessing  # noqa: E402
from sklearn.metrics import pairwise  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, train_test_split  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402


def _pca(B, **kw):
    p = PCA(**kw)
    t = p.fit_transform(B.asarray(X))
    return {"transform": t, "components": p.components_, "explained_variance_ratio": p.explained_variance_ratio_,
            "inverse": p.inverse_transform(t)}


client("PCA svd_solver=full")(lambda B: _pca(B, n_components=3, svd_solver="full"))
client("PCA svd_solver=full whiten")(lambda B: _pca(B, n_components=3, svd_solver="full", whiten=True))
client("PCA svd_solver=full n_components=0.9")(lambda B: _pca(B, n_components=0.9, svd_solver="full"))
client("PCA svd_solver=full n_components=mle")(lambda B: _pca(B, n_components="mle", svd_solver="full"))
client("PCA svd_solver=covariance_eigh")(lambda B: _pca(B, n_components=3, svd_solver="covariance_eigh"))
client("PCA svd_solver=randomized (seeded)")(
    lambda B: _pca(B, n_components=3, svd_solver="randomized", power_iteration_normalizer="QR", random_state=0))
client("PCA svd_solver=auto")(lambda B: _pca(B, n_components=2, svd_solver="auto"))


@client("LinearDiscriminantAnalysis")
def _lda(B):
    m = LinearDiscriminantAnalysis().fit(B.asarray(X), B.asarray(y_cls))
    Xb = B.asarray(X)
    # the discriminant axes come from an SVD, whose signs are the
    # implementation's choice (LAPACK's, cuSOLVER's), and LDA does not fix
    # them (PCA does, svd_flip): each column of the transform up to its sign
    return {"predict": m.predict(Xb), "proba": m.predict_proba(Xb), "transform (columns up to sign)": m.transform(Xb),
            "score": m.score(Xb, B.asarray(y_cls))}


@client("LinearRegression")
def _linreg(B):
    m = LinearRegression().fit(B.asarray(X), B.asarray(y_reg))
    return {"coef": m.coef_, "intercept": m.intercept_, "predict": m.predict(B.asarray(Y))}


@client("Ridge")
def _ridge(B):
    m = Ridge(alpha=0.7).fit(B.asarray(X), B.asarray(y_reg))
    return {"coef": m.coef_, "intercept": m.intercept_, "predict": m.predict(B.asarray(Y))}


@client("RidgeCV")
def _ridgecv(B):
    m = RidgeCV(alphas=(0.1, 1.0, 10.0)).fit(B.asarray(X), B.asarray(y_reg))
    return {"coef": m.coef_, "alpha": float(m.alpha_), "predict": m.predict(B.asarray(Y))}


@client("RidgeClassifier")
def _ridgeclf(B):
    m = RidgeClassifier(alpha=1.0).fit(B.asarray(X), B.asarray(y_cls))
    return {"coef": m.coef_, "predict": m.predict(B.asarray(Y))}


@client("GaussianNB")
def _gnb(B):
    m = GaussianNB().fit(B.asarray(X), B.asarray(y_cls))
    return {"proba": m.predict_proba(B.asarray(Y)), "predict": m.predict(B.asarray(Y))}


def _scaler(cls, **kw):
    def f(B):
        s = cls(**kw)
        t = s.fit_transform(B.asarray(X))
        return {"transform": t, "inverse": s.inverse_transform(t) if hasattr(s, "inverse_transform") else t,
                "other": s.transform(B.asarray(Y))}
    return f


client("StandardScaler")(_scaler(preprocessing.StandardScaler))
client("MinMaxScaler")(_scaler(preprocessing.MinMaxScaler))
client("MaxAbsScaler")(_scaler(preprocessing.MaxAbsScaler))
client("Normalizer")(_scaler(preprocessing.Normalizer))
client("PolynomialFeatures")(lambda B: preprocessing.PolynomialFeatures(2).fit_transform(B.asarray(X[:, :3])))
client("KernelCenterer")(lambda B: preprocessing.KernelCenterer().fit_transform(B.asarray(X[:5, :5] @ X[:5, :5].T)))


@client("LabelEncoder")
def _labelenc(B):
    le = preprocessing.LabelEncoder()
    t = le.fit_transform(B.asarray(y_cls * 3 + 1))
    return {"transform": t, "classes": le.classes_, "inverse": le.inverse_transform(t)}


@client("LabelBinarizer")
def _labelbin(B):
    lb = preprocessing.LabelBinarizer()
    t = lb.fit_transform(B.asarray(y_cls))
    return {"transform": t, "inverse": lb.inverse_transform(t)}


for _name in ("euclidean_distances", "cosine_similarity", "cosine_distances", "manhattan_distances",
              "rbf_kernel", "linear_kernel", "polynomial_kernel", "sigmoid_kernel", "laplacian_kernel"):
    client(f"pairwise.{_name}")(lambda B, f=getattr(pairwise, _name): f(B.asarray(X), B.asarray(Y)))
for _name in ("chi2_kernel", "additive_chi2_kernel"):
    client(f"pairwise.{_name}")(lambda B, f=getattr(pairwise, _name): f(B.asarray(Xpos), B.asarray(np.abs(Y))))
for _metric in ("euclidean", "cosine", "manhattan"):
    client(f"pairwise_distances metric={_metric}")(
        lambda B, m=_metric: pairwise.pairwise_distances(B.asarray(X), B.asarray(Y), metric=m))
client("pairwise_kernels metric=rbf")(lambda B: pairwise.pairwise_kernels(B.asarray(X), B.asarray(Y), metric="rbf"))

for _name in ("accuracy_score", "zero_one_loss", "confusion_matrix"):
    client(f"metrics.{_name}")(lambda B, f=getattr(metrics, _name): f(B.asarray(y_cls), B.asarray(y_pred_cls)))
for _name in ("f1_score", "precision_score", "recall_score"):
    client(f"metrics.{_name}")(
        lambda B, f=getattr(metrics, _name): f(B.asarray(y_cls), B.asarray(y_pred_cls), average="macro"))
for _name in ("r2_score", "mean_squared_error", "mean_absolute_error", "explained_variance_score",
              "mean_absolute_percentage_error"):
    client(f"metrics.{_name}")(lambda B, f=getattr(metrics, _name): f(B.asarray(y_reg), B.asarray(y_pred_reg)))


@client("train_test_split")
def _tts(B):
    return train_test_split(B.asarray(X), B.asarray(y_cls), test_size=0.25, random_state=0)


@client("KFold (shuffled) + indexing")
def _kfold(B):
    Xb = B.asarray(X)
    out = []
    for tr, te in KFold(4, shuffle=True, random_state=0).split(Xb):
        out.append((tr, te, Xb[te]))  # NumPy integer arrays as indices
    return out


@client("cross_val_score n_jobs=2")
def _cvs(B):
    return cross_val_score(Ridge(alpha=0.5), B.asarray(X), B.asarray(y_reg), cv=3, n_jobs=2)


@client("GridSearchCV n_jobs=2")
def _grid(B):
    g = GridSearchCV(Ridge(), {"alpha": [0.01, 0.1, 1.0, 10.0]}, cv=3, n_jobs=2).fit(B.asarray(X), B.asarray(y_reg))
    return {"best_alpha": g.best_params_["alpha"], "best_score": g.best_score_, "predict": g.predict(B.asarray(Y))}


# ---- SciPy
import scipy.fft  # noqa: E402
import scipy.special  # noqa: E402
import scipy.stats  # noqa: E402
import scipy.cluster.vq  # noqa: E402

client("scipy.fft.fft")(lambda B: scipy.fft.fft(B.asarray(sig)))
client("scipy.fft.rfft")(lambda B: scipy.fft.rfft(B.asarray(sig)))
client("scipy.fft.ifft")(lambda B: scipy.fft.ifft(B.asarray(sig.astype(np.complex128))))
client("scipy.fft.fftn")(lambda B: scipy.fft.fftn(B.asarray(sig)))
client("scipy.fft.irfft")(lambda B: scipy.fft.irfft(B.asarray(np.fft.rfft(sig))))
client("scipy.special.expit")(lambda B: scipy.special.expit(B.asarray(a1)))
client("scipy.special.logit")(lambda B: scipy.special.logit(B.asarray(p01)))
client("scipy.special.erf")(lambda B: scipy.special.erf(B.asarray(a1)))
client("scipy.special.gammaln")(lambda B: scipy.special.gammaln(B.asarray(Xpos[:, 0])))
client("scipy.special.xlogy")(lambda B: scipy.special.xlogy(B.asarray(p01), B.asarray(p01[::-1].copy())))
client("scipy.special.entr")(lambda B: scipy.special.entr(B.asarray(p01)))
client("scipy.special.logsumexp")(lambda B: scipy.special.logsumexp(B.asarray(X), axis=0))
client("scipy.special.softmax")(lambda B: scipy.special.softmax(B.asarray(X), axis=1))
client("scipy.stats.pearsonr")(lambda B: tuple(scipy.stats.pearsonr(B.asarray(a1), B.asarray(a2))))
client("scipy.stats.ttest_ind")(lambda B: tuple(scipy.stats.ttest_ind(B.asarray(a1), B.asarray(a2))))
client("scipy.stats.zscore")(lambda B: scipy.stats.zscore(B.asarray(X), axis=0))
client("scipy.stats.skew")(lambda B: scipy.stats.skew(B.asarray(X), axis=0))
client("scipy.cluster.vq.vq")(lambda B: scipy.cluster.vq.vq(B.asarray(X), B.asarray(X[:4].copy())))
client("scipy.cluster.vq.whiten")(lambda B: scipy.cluster.vq.whiten(B.asarray(X)))


# ---- NumPy-style paths: scikit-learn with array API dispatch off takes
# ndgpu arrays through np.asarray (a zero-copy view on the CPU)
client("RidgeCV float32, dispatch off", dispatch=False)(
    lambda B: RidgeCV(alphas=(0.1, 1.0)).fit(B.asarray(X.astype(np.float32)), B.asarray(y_reg)).coef_)
client("StandardScaler, dispatch off", dispatch=False)(
    lambda B: preprocessing.StandardScaler().fit_transform(B.asarray(X)))
client("PCA, dispatch off", dispatch=False)(lambda B: PCA(n_components=2).fit_transform(B.asarray(X)))


# ---- scipy.special's functions are NumPy ufuncs: without SCIPY_ARRAY_API
# SciPy calls them on the arrays as they are (ndgpu: __array_ufunc__). A
# child process without the variable computes them, once per backend.
SPECIAL = {"expit": (a1,), "logit": (p01,), "erf": (a1,), "gammaln": (Xpos[:, 0].copy(),),
           "xlogy": (p01, p01[::-1].copy()), "entr": (p01,)}
CHILD = r"""
import os, pickle, sys
os.environ.pop("SCIPY_ARRAY_API", None)
import numpy as np, scipy.special as sp
name, dev, inputs = pickle.loads(sys.stdin.buffer.read())
if name == "numpy":
    conv, back = np.asarray, np.asarray
elif name == "ndgpu":
    import ndgpu
    conv = lambda a: ndgpu.asarray(a, device=dev)
    back = lambda r: np.from_dlpack(r.to_device("cpu"))
else:
    import array_api_strict as xs
    conv = lambda a: xs.asarray(a, device=xs.Device(dev))
    back = lambda r: np.asarray(r)
out = {}
for fn, args in inputs.items():
    try:
        r = getattr(sp, fn)(*[conv(a) for a in args])
        out[fn] = ("ok", type(r).__module__.split(".")[0], back(r))
    except Exception as e:
        out[fn] = ("err", "%s: %s" % (type(e).__name__, e), None)
sys.stdout.buffer.write(pickle.dumps(out))
"""
_child_results = {}


def _special_unset(fn):
    def f(B):
        if B.name not in _child_results:
            env = {k: v for k, v in os.environ.items() if k != "SCIPY_ARRAY_API"}
            dev = str(B.device) if B.xp is not array_api_strict else ("device1" if on_gpu else "CPU_DEVICE")
            p = subprocess.run([sys.executable, "-c", CHILD], input=pickle.dumps((B.name, dev, SPECIAL)),
                               capture_output=True, env=env)
            if p.returncode:
                raise RuntimeError("the child process failed: " + p.stderr.decode()[-300:])
            _child_results[B.name] = pickle.loads(p.stdout)
        st, what, r = _child_results[B.name][fn]
        if st != "ok":
            raise RuntimeError(what)
        if B.xp is ndgpu and what != "ndgpu":
            raise TypeError(f"scipy.special.{fn} of an ndgpu array gave a {what} array")
        return r
    return f


for _fn in SPECIAL:
    client(f"scipy.special.{_fn}, SCIPY_ARRAY_API unset")(_special_unset(_fn))


# ---- running and comparing

def leaves(r, path="result"):
    """(path, leaf) of a nested result (tuples, lists, dicts)."""
    if isinstance(r, dict):
        for k in sorted(r):
            yield from leaves(r[k], f"{path}[{k!r}]")
    elif isinstance(r, (tuple, list)):
        for i, e in enumerate(r):
            yield from leaves(e, f"{path}[{i}]")
    else:
        yield path, r


def run(B, f, dispatch=True):
    """(ok, result or error message)."""
    try:
        with sklearn.config_context(array_api_dispatch=B.dispatch and dispatch), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. Ridge's note that dispatch picks the svd solver
            return True, f(B)
    except Exception as e:  # noqa: BLE001 - a client's failure is a table entry
        msg = f"{type(e).__name__}: {e}"
        return False, msg


def compare(got_b, got, ref, err_out=None):
    """None when got (a result of backend got_b) matches NumPy's ref, else
    why; err_out (a list) receives the largest relative error."""
    g = list(leaves(got))
    r = list(leaves(ref))
    if [p for p, _ in g] != [p for p, _ in r]:
        return f"result structure differs: {[p for p, _ in g]} vs {[p for p, _ in r]}"
    for (path, gv), (_, rv) in zip(g, r):
        gn = np.asarray(got_b.to_numpy(gv))
        rn = np.asarray(NUMPY.to_numpy(rv))
        if gn.shape != rn.shape:
            return f"{path}: shape {gn.shape}, NumPy's {rn.shape}"
        if "up to sign" in path and rn.ndim == 2 and rn.size:
            k = np.argmax(np.abs(rn), axis=0)  # each column's sign read where NumPy's is largest
            cols = np.arange(rn.shape[1])
            gn = gn * np.sign(gn[k, cols])
            rn = rn * np.sign(rn[k, cols])
        if rn.dtype.kind in "biu" or rn.dtype.kind in "OUS":
            if not np.array_equal(gn, rn):
                return f"{path}: {gn.ravel()[:6]} ..., NumPy's {rn.ravel()[:6]} ..."
            continue
        if gn.dtype != rn.dtype:
            return f"{path}: dtype {gn.dtype}, NumPy's {rn.dtype}"
        tol = RTOL if rn.dtype in (np.float64, np.complex128) else 1e-6  # float32 results
        scale = np.max(np.abs(np.where(np.isnan(rn), 0, rn))) if rn.size else 0.0
        if np.any(np.isnan(gn) != np.isnan(rn)):
            return f"{path}: NaNs differ"
        err = np.max(np.abs(np.where(np.isnan(rn), 0, gn - rn))) if rn.size else 0.0
        if err_out is not None:
            err_out.append(err / scale if scale else err)
        if not err <= tol * max(scale, np.finfo(float).tiny):
            return f"{path}: max error {err:.3g} relative {err / scale if scale else err:.3g} > {tol:g}"
    return None


def namespace_kinds(B, r):
    """For each array leaf: 'xp' (B's own namespace), 'numpy', or 'other'."""
    out = []
    for _, v in leaves(r):
        if B.owns(v):
            out.append("xp")
        elif isinstance(v, np.ndarray):
            out.append("numpy")
        else:
            out.append("other")
    return out


def main():
    fails = []
    rows = []
    n_expected = 0
    for name, f, dispatch in CHECKS:
        if FILTER and FILTER.lower() not in name.lower():
            continue
        ok_ref, ref = run(NUMPY, f)
        if not ok_ref:
            fails.append(f"{name}: the NumPy reference failed: {ref}")
            rows.append((name, "-", "-", "reference failed"))
            continue
        ok_s, rs = run(STRICT, f, dispatch)
        ok_n, rn = run(NDGPU, f, dispatch)
        s_txt = "ok" if ok_s else "fails"
        if ok_s:
            why = compare(STRICT, rs, ref)
            if why:
                s_txt = "differs"
        if ok_n:
            errs = []
            why = compare(NDGPU, rn, ref, errs)
            if why:
                fails.append(f"{name}: ndgpu's result differs from NumPy's: {why}")
                n_txt = "DIFFERS"
            else:
                n_txt = "ok" + (f" ({max(errs):.1e})" if errs and max(errs) > 0 else "")
                if ok_s and "xp" in namespace_kinds(STRICT, rs):
                    ks, kn = namespace_kinds(STRICT, rs), namespace_kinds(NDGPU, rn)
                    if any(a == "xp" and b != "xp" for a, b in zip(ks, kn)):
                        fails.append(f"{name}: array-api-strict's result is in its namespace, ndgpu's is not: {kn}")
                        n_txt = "NAMESPACE"
        elif on_gpu and any(m in rn for m in REFUSALS) and not ok_s:
            n_txt = "refused (host)"
            n_expected += 1
        else:
            n_txt = "FAILS"
            if ok_s:
                fails.append(f"{name}: works on array-api-strict, not on ndgpu: {rn}")
            elif not on_gpu:
                fails.append(f"{name}: fails on ndgpu on the CPU: {rn}")
            else:
                fails.append(f"{name}: fails on ndgpu on {NDGPU.device} other than by refusing a host copy: {rn}")
        rows.append((name, s_txt, n_txt, "" if ok_n else rn))
        if not ok_s and VERBOSE:
            print(f"  ({name}: array-api-strict: {rs})")
    w = max(len(r[0]) for r in rows) if rows else 10
    dev_s = f"array-api-strict on {STRICT.device}"
    print(f"python-clients-test: scikit-learn {sklearn.__version__}, SciPy {scipy.__version__}, NumPy {np.__version__}; "
          f"ndgpu on {NDGPU.device}, {dev_s}; SCIPY_ARRAY_API={os.environ.get('SCIPY_ARRAY_API')}")
    print(f"  {'check':{w}s}  {'strict':8s}  ndgpu (largest error relative to NumPy's result, where not 0)")
    for name, s, n, err in rows:
        line = f"  {name:{w}s}  {s:8s}  {n}"
        if err and (VERBOSE or n not in ("refused (host)",)):
            line += f"   [{err[:160]}]"
        print(line)
    n_ok = sum(1 for r in rows if r[2].startswith("ok"))
    n_s = sum(1 for r in rows if r[1] == "ok")
    print(f"python-clients-test: {len(rows)} checks on {NDGPU.device}: ndgpu {n_ok} ok"
          + (f", {n_expected} refused as expected (host conversion)" if n_expected else "")
          + f"; array-api-strict {n_s} ok; {len(fails)} failures")
    for m in fails:
        print("python-clients-test: FAILED: " + m)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
