# Turns the "U/B/R name ENUM kinds rule" lines of docs/wrappers.h into
# Doxygen documentation for the named wrappers (see mk/docs.mk).
function kinds(k,   s) {
    gsub(/"/, "", k); s = ""
    if (k ~ /B/) s = s "bool, "
    if (k ~ /b/) s = s "bool (computed as int8), "
    if (k ~ /I/) s = s "signed integers, "
    if (k ~ /U/) s = s "unsigned integers, "
    if (k ~ /F/) s = s "floats, "
    return substr(s, 1, length(s) - 2)
}
function rule(r) {
    if (r == "SAME") return "the (promoted) input dtype"
    if (r == "FLOAT") return "the smallest float dtype that holds the input (bool/int8/uint8 -> float16, 16-bit -> float32, wider -> float64)"
    if (r == "DIV") return "float64 for integer inputs, else the float input dtype"
    if (r == "BOOL") return "bool"
    if (r == "F64") return "float64 for every input (NumPy's float_power)"
    return r
}
BEGIN { print "/** @file ndgpu.h */" }
$1 == "U" {
    printf "/** @fn nd_status nd_%s(nd_array **out, const nd_array *a)\n", $2
    printf " *  @brief Elementwise %s: out = %s(a), NumPy's np.%s.\n", $2, $2, $2
    printf " *  Same as nd_unary(out, ND_UNARY_%s, a) (see nd_unary() for errors and the out rule).\n", $3
    printf " *  Input dtypes: %s. Result dtype: %s. */\n", kinds($4), rule($5)
}
$1 == "B" {
    printf "/** @fn nd_status nd_%s(nd_array **out, const nd_array *a, const nd_array *b)\n", $2
    printf " *  @brief Elementwise %s with broadcasting: out = %s(a, b), NumPy's np.%s.\n", $2, $2, $2
    printf " *  Same as nd_binary(out, ND_BINARY_%s, a, b) (see nd_binary() for promotion, errors and the out rule).\n", $3
    printf " *  Input dtypes: %s. Result dtype: %s. */\n", kinds($4), rule($5)
}
$1 == "R" {
    printf "/** @fn nd_status nd_%s(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)\n", $2
    printf " *  @brief Reduction %s over axes (axes == NULL: all), NumPy's np.%s(a, axis, keepdims=keepdims).\n", $2, $2
    printf " *  Same as nd_reduce(out, ND_REDUCE_%s, a, naxes, axes, keepdims) (see nd_reduce() for result dtypes and errors). */\n", $3
}
