/* Input of `make docs`: expanded with `cc -E -P` into one line per named
 * wrapper of the op tables in include/ndgpu/elementwise.h and
 * include/ndgpu/reduce.h ("U name ENUM kinds rule",
 * "B ...", "R name ENUM"), from which mk/docs.mk writes the wrappers'
 * documentation - so it follows the tables and is never edited by hand. */
#include "ndgpu.h"
#define DOC_U(E, n, k, r) @U n E k r @
#define DOC_B(E, n, k, r) @B n E k r @
#define DOC_R(E, n) @R n E @
ND_UNARY_OPS(DOC_U)
ND_BINARY_OPS(DOC_B)
ND_REDUCE_OPS(DOC_R)
