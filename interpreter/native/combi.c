/* Combinatorics built-ins (included at the end of runtime.c; docs/native.md "Functions and
 * combinatorics in C"). Each mirrors interpreter/runtime.py's function of the same name, in the same
 * order of work: the result's size is counted, refused beyond MAX_LIST lists (F_VALUE_SIZE) and
 * charged BEFORE anything is built; the lists come in itertools' order (the same index algorithms). */

/* runtime._count_choose: C(n, k) (n!/(n-k)! if ordered), counted no further than MAX_LIST + 1 */
static int64_t cb_count_choose(int64_t n, int64_t k, int ordered) {
    if (k < 0 || k > n) return 0;
    if (!ordered && n - k < k) k = n - k;
    int64_t c = 1;                     /* c <= MAX_LIST and n <= MAX_LIST: no overflow below */
    for (int64_t i = 0; i < k; i++) {
        c = ordered ? c * (n - i) : c * (n - i) / (i + 1);
        if (c > MAX_LIST) return MAX_LIST + 1;
    }
    return c;
}

/* runtime._charge_lists: refused when too many, charged first */
static void cb_charge_lists(G *g, int64_t count, int64_t items) {
    if (count > MAX_LIST) FAULT(F_VALUE_SIZE);
    charge(g, count + items);
}

static List *cb_pick(G *g, const List *xs, const int32_t *idx, int32_t k) {
    List *l = list_new(g, k);
    for (int32_t j = 0; j < k; j++) {
        int32_t i = idx[j];
        if (i < 0 || i >= xs->n) BAIL(B_STATE);      /* (cannot happen: the indices stay in 0..n-1) */
        l->a[j] = xs->a[i];
    }
    return l;
}

/* every k-subset of positions 0..n-1 in itertools.combinations order, appended to out at *at */
static void cb_combos_into(G *g, const List *xs, int32_t k, List *out, int64_t *at, int64_t count) {
    int32_t n = xs->n;
    if (k < 0 || k > n) return;
    int32_t *idx = (int32_t *)aalloc(g, (size_t)(k + 1) * sizeof(int32_t));
    for (int32_t j = 0; j < k; j++) idx[j] = j;
    for (;;) {
        if (*at >= count) BAIL(B_STATE);            /* (the count was exact) */
        out->a[(*at)++] = vlist(cb_pick(g, xs, idx, k));
        int32_t i = k - 1;
        while (i >= 0 && idx[i] == i + n - k) i--;
        if (i < 0) return;
        idx[i]++;
        for (int32_t j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
    }
}

V rt_cb_subsets(G *g, V xs) {
    List *l = as_list(g, xs);
    int64_t n = l->n;
    int64_t count = n <= 20 ? ((int64_t)1 << n) : MAX_LIST + 1;
    cb_charge_lists(g, count, n <= 20 ? n * (count / 2) : 0);
    List *out = list_new(g, count);
    int64_t at = 0;
    for (int32_t k = 0; k <= (int32_t)n; k++) cb_combos_into(g, l, k, out, &at, count);
    if (at != count) BAIL(B_STATE);
    return vlist(out);
}

static int64_t cb_how_many(G *g, V k) {      /* the number of items: exactly an int (a bool is not) */
    if (k.t != T_INT) FAULT(F_TYPE);
    return k.i;
}

V rt_cb_combinations(G *g, V xs, V kv) {
    List *l = as_list(g, xs);
    int64_t k = cb_how_many(g, kv);
    int64_t count = cb_count_choose(l->n, k, 0);
    cb_charge_lists(g, count, count * (k > 0 ? k : 0));
    List *out = list_new(g, count);
    int64_t at = 0;
    if (count) cb_combos_into(g, l, (int32_t)k, out, &at, count);
    if (at != count) BAIL(B_STATE);
    return vlist(out);
}

V rt_cb_permutations(G *g, V xs, V kv, int has_k) {
    List *l = as_list(g, xs);
    int64_t n = l->n;
    int64_t k = has_k ? cb_how_many(g, kv) : n;
    int64_t count = cb_count_choose(n, k, 1);
    cb_charge_lists(g, count, count * (k > 0 ? k : 0));
    List *out = list_new(g, count);
    if (!count) return vlist(out);
    /* itertools.permutations: indices and cycles */
    int32_t *idx = (int32_t *)aalloc(g, (size_t)(n + 1) * sizeof(int32_t));
    int32_t *cyc = (int32_t *)aalloc(g, (size_t)(k + 1) * sizeof(int32_t));
    for (int32_t i = 0; i < n; i++) idx[i] = i;
    for (int32_t i = 0; i < k; i++) cyc[i] = (int32_t)(n - i);
    int64_t at = 0;
    out->a[at++] = vlist(cb_pick(g, l, idx, (int32_t)k));
    while (n > 0) {
        int32_t i = (int32_t)k - 1;
        for (; i >= 0; i--) {
            cyc[i]--;
            if (cyc[i] == 0) {           /* indices[i:] = indices[i+1:] + indices[i:i+1] */
                int32_t first = idx[i];
                for (int32_t j = i; j < n - 1; j++) idx[j] = idx[j + 1];
                idx[n - 1] = first;
                cyc[i] = (int32_t)(n - i);
            } else {
                int32_t j = cyc[i];
                int32_t t = idx[i]; idx[i] = idx[n - j]; idx[n - j] = t;
                if (at >= count) BAIL(B_STATE);
                out->a[at++] = vlist(cb_pick(g, l, idx, (int32_t)k));
                break;
            }
        }
        if (i < 0) break;
    }
    if (at != count) BAIL(B_STATE);
    return vlist(out);
}

/* runtime.multiply: the product of numbers (bools count 0/1), |r| < 2**63 */
int64_t rt_cb_multiply(G *g, V xs) {
    List *l = as_list(g, xs);
    int64_t r = 1;
    for (int32_t k = 0; k < l->n; k++) {
        V x = l->a[k];
        if (!isnum(x)) FAULT(F_TYPE);
        r = mul_i(g, r, x.i);
    }
    return r;
}

/* runtime.product: a step per item, then the product */
int64_t rt_cb_product(G *g, V xs) {
    List *l = as_list(g, xs);
    charge(g, l->n);
    return rt_cb_multiply(g, xs);
}

static int cb_cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* runtime.runs: a step per item read (each exactly an int), the distinct values sorted, the runs
 * counted, refused beyond MAX_LIST and charged (count + values) before any is built */
V rt_cb_runs(G *g, V xs) {
    List *l = as_list(g, xs);
    charge(g, l->n);
    int64_t *vals = (int64_t *)aalloc(g, (size_t)(l->n + 1) * sizeof(int64_t));
    for (int32_t k = 0; k < l->n; k++) {
        if (l->a[k].t != T_INT) FAULT(F_TYPE);
        vals[k] = l->a[k].i;
    }
    if (l->n > 1) qsort(vals, (size_t)l->n, sizeof(int64_t), cb_cmp_i64);
    int64_t n = 0;                     /* distinct, in place */
    for (int32_t k = 0; k < l->n; k++)
        if (n == 0 || vals[n - 1] != vals[k]) vals[n++] = vals[k];
    int64_t count = 0;
    for (int64_t k = 0; k < n; k++)
        if (k == 0 || vals[k] - 1 != vals[k - 1]) count++;   /* (|v| < 2**63: v - 1 does not overflow) */
    cb_charge_lists(g, count, n);
    List *out = list_new(g, count);
    int64_t at = 0, k = 0;
    while (k < n) {
        int64_t e = k + 1;
        while (e < n && vals[e] - 1 == vals[e - 1]) e++;
        List *r = list_new(g, e - k);
        for (int64_t j = k; j < e; j++) r->a[j - k] = vint(vals[j]);
        if (at >= count) BAIL(B_STATE);
        out->a[at++] = vlist(r);
        k = e;
    }
    return vlist(out);
}
