/* The determinization plan built in C (included by runtime.c; docs/native.md, "The plan in C").
 *
 * interpreter/determinize.py's `determinizer(s, p).parts`, flattened as native_engine.flatten_plan
 * flattens them (the array gs_ismcts reads, read_plan), made here from G alone:
 *   - g->poss: per zone, the set-up zones whose cards may lie there (State.poss), pw 64-bit words a
 *     zone; reset by a new game (bit zi for a zone that holds cards at set-up, rs.init_poss) and by a
 *     loaded state (every set-up zone, rs.any_poss: what a loaded Python state has, unless its own sets
 *     are sent after it, gs_set_poss); widened by every move (rt_move, rt_deal: runtime.h).
 *   - the hidden places (zone order), the draw plan (a shuffle, or the buckets by origin, the filling
 *     order and the groups: determinize._drawer), the flow's card loops around the pending decision,
 *     the cards whose zone marks the player does not see: from the state.
 *   - what depends on the rule set and the player only (the card variables, the variables the player
 *     cannot see with their initial values, which flow slots are card loops around each decision point,
 *     which decision points are simultaneous, the marks' visibilities): one table per library, made by
 *     interpreter/native_plan.py from the compiled rule set and handed over once (gs_plan_tables).
 * Everything is integers; every index into a table or the output is checked. */

typedef struct {
    int32_t ready;
    int64_t n;
    int64_t *buf;                 /* the table as handed over (owned) */
    const int64_t *secret_ch;     /* per decision point: simultaneous (its choices are secret) */
    const int64_t *card_loop;     /* nchoose x nfor: slot k is a loop over cards around decision point ch */
    int64_t ncv; const int64_t *cv;
    const int64_t *pl_off;        /* per player: offset in buf of [ok, nsec, ntok, tokens...] */
    const int64_t *mark_vis;      /* per mark: 0 zone, 1 public, 2 hidden */
    int32_t zone_marks;           /* some mark is seen with the card (visibility zone) */
} PlanTables;

static PlanTables PT;

/* State.poss reset: 0 a new game's (rs.init_poss), 1 a loaded state's (rs.any_poss) */
void rt_poss_reset(G *g, int any) {
    const Layout *L = g->L;
    size_t words = (size_t)L->nzones * (size_t)g->pw;
    memset(g->poss, 0, words * sizeof(uint64_t));
    if (!any) {
        for (int32_t c = 0; c < L->ncards; c++) {
            int32_t zi = L->init_zone[c];
            if (zi < 0 || zi >= L->nzones) continue;
            g->poss[(size_t)zi * g->pw + (size_t)(zi >> 6)] |= (uint64_t)1 << (zi & 63);
        }
        return;
    }
    for (int32_t c = 0; c < L->ncards; c++) {
        int32_t zi = L->init_zone[c];
        if (zi < 0 || zi >= L->nzones) continue;
        g->poss[(size_t)(zi >> 6)] |= (uint64_t)1 << (zi & 63);
    }
    for (int32_t zi = 1; zi < L->nzones; zi++)
        memcpy(g->poss + (size_t)zi * g->pw, g->poss, (size_t)g->pw * sizeof(uint64_t));
}

/* the words of State.poss (nzones x pw, zone by zone); returns nzones * pw, or -1 if cap is short */
GS_EXPORT int64_t gs_poss(void *ctx, uint64_t *out, int64_t cap) {
    G *g = &((Ctx *)ctx)->g;
    int64_t n = (int64_t)g->L->nzones * g->pw;
    if (cap < n) return -1;
    memcpy(out, g->poss, (size_t)n * sizeof(uint64_t));
    return n;
}

/* State.poss of a loaded Python state (nzones x pw words); 0, or -1 if n is not that */
GS_EXPORT int gs_set_poss(void *ctx, const uint64_t *words, int64_t n) {
    G *g = &((Ctx *)ctx)->g;
    if (n != (int64_t)g->L->nzones * g->pw) return -1;
    memcpy(g->poss, words, (size_t)n * sizeof(uint64_t));
    return 0;
}

GS_EXPORT int64_t gs_st_poss(void *st, uint64_t *out, int64_t cap) { return gs_poss(((AState *)st)->c, out, cap); }
GS_EXPORT int gs_st_set_poss(void *st, const uint64_t *w, int64_t n) { return gs_set_poss(((AState *)st)->c, w, n); }

/* The rule set's part of the plans (interpreter/native_plan.py, plan_tables):
 *   [P, nchoose, nfor, nmarks, nvars,
 *    per decision point: secret, then nfor flags (a loop over cards around it),
 *    ncv, card variables...,
 *    per player: ok (0: no plan: a value the loader cannot take), nsec, ntok, tokens (index, value)...,
 *    per mark: its visibility code]
 * 0 taken; -1 refused (not this rule set's shape). Call it before any gs_plan, from one thread. */
GS_EXPORT int gs_plan_tables(const int64_t *buf, int64_t n) {
    const Layout *L = &GS_LAYOUT;
    if (PT.ready) return 0;
    if (n < 5 || buf[0] != L->P || buf[1] != L->nchoose || buf[2] != L->nfor || buf[3] != L->nmarks ||
        buf[4] != L->nvars) return -1;
    int64_t *b = (int64_t *)malloc((size_t)n * sizeof(int64_t));
    int64_t *off = (int64_t *)malloc((size_t)(L->P + 1) * sizeof(int64_t));
    if (b == NULL || off == NULL) { free(b); free(off); return -1; }
    memcpy(b, buf, (size_t)n * sizeof(int64_t));
    int64_t at = 5;
    int64_t per_ch = (int64_t)L->nchoose * (1 + (int64_t)L->nfor);
    if (at + per_ch + 1 > n) goto bad;
    int64_t ch_at = at;
    at += per_ch;
    int64_t ncv = b[at++];
    if (ncv < 0 || ncv > L->nvars || at + ncv > n) goto bad;
    for (int64_t k = 0; k < ncv; k++) if (b[at + k] < 0 || b[at + k] >= L->nvars) goto bad;
    int64_t cv_at = at;
    at += ncv;
    for (int32_t p = 0; p < L->P; p++) {
        if (at + 3 > n) goto bad;
        off[p] = at;
        int64_t ntok = b[at + 2];
        if (b[at + 1] < 0 || ntok < 0 || at + 3 + ntok > n) goto bad;
        at += 3 + ntok;
    }
    if (at + L->nmarks != n) goto bad;
    PT.buf = b; PT.n = n;
    PT.ncv = ncv; PT.cv = b + cv_at;
    PT.pl_off = off;
    PT.mark_vis = b + at;
    PT.zone_marks = 0;
    for (int32_t m = 0; m < L->nmarks; m++) if (b[at + m] == 0) PT.zone_marks = 1;
    PT.secret_ch = b + ch_at;
    PT.card_loop = b + ch_at;
    PT.ready = 1;
    return 0;
bad:
    free(b); free(off);
    return -1;
}

static inline int poss_has(const uint64_t *row, int32_t bit) {
    return (int)((row[bit >> 6] >> (bit & 63)) & 1);
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* flatten_plan(lib, s, p, determinizer(s, p).parts) for the state in g: its length, -1 if cap is
 * short, -2 no plan (flatten_plan's None), -3 no tables (gs_plan_tables not called), -4 no such
 * player, -5 out of memory */
static int64_t plan_build(G *g, int64_t p, int64_t *out, int64_t cap) {
    const Layout *L = g->L;
    if (!PT.ready) return -3;
    if (p < 0 || p >= L->P) return -4;
    const int64_t *pl = PT.buf + PT.pl_off[p];
    if (!pl[0]) return -2;
    int32_t N = L->ncards, Z = L->nzones, pw = g->pw;
    uint64_t bit = (uint64_t)1 << p;
    int64_t at = 0;
    int64_t rc = -1;
#define OUT(x) do { if (at >= cap) goto done; out[at++] = (int64_t)(x); } while (0)
    /* scratch: hidden cards, their places, sorted copy, origins, buckets, order, sizes, groups */
    int32_t *h = (int32_t *)malloc((size_t)(8 * N + 2 * Z + 8) * sizeof(int32_t));
    if (h == NULL) return -5;
    int32_t *hz = h + N, *hi = hz + N, *srt = hi + N, *ord = srt + N, *size = ord + N, *cnt = size + N;
    int32_t *orig = cnt + N + 1, *blen = orig + Z + 1, *tmp = blen + Z + 1;   /* tmp: N + 5 left */
    int32_t n = 0;
    int32_t secret = 0;
    if (g->pending >= 0 && g->pending < L->nchoose)
        secret = PT.secret_ch[(int64_t)g->pending * (1 + L->nfor)] != 0;
    OUT(p); OUT(secret);
    for (int32_t zi = 0; zi < Z; zi++) {
        const Zone *z = &g->z[zi];
        for (int32_t i = 0; i < z->n; i++) {
            int32_t c = z->a[i];
            if (c < 0 || c >= N || n >= N) { rc = -2; goto done; }
            if ((sight_of(g, c) | g->kn[c]) & bit) continue;
            h[n] = c; hz[n] = zi; hi[n] = i; n++;
        }
    }
    OUT(n);
    for (int32_t k = 0; k < n; k++) { OUT(hz[k]); OUT(hi[k]); OUT(h[k]); }
    /* the draw (determinize._drawer) */
    memcpy(srt, h, (size_t)n * sizeof(int32_t));
    qsort(srt, (size_t)n, sizeof(int32_t), cmp_i32);
    int same = n > 0;
    const uint64_t *row0 = n ? g->poss + (size_t)hz[0] * pw : NULL;
    for (int32_t k = 1; k < n && same; k++)
        if (memcmp(g->poss + (size_t)hz[k] * pw, row0, (size_t)pw * sizeof(uint64_t)) != 0) same = 0;
    for (int32_t k = 0; k < n && same; k++) {
        int32_t o = L->init_zone[h[k]];
        if (o < 0 || o >= Z || !poss_has(row0, o)) same = 0;
    }
    if (same) {
        OUT(0); OUT(n);
        for (int32_t k = 0; k < n; k++) OUT(srt[k]);
    } else {
        /* buckets: the sorted hidden cards by origin, the origins in order of first appearance */
        int32_t nb = 0;
        for (int32_t k = 0; k < n; k++) {
            int32_t o = L->init_zone[srt[k]];
            if (o < 0 || o >= Z) { rc = -2; goto done; }
            int32_t b = 0;
            while (b < nb && orig[b] != o) b++;
            if (b == nb) { orig[nb] = o; blen[nb] = 0; nb++; }
            blen[b]++;
        }
        OUT(1); OUT(nb);
        for (int32_t b = 0; b < nb; b++) {
            OUT(blen[b]);
            for (int32_t k = 0; k < n; k++) if (L->init_zone[srt[k]] == orig[b]) OUT(srt[k]);
        }
        /* per place: how many cards may fill it; the filling order: stably by that (a counting sort) */
        for (int32_t k = 0; k < n; k++) {
            const uint64_t *row = g->poss + (size_t)hz[k] * pw;
            int32_t s = 0;
            for (int32_t b = 0; b < nb; b++) if (poss_has(row, orig[b])) s += blen[b];
            size[k] = s;
        }
        memset(cnt, 0, (size_t)(n + 1) * sizeof(int32_t));
        for (int32_t k = 0; k < n; k++) cnt[size[k]]++;
        for (int32_t s = 0, acc = 0; s <= n; s++) { int32_t c = cnt[s]; cnt[s] = acc; acc += c; }
        for (int32_t k = 0; k < n; k++) ord[cnt[size[k]]++] = k;
        OUT(n);
        for (int32_t j = 0; j < n; j++) {
            int32_t k = ord[j];
            const uint64_t *row = g->poss + (size_t)hz[k] * pw;
            int32_t nk = 0;
            for (int32_t b = 0; b < nb; b++) if (poss_has(row, orig[b])) nk++;
            OUT(k); OUT(nk);
            for (int32_t b = 0; b < nb; b++) if (poss_has(row, orig[b])) OUT(b);
        }
        /* groups: the places by their real card's origin, the origins in order of first appearance */
        int32_t ng = 0;
        for (int32_t k = 0; k < n; k++) {
            int32_t o = L->init_zone[h[k]];
            int32_t b = 0;
            while (b < ng && tmp[b] != o) b++;
            if (b == ng) tmp[ng++] = o;
        }
        OUT(ng);
        for (int32_t b = 0; b < ng; b++) {
            int32_t m = 0;
            for (int32_t k = 0; k < n; k++) if (L->init_zone[h[k]] == tmp[b]) m++;
            OUT(m);
            for (int32_t k = 0; k < n; k++) if (L->init_zone[h[k]] == tmp[b]) OUT(k);
        }
    }
    OUT(PT.ncv);
    for (int64_t k = 0; k < PT.ncv; k++) OUT(PT.cv[k]);
    OUT(pl[1]);
    for (int64_t k = 0; k < pl[2]; k++) OUT(pl[3 + k]);
    /* the flow's loops over cards around the pending decision (determinize._flow_cards), by slot */
    if (g->pending >= 0 && g->pending < L->nchoose) {
        const int64_t *flags = PT.card_loop + (int64_t)g->pending * (1 + L->nfor) + 1;
        int32_t m = 0;
        for (int32_t k = 0; k < L->nfor; k++) if (flags[k] && g->ff[k].has_var) m++;
        OUT(m);
        for (int32_t k = 0; k < L->nfor; k++) if (flags[k] && g->ff[k].has_var) OUT(k);
    } else {
        OUT(0);
    }
    for (int32_t m = 0; m < L->nmarks; m++) OUT(PT.mark_vis[m]);
    if (PT.zone_marks) {
        int32_t m = 0;
        for (int32_t c = 0; c < N; c++) if (!(sight_of(g, c) & bit)) m++;
        OUT(m);
        for (int32_t c = 0; c < N; c++) if (!(sight_of(g, c) & bit)) OUT(c);
    } else {
        OUT(0);
    }
    rc = at;
done:
#undef OUT
    free(h);
    return rc;
}

GS_EXPORT int64_t gs_plan(void *ctx, int64_t player, int64_t *out, int64_t cap) {
    return plan_build(&((Ctx *)ctx)->g, player, out, cap);
}

GS_EXPORT int64_t gs_st_plan(void *st, int64_t player, int64_t *out, int64_t cap) {
    return plan_build(&((AState *)st)->c->g, player, out, cap);
}

/* ------------------------------------------------------------------------------------------ */
/* ISMCTS from a per-step state (NativeState, VectorEnv's opponent seats): the plan built above */
/* for the player, then gs_ismcts's search of the struct, no Python State anywhere            */
/* ------------------------------------------------------------------------------------------ */

/* the plan for player p of g, malloc'd (*len its length), or NULL with *len the reason (< 0) */
static int64_t *plan_alloc(G *g, int64_t p, int64_t *len) {
    int64_t cap = 256 + 16 * (int64_t)g->L->ncards;
    for (int tries = 0; tries < 12; tries++) {
        int64_t *b = (int64_t *)malloc((size_t)cap * sizeof(int64_t));
        if (b == NULL) { *len = -5; return NULL; }
        int64_t n = plan_build(g, p, b, cap);
        if (n >= 0) { *len = n; return b; }
        free(b);
        if (n != -1) { *len = n; return NULL; }
        cap *= 4;
    }
    *len = -1;
    return NULL;
}

/* gs_ismcts on the per-step state st for `player` (its plan made here), the worlds played in wctx's G:
 * 0 done; 1 the search stopped (why); 2 refused; 3 no plan (why: the plan_build code) */
GS_EXPORT int gs_st_ismcts(void *st, void *wctx, int64_t player, int64_t iterations, double c, double deadline,
                           int64_t n_root, uint32_t *mt, int64_t *visits, double *reward, int64_t *done_it,
                           int32_t *why) {
    AState *s = (AState *)st;
    G *g = &s->c->g;
    if (s->why || g->terminal || n_root < 1 || iterations < 1) { *why = B_STATE; return 2; }
    int64_t len;
    int64_t *plan = plan_alloc(g, player, &len);
    if (plan == NULL) { *why = (int32_t)len; return 3; }
    int rc = gs_ismcts(s->c, wctx, plan, len, iterations, c, deadline, n_root, mt, visits, reward, done_it, why);
    free(plan);
    return rc;
}

/* VectorEnv's ISMCTS opponent seats (gs_st_set_ismcts): the position ISMCTSBot.choose takes at the
 * pending decision (one legal entry: it, no search; else the search, then the most visited, the
 * higher mean reward, the lower position), drawing from the game's generator `pick`; < 0: -why */
static int64_t st_ismcts_pick(AState *s) {
    G *g = &s->c->g;
    int64_t n = g->lst.n;
    if (n == 1) return 0;
    if (!s->pick_ready) { mt_seed_u64(&s->c->pick, s->pick_seed); s->pick_ready = 1; }
    if (s->ism_world == NULL) return -B_MEMORY;
    uint32_t words[625];
    int64_t *visits = (int64_t *)malloc((size_t)n * sizeof(int64_t));
    double *reward = (double *)malloc((size_t)n * sizeof(double));
    if (visits == NULL || reward == NULL) { free(visits); free(reward); return -B_MEMORY; }
    mt_to(&s->c->pick, words);
    int64_t done = 0;
    int32_t why = 0;
    int rc = gs_st_ismcts(s, ((AState *)s->ism_world)->c, g->actor, s->ism_iters, s->ism_c, 0.0, n, words, visits,
                          reward, &done, &why);
    int64_t best = -1;
    if (rc == 0) {
        mt_from(&s->c->pick, words);
        int64_t bv = -1;
        double bm = 0.0;
        for (int64_t i = 0; i < n; i++) {
            double m = reward[i] / (double)(visits[i] > 1 ? visits[i] : 1);
            if (visits[i] > bv || (visits[i] == bv && m > bm)) { best = i; bv = visits[i]; bm = m; }
        }
    }
    free(visits); free(reward);
    if (rc != 0) return -(why > 0 ? why : B_STATE);
    return best;
}

/* ISMCTS opponents for a VectorEnv state: `iterations` a decision (0: random ones), exploration c */
GS_EXPORT int gs_st_set_ismcts(void *st, int64_t iterations, double c) {
    AState *s = (AState *)st;
    if (iterations < 0) return -1;
    if (iterations > 0 && s->ism_world == NULL) {
        s->ism_world = gs_st_new();
        if (s->ism_world == NULL) return -1;
    }
    s->ism_iters = iterations;
    s->ism_c = c;
    return 0;
}
