/* The profiler's reports (src/prof/report.c, prof_table.c, prof_trace.c)
 * on synthetic finished sessions built by hand: key averages (sums,
 * self/total, grouping by shape, every sort column, row limits), the
 * table (layout, columns, order, truncation, FILE), the Chrome trace and
 * the JSON summary (written, lightly checked here; tests/check_trace.py
 * parses the example's files in `make test`), and the error statuses. */
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"
#include "core/prof.h"

/* ---------------------------------------------------------------- */
/* A synthetic session: two threads, nested ranges, ops on the CPU   */
/* and cuda:0, a transfer, memory events (see the expected sums).    */
/* ---------------------------------------------------------------- */
static const int64_t sh_45[] = {4, 5}, sh_5[] = {5}, sh_43[] = {4, 3}, sh_35[] = {3, 5};
static nd_profiler_event g_ev[9];
static const long g_tids[2] = {4242, 4243};
static nd_prof_result g_r;

static nd_profiler_event ev(const char *name, nd_profiler_event_kind kind, int thread, int depth, int64_t parent,
                            int64_t start, int64_t ns, int64_t self)
{
    return (nd_profiler_event){.name = name, .kind = kind, .thread = thread, .depth = depth, .parent = parent,
                               .device = nd_cpu(), .host_start_ns = start, .host_ns = ns, .host_self_ns = self,
                               .device_start_ns = -1, .device_ns = -1, .device_self_ns = -1, .out_dtype = (nd_dtype)-1};
}

static void in2(nd_profiler_event *e, const int64_t *a, int na, const int64_t *b, int nb)
{
    e->ninputs = b ? 2 : 1;
    e->dtypes[0] = e->dtypes[1] = ND_FLOAT32;
    e->ndims[0] = na, e->shapes[0] = a;
    if (b) e->ndims[1] = nb, e->shapes[1] = b;
    e->out_dtype = ND_FLOAT32;
}

static void on_gpu(nd_profiler_event *e, int64_t start, int64_t ns)
{
    e->device = nd_cuda(0);
    e->device_start_ns = start, e->device_ns = ns, e->device_self_ns = ns;
}

static const nd_prof_result *session(void)
{
    nd_profiler_event *e = g_ev;
    e[0] = ev("forward", ND_PROFILER_RANGE, 0, 0, -1, 1000, 10000, 4500);
    e[1] = ev("backward", ND_PROFILER_RANGE, 1, 0, -1, 1500, 5000, 3000);
    e[2] = ev("matmul", ND_PROFILER_OP, 0, 1, 0, 2000, 3000, 3000);
    in2(&e[2], sh_43, 2, sh_35, 2);
    on_gpu(&e[2], 2500, 2000);
    e[2].bytes = 200, e[2].flops = 120;
    e[3] = ev("sum", ND_PROFILER_OP, 1, 1, 1, 2000, 2000, 2000);
    in2(&e[3], sh_45, 2, NULL, 0);
    e[3].bytes = 84;
    e[4] = ev("add", ND_PROFILER_OP, 0, 1, 0, 6000, 1000, 1000);
    in2(&e[4], sh_45, 2, sh_5, 1);
    e[4].bytes = 160, e[4].mem_self_bytes = 80;
    e[5] = ev("alloc", ND_PROFILER_MEMORY, 0, 2, 4, 6100, 0, 0);
    e[5].device = nd_cuda(0), e[5].bytes = 80, e[5].mem_in_use = 80;
    e[6] = ev("add", ND_PROFILER_OP, 0, 1, 0, 8000, 1500, 1500);
    in2(&e[6], sh_45, 2, sh_45, 2);
    e[6].bytes = 240;
    e[7] = ev("copy_h2d", ND_PROFILER_TRANSFER, 0, 0, -1, 12000, 4000, 4000);
    on_gpu(&e[7], 12500, 3000);
    e[7].bytes = 1 << 20;
    e[8] = ev("free", ND_PROFILER_MEMORY, 0, 0, -1, 14000, 0, 0);
    e[8].device = nd_cuda(0), e[8].bytes = -80, e[8].mem_in_use = 0;
    g_r = (nd_prof_result){.ev = g_ev, .n = 9, .nthreads = 2, .thread_os_id = g_tids, .start_unix_ns = 1764640000000000000};
    g_r.stats = (nd_profiler_stats){.events = 9, .threads = 2, .duration_ns = 20000};
    g_r.cfg = (nd_profiler_config){.record_shapes = true, .profile_memory = true, .cpu = true, .cuda = true, .max_events = 1 << 20};
    return &g_r;
}

static const nd_profiler_row *find(const nd_profiler_row *rows, size_t n, const char *name, const char *shapes)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0 && (!shapes || strcmp(rows[i].shapes, shapes) == 0)) return &rows[i];
    ck_abort_msg("no row '%s' %s", name, shapes ? shapes : "");
    return NULL;
}

/* The names of the rows, space-separated. */
static void order(char *buf, size_t cap, const nd_prof_result *r, nd_profiler_sort by, int limit, bool shapes)
{
    nd_profiler_row rows[16];
    size_t n = 99;
    nd_profiler_table_options o = {.sort_by = by, .row_limit = limit, .group_by_shape = shapes};
    ND_OK_OR_FAIL(nd__prof_key_averages(r, rows, 16, &n, &o));
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < 16; i++) {
        strncat(buf, i ? " " : "", cap - strlen(buf) - 1);
        strncat(buf, rows[i].name, cap - strlen(buf) - 1);
    }
}

START_TEST(test_key_averages_sums)
{
    const nd_prof_result *r = session();
    nd_profiler_row rows[16];
    size_t n = 0;
    ND_OK_OR_FAIL(nd__prof_key_averages(r, rows, 16, &n, NULL));
    ck_assert_uint_eq(n, 6); /* forward backward matmul sum add copy_h2d: memory events are no rows */
    const nd_profiler_row *add = find(rows, n, "add", NULL);
    ck_assert_int_eq(add->calls, 2);
    ck_assert_int_eq(add->host_total_ns, 2500);
    ck_assert_int_eq(add->host_self_ns, 2500);
    ck_assert_int_eq(add->device_total_ns, -1);
    ck_assert_int_eq(add->device_self_ns, -1);
    ck_assert_int_eq(add->bytes, 400);
    ck_assert_int_eq(add->mem_self_bytes, 80);
    ck_assert_str_eq(add->shapes, "");
    ck_assert_int_eq(add->kind, ND_PROFILER_OP);
    const nd_profiler_row *fw = find(rows, n, "forward", NULL);
    ck_assert_int_eq(fw->kind, ND_PROFILER_RANGE);
    ck_assert_int_eq(fw->host_total_ns, 10000);
    ck_assert_int_eq(fw->host_self_ns, 4500);
    const nd_profiler_row *mm = find(rows, n, "matmul", NULL);
    ck_assert_int_eq(mm->device_total_ns, 2000);
    ck_assert_int_eq(mm->device_self_ns, 2000);
    ck_assert_int_eq(mm->flops, 120);
    const nd_profiler_row *cp = find(rows, n, "copy_h2d", NULL);
    ck_assert_int_eq(cp->kind, ND_PROFILER_TRANSFER);
    ck_assert_int_eq(cp->bytes, 1 << 20);
    ck_assert_int_eq(cp->device_total_ns, 3000);
    /* self times add up to the top-level totals (10000 + 5000 + 4000) */
    int64_t self = 0;
    for (size_t i = 0; i < n; i++) self += rows[i].host_self_ns;
    ck_assert_int_eq(self, 19000);
    /* the same row twice in a row: the same strings */
    nd_profiler_row again[16];
    ND_OK_OR_FAIL(nd__prof_key_averages(r, again, 16, &n, NULL));
    ck_assert_ptr_eq(again[0].name, rows[0].name);
    nd__prof_report_reset();
}
END_TEST

START_TEST(test_key_averages_group_by_shape)
{
    nd_prof_result *r = (nd_prof_result *)session();
    nd_profiler_event extra[2];
    nd_profiler_event all[11];
    memcpy(all, g_ev, sizeof g_ev);
    extra[0] = ev("zeros", ND_PROFILER_OP, 0, 0, -1, 15000, 100, 100); /* no inputs: "[]" */
    extra[1] = ev("neg", ND_PROFILER_OP, 0, 0, -1, 15200, 100, 100);   /* one 0-d input: "[[]]" */
    extra[1].ninputs = 1, extra[1].dtypes[0] = ND_INT64;
    all[9] = extra[0], all[10] = extra[1];
    r->ev = all, r->n = 11;
    nd_profiler_row rows[16];
    size_t n = 0;
    nd_profiler_table_options o = {.group_by_shape = true, .sort_by = ND_PROFILER_SORT_NAME};
    ND_OK_OR_FAIL(nd__prof_key_averages(r, rows, 16, &n, &o));
    ck_assert_uint_eq(n, 9);
    const nd_profiler_row *a = find(rows, n, "add", "[[4, 5], [5]]");
    ck_assert_int_eq(a->calls, 1);
    ck_assert_int_eq(a->host_total_ns, 1000);
    ck_assert_int_eq(a->mem_self_bytes, 80);
    a = find(rows, n, "add", "[[4, 5], [4, 5]]");
    ck_assert_int_eq(a->host_total_ns, 1500);
    ck_assert_str_eq(find(rows, n, "matmul", NULL)->shapes, "[[4, 3], [3, 5]]");
    ck_assert_str_eq(find(rows, n, "sum", NULL)->shapes, "[[4, 5]]");
    ck_assert_str_eq(find(rows, n, "zeros", NULL)->shapes, "[]");
    ck_assert_str_eq(find(rows, n, "neg", NULL)->shapes, "[[]]");
    ck_assert_str_eq(find(rows, n, "forward", NULL)->shapes, "[]");
    /* NAME order, ties by shapes: "[[4, 5], [4, 5]]" < "[[4, 5], [5]]" */
    ck_assert_str_eq(rows[0].name, "add");
    ck_assert_str_eq(rows[0].shapes, "[[4, 5], [4, 5]]");
    ck_assert_str_eq(rows[1].shapes, "[[4, 5], [5]]");
    /* the table shows the shapes column */
    char buf[8192];
    ND_OK_OR_FAIL(nd__prof_table(r, buf, sizeof buf, NULL, &o));
    ck_assert_ptr_nonnull(strstr(buf, "Input Shapes"));
    ck_assert_ptr_nonnull(strstr(buf, "[[4, 3], [3, 5]]"));
    /* shapes not recorded: every row "[]", one row per name */
    r->cfg.record_shapes = false;
    ND_OK_OR_FAIL(nd__prof_key_averages(r, rows, 16, &n, &o));
    ck_assert_uint_eq(n, 8);
    ck_assert_str_eq(find(rows, n, "add", NULL)->shapes, "[]");
    nd__prof_report_reset();
}
END_TEST

START_TEST(test_key_averages_sort_orders)
{
    const nd_prof_result *r = session();
    char b[256];
    static const struct { nd_profiler_sort by; const char *want; } cases[] = {
        {ND_PROFILER_SORT_HOST_TOTAL, "forward backward copy_h2d matmul add sum"},
        {ND_PROFILER_SORT_HOST_SELF, "forward copy_h2d backward matmul add sum"},
        {ND_PROFILER_SORT_HOST_AVG, "forward backward copy_h2d matmul sum add"},
        {ND_PROFILER_SORT_DEVICE_TOTAL, "copy_h2d matmul add backward forward sum"},
        {ND_PROFILER_SORT_DEVICE_SELF, "copy_h2d matmul add backward forward sum"},
        {ND_PROFILER_SORT_DEVICE_AVG, "copy_h2d matmul add backward forward sum"},
        {ND_PROFILER_SORT_CALLS, "add backward copy_h2d forward matmul sum"},
        {ND_PROFILER_SORT_BYTES, "copy_h2d add matmul sum backward forward"},
        {ND_PROFILER_SORT_FLOPS, "matmul add backward copy_h2d forward sum"},
        {ND_PROFILER_SORT_MEMORY, "add backward copy_h2d forward matmul sum"},
        {ND_PROFILER_SORT_NAME, "add backward copy_h2d forward matmul sum"},
    };
    ck_assert_int_eq(sizeof cases / sizeof cases[0], ND_PROFILER_SORT_COUNT_);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        order(b, sizeof b, r, cases[i].by, 0, false);
        ck_assert_msg(strcmp(b, cases[i].want) == 0, "sort %d: '%s', want '%s'", (int)cases[i].by, b, cases[i].want);
    }
    order(b, sizeof b, r, ND_PROFILER_SORT_HOST_TOTAL, 3, false);
    ck_assert_str_eq(b, "forward backward copy_h2d");
    order(b, sizeof b, r, ND_PROFILER_SORT_NAME, 1, false);
    ck_assert_str_eq(b, "add");
    order(b, sizeof b, r, ND_PROFILER_SORT_NAME, 100, false);
    ck_assert_str_eq(b, "add backward copy_h2d forward matmul sum");
    /* cap below the count: *nrows says how many, rows past cap untouched */
    nd_profiler_row rows[4];
    memset(rows, 0x7f, sizeof rows);
    size_t n = 0;
    ND_OK_OR_FAIL(nd__prof_key_averages(r, rows, 2, &n, NULL));
    ck_assert_uint_eq(n, 6);
    ck_assert_str_eq(rows[1].name, "backward");
    ck_assert_int_eq(rows[2].calls, 0x7f7f7f7f7f7f7f7f);
    ND_OK_OR_FAIL(nd__prof_key_averages(r, NULL, 0, &n, &(nd_profiler_table_options){.row_limit = 4}));
    ck_assert_uint_eq(n, 4);
}
END_TEST

START_TEST(test_key_averages_many_names)
{
    /* 3000 events over 700 names: the grouping table grows several times */
    enum { NE = 3000, NN = 700 };
    nd_profiler_event *e = calloc(NE, sizeof *e);
    char (*names)[16] = calloc(NN, sizeof *names);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_nonnull(names);
    for (int i = 0; i < NN; i++) snprintf(names[i], sizeof names[i], "op%03d", i);
    for (int i = 0; i < NE; i++) {
        e[i] = ev(names[(i * 3) % NN], ND_PROFILER_OP, 0, 0, -1, 10 * i, 5 + i % 3, 5 + i % 3);
        e[i].bytes = i;
    }
    nd_prof_result r = {.ev = e, .n = NE, .nthreads = 1, .cfg = {.record_shapes = true}};
    nd_profiler_row *rows = calloc(NN, sizeof *rows);
    size_t n = 0;
    ND_OK_OR_FAIL(nd__prof_key_averages(&r, rows, NN, &n, &(nd_profiler_table_options){.sort_by = ND_PROFILER_SORT_NAME, .group_by_shape = true}));
    ck_assert_uint_eq(n, NN);
    int64_t calls = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(rows[i].name, names[i]);
        calls += rows[i].calls, bytes += rows[i].bytes;
    }
    ck_assert_int_eq(calls, NE);
    ck_assert_int_eq(bytes, (int64_t)NE * (NE - 1) / 2);
    free(rows), free(names), free(e);
    nd__prof_report_reset();
}
END_TEST

START_TEST(test_bad_options)
{
    const nd_prof_result *r = session();
    nd_profiler_row rows[8];
    size_t n = 0;
    char buf[64];
    nd_profiler_table_options bad_sort = {.sort_by = (nd_profiler_sort)99};
    nd_profiler_table_options bad_count = {.sort_by = ND_PROFILER_SORT_COUNT_};
    nd_profiler_table_options bad_limit = {.row_limit = -1};
    ND_EXPECT_ERR(nd__prof_key_averages(r, rows, 8, &n, &bad_sort), ND_ERR_INVALID, "nd_profiler_key_averages: sort_by 99");
    ND_EXPECT_ERR(nd__prof_key_averages(r, rows, 8, &n, &bad_count), ND_ERR_INVALID, "sort_by 11 is not a column");
    ND_EXPECT_ERR(nd__prof_key_averages(r, rows, 8, &n, &bad_limit), ND_ERR_INVALID, "row_limit -1 is negative");
    ND_EXPECT_ERR(nd__prof_key_averages(r, rows, 8, NULL, NULL), ND_ERR_INVALID, "'nrows'");
    ND_EXPECT_ERR(nd__prof_key_averages(r, NULL, 8, &n, NULL), ND_ERR_INVALID, "'rows'");
    ND_EXPECT_ERR(nd__prof_table(r, buf, sizeof buf, NULL, &bad_sort), ND_ERR_INVALID, "nd_profiler_table: sort_by 99");
    ND_EXPECT_ERR(nd__prof_table(r, NULL, 10, NULL, NULL), ND_ERR_INVALID, "'buf'");
    ND_EXPECT_ERR(nd__prof_print_table(r, stdout, &bad_limit), ND_ERR_INVALID, "nd_profiler_print_table: row_limit -1");
    ND_EXPECT_ERR(nd__prof_print_table(r, NULL, NULL), ND_ERR_INVALID, "'f'");
    ND_EXPECT_ERR(nd__prof_json(r, "/tmp/nd_prr_unused.json", &bad_sort), ND_ERR_INVALID, "nd_profiler_export_json: sort_by");
    ck_assert_int_eq(access("/tmp/nd_prr_unused.json", F_OK), -1);
    ND_EXPECT_ERR(nd__prof_chrome_trace(r, NULL), ND_ERR_INVALID, "'path'");
    ND_EXPECT_ERR(nd__prof_chrome_trace(r, "/nonexistent-nd-dir/trace.json"), ND_ERR_IO, "/nonexistent-nd-dir/trace.json");
    ND_EXPECT_ERR(nd__prof_chrome_trace(r, "/nonexistent-nd-dir/trace.json"), ND_ERR_IO, "No such file or directory");
    ND_EXPECT_ERR(nd__prof_json(r, "/nonexistent-nd-dir/s.json", NULL), ND_ERR_IO, "nd_profiler_export_json: cannot open");
    /* the public functions without a finished session (none in this test process) */
    if (nd__prof_last() == NULL && !nd_profiler_is_running()) {
        ND_EXPECT_ERR(nd_profiler_key_averages(rows, 8, &n, NULL), ND_ERR_INVALID, "no profiling session has finished");
        ND_EXPECT_ERR(nd_profiler_table(buf, sizeof buf, NULL, NULL), ND_ERR_INVALID, "nd_profiler_table");
        ND_EXPECT_ERR(nd_profiler_print_table(stdout, NULL), ND_ERR_INVALID, "nd_profiler_print_table");
        ND_EXPECT_ERR(nd_profiler_export_chrome_trace("/tmp/x.json"), ND_ERR_INVALID, "nd_profiler_export_chrome_trace");
        ND_EXPECT_ERR(nd_profiler_export_json("/tmp/x.json", NULL), ND_ERR_INVALID, "nd_profiler_export_json");
    }
    ND_EXPECT_ERR(nd_profiler_key_averages(rows, 8, NULL, NULL), ND_ERR_INVALID, "'nrows'");
    ND_EXPECT_ERR(nd_profiler_export_chrome_trace(NULL), ND_ERR_INVALID, "'path'");
}
END_TEST

/* The text after the header's rule (the rows). */
static const char *body(const char *t)
{
    const char *p = strstr(t, "\n-");
    ck_assert_ptr_nonnull(p);
    return p + 2;
}

START_TEST(test_table_layout)
{
    const nd_prof_result *r = session();
    char buf[8192];
    size_t need = 0;
    ND_OK_OR_FAIL(nd__prof_table(r, buf, sizeof buf, &need, &(nd_profiler_table_options){.sort_by = ND_PROFILER_SORT_DEVICE_TOTAL}));
    ck_assert_uint_eq(need, strlen(buf));
    ck_assert_msg(buf[0] == '-' && buf[1] == '-', "starts with a rule: %.40s", buf);
    static const char *const want[] = {"Name", "Self host %", "Self host", "Host total %", "Host total", "Host time avg",
                                       "Self device", "Self device %", "Device total", "Device time avg", "# of Calls",
                                       "Bytes", "Total FLOPs", "GFLOP/s", "Self Mem",
                                       "Self host time total: 19.000us", "Self device time total: 5.000us",
                                       "1.00 MB", "10.000us", "52.63%", "60.00%", "120.000"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(buf, want[i]), "table lacks '%s':\n%s", want[i], buf);
    ck_assert_ptr_null(strstr(buf, "Input Shapes"));
    ck_assert_ptr_null(strstr(buf, "dropped"));
    /* rows in the sort's order */
    const char *b = body(buf), *prev = b;
    static const char *const rows[] = {" copy_h2d ", " matmul ", " add ", " backward ", " forward ", " sum "};
    for (size_t i = 0; i < 6; i++) {
        const char *p = strstr(b, rows[i]);
        ck_assert_msg(p && p >= prev, "row '%s' out of order:\n%s", rows[i], buf);
        prev = p;
    }
    /* every line of the table is as long as the rule (columns aligned) */
    size_t rule = strchr(buf, '\n') - buf;
    const char *line = buf;
    for (int k = 0; k < 10; k++) {
        const char *nl = strchr(line, '\n');
        ck_assert_uint_eq((size_t)(nl - line), rule);
        line = nl + 1;
    }
    /* a CPU-only session has no device columns, no GFLOPs, no memory column */
    nd_prof_result cpu = *r;
    nd_profiler_event ev3[2] = {g_ev[3], g_ev[4]};
    ev3[1].mem_self_bytes = 0;
    cpu.ev = ev3, cpu.n = 2, cpu.cfg.profile_memory = false;
    ND_OK_OR_FAIL(nd__prof_table(&cpu, buf, sizeof buf, NULL, NULL));
    ck_assert_ptr_null(strstr(buf, "device"));
    ck_assert_ptr_null(strstr(buf, "GFLOP"));
    ck_assert_ptr_null(strstr(buf, "Self Mem"));
    ck_assert_ptr_nonnull(strstr(buf, "Self host time total: 3.000us"));
    ck_assert_ptr_nonnull(strstr(buf, "66.67%"));
    /* the FLOPs column takes the unit of the largest count, as PyTorch's */
    ev3[0].flops = 2500000000, ev3[0].host_ns = 1000000;
    ND_OK_OR_FAIL(nd__prof_table(&cpu, buf, sizeof buf, NULL, NULL));
    ck_assert_msg(strstr(buf, "Total GFLOPs") && strstr(buf, "2.500") && strstr(buf, "2500.00"), "%s", buf);
}
END_TEST

START_TEST(test_table_footer_and_names)
{
    nd_prof_result *r = (nd_prof_result *)session();
    static const char long_name[] = "a_very_long_range_name_that_goes_on_and_on_past_the_column_width_of_55";
    nd_profiler_event e[2] = {ev(long_name, ND_PROFILER_RANGE, 0, 0, -1, 0, 2000000, 2000000),
                              ev("tab\there", ND_PROFILER_OP, 0, 0, -1, 3000000, 1500000000, 1500000000)};
    r->ev = e, r->n = 2;
    r->stats.dropped = 5, r->stats.events = 2, r->stats.unclosed_ranges = 1;
    char buf[4096];
    ND_OK_OR_FAIL(nd__prof_table(r, buf, sizeof buf, NULL, NULL));
    ck_assert_msg(strstr(buf, "a_very_long_range_name_that_goes_on_and_on_past_the_...  "), "%s", buf);
    ck_assert_ptr_null(strstr(buf, long_name));
    ck_assert_ptr_nonnull(strstr(buf, "tab?here"));
    ck_assert_ptr_nonnull(strstr(buf, "1.500s"));
    ck_assert_ptr_nonnull(strstr(buf, "2.000ms"));
    ck_assert_ptr_nonnull(strstr(buf, "Self host time total: 1.502s"));
    ck_assert_ptr_nonnull(strstr(buf, "Events dropped: 5"));
    ck_assert_ptr_nonnull(strstr(buf, "Ranges still open at stop: 1"));
    ND_OK_OR_FAIL(nd__prof_table(r, buf, sizeof buf, NULL, &(nd_profiler_table_options){.row_limit = 1}));
    ck_assert_ptr_nonnull(strstr(buf, "1 of 2 rows shown"));
    ck_assert_ptr_nonnull(strstr(buf, "tab?here"));
    ck_assert_ptr_null(strstr(buf, "a_very_long"));
    /* an empty session: the header, no rows, a zero total */
    r->n = 0;
    ND_OK_OR_FAIL(nd__prof_table(r, buf, sizeof buf, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(buf, "Self host time total: 0.000us"));
}
END_TEST

START_TEST(test_table_truncation_and_file)
{
    const nd_prof_result *r = session();
    size_t need = 0;
    ND_OK_OR_FAIL(nd__prof_table(r, NULL, 0, &need, NULL));
    ck_assert_uint_gt(need, 500);
    char *full = malloc(need + 1);
    size_t need2 = 0;
    ND_OK_OR_FAIL(nd__prof_table(r, full, need + 1, &need2, NULL));
    ck_assert_uint_eq(need2, need);
    ck_assert_uint_eq(strlen(full), need);
    char small[10];
    memset(small, 'x', sizeof small);
    ND_OK_OR_FAIL(nd__prof_table(r, small, sizeof small, &need2, NULL));
    ck_assert_uint_eq(need2, need);
    ck_assert_uint_eq(strlen(small), 9);
    ck_assert_int_eq(memcmp(small, full, 9), 0);
    char one[1] = {'x'};
    ND_OK_OR_FAIL(nd__prof_table(r, one, 1, NULL, NULL));
    ck_assert_int_eq(one[0], '\0');
    char *exact = malloc(need);
    ND_OK_OR_FAIL(nd__prof_table(r, exact, need, NULL, NULL)); /* one byte short */
    ck_assert_uint_eq(strlen(exact), need - 1);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ND_OK_OR_FAIL(nd__prof_print_table(r, f, NULL));
    ck_assert_int_eq(ftell(f), (long)need);
    rewind(f);
    char *back = calloc(need + 1, 1);
    ck_assert_uint_eq(fread(back, 1, need, f), need);
    ck_assert_str_eq(back, full);
    fclose(f);
    free(full), free(exact), free(back);
}
END_TEST

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc((size_t)n + 1, 1);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return s;
}

/* Starts with '{', braces and brackets balance outside strings, ends with '}'. */
static void light_json(const char *s, size_t n)
{
    ck_assert_int_eq(s[0], '{');
    int depth = 0;
    bool str = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (str) {
            if (c == '\\') i++;
            else if (c == '"') str = false;
            else ck_assert_msg((unsigned char)c >= 0x20, "raw control byte 0x%02x in a string at %zu", c, i);
            continue;
        }
        if (c == '"') str = true;
        else if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') ck_assert_int_ge(--depth, 0);
    }
    ck_assert(!str);
    ck_assert_int_eq(depth, 0);
}

static void tmp_path(char *buf, size_t cap, const char *tag)
{
    const char *d = getenv("TMPDIR");
    snprintf(buf, cap, "%s/nd_prr_%ld_%s.json", d && *d ? d : "/tmp", (long)getpid(), tag);
}

START_TEST(test_chrome_trace)
{
    nd_prof_result *r = (nd_prof_result *)session();
    g_ev[1].name = "back\"ward\\ \n\x01 caf\xc3\xa9 \xff"; /* quotes, backslash, control bytes, UTF-8, a bad byte */
    char path[512];
    tmp_path(path, sizeof path, "trace");
    on_gpu(&g_ev[0], 1200, 9000); /* the range's device interval: a device_range, no flow (matmul has one) */
    ND_OK_OR_FAIL(nd__prof_chrome_trace(r, path));
    size_t n;
    char *s = slurp(path, &n);
    light_json(s, n);
    static const char *const want[] = {
        "{\"traceEvents\": [", "\"displayTimeUnit\": \"ms\"", "\"otherData\": {\"libndgpu\": \"",
        "\"process_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"host\"}",
        "\"args\": {\"name\": \"host thread 1 (tid 4243)\"}",
        "\"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"cuda:0\"}", "\"stream 0 (default)\"",
        "\"name\": \"forward\", \"cat\": \"range\", \"ph\": \"X\", \"ts\": 1.000, \"dur\": 10.000, \"pid\": 0, \"tid\": 0",
        "\"name\": \"matmul\", \"cat\": \"op\", \"ph\": \"X\", \"ts\": 2.000, \"dur\": 3.000",
        "\"name\": \"matmul\", \"cat\": \"device_op\", \"ph\": \"X\", \"ts\": 2.500, \"dur\": 2.000, \"pid\": 1, \"tid\": 0",
        "\"name\": \"copy_h2d\", \"cat\": \"transfer\"", "\"cat\": \"device_transfer\"", "\"cname\": \"yellow\"",
        "\"GB/s\": 349.525", "\"GFLOP/s\": 0.060", "\"input shapes\": [[4, 3], [3, 5]]",
        "\"dtypes\": [\"float32\", \"float32\"]", "\"ph\": \"s\"", "\"ph\": \"f\", \"bp\": \"e\"",
        "\"name\": \"memory cuda:0\", \"ph\": \"C\", \"ts\": 6.100, \"pid\": 1, \"tid\": 0, \"args\": {\"bytes in use\": 80}",
        "\"bytes in use\": 0}", "\"name\": \"alloc\", \"cat\": \"memory\", \"ph\": \"i\"",
        "\"back\\\"ward\\\\ \\n\\u0001 caf\xc3\xa9 \\ufffd\"", "\"start_unix_ns\": 1764640000000000000",
        "\"stats\": {\"events\": 9, \"dropped\": 0, \"threads\": 2", "\"record_shapes\": true",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(s, want[i]), "trace lacks '%s'", want[i]);
    ck_assert_ptr_nonnull(strstr(s, "\"name\": \"forward\", \"cat\": \"device_range\", \"ph\": \"X\", \"ts\": 1.200, \"dur\": 9.000, \"pid\": 1"));
    int flows = 0;
    for (const char *p = s; (p = strstr(p, "\"ph\": \"s\"")); p++) flows++;
    ck_assert_int_eq(flows, 2); /* matmul and copy_h2d: the innermost device work */
    free(s);
    /* no device events at all: no device process, no flows */
    nd_profiler_event cpu[2] = {g_ev[3], g_ev[4]};
    r->ev = cpu, r->n = 2, r->cfg.record_shapes = false;
    ND_OK_OR_FAIL(nd__prof_chrome_trace(r, path));
    s = slurp(path, &n);
    light_json(s, n);
    ck_assert_ptr_null(strstr(s, "cuda:0\"}"));
    ck_assert_ptr_null(strstr(s, "\"ph\": \"s\""));
    ck_assert_ptr_null(strstr(s, "input shapes"));
    free(s);
    remove(path);
}
END_TEST

START_TEST(test_json_summary)
{
    const nd_prof_result *r = session();
    char path[512];
    tmp_path(path, sizeof path, "summary");
    ND_OK_OR_FAIL(nd__prof_json(r, path, &(nd_profiler_table_options){.sort_by = ND_PROFILER_SORT_BYTES, .row_limit = 2}));
    size_t n;
    char *s = slurp(path, &n);
    light_json(s, n);
    static const char *const want[] = {
        "{\"libndgpu\": \"", "\"sort_by\": \"bytes\", \"row_limit\": 2", "\"rows\": [",
        "{\"name\": \"copy_h2d\", \"shapes\": \"\", \"kind\": \"transfer\", \"calls\": 1, \"host_total_ns\": 4000, "
        "\"host_self_ns\": 4000, \"host_avg_ns\": 4000, \"device_total_ns\": 3000, \"device_self_ns\": 3000, "
        "\"device_avg_ns\": 3000, \"bytes\": 1048576, \"flops\": 0, \"mem_self_bytes\": 0}",
        "{\"name\": \"add\", \"shapes\": \"\", \"kind\": \"op\", \"calls\": 2, \"host_total_ns\": 2500",
        "\"device_total_ns\": -1", "\"mem_self_bytes\": 80}", "\"profile_memory\": true",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(s, want[i]), "summary lacks '%s':\n%s", want[i], s);
    ck_assert_msg(strstr(s, "copy_h2d") < strstr(s, "\"add\""), "rows in the sort's order");
    ck_assert_ptr_null(strstr(s, "matmul"));
    free(s);
    remove(path);
}
END_TEST

static bool is_char_device(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISCHR(sb.st_mode);
}

/* Writes to a device that refuses them (/dev/full) are ND_ERR_IO, and the
 * device node is left alone: only a regular file a failed write leaves
 * behind is removed (twice: a removed node would come back as a regular
 * file that takes the second write). */
START_TEST(test_write_failures)
{
    const char *full = "/dev/full";
    if (!is_char_device(full)) {
        printf("profiler_report: %s is not a device here: write failures not tested\n", full);
        return;
    }
    const nd_prof_result *r = session();
    for (int k = 0; k < 2; k++) {
        ND_EXPECT_ERR(nd__prof_chrome_trace(r, full), ND_ERR_IO, "writing '/dev/full' failed");
        ck_assert_msg(is_char_device(full), "%s is no longer a device", full);
        ND_EXPECT_ERR(nd__prof_json(r, full, NULL), ND_ERR_IO, "writing '/dev/full' failed");
        ck_assert_msg(is_char_device(full), "%s is no longer a device", full);
        for (int buffered = 0; buffered < 2; buffered++) {
            FILE *f = fopen(full, "w");
            ck_assert_ptr_nonnull(f);
            if (!buffered) setvbuf(f, NULL, _IONBF, 0);
            ND_EXPECT_ERR(nd__prof_print_table(r, f, NULL), ND_ERR_IO, "writing the table failed");
            fclose(f);
        }
    }
}
END_TEST

Suite *suite_profiler_report(void)
{
    Suite *s = suite_create("profiler_report");
    TCase *tc = tcase_create("reports");
    tcase_add_test(tc, test_key_averages_sums);
    tcase_add_test(tc, test_key_averages_group_by_shape);
    tcase_add_test(tc, test_key_averages_sort_orders);
    tcase_add_test(tc, test_key_averages_many_names);
    tcase_add_test(tc, test_bad_options);
    tcase_add_test(tc, test_table_layout);
    tcase_add_test(tc, test_table_footer_and_names);
    tcase_add_test(tc, test_table_truncation_and_file);
    tcase_add_test(tc, test_chrome_trace);
    tcase_add_test(tc, test_json_summary);
    tcase_add_test(tc, test_write_failures);
    suite_add_tcase(s, tc);
    return s;
}
