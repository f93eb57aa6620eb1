/*
 * ndgpu._core: the hot path of the Python package in C.
 *
 * What it holds:
 *   - ArrayBase, the type of ndgpu.Array (_array.py sets the methods and
 *     properties of its class Array on it and names it Array; a subclass
 *     works too): it owns one nd_array* reference (its dealloc calls
 *     nd_release), exposed to Python as the int `_h` (None for NULL, as
 *     ctypes' c_void_p.value gives it), and holds the cached _shape and
 *     _dtype and the weak references; freed instances are kept for reuse;
 *   - the operators of the array object (+ - * / % ** & | ^ << >>, their
 *     reflected and in-place forms, the comparisons, unary - + abs ~) for
 *     Array op Array and Array op Python scalar, as number and rich
 *     comparison slots, so x + y is one C call from the interpreter;
 *   - binop(op, x1, x2) and unop(op, x), the elementwise functions of the
 *     namespace (ndgpu.add, ndgpu.exp, ...);
 *   - x[key] for basic keys: one nd_basic_index call;
 *   - wrap(h): a new Array owning the reference h.
 *
 * It has no link-time dependency on libndgpu: _init(handle, lib_module)
 * takes the dlopen handle of the library the package loaded with ctypes
 * (ctypes.CDLL(...)._handle) and resolves the few functions it calls with
 * dlsym, so both paths always call the same library.
 *
 * What stays in Python (ndgpu/_array.py), called from here where an
 * operand is not an Array or an exact bool/int/float/complex:
 * as_operand(other, like) (NumPy operands and other foreign objects;
 * None: NotImplemented), binop/unop (the functions' slow paths, which
 * raise the TypeErrors), and _lib.error(status), which builds the
 * exception of a failed call (its class and message are those of the
 * ctypes path). Floor division, @, __bool__ and the other conversions
 * stay Python methods of Array.
 *
 * Weak scalars as _lib.scalar(): an exact bool/int/float/complex becomes
 * an nd_scalar of that kind (an int beyond int64 raises OverflowError); a
 * subclass of one of them (say a float subclass) is offered to as_operand
 * first, as the Python operators do, and taken as a weak scalar of its base
 * type when as_operand declines it.
 *
 * The GIL is released around calls that read or make at least
 * ND_PY_NOGIL_MIN elements (the broadcast of the operands' shapes), so
 * other Python threads run during long ops; below that the release and
 * re-acquire (~0.1 us) would be a visible part of the call.
 *
 * Stable ABI: setup.py and make python-ext build it with Py_LIMITED_API,
 * 3.10's where the building Python has it (one _core.abi3.so for 3.10 and
 * later), else 3.8's. Measured on the development machine (2-core AMD EPYC
 * VM, Python 3.11.7; the best of 5 x 200,000 calls, three alternating
 * runs of each build): x + y on 1-element float32 0.173 us limited, 0.167
 * us full API (within the noise: the slots are the same calls either way);
 * xp.add(x, y) 0.256 us with 3.8's limited API (no METH_FASTCALL: binop
 * gets a tuple), 0.217 us with 3.10's, 0.202 us full. Hence the limited
 * API, at 3.10 where available.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#ifdef NDGPU_HAVE_HEADERS
/* a checkout: the library's own declarations (-I include) */
#include <ndgpu.h>
#else
/* a build without the headers (an sdist): the declarations this module
 * needs, as in include/ndgpu/core.h, array.h, elementwise.h, manip.h; a
 * build with the headers checks them (the static asserts below) */
typedef struct nd_array nd_array;
typedef enum nd_status { ND_OK = 0, ND_ERR_INTERNAL = 9 } nd_status;
typedef enum nd_dtype { ND_BOOL = 0, ND_NUM_DTYPES = 15 } nd_dtype;
typedef enum nd_scalar_kind {
    ND_SCALAR_NONE = 0,
    ND_SCALAR_BOOL,
    ND_SCALAR_INT,
    ND_SCALAR_FLOAT,
    ND_SCALAR_COMPLEX
} nd_scalar_kind;
typedef struct nd_scalar {
    nd_scalar_kind kind;
    union {
        bool b;
        int64_t i;
        double f;
        double c[2];
    } v;
} nd_scalar;
typedef enum nd_unary_op { ND_NUM_UNARY_OPS = 64 } nd_unary_op;
typedef enum nd_binary_op { ND_NUM_BINARY_OPS = 64 } nd_binary_op;
typedef enum nd_reduce_op { ND_NUM_REDUCE_OPS = 64 } nd_reduce_op;
typedef enum nd_index_kind { ND_INDEX_INT = 0, ND_INDEX_SLICE, ND_INDEX_NEWAXIS, ND_INDEX_ELLIPSIS } nd_index_kind;
typedef struct nd_index_item {
    nd_index_kind kind;
    int64_t start, stop, step;
} nd_index_item;
#define ND_MAX_DIMS 32
#define ND_NONE INT64_MIN
#endif

/* The op numbers of the library's op table (include/ndgpu/elementwise.h,
 * ND_UNARY_OPS / ND_BINARY_OPS order; the enum values are ABI). The
 * package checks its own copy of the order against nd_*_op_name at import
 * (_lib.py); _init checks these the same way. */
enum {
    OP_ADD = 0, OP_SUBTRACT = 1, OP_MULTIPLY = 2, OP_DIVIDE = 3, OP_REMAINDER = 5, OP_POWER = 6,
    OP_EQUAL = 14, OP_NOT_EQUAL = 15, OP_LESS = 16, OP_LESS_EQUAL = 17, OP_GREATER = 18, OP_GREATER_EQUAL = 19,
    OP_BITWISE_AND = 23, OP_BITWISE_OR = 24, OP_BITWISE_XOR = 25, OP_LEFT_SHIFT = 26, OP_RIGHT_SHIFT = 27
};
enum { UOP_NEGATIVE = 0, UOP_POSITIVE = 1, UOP_ABS = 2, UOP_LOGICAL_NOT = 33, UOP_BITWISE_NOT = 34 };
static const struct {
    int op;
    const char *name;
} binary_names[] = {{OP_ADD, "add"},
                    {OP_SUBTRACT, "subtract"},
                    {OP_MULTIPLY, "multiply"},
                    {OP_DIVIDE, "divide"},
                    {OP_REMAINDER, "remainder"},
                    {OP_POWER, "power"},
                    {OP_EQUAL, "equal"},
                    {OP_NOT_EQUAL, "not_equal"},
                    {OP_LESS, "less"},
                    {OP_LESS_EQUAL, "less_equal"},
                    {OP_GREATER, "greater"},
                    {OP_GREATER_EQUAL, "greater_equal"},
                    {OP_BITWISE_AND, "bitwise_and"},
                    {OP_BITWISE_OR, "bitwise_or"},
                    {OP_BITWISE_XOR, "bitwise_xor"},
                    {OP_LEFT_SHIFT, "left_shift"},
                    {OP_RIGHT_SHIFT, "right_shift"}},
  unary_names[] = {{UOP_NEGATIVE, "negative"},
                   {UOP_POSITIVE, "positive"},
                   {UOP_ABS, "abs"},
                   {UOP_LOGICAL_NOT, "logical_not"},
                   {UOP_BITWISE_NOT, "bitwise_not"}};

/* The library's functions this module calls, resolved by _init. */
typedef void (*release_fn)(nd_array *);
typedef nd_status (*binary_fn)(nd_array **, nd_binary_op, const nd_array *, const nd_array *);
typedef nd_status (*binary_scalar_fn)(nd_array **, nd_binary_op, const nd_array *, nd_scalar);
typedef nd_status (*scalar_binary_fn)(nd_array **, nd_binary_op, nd_scalar, const nd_array *);
typedef nd_status (*unary_fn)(nd_array **, nd_unary_op, const nd_array *);
typedef int64_t (*size_fn)(const nd_array *);
typedef nd_dtype (*dtype_of_fn)(const nd_array *);
typedef const char *(*op_name_fn)(int);
typedef int (*ndim_fn)(const nd_array *);
typedef const int64_t *(*shape_fn)(const nd_array *);
typedef nd_status (*reduce_fn)(nd_array **, nd_reduce_op, const nd_array *, int, const int *, bool);
typedef nd_status (*basic_index_fn)(nd_array **, const nd_array *, int, const nd_index_item *);

#ifdef NDGPU_HAVE_HEADERS
/* the hand-written types above match the headers' prototypes */
#define SAME_TYPE(fn, t) _Static_assert(__builtin_types_compatible_p(__typeof__(&fn), t), #fn " changed")
SAME_TYPE(nd_release, release_fn);
SAME_TYPE(nd_binary, binary_fn);
SAME_TYPE(nd_binary_scalar, binary_scalar_fn);
SAME_TYPE(nd_scalar_binary, scalar_binary_fn);
SAME_TYPE(nd_unary, unary_fn);
SAME_TYPE(nd_size, size_fn);
SAME_TYPE(nd_dtype_of, dtype_of_fn);
SAME_TYPE(nd_ndim, ndim_fn);
SAME_TYPE(nd_shape, shape_fn);
SAME_TYPE(nd_reduce, reduce_fn);
SAME_TYPE(nd_basic_index, basic_index_fn);
_Static_assert(ND_INDEX_INT == 0 && ND_INDEX_SLICE == 1 && ND_INDEX_NEWAXIS == 2 && ND_INDEX_ELLIPSIS == 3 &&
                   sizeof(nd_index_item) == 32,
               "nd_index_item changed");
#define SAME_OP(e, v) ((int)(e) == (int)(v))
_Static_assert(SAME_OP(ND_BINARY_ADD, OP_ADD) && SAME_OP(ND_BINARY_SUBTRACT, OP_SUBTRACT) &&
                   SAME_OP(ND_BINARY_MULTIPLY, OP_MULTIPLY) && SAME_OP(ND_BINARY_DIVIDE, OP_DIVIDE) &&
                   SAME_OP(ND_BINARY_REMAINDER, OP_REMAINDER) && SAME_OP(ND_BINARY_POWER, OP_POWER) &&
                   SAME_OP(ND_BINARY_EQUAL, OP_EQUAL) && SAME_OP(ND_BINARY_NOT_EQUAL, OP_NOT_EQUAL) &&
                   SAME_OP(ND_BINARY_LESS, OP_LESS) && SAME_OP(ND_BINARY_LESS_EQUAL, OP_LESS_EQUAL) &&
                   SAME_OP(ND_BINARY_GREATER, OP_GREATER) && SAME_OP(ND_BINARY_GREATER_EQUAL, OP_GREATER_EQUAL) &&
                   SAME_OP(ND_BINARY_BITWISE_AND, OP_BITWISE_AND) && SAME_OP(ND_BINARY_BITWISE_OR, OP_BITWISE_OR) &&
                   SAME_OP(ND_BINARY_BITWISE_XOR, OP_BITWISE_XOR) &&
                   SAME_OP(ND_BINARY_LEFT_SHIFT, OP_LEFT_SHIFT) && SAME_OP(ND_BINARY_RIGHT_SHIFT, OP_RIGHT_SHIFT),
               "binary op numbers changed");
_Static_assert(SAME_OP(ND_UNARY_NEG, UOP_NEGATIVE) && SAME_OP(ND_UNARY_POSITIVE, UOP_POSITIVE) &&
                   SAME_OP(ND_UNARY_ABS, UOP_ABS) && SAME_OP(ND_UNARY_LOGICAL_NOT, UOP_LOGICAL_NOT) &&
                   SAME_OP(ND_UNARY_BITWISE_NOT, UOP_BITWISE_NOT),
               "unary op numbers changed");
_Static_assert(ND_BOOL == 0 && ND_REDUCE_SUM == 0 && sizeof(nd_scalar) == 24, "nd_scalar / nd_dtype changed");
#endif

static release_fn p_release;
static binary_fn p_binary;
static binary_scalar_fn p_binary_scalar;
static scalar_binary_fn p_scalar_binary;
static unary_fn p_unary;
static size_fn p_size;
static dtype_of_fn p_dtype_of;
static ndim_fn p_ndim;
static shape_fn p_shape;
static reduce_fn p_reduce;
static basic_index_fn p_basic_index;

/* Operands of at least this many elements (the larger operand) run with
 * the GIL released. */
#define ND_PY_NOGIL_MIN 16384

/* ------------------------------------------------------------------ */
/* State set by _init / _set_array_type                                */
/* ------------------------------------------------------------------ */
static PyTypeObject *base_type;  /* ArrayBase */
static PyTypeObject *array_type; /* ndgpu.Array: ArrayBase itself, or a subclass */
static allocfunc array_alloc;    /* its tp_alloc */
static PyObject *lib_module;     /* ndgpu._lib: error(status) */
static PyObject *array_module;   /* ndgpu._array: as_operand, binop, unop */
static PyObject *index_module;   /* ndgpu._indexing: getitem (imported on first use) */

/* The object: the handle, the shape and dtype the Python class caches
 * (_shape, _dtype: NULL until it reads them) and the weak reference list,
 * all here so that Array (a Python subclass) adds no slots: its instances
 * then stay outside the cycle collector (they hold a tuple of ints and a
 * dtype, never a cycle), which makes making and dropping one cheaper. */
typedef struct {
    PyObject_HEAD nd_array *h;
    PyObject *shape;
    PyObject *dtype;
    PyObject *weakrefs;
} ArrayBaseObject;

#define HANDLE(o) (((ArrayBaseObject *)(o))->h)

static inline int is_array(PyObject *o)
{
    return Py_TYPE(o) == array_type || PyObject_TypeCheck(o, base_type);
}

static int ready(void)
{
    if (array_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "ndgpu._core is not initialised (_init, _set_array_type)");
        return 0;
    }
    return 1;
}

/* Freed Arrays kept for the next ones (CPython's float free list): making
 * an Array then allocates nothing and dropping one frees nothing. Only
 * where Array is ArrayBase itself (_array.py completes this type with its
 * methods rather than subclass it): its instances are plain objects of
 * PyObject_Malloc without a cycle-collector header. Chained through their
 * handle field; at most FREE_MAX. A kept object gives back its reference
 * to the type (the type's count tells leaks, as without the list). */
#define FREE_MAX 64
#if PY_VERSION_HEX < 0x030900A4 && !defined(Py_SET_REFCNT)
#define Py_SET_REFCNT(ob, n) (((PyObject *)(ob))->ob_refcnt = (n)) /* 3.8's headers */
#endif
static ArrayBaseObject *free_list;
static int free_count;

/* A new Array without a handle (NULL and an exception when out of memory). */
static PyObject *alloc_array(void)
{
    ArrayBaseObject *a = free_list;
    if (a == NULL || array_type != base_type)
        return array_alloc(array_type, 0);
    free_list = (ArrayBaseObject *)(void *)a->h;
    free_count--;
    a->h = NULL; /* the other fields were cleared when it was freed */
    Py_INCREF(array_type);
    Py_SET_REFCNT((PyObject *)a, 1);
    return (PyObject *)a;
}

/* A new Array owning h (released when the allocation fails). */
static PyObject *new_array(nd_array *h)
{
    if (array_type == NULL) {
        p_release(h);
        (void)ready(); /* sets the error */
        return NULL;
    }
    PyObject *o = alloc_array();
    if (o == NULL) {
        p_release(h);
        return NULL;
    }
    HANDLE(o) = h;
    return o;
}

/* Raise _lib.error(status[, cls]) (the exception the ctypes path raises). */
static PyObject *raise_status_as(nd_status st, PyObject *cls)
{
    PyObject *exc = cls ? PyObject_CallMethod(lib_module, "error", "iO", (int)st, cls)
                        : PyObject_CallMethod(lib_module, "error", "i", (int)st);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

static PyObject *raise_status(nd_status st) { return raise_status_as(st, NULL); }

static PyObject *call_array_module(const char *name, PyObject *a, PyObject *b, PyObject *c)
{
    PyObject *fn = PyObject_GetAttrString(array_module, name);
    if (fn == NULL)
        return NULL;
    PyObject *r = PyObject_CallFunctionObjArgs(fn, a, b, c, NULL);
    Py_DECREF(fn);
    return r;
}

/* ------------------------------------------------------------------ */
/* Scalars                                                             */
/* ------------------------------------------------------------------ */

/* 1: v is an exact bool/int/float/complex, stored in *s; 0: it is not;
 * -1: error (an int beyond int64). */
static int exact_scalar(PyObject *v, nd_scalar *s)
{
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyFloat_Type) {
        s->kind = ND_SCALAR_FLOAT;
        s->v.f = PyFloat_AsDouble(v);
        return 1;
    }
    if (t == &PyLong_Type) {
        int overflow = 0;
        long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow) {
            PyErr_Format(PyExc_OverflowError, "Python int %S out of bounds for int64", v);
            return -1;
        }
        if (i == -1 && PyErr_Occurred())
            return -1;
        s->kind = ND_SCALAR_INT;
        s->v.i = (int64_t)i;
        return 1;
    }
    if (t == &PyBool_Type) {
        s->kind = ND_SCALAR_BOOL;
        s->v.i = 0; /* the whole word: the library may read it as an integer */
        s->v.b = v == Py_True;
        return 1;
    }
    if (t == &PyComplex_Type) {
        s->kind = ND_SCALAR_COMPLEX;
        s->v.c[0] = PyComplex_RealAsDouble(v);
        s->v.c[1] = PyComplex_ImagAsDouble(v);
        return 1;
    }
    return 0;
}

/* A subclass of bool/int/float/complex as a weak scalar of its base type
 * (_lib.scalar's isinstance branch): 1, 0 (not one), -1 (error). */
static int subclass_scalar(PyObject *v, nd_scalar *s)
{
    if (PyLong_Check(v)) { /* bool cannot be subclassed: an int subclass */
        int overflow = 0;
        long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow) {
            PyErr_Format(PyExc_OverflowError, "Python int %S out of bounds for int64", v);
            return -1;
        }
        if (i == -1 && PyErr_Occurred())
            return -1;
        s->kind = ND_SCALAR_INT;
        s->v.i = (int64_t)i;
        return 1;
    }
    if (PyFloat_Check(v)) {
        double f = PyFloat_AsDouble(v);
        if (f == -1.0 && PyErr_Occurred())
            return -1;
        s->kind = ND_SCALAR_FLOAT;
        s->v.f = f;
        return 1;
    }
    if (PyComplex_Check(v)) {
        s->kind = ND_SCALAR_COMPLEX;
        s->v.c[0] = PyComplex_RealAsDouble(v);
        s->v.c[1] = PyComplex_ImagAsDouble(v);
        return 1;
    }
    return 0;
}

/* An operand that is neither an Array nor an exact Python scalar, beside
 * the Array `like`: as_operand(other, like) first (*arr: a new reference
 * to the Array it gives), then a scalar subclass (*s); 0 when neither
 * (NotImplemented), 1 / 2 for an array / a scalar, -1 on error. */
static int foreign_operand(PyObject *other, PyObject *like, PyObject **arr, nd_scalar *s)
{
    PyObject *a = call_array_module("as_operand", other, like, NULL);
    if (a == NULL)
        return -1;
    if (a != Py_None) {
        if (!is_array(a)) {
            PyErr_Format(PyExc_TypeError, "as_operand gave %R, not an ndgpu.Array", a);
            Py_DECREF(a);
            return -1;
        }
        *arr = a;
        return 1;
    }
    Py_DECREF(a);
    int k = subclass_scalar(other, s);
    return k < 0 ? -1 : (k ? 2 : 0);
}

/* ------------------------------------------------------------------ */
/* The calls, with the GIL released for large operands                 */
/* ------------------------------------------------------------------ */
static inline int big(const nd_array *a) { return p_size(a) >= ND_PY_NOGIL_MIN; }

/* Whether a op b makes or reads ND_PY_NOGIL_MIN elements or more: the
 * broadcast of the two shapes (larger than either operand for (n, 1) op
 * (1, n)); shapes that do not broadcast fail fast. */
static int big2(const nd_array *a, const nd_array *b)
{
    int na = p_ndim(a), nb = p_ndim(b);
    const int64_t *sa = p_shape(a), *sb = p_shape(b);
    int64_t n = 1;
    for (int i = 0; i < na || i < nb; i++) {
        int64_t da = i < na ? sa[na - 1 - i] : 1, db = i < nb ? sb[nb - 1 - i] : 1;
        int64_t d = da == 1 ? db : da;
        if (d == 0)
            return 0;
        if (d >= ND_PY_NOGIL_MIN || (n *= d) >= ND_PY_NOGIL_MIN)
            return 1;
    }
    return 0;
}

static nd_status do_binary(nd_array **o, int op, nd_array *a, nd_array *b)
{
    nd_status st;
    if (big2(a, b)) {
        Py_BEGIN_ALLOW_THREADS st = p_binary(o, (nd_binary_op)op, a, b);
        Py_END_ALLOW_THREADS
    } else {
        st = p_binary(o, (nd_binary_op)op, a, b);
    }
    return st;
}

static nd_status do_binary_scalar(nd_array **o, int op, nd_array *a, nd_scalar s)
{
    nd_status st;
    if (big(a)) {
        Py_BEGIN_ALLOW_THREADS st = p_binary_scalar(o, (nd_binary_op)op, a, s);
        Py_END_ALLOW_THREADS
    } else {
        st = p_binary_scalar(o, (nd_binary_op)op, a, s);
    }
    return st;
}

static nd_status do_scalar_binary(nd_array **o, int op, nd_scalar s, nd_array *a)
{
    nd_status st;
    if (big(a)) {
        Py_BEGIN_ALLOW_THREADS st = p_scalar_binary(o, (nd_binary_op)op, s, a);
        Py_END_ALLOW_THREADS
    } else {
        st = p_scalar_binary(o, (nd_binary_op)op, s, a);
    }
    return st;
}

static nd_status do_unary(nd_array **o, int op, nd_array *a)
{
    nd_status st;
    if (big(a)) {
        Py_BEGIN_ALLOW_THREADS st = p_unary(o, (nd_unary_op)op, a);
        Py_END_ALLOW_THREADS
    } else {
        st = p_unary(o, (nd_unary_op)op, a);
    }
    return st;
}

/* ------------------------------------------------------------------ */
/* The operators                                                       */
/* ------------------------------------------------------------------ */

/* self op other into *o (self an Array; *o NULL for a new array, or self's
 * own handle for op=): 1 done (*st the library's status), 0 other is not an
 * operand (NotImplemented), -1 a Python error. */
static int self_op(PyObject *self, PyObject *other, int op, nd_array **o, nd_status *st)
{
    nd_scalar s;
    if (is_array(other)) {
        *st = do_binary(o, op, HANDLE(self), HANDLE(other));
        return 1;
    }
    int k = exact_scalar(other, &s);
    if (k < 0)
        return -1;
    if (k) {
        *st = do_binary_scalar(o, op, HANDLE(self), s);
        return 1;
    }
    PyObject *arr = NULL;
    k = foreign_operand(other, self, &arr, &s);
    if (k <= 0)
        return k;
    if (k == 1) {
        *st = do_binary(o, op, HANDLE(self), HANDLE(arr));
        Py_DECREF(arr);
    } else {
        *st = do_binary_scalar(o, op, HANDLE(self), s);
    }
    return 1;
}

/* self op other (self an Array). */
static PyObject *forward(PyObject *self, PyObject *other, int op)
{
    nd_array *o = NULL;
    nd_status st;
    const int k = self_op(self, other, op, &o, &st);
    if (k < 0)
        return NULL;
    if (k == 0)
        Py_RETURN_NOTIMPLEMENTED;
    if (st)
        return raise_status(st);
    return new_array(o);
}

/* other op self (self an Array, other not: a number slot gets two Arrays
 * as (left, right) and runs forward). */
static PyObject *reflected(PyObject *self, PyObject *other, int op)
{
    nd_array *o = NULL;
    nd_status st;
    nd_scalar s;
    int k = exact_scalar(other, &s);
    if (k < 0)
        return NULL;
    if (k) {
        st = do_scalar_binary(&o, op, s, HANDLE(self));
    } else {
        PyObject *arr = NULL;
        k = foreign_operand(other, self, &arr, &s);
        if (k < 0)
            return NULL;
        if (k == 0)
            Py_RETURN_NOTIMPLEMENTED;
        if (k == 1) {
            st = do_binary(&o, op, HANDLE(arr), HANDLE(self));
            Py_DECREF(arr);
        } else {
            st = do_scalar_binary(&o, op, s, HANDLE(self));
        }
    }
    if (st)
        return raise_status(st);
    return new_array(o);
}

/* self op= other: the result written into self (the library's out rule:
 * the result must have self's shape and cast to its dtype). */
static PyObject *inplace(PyObject *self, PyObject *other, int op)
{
    nd_array *o = HANDLE(self);
    nd_status st;
    const int k = self_op(self, other, op, &o, &st);
    if (k < 0)
        return NULL;
    if (k == 0)
        Py_RETURN_NOTIMPLEMENTED;
    if (st)
        return raise_status(st);
    Py_INCREF(self);
    return self;
}

/* A number slot is called with the Array on either side. */
#define BINARY_SLOT(name, op)                                                                                    \
    static PyObject *nb_##name(PyObject *a, PyObject *b)                                                       \
    {                                                                                                          \
        return is_array(a) ? forward(a, b, op) : reflected(b, a, op);                                          \
    }                                                                                                          \
    static PyObject *nb_inplace_##name(PyObject *a, PyObject *b) { return inplace(a, b, op); }
BINARY_SLOT(add, OP_ADD)
BINARY_SLOT(subtract, OP_SUBTRACT)
BINARY_SLOT(multiply, OP_MULTIPLY)
BINARY_SLOT(true_divide, OP_DIVIDE)
BINARY_SLOT(remainder, OP_REMAINDER)
BINARY_SLOT(and, OP_BITWISE_AND)
BINARY_SLOT(or, OP_BITWISE_OR)
BINARY_SLOT(xor, OP_BITWISE_XOR)
BINARY_SLOT(lshift, OP_LEFT_SHIFT)
BINARY_SLOT(rshift, OP_RIGHT_SHIFT)

/* pow(x, y, z) has no array form: NotImplemented (TypeError) */
static PyObject *nb_power(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None)
        Py_RETURN_NOTIMPLEMENTED;
    return is_array(a) ? forward(a, b, OP_POWER) : reflected(b, a, OP_POWER);
}

static PyObject *nb_inplace_power(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None)
        Py_RETURN_NOTIMPLEMENTED;
    return inplace(a, b, OP_POWER);
}

static PyObject *richcompare(PyObject *self, PyObject *other, int cmp)
{
    static const int ops[] = {[Py_LT] = OP_LESS,     [Py_LE] = OP_LESS_EQUAL, [Py_EQ] = OP_EQUAL,
                              [Py_NE] = OP_NOT_EQUAL, [Py_GT] = OP_GREATER,   [Py_GE] = OP_GREATER_EQUAL};
    if (cmp < 0 || cmp > Py_GE)
        Py_RETURN_NOTIMPLEMENTED;
    return forward(self, other, ops[cmp]);
}

static PyObject *unary(PyObject *self, int op)
{
    nd_array *o = NULL;
    nd_status st = do_unary(&o, op, HANDLE(self));
    if (st)
        return raise_status(st);
    return new_array(o);
}

static PyObject *nb_negative(PyObject *a) { return unary(a, UOP_NEGATIVE); }
static PyObject *nb_positive(PyObject *a) { return unary(a, UOP_POSITIVE); }
static PyObject *nb_absolute(PyObject *a) { return unary(a, UOP_ABS); }
/* ~x: logical_not for bool arrays, bitwise_not for the others */
static PyObject *nb_invert(PyObject *a)
{
    return unary(a, p_dtype_of(HANDLE(a)) == ND_BOOL ? UOP_LOGICAL_NOT : UOP_BITWISE_NOT);
}

/* ------------------------------------------------------------------ */
/* x[key] for basic keys                                               */
/* ------------------------------------------------------------------ */

/* x[key] where key is an int, a slice, None, Ellipsis or a tuple of
 * those: one nd_basic_index call, as _indexing.getitem makes for these
 * keys. Returns NULL without an exception for every other key and where
 * the library refuses the key (a second Ellipsis, too many indices, an int
 * out of bounds, a zero step) or a bound is not an integer:
 * _indexing.getitem handles those, with its messages. */
#define MAX_ITEMS (2 * ND_MAX_DIMS)
static PyObject *fast_getitem(PyObject *self, PyObject *key)
{
    const int tuple = !PyLong_CheckExact(key) && PyTuple_Check(key);
    const Py_ssize_t nk = tuple ? PyTuple_Size(key) : 1;
    if (nk > MAX_ITEMS)
        return NULL;
    nd_index_item items[MAX_ITEMS];
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *k = tuple ? PyTuple_GetItem(key, i) : key; /* borrowed */
        nd_index_item *it = &items[i];
        if (PyLong_CheckExact(k)) {
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(k, &overflow);
            if (overflow || (v == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return NULL;
            }
            it->kind = ND_INDEX_INT;
            it->start = v;
        } else if (k == Py_None) {
            it->kind = ND_INDEX_NEWAXIS;
        } else if (k == Py_Ellipsis) {
            it->kind = ND_INDEX_ELLIPSIS;
        } else if (PySlice_Check(k)) {
            /* None bounds come back as Python's defaults (0 and
             * PY_SSIZE_T_MAX, or PY_SSIZE_T_MAX and PY_SSIZE_T_MIN for a
             * negative step) and larger ints clamped to Py_ssize_t, which
             * the library clamps to the axis as Python does. PY_SSIZE_T_MIN
             * is the library's ND_NONE: a bound that is not None gets one
             * more (the same clamp) */
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(k, &start, &stop, &step) < 0) {
                PyErr_Clear();
                return NULL;
            }
            if (start == PY_SSIZE_T_MIN)
                start++;
            if (stop == PY_SSIZE_T_MIN && step > 0)
                stop++;
            it->kind = ND_INDEX_SLICE;
            it->start = start;
            it->stop = stop;
            it->step = step;
        } else {
            return NULL;
        }
    }
    nd_array *v = NULL;
    if (p_basic_index(&v, HANDLE(self), (int)nk, items) != ND_OK)
        return NULL;
    return new_array(v);
}

static PyObject *mp_subscript(PyObject *self, PyObject *key)
{
    PyObject *r = fast_getitem(self, key);
    if (r != NULL || PyErr_Occurred())
        return r;
    if (index_module == NULL) {
        index_module = PyImport_ImportModule("ndgpu._indexing");
        if (index_module == NULL)
            return NULL;
    }
    PyObject *fn = PyObject_GetAttrString(index_module, "getitem");
    if (fn == NULL)
        return NULL;
    r = PyObject_CallFunctionObjArgs(fn, self, key, NULL);
    Py_DECREF(fn);
    return r;
}

/* The sequence protocol's item (PySequence_Check looks for it: NumPy's
 * np.asarray reads an object without __array__ as a nested sequence), as
 * a class with a Python __getitem__ has it. */
static PyObject *sq_item(PyObject *self, Py_ssize_t i)
{
    PyObject *key = PyLong_FromSsize_t(i);
    if (key == NULL)
        return NULL;
    PyObject *r = mp_subscript(self, key);
    Py_DECREF(key);
    return r;
}

/* ------------------------------------------------------------------ */
/* ArrayBase                                                           */
/* ------------------------------------------------------------------ */
static PyObject *base_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)args;
    (void)kwds;
    if (p_release == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "ndgpu._core is not initialised (_init): import ndgpu");
        return NULL;
    }
    if (type == array_type)
        return alloc_array();
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    return alloc(type, 0); /* zeroed: no handle, shape, dtype or weak reference */
}

static void base_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    ArrayBaseObject *a = (ArrayBaseObject *)self;
    if (a->weakrefs != NULL)
        PyObject_ClearWeakRefs(self);
    Py_CLEAR(a->shape);
    Py_CLEAR(a->dtype);
    nd_array *h = a->h;
    a->h = NULL;
    if (h != NULL && p_release != NULL)
        p_release(h);
    if (tp == array_type && tp == base_type && free_count < FREE_MAX) {
        a->h = (nd_array *)(void *)free_list;
        free_list = a;
        free_count++;
    } else {
        freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
        f(self);
    }
    Py_DECREF(tp); /* instances of a heap type hold a reference to it */
}

static PyObject *get_h(PyObject *self, void *closure)
{
    (void)closure;
    nd_array *h = HANDLE(self);
    if (h == NULL)
        Py_RETURN_NONE;
    return PyLong_FromVoidPtr(h);
}

/* x._h = h: the object takes the reference h (an int, or None for NULL);
 * as with a plain attribute, a reference it held before is not released. */
static int set_h(PyObject *self, PyObject *value, void *closure)
{
    (void)closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete _h");
        return -1;
    }
    if (value == Py_None) {
        HANDLE(self) = NULL;
        return 0;
    }
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "_h must be an int (an nd_array* handle) or None, not %R",
                     (PyObject *)Py_TYPE(value));
        return -1;
    }
    void *p = PyLong_AsVoidPtr(value);
    if (p == NULL && PyErr_Occurred())
        return -1;
    HANDLE(self) = (nd_array *)p;
    return 0;
}

/* x.__weakref__: the first weak reference to x, or None (what a class
 * with a __weakref__ slot gives) */
static PyObject *get_weakref(PyObject *self, void *closure)
{
    (void)closure;
    PyObject *w = ((ArrayBaseObject *)self)->weakrefs;
    if (w == NULL)
        w = Py_None;
    Py_INCREF(w);
    return w;
}

static PyGetSetDef base_getset[] = {
    {"_h", get_h, set_h, "the nd_array* reference the array owns (an int; None for none)", NULL},
    {"__weakref__", get_weakref, NULL, "list of weak references to the object (if defined)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* _shape and _dtype: AttributeError until set, as the slots they replace */
static PyMemberDef base_members[] = {
    {"_shape", T_OBJECT_EX, offsetof(ArrayBaseObject, shape), 0, "the shape, once read (a tuple)"},
    {"_dtype", T_OBJECT_EX, offsetof(ArrayBaseObject, dtype), 0, "the dtype, once read"},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(ArrayBaseObject, weakrefs), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot base_slots[] = {
    {Py_tp_doc, "The type of ndgpu.Array: owns one nd_array* reference (released with the object) and "
                "implements the operators in C."},
    {Py_tp_new, base_new},
    {Py_tp_dealloc, base_dealloc},
    {Py_tp_getset, base_getset},
    {Py_tp_members, base_members},
    {Py_tp_richcompare, richcompare},
    {Py_mp_subscript, mp_subscript},
    {Py_sq_item, sq_item},
    {Py_nb_add, nb_add},
    {Py_nb_subtract, nb_subtract},
    {Py_nb_multiply, nb_multiply},
    {Py_nb_true_divide, nb_true_divide},
    {Py_nb_remainder, nb_remainder},
    {Py_nb_power, nb_power},
    {Py_nb_and, nb_and},
    {Py_nb_or, nb_or},
    {Py_nb_xor, nb_xor},
    {Py_nb_lshift, nb_lshift},
    {Py_nb_rshift, nb_rshift},
    {Py_nb_inplace_add, nb_inplace_add},
    {Py_nb_inplace_subtract, nb_inplace_subtract},
    {Py_nb_inplace_multiply, nb_inplace_multiply},
    {Py_nb_inplace_true_divide, nb_inplace_true_divide},
    {Py_nb_inplace_remainder, nb_inplace_remainder},
    {Py_nb_inplace_power, nb_inplace_power},
    {Py_nb_inplace_and, nb_inplace_and},
    {Py_nb_inplace_or, nb_inplace_or},
    {Py_nb_inplace_xor, nb_inplace_xor},
    {Py_nb_inplace_lshift, nb_inplace_lshift},
    {Py_nb_inplace_rshift, nb_inplace_rshift},
    {Py_nb_negative, nb_negative},
    {Py_nb_positive, nb_positive},
    {Py_nb_absolute, nb_absolute},
    {Py_nb_invert, nb_invert},
    {0, NULL}};

static PyType_Spec base_spec = {"ndgpu._core.ArrayBase", sizeof(ArrayBaseObject), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, base_slots};

/* ------------------------------------------------------------------ */
/* Module functions                                                    */
/* ------------------------------------------------------------------ */

static int int_arg(PyObject *v, int *out)
{
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred())
        return 0;
    if (x < 0 || x > 255) {
        PyErr_Format(PyExc_ValueError, "bad op number %ld", x);
        return 0;
    }
    *out = (int)x;
    return 1;
}

/* binop(op, x1, x2): the namespace's binary functions; Array/Array and
 * Array/exact scalar here, everything else in _array.binop. */
static PyObject *binop_impl(PyObject *opobj, PyObject *x1, PyObject *x2)
{
    int op;
    if (!ready() || !int_arg(opobj, &op))
        return NULL;
    nd_array *o = NULL;
    nd_status st;
    nd_scalar s;
    int a1 = is_array(x1), a2 = is_array(x2), k;
    if (a1 && a2) {
        st = do_binary(&o, op, HANDLE(x1), HANDLE(x2));
    } else if (a1 && (k = exact_scalar(x2, &s)) != 0) {
        if (k < 0)
            return NULL;
        st = do_binary_scalar(&o, op, HANDLE(x1), s);
    } else if (a2 && (k = exact_scalar(x1, &s)) != 0) {
        if (k < 0)
            return NULL;
        st = do_scalar_binary(&o, op, s, HANDLE(x2));
    } else {
        return call_array_module("binop", opobj, x1, x2);
    }
    if (st)
        return raise_status(st);
    return new_array(o);
}

static PyObject *unop_impl(PyObject *opobj, PyObject *x)
{
    int op;
    if (!ready() || !int_arg(opobj, &op))
        return NULL;
    if (!is_array(x))
        return call_array_module("unop", opobj, x, NULL);
    return unary(x, op);
}

/* reduce_all(op, x, keepdims): the library's reduction `op` (nd_reduce_op)
 * over every axis of an Array: the namespace's sum, max, ... with axis=None
 * and no dtype. None when x is not an Array (the caller's Python path then
 * converts or raises). */
static PyObject *reduce_all_impl(PyObject *opobj, PyObject *x, PyObject *kd)
{
    int op;
    if (!ready() || !int_arg(opobj, &op))
        return NULL;
    if (!is_array(x))
        Py_RETURN_NONE;
    const int keep = PyObject_IsTrue(kd);
    if (keep < 0)
        return NULL;
    nd_array *o = NULL, *a = HANDLE(x);
    nd_status st;
    if (big(a)) {
        Py_BEGIN_ALLOW_THREADS st = p_reduce(&o, (nd_reduce_op)op, a, -1, NULL, keep != 0);
        Py_END_ALLOW_THREADS
    } else {
        st = p_reduce(&o, (nd_reduce_op)op, a, -1, NULL, keep != 0);
    }
    if (st)
        return raise_status(st);
    return new_array(o);
}

#if !defined(Py_LIMITED_API) || Py_LIMITED_API + 0 >= 0x030a0000
#define FAST_CALLS 1
static PyObject *core_reduce_all(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    (void)m;
    if (n != 3) {
        PyErr_Format(PyExc_TypeError, "reduce_all() takes 3 arguments (%zd given)", n);
        return NULL;
    }
    return reduce_all_impl(args[0], args[1], args[2]);
}

static PyObject *core_binop(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    (void)m;
    if (n != 3) {
        PyErr_Format(PyExc_TypeError, "binop() takes 3 arguments (%zd given)", n);
        return NULL;
    }
    return binop_impl(args[0], args[1], args[2]);
}

static PyObject *core_unop(PyObject *m, PyObject *const *args, Py_ssize_t n)
{
    (void)m;
    if (n != 2) {
        PyErr_Format(PyExc_TypeError, "unop() takes 2 arguments (%zd given)", n);
        return NULL;
    }
    return unop_impl(args[0], args[1]);
}

#else
#define FAST_CALLS 0
static PyObject *core_reduce_all(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *op, *x, *kd;
    if (!PyArg_UnpackTuple(args, "reduce_all", 3, 3, &op, &x, &kd))
        return NULL;
    return reduce_all_impl(op, x, kd);
}

static PyObject *core_binop(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *op, *x1, *x2;
    if (!PyArg_UnpackTuple(args, "binop", 3, 3, &op, &x1, &x2))
        return NULL;
    return binop_impl(op, x1, x2);
}

static PyObject *core_unop(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *op, *x;
    if (!PyArg_UnpackTuple(args, "unop", 2, 2, &op, &x))
        return NULL;
    return unop_impl(op, x);
}
#endif

/* wrap(h): a new Array owning the reference h (an int; None for NULL). */
static PyObject *core_wrap(PyObject *m, PyObject *arg)
{
    (void)m;
    if (!ready())
        return NULL;
    void *p = NULL;
    if (arg != Py_None) {
        p = PyLong_AsVoidPtr(arg);
        if (p == NULL && PyErr_Occurred())
            return NULL;
    }
    PyObject *o = alloc_array();
    if (o == NULL)
        return NULL; /* the caller keeps h */
    HANDLE(o) = (nd_array *)p;
    return o;
}

/* _bench_loop(kind, n, h1, h2, value): seconds that n calls of the library
 * alone take, each followed by nd_release of its result (the C rows of
 * benchmarks/bench_python_overhead.py, measured in the same process as
 * the Python rows): kind 0 nd_binary(add, h1, h2), 1 nd_binary_scalar(add,
 * h1, value), 2 x[0] of a 1-D h1 (nd_basic_index, as x[0] does),
 * 3 nd_reduce(sum, h1) over all axes. The GIL is released. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static PyObject *core_bench_loop(PyObject *m, PyObject *args)
{
    (void)m;
    int kind;
    long long n;
    PyObject *o1, *o2;
    double value;
    if (!PyArg_ParseTuple(args, "iLOOd:_bench_loop", &kind, &n, &o1, &o2, &value))
        return NULL;
    nd_array *a = (nd_array *)PyLong_AsVoidPtr(o1);
    nd_array *b = o2 == Py_None ? NULL : (nd_array *)PyLong_AsVoidPtr(o2);
    if (PyErr_Occurred())
        return NULL;
    if (a == NULL || kind < 0 || kind > 3 || (kind == 0 && b == NULL) || (kind == 2 && p_ndim(a) != 1)) {
        PyErr_SetString(PyExc_ValueError, "_bench_loop: bad kind or handles");
        return NULL;
    }
    nd_scalar s;
    s.kind = ND_SCALAR_FLOAT;
    s.v.f = value;
    const nd_index_item first = {ND_INDEX_INT, 0, 0, 0};
    nd_status st = ND_OK;
    double t0 = 0, t1 = 0;
    Py_BEGIN_ALLOW_THREADS t0 = now_s();
    for (long long i = 0; i < n && st == ND_OK; i++) {
        nd_array *o = NULL;
        switch (kind) {
        case 0: st = p_binary(&o, (nd_binary_op)OP_ADD, a, b); break;
        case 1: st = p_binary_scalar(&o, (nd_binary_op)OP_ADD, a, s); break;
        case 2:
            st = p_basic_index(&o, a, 1, &first);
            break;
        default: st = p_reduce(&o, (nd_reduce_op)0, a, -1, NULL, false); break;
        }
        p_release(o);
    }
    t1 = now_s();
    Py_END_ALLOW_THREADS
    if (st)
        return raise_status(st);
    return PyFloat_FromDouble(t1 - t0);
}

static void *sym(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    if (p == NULL)
        PyErr_Format(PyExc_ImportError, "ndgpu._core: libndgpu has no %s", name);
    return p;
}

/* _init(handle, lib_module): the library's functions from the dlopen
 * handle ctypes holds (ctypes.CDLL(...)._handle), and the module whose
 * error(status) builds the exceptions. ImportError when the library lacks
 * a function or numbers an op differently. */
static PyObject *core_init(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *hobj, *libmod;
    if (!PyArg_ParseTuple(args, "OO:_init", &hobj, &libmod))
        return NULL;
    void *handle = PyLong_AsVoidPtr(hobj);
    if (handle == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "_init: a NULL library handle");
        return NULL;
    }
    release_fn rel = (release_fn)sym(handle, "nd_release");
    binary_fn bin = (binary_fn)sym(handle, "nd_binary");
    binary_scalar_fn bs = (binary_scalar_fn)sym(handle, "nd_binary_scalar");
    scalar_binary_fn sb = (scalar_binary_fn)sym(handle, "nd_scalar_binary");
    unary_fn un = (unary_fn)sym(handle, "nd_unary");
    size_fn sz = (size_fn)sym(handle, "nd_size");
    dtype_of_fn dt = (dtype_of_fn)sym(handle, "nd_dtype_of");
    op_name_fn bname = (op_name_fn)sym(handle, "nd_binary_op_name");
    op_name_fn uname = (op_name_fn)sym(handle, "nd_unary_op_name");
    ndim_fn nd = (ndim_fn)sym(handle, "nd_ndim");
    shape_fn sh = (shape_fn)sym(handle, "nd_shape");
    reduce_fn rd = (reduce_fn)sym(handle, "nd_reduce");
    basic_index_fn bi = (basic_index_fn)sym(handle, "nd_basic_index");
    if (!rel || !bin || !bs || !sb || !un || !sz || !dt || !bname || !uname || !nd || !sh || !rd || !bi)
        return NULL;
    for (size_t i = 0; i < sizeof binary_names / sizeof binary_names[0]; i++) {
        const char *n = bname(binary_names[i].op);
        if (n == NULL || strcmp(n, binary_names[i].name) != 0)
            return PyErr_Format(PyExc_ImportError, "ndgpu._core: libndgpu's binary op %d is %s, not %s",
                                binary_names[i].op, n ? n : "(none)", binary_names[i].name);
    }
    for (size_t i = 0; i < sizeof unary_names / sizeof unary_names[0]; i++) {
        const char *n = uname(unary_names[i].op);
        if (n == NULL || strcmp(n, unary_names[i].name) != 0)
            return PyErr_Format(PyExc_ImportError, "ndgpu._core: libndgpu's unary op %d is %s, not %s",
                                unary_names[i].op, n ? n : "(none)", unary_names[i].name);
    }
    p_release = rel;
    p_binary = bin;
    p_binary_scalar = bs;
    p_scalar_binary = sb;
    p_unary = un;
    p_size = sz;
    p_dtype_of = dt;
    p_ndim = nd;
    p_shape = sh;
    p_reduce = rd;
    p_basic_index = bi;
    Py_INCREF(libmod);
    Py_XDECREF(lib_module);
    lib_module = libmod;
    Py_RETURN_NONE;
}

/* _set_array_type(Array, array_module): the class results are made of
 * (ArrayBase, completed with the Python methods, or a subclass of it), and
 * the module holding as_operand, binop, unop. */
static PyObject *core_set_array_type(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *cls, *mod;
    if (!PyArg_ParseTuple(args, "OO:_set_array_type", &cls, &mod))
        return NULL;
    if (p_release == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_set_array_type before _init");
        return NULL;
    }
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, base_type)) {
        PyErr_SetString(PyExc_TypeError, "_set_array_type: not a subclass of ArrayBase");
        return NULL;
    }
    Py_INCREF(cls);
    Py_INCREF(mod);
    Py_XDECREF(array_module);
    array_module = mod;
    array_alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)cls, Py_tp_alloc);
    Py_XDECREF((PyObject *)array_type);
    array_type = (PyTypeObject *)cls;
    Py_RETURN_NONE;
}

static PyMethodDef core_methods[] = {
    {"_init", core_init, METH_VARARGS, "_init(handle, lib_module): bind the library ctypes loaded"},
    {"_set_array_type", core_set_array_type, METH_VARARGS,
     "_set_array_type(Array, array_module): the class of results and the Python fallbacks"},
#if FAST_CALLS
    {"binop", (PyCFunction)(void (*)(void))core_binop, METH_FASTCALL,
     "binop(op, x1, x2): the library's binary op `op` on arrays and Python scalars"},
    {"unop", (PyCFunction)(void (*)(void))core_unop, METH_FASTCALL,
     "unop(op, x): the library's unary op `op` on an array"},
    {"reduce_all", (PyCFunction)(void (*)(void))core_reduce_all, METH_FASTCALL,
     "reduce_all(op, x, keepdims): the library's reduction `op` over every axis of an Array (None for others)"},
#else
    {"binop", core_binop, METH_VARARGS, "binop(op, x1, x2): the library's binary op `op` on arrays and Python scalars"},
    {"unop", core_unop, METH_VARARGS, "unop(op, x): the library's unary op `op` on an array"},
    {"reduce_all", core_reduce_all, METH_VARARGS,
     "reduce_all(op, x, keepdims): the library's reduction `op` over every axis of an Array (None for others)"},
#endif
    {"wrap", core_wrap, METH_O, "wrap(h): a new Array owning the nd_array* reference h"},
    {"_bench_loop", core_bench_loop, METH_VARARGS,
     "_bench_loop(kind, n, h1, h2, value): seconds for n calls of the library alone (benchmarks)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {PyModuleDef_HEAD_INIT, "ndgpu._core",
                                         "The hot path of ndgpu in C (the operators, binop, unop, reduce_all).", -1,
                                         core_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
    base_type = (PyTypeObject *)PyType_FromSpec(&base_spec);
    if (base_type == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(base_type);
    if (PyModule_AddObject(m, "ArrayBase", (PyObject *)base_type) < 0) {
        Py_DECREF(base_type);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "NOGIL_MIN_SIZE", ND_PY_NOGIL_MIN) < 0 ||
#ifdef Py_LIMITED_API
        PyModule_AddIntConstant(m, "LIMITED_API", Py_LIMITED_API) < 0
#else
        PyModule_AddIntConstant(m, "LIMITED_API", 0) < 0
#endif
    ) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
