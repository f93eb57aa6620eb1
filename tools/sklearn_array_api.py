#!/usr/bin/env python3
"""scikit-learn's own array API tests (they ship inside the installed
sklearn package) with ndgpu as the array namespace, and with
array-api-strict for comparison; prints passed / failed / skipped of each.

    NDGPU_LIBRARY=build/libndgpu.so PYTHONPATH=python python3 tools/sklearn_array_api.py
    ... tools/sklearn_array_api.py --only ndgpu -k ridge      # one namespace, a subset
    ... tools/sklearn_array_api.py --failures                 # list the failing tests

scikit-learn parametrizes its array API tests over the namespaces that
sklearn.utils._array_api.yield_namespace_device_dtype_combinations names
(numpy, array_api_strict, cupy, torch, dpnp). A pytest plugin (this file,
loaded with -p) makes that list one namespace, ndgpu or array_api_strict,
each with a float64 and a float32 configuration as scikit-learn gives
array-api-strict (ndgpu on its default device, ND_DEVICE, named), and keeps only
the tests parametrized with it. SCIPY_ARRAY_API=1 is set, as scikit-learn
requires. Not part of `make test`: the run takes minutes.

Needs scikit-learn, SciPy, pytest and array-api-strict.
"""
import argparse
import os
import re
import subprocess
import sys
import time

# the test modules of the installed scikit-learn that use the namespaces
# list (found with: grep -rl yield_namespace_device_dtype_combinations sklearn)
MODULES = """_loss/tests/test_link.py _loss/tests/test_loss.py decomposition/tests/test_pca.py
linear_model/_glm/tests/test_glm.py linear_model/tests/test_base.py linear_model/tests/test_logistic.py
linear_model/tests/test_ridge.py metrics/cluster/tests/test_common.py metrics/cluster/tests/test_supervised.py
metrics/tests/test_classification.py metrics/tests/test_common.py metrics/tests/test_pairwise.py
mixture/tests/test_gaussian_mixture.py model_selection/tests/test_search.py model_selection/tests/test_split.py
model_selection/tests/test_validation.py preprocessing/tests/test_data.py preprocessing/tests/test_label.py
preprocessing/tests/test_polynomial.py tests/test_calibration.py tests/test_kernel_approximation.py
tests/test_naive_bayes.py tests/test_pipeline.py utils/tests/test_array_api.py
utils/tests/test_extmath.py utils/tests/test_indexing.py utils/tests/test_multiclass.py
utils/tests/test_optimize.py utils/tests/test_stats.py utils/tests/test_validation.py""".split()

NAMESPACES = ("ndgpu", "array_api_strict")


# ---- the pytest plugin (this module, loaded with -p sklearn_array_api)

def pytest_configure(config):
    ns = os.environ.get("SKLEARN_XP")
    if not ns:
        return
    import sklearn.utils._array_api as aa

    def yield_namespaces(include_numpy_namespaces=True):
        yield ns

    def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
        if ns == "array_api_strict":
            yield ns, "CPU_DEVICE", "float64"
            yield ns, "device1", "float32"
        else:
            # the default device by name, as array-api-strict's are named:
            # the tests pass it to asarray (a NumPy array's asarray without
            # a device stays on the CPU, as torch.asarray's does)
            import ndgpu
            dev = str(ndgpu.asarray(0).device)
            yield ns, dev, "float64"
            yield ns, dev, "float32"

    aa.yield_namespaces = yield_namespaces
    aa.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations


def pytest_collection_modifyitems(config, items):
    ns = os.environ.get("SKLEARN_XP")
    if not ns:
        return
    keep = [it for it in items if ns in it.nodeid]
    drop = [it for it in items if ns not in it.nodeid]
    items[:] = keep
    config.hook.pytest_deselected(items=drop)


# ---- the driver

def run(ns, root, extra, show_failures):
    env = dict(os.environ, SKLEARN_XP=ns, SCIPY_ARRAY_API="1")
    here = os.path.dirname(os.path.abspath(__file__))
    # absolute paths: pytest runs in the sklearn package's directory
    env["PYTHONPATH"] = os.pathsep.join([here] + [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                  if p])
    if env.get("NDGPU_LIBRARY"):
        env["NDGPU_LIBRARY"] = os.path.abspath(env["NDGPU_LIBRARY"])
    paths = [os.path.join(root, m) for m in MODULES if os.path.exists(os.path.join(root, m))]
    cmd = [sys.executable, "-m", "pytest", "-p", "sklearn_array_api", "-p", "no:cacheprovider", "-q", "-rf",
           "--disable-warnings", "-o", "addopts=", "--rootdir", root] + extra + paths
    t0 = time.time()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=root)
    out = r.stdout + r.stderr
    counts = {}
    summary = [ln for ln in out.splitlines() if re.search(r"\d+ (passed|failed|skipped|error)", ln)]
    if summary:
        for n, what in re.findall(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?|deselected)", summary[-1]):
            counts[what.rstrip("s") if what.startswith("error") else what] = int(n)
    failed = [ln for ln in out.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
    return counts, failed, time.time() - t0, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=NAMESPACES, help="one namespace")
    ap.add_argument("--failures", action="store_true", help="list the failing tests")
    ap.add_argument("-k", help="pytest -k expression")
    ap.add_argument("--log", help="write pytest's output of each run to LOG.<namespace>.txt")
    a = ap.parse_args()
    try:
        import sklearn
        import scipy  # noqa: F401
        import pytest  # noqa: F401
    except ImportError as e:
        print(f"sklearn_array_api: SKIPPED ({e.name} not importable)")
        return 0
    root = os.path.dirname(sklearn.__file__)
    extra = ["-k", a.k] if a.k else []
    print(f"scikit-learn {sklearn.__version__}'s array API tests ({root}), ND_DEVICE={os.environ.get('ND_DEVICE', '')}")
    rc = 0
    for ns in ([a.only] if a.only else NAMESPACES):
        counts, failed, secs, out = run(ns, root, extra, a.failures)
        if a.log:
            with open(f"{a.log}.{ns}.txt", "w") as f:
                f.write(out)
        print(f"  {ns:18s} passed {counts.get('passed', 0):5d}  failed {counts.get('failed', 0):4d}  "
              f"errors {counts.get('error', 0):3d}  skipped {counts.get('skipped', 0):4d}  ({secs:.0f} s)")
        if not counts:
            print(out[-3000:])
        if a.failures:
            for ln in failed:
                print("    " + ln)
        if counts.get("failed") or counts.get("error"):
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
