/* The native engine's run-time library (see runtime.h): the parts too long to inline, the RNGs and
 * the exported entry points (gs_*), which interpreter/native_engine.py calls through ctypes. */
#include "runtime.h"

#include <stdlib.h>
#include <time.h>

List EMPTY_LIST = {0, 0};

/* ------------------------------------------------------------------------------------------ */
/* stopping                                                                                   */
/* ------------------------------------------------------------------------------------------ */
void rt_stop(G *g, int why) {
    g->why = why;
    longjmp(*g->jb, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* arenas: chunks, never moved; reset keeps the first chunk                                   */
/* ------------------------------------------------------------------------------------------ */
void *arena_more(G *g, Arena *a, size_t n) {
    Chunk *c = a->cur;
    if (c != NULL && c->next != NULL && c->next->cap >= n) {    /* a chunk kept from before */
        a->cur = c->next;
        a->cur->used = n;
        return a->cur->mem;
    }
    size_t cap = (size_t)1 << 16;
    while (cap < n) cap <<= 1;
    if (c != NULL && cap < c->cap * 2 && c->cap * 2 <= ((size_t)32 << 20)) cap = c->cap * 2;
    if (a->total + cap > ARENA_CAP) {
        if (g != NULL) rt_stop(g, B_MEMORY);
        return NULL;
    }
    Chunk *nc = (Chunk *)malloc(sizeof(Chunk) + cap + 16);
    if (nc == NULL) {
        if (g != NULL) rt_stop(g, B_MEMORY);
        return NULL;
    }
    nc->mem = (char *)(((uintptr_t)(nc + 1) + 15) & ~(uintptr_t)15);
    nc->cap = cap;
    nc->used = n;
    a->total += cap;
    if (c == NULL) {
        nc->next = a->head;      /* (head is NULL here) */
        a->head = nc;
    } else {
        nc->next = c->next;      /* a smaller kept chunk stays after it */
        c->next = nc;
    }
    a->cur = nc;
    return nc->mem;
}

void arena_reset(Arena *a) {
    if (a->head == NULL) return;
    /* keep at most 4 MB of chunks for reuse */
    size_t kept = 0;
    Chunk *c = a->head, *prev = NULL;
    while (c != NULL) {
        Chunk *nx = c->next;
        if (kept + c->cap <= ((size_t)4 << 20) || prev == NULL) {
            kept += c->cap;
            c->used = 0;
            prev = c;
        } else {
            prev->next = nx;
            a->total -= c->cap;
            free(c);
        }
        c = nx;
    }
    a->cur = a->head;
}

void arena_free(Arena *a) {
    Chunk *c = a->head;
    while (c != NULL) {
        Chunk *nx = c->next;
        free(c);
        c = nx;
    }
    a->head = a->cur = NULL;
    a->total = 0;
}


/* ------------------------------------------------------------------------------------------ */
/* Python's value semantics                                                                   */
/* ------------------------------------------------------------------------------------------ */
int py_eq_slow(V a, V b) {
    if (isnum(a) && isnum(b)) return a.i == b.i;
    if (a.t != b.t) return 0;
    switch (a.t) {
    case T_NONE: return 1;
    case T_STR: return a.i == b.i;
    case T_LIST: {
        List *x = LST(a), *y = LST(b);
        if (x == y) return 1;
        if (x->n != y->n) return 0;
        for (int32_t k = 0; k < x->n; k++)
            if (!py_eq(x->a[k], y->a[k])) return 0;
        return 1;
    }
    default: return 0;
    }
}

int py_lt_slow(G *g, V a, V b) {
    if (isnum(a) && isnum(b)) return a.i < b.i;
    if (a.t == T_STR && b.t == T_STR) return a.i < b.i;      /* texts are interned in sorted order */
    if (a.t == T_LIST && b.t == T_LIST) {
        List *x = LST(a), *y = LST(b);
        int32_t n = x->n < y->n ? x->n : y->n;
        for (int32_t k = 0; k < n; k++)
            if (!py_eq(x->a[k], y->a[k])) return py_lt(g, x->a[k], y->a[k]);
        return x->n < y->n;
    }
    FAULT(F_TYPE);      /* '<' not supported between these kinds */
}

uint64_t py_hash(G *g, V v) {
    switch (v.t) {
    case T_NONE: return 0x9e3779b97f4a7c15ULL;
    case T_BOOL: case T_INT: return (uint64_t)v.i * 0xff51afd7ed558ccdULL;
    case T_STR: return ((uint64_t)v.i + 0x632be59bd9b4e019ULL) * 0xc4ceb9fe1a85ec53ULL;
    default: {
        List *l = LST(v);
        uint64_t h = 0x345678ULL + (uint64_t)l->n;
        for (int32_t k = 0; k < l->n; k++) h = (h ^ py_hash(g, l->a[k])) * 0x100000001b3ULL;
        return h;
    }
    }
}

int64_t py_len_slow(G *g, V v) {      /* py_len (runtime.h) past a list */
    if (v.t == T_LIST) return LST(v)->n;
    if (v.t == T_STR) {
        if (v.i < 0 || v.i >= g->L->nstr) BAIL(B_TEXT);
        return g->L->str_len[v.i];
    }
    FAULT(F_TYPE);      /* len() of a number, a bool or none */
}

int64_t pow_i(G *g, int64_t x, int64_t y) {   /* checked_pow */
    if (y < 0 || y > MAX_EXPONENT) FAULT(F_INT_SIZE);
    int64_t r = 1;
    for (int64_t k = 0; k < y; k++) {
        if (__builtin_mul_overflow(r, x, &r)) FAULT(F_INT_SIZE);
    }
    if (r == INT64_MIN) FAULT(F_INT_SIZE);
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* zones                                                                                      */
/* ------------------------------------------------------------------------------------------ */
static void zgrow(G *g, Zone *z, int32_t need) {
    int32_t cap = z->cap < 8 ? 8 : z->cap;
    while (cap < need) cap *= 2;
    int32_t *a = (int32_t *)realloc(z->a, (size_t)cap * sizeof(int32_t));
    if (a == NULL) rt_stop(g, B_MEMORY);
    z->a = a;
    z->cap = cap;
}

static inline void zpush(G *g, Zone *z, int32_t c) {
    if (GS_UNLIKELY(z->n >= z->cap)) zgrow(g, z, z->n + 1);
    z->a[z->n++] = c;
}

static inline void zinsert0(G *g, Zone *z, int32_t c) {
    if (GS_UNLIKELY(z->n >= z->cap)) zgrow(g, z, z->n + 1);
    memmove(z->a + 1, z->a, (size_t)z->n * sizeof(int32_t));
    z->a[0] = c;
    z->n++;
}

static inline void zremove(G *g, Zone *z, int32_t c) {
    if (GS_LIKELY(z->n > 0 && z->a[z->n - 1] == c)) { z->n--; return; }
    for (int32_t k = 0; k < z->n; k++)
        if (z->a[k] == c) {
            memmove(z->a + k, z->a + k + 1, (size_t)(z->n - k - 1) * sizeof(int32_t));
            z->n--;
            return;
        }
    rt_stop(g, B_STATE);     /* a card not where loc says: never (the state is ours) */
}

/* ---- counts kept by zone (docs/native.md, "Zone counts by attribute") ----------------------------- */
/* card c leaves zone s for zone d: under each count key, one less of its class in s, one more in d
 * (the generated Layout.cnt_move: the keys unrolled, nothing for a zone no count reads) */
static inline void cnt_move(G *g, int32_t c, int32_t s, int32_t d) {
    const Layout *L = g->L;
    if (!L->ncnt) return;
    int64_t rs = L->cnt_row[s], rd = L->cnt_row[d];
    if ((rs & rd) < 0) return;      /* (both -1: neither zone is counted) */
    L->cnt_move(g, c, rs, rd);
}

/* in zone zi, card c replaced by card x (a determinization's draw) */
static inline void cnt_swap(G *g, int32_t zi, int32_t c, int32_t x) {
    const Layout *L = g->L;
    int64_t r = L->cnt_row[zi];
    if (r < 0) return;
    const int32_t *cc = L->cnt_col + (int64_t)c * L->ncnt, *cx = L->cnt_col + (int64_t)x * L->ncnt;
    int32_t *a = g->cnt + r * L->cnt_stride;
    for (int32_t k = 0; k < L->ncnt; k++) {
        a[cc[k]]--;
        a[cx[k]]++;
    }
}

/* the counts of the zones as they are, into out (cnt_size ints) */
static void cnt_count(const G *g, int32_t *out) {
    const Layout *L = g->L;
    memset(out, 0, (size_t)L->cnt_size * sizeof(int32_t));
    for (int32_t c = 0; c < L->ncards; c++) {
        int64_t r = L->cnt_row[g->loc[c]];
        if (r < 0) continue;
        const int32_t *col = L->cnt_col + (int64_t)c * L->ncnt;
        int32_t *a = out + r * L->cnt_stride;
        for (int32_t k = 0; k < L->ncnt; k++) a[col[k]]++;
    }
}

/* every count from the zones: a loaded state, or a new game's cards where the rule set puts them
 * (the same every game: counted once, then copied) */
static void cnt_recount(G *g, int fresh) {
    const Layout *L = g->L;
    if (!L->ncnt) return;
    if (fresh && g->cnt0_made) {
        memcpy(g->cnt, g->cnt0, (size_t)L->cnt_size * sizeof(int32_t));
        return;
    }
    cnt_count(g, g->cnt);
    if (fresh) {
        memcpy(g->cnt0, g->cnt, (size_t)L->cnt_size * sizeof(int32_t));
        g->cnt0_made = 1;
    }
}

/* how many counts differ from a recount of the zones (tests: 0 after every change) */
static int64_t cnt_errors(const G *g) {
    const Layout *L = g->L;
    if (!L->ncnt) return 0;
    int32_t *t = (int32_t *)malloc((size_t)L->cnt_size * sizeof(int32_t));
    if (t == NULL) return 1;
    cnt_count(g, t);
    int64_t bad = 0;
    for (int64_t k = 0; k < L->cnt_size; k++) bad += t[k] != g->cnt[k];
    free(t);
    return bad;
}

#ifdef GS_CHECK_COUNTS
/* a test build (cc -DGS_CHECK_COUNTS): the counts recounted after every change, mismatches summed */
static int64_t cnt_bad_total = 0;
#define CNT_CHECK(g) (cnt_bad_total += cnt_errors(g))
GS_EXPORT int64_t gs_cnt_bad(void) { return cnt_bad_total; }
/* a count made wrong on purpose (tests: the check finds it) */
GS_EXPORT void gs_cnt_poke(void *ctx) { G *g = (G *)ctx; if (g->L->ncnt) g->cnt[0] += 1; }
#else
#define CNT_CHECK(g) ((void)0)
GS_EXPORT int64_t gs_cnt_bad(void) { return -1; }
#endif

List *zlist(G *g, int64_t zi) {
    Zone *z = &g->z[zone_ok(g, zi)];
    List *l = list_new(g, z->n);
    for (int32_t k = 0; k < z->n; k++) l->a[k] = vint(z->a[k]);
    return l;
}

List *ztopn(G *g, int64_t zi, int64_t m) {
    Zone *z = &g->z[zone_ok(g, zi)];
    if (m <= 0) return list_new(g, 0);
    int64_t n = m < z->n ? m : z->n;
    List *l = list_new(g, n);
    for (int64_t k = 0; k < n; k++) l->a[k] = vint(z->a[z->n - 1 - k]);
    return l;
}

List *zbottomn(G *g, int64_t zi, int64_t m) {
    Zone *z = &g->z[zone_ok(g, zi)];
    if (m <= 0) return list_new(g, 0);
    int64_t n = m < z->n ? m : z->n;
    List *l = list_new(g, n);
    for (int64_t k = 0; k < n; k++) l->a[k] = vint(z->a[k]);
    return l;
}

int zcontains(G *g, int64_t zi, V x) {
    Zone *z = &g->z[zone_ok(g, zi)];
    if (!isnum(x)) return 0;
    for (int32_t k = 0; k < z->n; k++)
        if (z->a[k] == x.i) return 1;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* moves and knowledge (interpreter/runtime.py; every move widens the determinization's       */
/* possibility sets, g->poss, as State.poss: plan.c)                                          */
/* ------------------------------------------------------------------------------------------ */
static void lose_track(G *g, int32_t c, int32_t src, uint64_t blind) {
    uint64_t keep = ~blind;
    g->kn[c] &= keep;
    Zone *z = &g->z[src];
    for (int32_t k = 0; k < z->n; k++) g->kn[z->a[k]] &= keep;
}

static uint64_t sight_of(G *g, int32_t c) {     /* State._sight: who sees card c where it lies */
    const Layout *L = g->L;
    return (g->nface && g->face[c]) ? (g->face[c] == 1 ? L->ALL : 0) : L->zvis[g->loc[c]];
}

static void place_note(G *g, Place *w, int32_t c) {
    int32_t zi = g->loc[c];
    w->z = -1;
    w->seen = sight_of(g, c);
    if (g->L->is_set[zi] || w->seen == g->L->ALL) return;
    Zone *z = &g->z[zi];
    w->c = c;
    w->z = zi;
    w->n = z->n;
    w->before = (int32_t *)aalloc(g, (size_t)(z->n + 1) * sizeof(int32_t));
    memcpy(w->before, z->a, (size_t)z->n * sizeof(int32_t));
}

/* Before the effect of a decision that may keep a place secret (ActionRT.hides_place): each chosen card
 * lying in a pile where not everyone sees it, with the pile's cards (State._places). */
Places *rt_places_note(G *g, const V *pr, int32_t np, const uint8_t *kinds) {
    int32_t n = 0;
    for (int32_t j = 0; j < np; j++)
        n += kinds[j] == 1 ? 1 : kinds[j] == 2 ? need_list(g, pr[2 * j + 1])->n : 0;
    Places *ps = (Places *)aalloc(g, sizeof(Places));
    ps->a = (Place *)aalloc(g, (size_t)(n + 1) * sizeof(Place));
    ps->n = 0;
    for (int32_t j = 0; j < np; j++) {
        if (kinds[j] == 1) {
            place_note(g, &ps->a[ps->n++], (int32_t)card_of(g, pr[2 * j + 1]));
        } else if (kinds[j] == 2) {
            List *cs = need_list(g, pr[2 * j + 1]);
            for (int32_t k = 0; k < cs->n; k++) place_note(g, &ps->a[ps->n++], (int32_t)card_of(g, cs->a[k]));
        }
    }
    return ps;
}

/* After it (State.forget_places): who saw a chosen card neither where it was chosen nor where it
 * lies now, the chooser aside, forgets the cards of its pile, before the effect and after it. */
void rt_places_forget(G *g, const Places *ps, int64_t actor) {
    const Layout *L = g->L;
    for (int32_t i = 0; i < ps->n; i++) {
        const Place *w = &ps->a[i];
        if (w->z < 0) continue;
        uint64_t blind = L->ALL & ~w->seen & ~sight_of(g, w->c) & ~((uint64_t)1 << actor);
        if (!blind) continue;
        uint64_t keep = ~blind;
        for (int32_t k = 0; k < w->n; k++) g->kn[w->before[k]] &= keep;
        Zone *z = &g->z[w->z];
        for (int32_t k = 0; k < z->n; k++) g->kn[z->a[k]] &= keep;
    }
}

void rt_move(G *g, int64_t c64, int64_t dst, int face, int bottom) {
    const Layout *L = g->L;
    g->budget -= 1;
    if (GS_UNLIKELY(g->budget < 0)) rt_stop(g, F_BUDGET);
    int32_t c = (int32_t)card_i(g, c64);
    int32_t d = zone_ok(g, dst);
    int32_t src = g->loc[c];
    Zone *zs = &g->z[src];
    zremove(g, zs, c);
    if (bottom) zinsert0(g, &g->z[d], c); else zpush(g, &g->z[d], c);
    g->loc[c] = d;
    cnt_move(g, c, src, d);
    rt_poss_widen(g, src, d);
    CNT_CHECK(g);
    uint64_t old, nw, blind;
    if (g->nface || face) {
        int f = g->face[c];
        if (f) { g->face[c] = 0; g->nface--; }
        old = f == 0 ? L->zvis[src] : (f == 1 ? L->ALL : 0);
        if (face) {
            g->face[c] = (uint8_t)face;
            g->nface++;
            nw = face == 1 ? L->ALL : 0;
        } else {
            nw = L->zvis[d];
        }
        blind = L->is_set[src] ? (L->ALL & ~old & ~nw) : 0;
    } else {
        old = L->zvis[src];
        nw = L->zvis[d];
        blind = L->set_blind[src] & ~nw;
    }
    if (blind) lose_track(g, c, src, blind);
    uint64_t lost = old & ~nw;
    if (lost) g->kn[c] |= lost;
}


void rt_move_list(G *g, V xs, int64_t dst, int face, int bottom) {
    List *l = need_list(g, xs);      /* lists are never changed in place: no copy needed */
    for (int32_t k = 0; k < l->n; k++) rt_move_v(g, l->a[k], dst, face, bottom);
}

void rt_move_zone(G *g, int64_t src, int64_t dst, int face, int bottom) {
    Zone *z = &g->z[zone_ok(g, src)];
    int32_t n = z->n;
    if (n == 0) return;
    int32_t *copy = (int32_t *)aalloc(g, (size_t)n * sizeof(int32_t));   /* bottom first keeps the order */
    memcpy(copy, z->a, (size_t)n * sizeof(int32_t));
    for (int32_t k = 0; k < n; k++) rt_move(g, copy[k], dst, face, bottom);
}

void rt_deal(G *g, int64_t src64, int64_t dst64, int64_t n, int face) {
    const Layout *L = g->L;
    int32_t src = zone_ok(g, src64);
    int32_t dst = zone_ok(g, dst64);
    Zone *zs = &g->z[src];
    if (n > 0 && n <= zs->n && n <= g->budget && !face && !g->nface && src != dst) {
        /* ops.deal's one piece: the same outcome as n single moves */
        g->budget -= n;
        Zone *zd = &g->z[dst];
        if (zd->n + n > zd->cap) zgrow(g, zd, (int32_t)(zd->n + n));
        int counted = L->ncnt && (L->cnt_row[src] & L->cnt_row[dst]) >= 0;
        for (int64_t k = 0; k < n; k++) {
            int32_t c = zs->a[zs->n - 1 - k];
            zd->a[zd->n++] = c;
            g->loc[c] = dst;
        }
        zs->n -= (int32_t)n;
        rt_poss_widen(g, src, dst);
        if (counted)
            for (int64_t k = 0; k < n; k++) L->cnt_move(g, zd->a[zd->n - n + k], L->cnt_row[src], L->cnt_row[dst]);
        CNT_CHECK(g);
        uint64_t nw = L->zvis[dst];
        uint64_t blind = L->set_blind[src] & ~nw;
        int32_t *moved = zd->a + zd->n - n;
        if (blind) {
            uint64_t keep = ~blind;
            for (int64_t k = 0; k < n; k++) g->kn[moved[k]] &= keep;
            for (int32_t k = 0; k < zs->n; k++) g->kn[zs->a[k]] &= keep;
        }
        uint64_t lost = L->zvis[src] & ~nw;
        if (lost)
            for (int64_t k = 0; k < n; k++) g->kn[moved[k]] |= lost;
        return;
    }
    for (int64_t k = 0; k < n; k++) {
        if (g->z[src].n == 0) {
            int32_t r = L->refill_src[src];
            if (r < 0) {
                if (L->stop_empty[src]) return;
                FAULT(F_EMPTY_ZONE);
            }
            rt_move_zone(g, r, src, 0, 0);
            if (L->refill_shuffle[src]) rt_shuffle(g, src);
            if (g->z[src].n == 0) {
                if (L->stop_empty[src]) return;
                FAULT(F_EMPTY_ZONE);
            }
        }
        rt_move(g, g->z[src].a[g->z[src].n - 1], dst, face, 0);
    }
}

static void zone_permute(G *g, Zone *z) {     /* the game's generator orders zone z (runtime.shuffle) */
    if (g->gen == 0) g->rng = rng_shuffle_shake(g->rng, z->a, z->n);
    else if (g->gen == 2) g->rng = rng_shuffle_fast(g->rng, z->a, z->n);
    else g->rng = rng_shuffle_xorshift(g->rng, z->a, z->n);
}

void rt_shuffle(G *g, int64_t zi64) {
    const Layout *L = g->L;
    int32_t zi = zone_ok(g, zi64);
    Zone *z = &g->z[zi];
    zone_permute(g, z);
    for (int32_t k = 0; k < z->n; k++) g->kn[z->a[k]] = 0;     /* nobody follows a card through it */
    for (int32_t m = 0; m < L->nmarks; m++) {
        if (!L->mark_reset[m]) continue;
        int64_t *col = g->mk + (int64_t)m * L->ncards;
        for (int32_t k = 0; k < z->n; k++) col[z->a[k]] = L->mark_init[m];
    }
}

/* ---- a blind pick from a set is a draw (interpreter/blind.py, docs/hidden-information.md) ----
 * Entry k chooses a card its chooser cannot tell apart lying in a set: its class (the entries of its
 * action the chooser cannot tell from it) is found; with two members or more, each set holding such a
 * card is reordered by the game's generator (zones in order; nothing else a shuffle does) and the
 * member whose such cards lie first (parameter by parameter, a list's positions sorted) is played.
 * kinds: per action, maxp bytes (1 a card, 2 a list of cards, 0 anything else). */
static int blind_card(const G *g, V c, uint64_t bit) {     /* c lies in a set and the chooser cannot see it */
    const Layout *L = g->L;
    if (c.t != T_INT || c.i < 0 || c.i >= L->ncards) return 0;
    int32_t zi = g->loc[c.i];
    if (zi < 0 || zi >= L->nzones || !L->is_set[zi]) return 0;
    uint64_t v = (g->nface && g->face[c.i]) ? (g->face[c.i] == 1 ? L->ALL : 0) : L->zvis[zi];
    return !((v | g->kn[c.i]) & bit);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* a list's cards as sorted keys: a blind card by its zone (-1 - zone), another by its id; NULL: memory */
static int64_t *blind_keys(const G *g, const List *l, uint64_t bit) {
    int64_t *out = (int64_t *)malloc((size_t)(l->n > 0 ? l->n : 1) * sizeof(int64_t));
    if (out == NULL) return NULL;
    for (int32_t j = 0; j < l->n; j++)
        out[j] = blind_card(g, l->a[j], bit) ? -1 - (int64_t)g->loc[l->a[j].i] : l->a[j].i;
    qsort(out, (size_t)l->n, sizeof(int64_t), cmp_i64);
    return out;
}

/* 1: the chooser cannot tell entry b from entry a (pairs of (arg, bind) per parameter); -1: memory */
static int blind_same(const G *g, const V *a, const V *b, const uint8_t *kind, int32_t np, uint64_t bit) {
    for (int32_t p = 0; p < np; p++) {
        V ya = a[2 * p + 1], yb = b[2 * p + 1];
        if (kind[p] == 0) {
            if (!v_same(a[2 * p], b[2 * p])) return 0;
        } else if (kind[p] == 1) {
            int ba = blind_card(g, ya, bit);
            if (ba != blind_card(g, yb, bit)) return 0;
            if (ba ? g->loc[ya.i] != g->loc[yb.i] : !v_same(ya, yb)) return 0;
        } else {
            if (ya.t != T_LIST || yb.t != T_LIST) { if (!v_same(ya, yb)) return 0; continue; }
            const List *la = LST(ya), *lb = LST(yb);
            if (la->n != lb->n) return 0;
            int64_t *ka = blind_keys(g, la, bit), *kb = blind_keys(g, lb, bit);
            int same = ka != NULL && kb != NULL && memcmp(ka, kb, (size_t)la->n * sizeof(int64_t)) == 0;
            int oom = ka == NULL || kb == NULL;
            free(ka);
            free(kb);
            if (oom) return -1;
            if (!same) return 0;
        }
    }
    return 1;
}

static int64_t zone_pos(const G *g, int64_t c) {
    const Zone *z = &g->z[g->loc[c]];
    for (int32_t i = 0; i < z->n; i++) if (z->a[i] == c) return i;
    return -1;
}

/* entry b's rank: the positions of its blind cards, parameter by parameter (a list's sorted) */
static int32_t blind_rank(const G *g, const V *b, const uint8_t *kind, int32_t np, uint64_t bit, int64_t *out,
                          int32_t cap) {
    int32_t n = 0;
    for (int32_t p = 0; p < np; p++) {
        V y = b[2 * p + 1];
        if (kind[p] == 1) {
            if (blind_card(g, y, bit) && n < cap) out[n++] = zone_pos(g, y.i);
        } else if (kind[p] == 2 && y.t == T_LIST) {
            const List *l = LST(y);
            int32_t n0 = n;
            for (int32_t j = 0; j < l->n; j++)
                if (blind_card(g, l->a[j], bit) && n < cap) out[n++] = zone_pos(g, l->a[j].i);
            qsort(out + n0, (size_t)(n - n0), sizeof(int64_t), cmp_i64);
        }
    }
    return n;
}

int32_t rt_blind_pick(G *g, int32_t k, const uint8_t *kinds, int32_t maxp, int32_t *reordered) {
    const Layout *L = g->L;
    Listing *lst = &g->lst;
    if (k < 0 || k >= lst->n) return k;
    int32_t act = lst->act[k];
    if (act < 0 || act >= L->nactions) return k;
    int32_t np = L->act_np[act];
    if (np > maxp) BAIL(B_STATE);
    const uint8_t *kind = kinds + (int64_t)act * maxp;
    const V *a = lst_pairs(lst, k);
    uint64_t bit = (uint64_t)1 << g->actor;
    int32_t nb = 0;                                 /* the chosen entry's blind cards */
    for (int32_t p = 0; p < np; p++) {
        V y = a[2 * p + 1];
        if (kind[p] == 1) nb += blind_card(g, y, bit);
        else if (kind[p] == 2 && y.t == T_LIST)
            for (int32_t j = 0; j < LST(y)->n; j++) nb += blind_card(g, LST(y)->a[j], bit);
    }
    if (nb == 0) return k;                          /* the usual case */
    int32_t *cls = (int32_t *)malloc((size_t)lst->n * sizeof(int32_t));
    int64_t *zs = (int64_t *)malloc((size_t)nb * sizeof(int64_t));
    int64_t *rk = (int64_t *)malloc((size_t)nb * 2 * sizeof(int64_t));
    if (cls == NULL || zs == NULL || rk == NULL) { free(cls); free(zs); free(rk); BAIL(B_MEMORY); }
    int32_t nc = 0;
    for (int32_t e = 0; e < lst->n; e++) {
        if (lst->act[e] != act) continue;
        int r = e == k ? 1 : blind_same(g, a, lst_pairs(lst, e), kind, np, bit);
        if (r < 0) { free(cls); free(zs); free(rk); BAIL(B_MEMORY); }
        if (r) cls[nc++] = e;
    }
    int32_t best = k;
    *reordered = nc >= 2;
    if (nc >= 2) {
        int32_t nz = 0;                             /* the sets to reorder, in zone order */
        for (int32_t p = 0; p < np; p++) {
            V y = a[2 * p + 1];
            if (kind[p] == 1) {
                if (blind_card(g, y, bit)) zs[nz++] = g->loc[y.i];
            } else if (kind[p] == 2 && y.t == T_LIST) {
                for (int32_t j = 0; j < LST(y)->n; j++)
                    if (blind_card(g, LST(y)->a[j], bit) && nz < nb) zs[nz++] = g->loc[LST(y)->a[j].i];
            }
        }
        qsort(zs, (size_t)nz, sizeof(int64_t), cmp_i64);
        for (int32_t i = 0; i < nz; i++) if (i == 0 || zs[i] != zs[i - 1]) zone_permute(g, &g->z[zs[i]]);
        int64_t *cur = rk, *top = rk + nb;
        int32_t nt = -1;
        for (int32_t i = 0; i < nc; i++) {
            int32_t n = blind_rank(g, lst_pairs(lst, cls[i]), kind, np, bit, cur, nb);
            int less = nt < 0;
            for (int32_t j = 0; !less && j < n && j < nt; j++) {
                if (cur[j] != top[j]) { less = cur[j] < top[j]; break; }
            }
            if (less) { int64_t *t = top; top = cur; cur = t; nt = n; best = cls[i]; }
        }
    }
    free(cls);
    free(zs);
    free(rk);
    return best;
}

/* a card as blind.py's _cards_key: one the chooser sees by its face (-1 - face), another by its id */
static int64_t seen_key(const G *g, V c, uint64_t bit) {
    const Layout *L = g->L;
    if (c.t != T_INT || c.i < 0 || c.i >= L->ncards) return INT64_MIN;
    uint64_t v = (g->nface && g->face[c.i]) ? (g->face[c.i] == 1 ? L->ALL : 0) : L->zvis[g->loc[c.i]];
    return ((v | g->kn[c.i]) & bit) ? -1 - (int64_t)L->face_of[c.i] : c.i;
}

static int64_t *seen_keys(const G *g, const List *l, uint64_t bit) {
    int64_t *out = (int64_t *)malloc((size_t)(l->n > 0 ? l->n : 1) * sizeof(int64_t));
    if (out == NULL) return NULL;
    for (int32_t j = 0; j < l->n; j++) out[j] = seen_key(g, l->a[j], bit);
    qsort(out, (size_t)l->n, sizeof(int64_t), cmp_i64);
    return out;
}

/* the entry of listing `to` (made again once the sets were reordered) with the cards and values of
 * entry k of g->lst (blind.py's stored_values): what a simultaneous step stores; -1 if none */
int32_t rt_blind_refind(G *g, int32_t k, const Listing *to, const uint8_t *kinds, int32_t maxp) {
    const Listing *lst = &g->lst;
    int32_t act = lst->act[k];
    if (act < 0 || act >= g->L->nactions) return -1;
    int32_t np = g->L->act_np[act];
    if (np > maxp) BAIL(B_STATE);
    const uint8_t *kind = kinds + (int64_t)act * maxp;
    const V *a = lst_pairs((Listing *)lst, k);
    uint64_t bit = (uint64_t)1 << g->actor;
    for (int32_t e = 0; e < to->n; e++) {
        if (to->act[e] != act) continue;
        const V *b = lst_pairs((Listing *)to, e);
        int same = 1;
        for (int32_t p = 0; p < np && same; p++) {
            V ya = a[2 * p + 1], yb = b[2 * p + 1];
            if (kind[p] == 0) same = v_same(a[2 * p], b[2 * p]);
            else if (kind[p] == 1) same = seen_key(g, ya, bit) == seen_key(g, yb, bit);
            else if (ya.t != T_LIST || yb.t != T_LIST) same = v_same(ya, yb);
            else if (LST(ya)->n != LST(yb)->n) same = 0;
            else {
                int64_t *ka = seen_keys(g, LST(ya), bit), *kb = seen_keys(g, LST(yb), bit);
                int oom = ka == NULL || kb == NULL;
                same = !oom && memcmp(ka, kb, (size_t)LST(ya)->n * sizeof(int64_t)) == 0;
                free(ka);
                free(kb);
                if (oom) BAIL(B_MEMORY);
            }
        }
        if (same) return e;
    }
    return -1;
}

void rt_reveal_card(G *g, V c, int64_t p) {
    if (c.t == T_NONE) return;
    g->kn[card_of(g, c)] |= (uint64_t)1 << p;
}

void rt_reveal_list(G *g, V xs, int64_t p) {
    List *l = need_list(g, xs);
    for (int32_t k = 0; k < l->n; k++) rt_reveal_card(g, l->a[k], p);
}

void rt_reveal_zone(G *g, int64_t zi, int64_t p) {
    Zone *z = &g->z[zone_ok(g, zi)];
    for (int32_t k = 0; k < z->n; k++) g->kn[z->a[k]] |= (uint64_t)1 << p;
}

void rt_set_mark(G *g, V what, int what_kind, int m, V val) {
    const Layout *L = g->L;
    int64_t x;
    if (L->mark_bool[m]) {
        if (val.t != T_BOOL) FAULT(F_MARK);
        x = val.i;
    } else {
        if (val.t == T_BOOL) x = val.i;
        else if (val.t == T_INT) x = val.i;
        else FAULT(F_MARK);
        if (x == INT64_MIN) FAULT(F_INT_SIZE);
    }
    int64_t *col = g->mk + (int64_t)m * L->ncards;
    if (what_kind == 0) {
        charge(g, 1);
        if (what.t == T_NONE) FAULT(F_NO_CARD);
        col[card_of(g, what)] = x;
    } else if (what_kind == 1) {
        Zone *z = &g->z[zone_ok(g, what.i)];
        charge(g, z->n);
        for (int32_t k = 0; k < z->n; k++) col[z->a[k]] = x;
    } else {
        List *l = need_list(g, what);
        charge(g, l->n);
        for (int32_t k = 0; k < l->n; k++) {
            if (l->a[k].t == T_NONE) FAULT(F_NO_CARD);
            col[card_of(g, l->a[k])] = x;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* lists (closures.py / codegen.py helpers)                                                   */
/* ------------------------------------------------------------------------------------------ */
V rt_index_slow(G *g, V xs, V i) {
    if (xs.t != T_LIST) {
        if (xs.t == T_STR) BAIL(B_TEXT);
        FAULT(F_TYPE);
    }
    if (!isnum(i)) FAULT(F_TYPE);
    List *l = LST(xs);
    int64_t k = i.i;
    if (k < 0) k += l->n;
    if (k < 0 || k >= l->n) FAULT(F_INDEX);
    return l->a[k];
}

static List *as_list(G *g, V v) {
    if (v.t == T_LIST) return LST(v);
    if (v.t == T_STR) BAIL(B_TEXT);
    FAULT(F_TYPE);
}

V rt_join(G *g, V a, V b) {
    List *x = as_list(g, a), *y = as_list(g, b);
    int64_t n = (int64_t)x->n + y->n;
    if (n > MAX_LIST) FAULT(F_VALUE_SIZE);
    List *l = list_new(g, n);
    memcpy(l->a, x->a, (size_t)x->n * sizeof(V));
    memcpy(l->a + x->n, y->a, (size_t)y->n * sizeof(V));
    charge(g, n);
    return vlist(l);
}

V rt_add_assign(G *g, V a, V b, int sign) {
    if (a.t == T_LIST) {
        List *x = LST(a);
        List *y;
        List *out;
        if (b.t == T_LIST) y = LST(b);
        else {
            List *w = list_new(g, 1);
            w->a[0] = b;
            y = w;
        }
        if (sign > 0) {
            int64_t n = (int64_t)x->n + y->n;
            if (n > MAX_LIST) FAULT(F_VALUE_SIZE);
            out = list_new(g, n);
            memcpy(out->a, x->a, (size_t)x->n * sizeof(V));
            memcpy(out->a + x->n, y->a, (size_t)y->n * sizeof(V));
        } else {
            out = list_new(g, x->n);
            int32_t m = 0;
            for (int32_t k = 0; k < x->n; k++) {
                int gone = 0;
                for (int32_t j = 0; j < y->n; j++)
                    if (py_eq(x->a[k], y->a[j])) { gone = 1; break; }
                if (!gone) out->a[m++] = x->a[k];
            }
            out->n = m;
        }
        charge(g, out->n);
        return vlist(out);
    }
    if (!isnum(a) || !isnum(b)) {
        if (a.t == T_STR && b.t == T_STR && sign > 0) BAIL(B_TEXT);
        FAULT(F_TYPE);
    }
    return vint(bounded_i(g, sign > 0 ? add_i(g, a.i, b.i) : sub_i(g, a.i, b.i)));
}

V rt_plus_slow(G *g, V a, V b) {      /* rt_plus_any (runtime.h) past its numbers */
    if (isnum(a) && isnum(b)) return vint(add_i(g, a.i, b.i));
    if (a.t == T_STR && b.t == T_STR) {
        if (a.i == 0) return b;          /* '' + x and x + '' are x: no text is built */
        if (b.i == 0) return a;
        BAIL(B_TEXT);
    }
    if (a.t == T_LIST && b.t == T_LIST) {
        List *x = LST(a), *y = LST(b);
        int64_t n = (int64_t)x->n + y->n;
        if (n > MAX_LIST) FAULT(F_VALUE_SIZE);
        List *l = list_new(g, n);
        memcpy(l->a, x->a, (size_t)x->n * sizeof(V));
        memcpy(l->a + x->n, y->a, (size_t)y->n * sizeof(V));
        return vlist(l);
    }
    FAULT(F_TYPE);
}

V rt_arith_any(G *g, int op, V a, V b) {
    if (!isnum(a) || !isnum(b)) FAULT(F_TYPE);
    if (op == '-') return vint(sub_i(g, a.i, b.i));
    if (op == '/') return vint(fdiv_i(g, a.i, b.i));
    return vint(mod_i(g, a.i, b.i));
}

V rt_mul_any(G *g, V a, V b) {
    if (isnum(a) && isnum(b)) return vint(mul_i(g, a.i, b.i));
    V seq = a, n = b;
    if (!(a.t == T_STR || a.t == T_LIST)) { seq = b; n = a; }
    if ((seq.t == T_STR || seq.t == T_LIST) && isnum(n)) {
        if (seq.t == T_STR) {
            int64_t len = py_len(g, seq);
            int64_t size = n.i > 0 ? len * (n.i > MAX_TEXT + 1 ? MAX_TEXT + 1 : n.i) : 0;
            if (size > MAX_TEXT) FAULT(F_VALUE_SIZE);
            if (len == 0 || n.i <= 0) return vstr(0);
            if (n.i == 1) return seq;
            BAIL(B_TEXT);
        }
        List *x = LST(seq);
        int64_t k = n.i > 0 ? n.i : 0;
        if (x->n && k > MAX_LIST) FAULT(F_VALUE_SIZE);
        int64_t size = (int64_t)x->n * k;
        if (size > MAX_LIST) FAULT(F_VALUE_SIZE);
        List *l = list_new(g, size);
        for (int64_t r = 0; r < k; r++) memcpy(l->a + r * x->n, x->a, (size_t)x->n * sizeof(V));
        return vlist(l);
    }
    FAULT(F_TYPE);
}

V rt_range(G *g, int64_t a, int64_t b) {
    int64_t span = span_i(a, b);
    if (span > MAX_RANGE) FAULT(F_RANGE);
    int64_t n = span > 0 ? span : 0;
    charge(g, n);
    List *l = list_new(g, n);
    for (int64_t k = 0; k < n; k++) l->a[k] = vint(a + k);
    return vlist(l);
}

int rt_in_slow(G *g, V x, V xs) {
    List *l = as_list(g, xs);
    charge(g, l->n);
    for (int32_t k = 0; k < l->n; k++)
        if (py_eq(x, l->a[k])) return 1;
    return 0;
}

V rt_sum(G *g, V xs) {
    List *l = as_list(g, xs);
    __int128 s = 0;                      /* at most MAX_LIST items: no overflow before the end */
    for (int32_t k = 0; k < l->n; k++) {
        if (!isnum(l->a[k])) FAULT(F_TYPE);
        s += l->a[k].i;
    }
    return vint(sum_end(g, s));
}

V rt_maxmin(G *g, V xs, int is_max, int has_default, V dflt) {
    List *l = as_list(g, xs);
    if (l->n == 0) {
        if (has_default) return dflt;
        FAULT(F_EMPTY_LIST);
    }
    V best = l->a[0];
    for (int32_t k = 1; k < l->n; k++) {
        V x = l->a[k];
        if (is_max ? py_lt(g, best, x) : py_lt(g, x, best)) best = x;
    }
    return best;
}

static void merge_sort(G *g, V *a, V *tmp, int64_t n) {
    if (n < 2) return;
    if (n <= 12) {             /* insertion sort: stable */
        for (int64_t i = 1; i < n; i++) {
            V x = a[i];
            int64_t j = i;
            while (j > 0 && py_lt(g, x, a[j - 1])) { a[j] = a[j - 1]; j--; }
            a[j] = x;
        }
        return;
    }
    int64_t h = n / 2;
    merge_sort(g, a, tmp, h);
    merge_sort(g, a + h, tmp, n - h);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (py_lt(g, a[j], a[i])) tmp[k++] = a[j++];
        else tmp[k++] = a[i++];
    }
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof(V));
}

V rt_sorted(G *g, V xs) {
    List *l = as_list(g, xs);
    List *out = list_new(g, l->n);
    memcpy(out->a, l->a, (size_t)l->n * sizeof(V));
    if (l->n > 1) {
        V *tmp = (V *)aalloc(g, (size_t)l->n * sizeof(V));
        merge_sort(g, out->a, tmp, l->n);
    }
    return vlist(out);
}

/* positions 0..n-1 ordered by their keys, stably: the comparisons of merge_sort's */
static void merge_sort_by(G *g, const V *key, int32_t *a, int32_t *tmp, int64_t n) {
    if (n < 2) return;
    if (n <= 12) {
        for (int64_t i = 1; i < n; i++) {
            int32_t x = a[i];
            int64_t j = i;
            while (j > 0 && py_lt(g, key[x], key[a[j - 1]])) { a[j] = a[j - 1]; j--; }
            a[j] = x;
        }
        return;
    }
    int64_t h = n / 2;
    merge_sort_by(g, key, a, tmp, h);
    merge_sort_by(g, key, a + h, tmp, n - h);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (py_lt(g, key[a[j]], key[a[i]])) tmp[k++] = a[j++];
        else tmp[k++] = a[i++];
    }
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof(int32_t));
}

V rt_sorted_by(G *g, List *keys, List *items) {
    int32_t n = items->n;
    if (keys->n != n) BAIL(B_STATE);
    List *out = list_new(g, n);
    if (n < 2) {                   /* nothing compared (Python's sort compares nothing either) */
        memcpy(out->a, items->a, (size_t)n * sizeof(V));
        return vlist(out);
    }
    int32_t *idx = (int32_t *)aalloc(g, 2 * (size_t)n * sizeof(int32_t));
    for (int32_t k = 0; k < n; k++) idx[k] = k;
    merge_sort_by(g, keys->a, idx, idx + n, n);
    for (int32_t k = 0; k < n; k++) out->a[k] = items->a[idx[k]];
    return vlist(out);
}

V rt_first_n(G *g, V xs, int64_t k) {
    List *l = as_list(g, xs);
    int64_t n = k < 0 ? 0 : (k < l->n ? k : l->n);
    List *out = list_new(g, n);
    memcpy(out->a, l->a, (size_t)n * sizeof(V));
    return vlist(out);
}

V rt_last_n(G *g, V xs, int64_t k) {
    List *l = as_list(g, xs);
    if (k <= 0) return vlist(list_new(g, 0));
    int64_t n = k < l->n ? k : l->n;
    List *out = list_new(g, n);
    memcpy(out->a, l->a + (l->n - n), (size_t)n * sizeof(V));
    return vlist(out);
}

V rt_first(G *g, V xs) {
    if (xs.t == T_STR) { if (xs.i == 0) return vnone(); BAIL(B_TEXT); }
    List *l = as_list(g, xs);
    return l->n ? l->a[0] : vnone();
}

V rt_last(G *g, V xs) {
    if (xs.t == T_STR) { if (xs.i == 0) return vnone(); BAIL(B_TEXT); }
    List *l = as_list(g, xs);
    return l->n ? l->a[l->n - 1] : vnone();
}

int rt_any(G *g, V xs) {
    if (xs.t == T_STR) { if (xs.i == 0) return 0; BAIL(B_TEXT); }
    List *l = as_list(g, xs);
    for (int32_t k = 0; k < l->n; k++)
        if (truthy(l->a[k])) return 1;
    return 0;
}

int rt_all(G *g, V xs) {
    if (xs.t == T_STR) { if (xs.i == 0) return 1; BAIL(B_TEXT); }
    List *l = as_list(g, xs);
    for (int32_t k = 0; k < l->n; k++)
        if (!truthy(l->a[k])) return 0;
    return 1;
}

int rt_majority_slow(G *g, V xs, V i, V mn, int sole) {    /* codegen._majority */
    V v = rt_index(g, xs, i);
    if (xs.t == T_LIST && isnum(v) && isnum(mn)) {     /* numbers only: one pass */
        if (v.i < mn.i) return 0;
        const List *l = LST(xs);
        int64_t mx = INT64_MIN, c = 0;
        int32_t k = 0;
        for (; k < l->n && isnum(l->a[k]); k++) {
            if (l->a[k].i > mx) mx = l->a[k].i;
            c += l->a[k].i == v.i;
        }
        if (k == l->n) return v.i < mx ? 0 : (!sole || c == 1);
    }
    if (py_lt(g, v, mn)) return 0;
    V mx = rt_maxmin(g, xs, 1, 0, vnone());
    if (py_lt(g, v, mx)) return 0;          /* not v >= max */
    if (!sole) return 1;
    List *l = LST(xs);
    int64_t c = 0;
    for (int32_t k = 0; k < l->n; k++) c += py_eq(l->a[k], v);
    return c == 1;
}

/* a hash set of values (Python's set/dict keys: equal values share a slot) */
typedef struct { int64_t cap; int64_t n; int32_t *slot; } HSet;

static void hs_init(G *g, HSet *h, int64_t n) {
    int64_t cap = 16;
    while (cap < n * 2 + 2) cap <<= 1;
    h->cap = cap;
    h->n = 0;
    h->slot = (int32_t *)aalloc(g, (size_t)cap * sizeof(int32_t));
    memset(h->slot, 0xff, (size_t)cap * sizeof(int32_t));
}

/* finds x among items[] (indices kept in the set); adds its index `idx` if absent; returns the index
 * of the equal item (or idx when added) */
static int32_t hs_find_add(G *g, HSet *h, const V *items, V x, int32_t idx) {
    uint64_t m = (uint64_t)h->cap - 1;
    uint64_t p = py_hash(g, x) & m;
    for (;;) {
        int32_t s = h->slot[p];
        if (s < 0) { h->slot[p] = idx; h->n++; return idx; }
        if (py_eq(items[s], x)) return s;
        p = (p + 1) & m;
    }
}

#define SMALL_SET 24      /* up to this many items a scan beats hashing */

V rt_distinct(G *g, V xs) {
    List *l = as_list(g, xs);
    List *out = list_new(g, l->n);
    if (l->n <= SMALL_SET) {
        int32_t m = 0;
        for (int32_t k = 0; k < l->n; k++) {
            V x = l->a[k];
            if (x.t == T_LIST) {
                List *y = LST(x);
                for (int32_t j = 0; j < y->n; j++) if (y->a[j].t == T_LIST) FAULT(F_TYPE);
            }
            int seen = 0;
            for (int32_t j = 0; j < m && !seen; j++) seen = py_eq(out->a[j], x);
            if (!seen) out->a[m++] = x;
        }
        out->n = m;
        return vlist(out);
    }
    HSet h;
    hs_init(g, &h, l->n);
    int32_t m = 0;
    for (int32_t k = 0; k < l->n; k++) {
        V x = l->a[k];
        if (x.t == T_LIST) {      /* _key: tuple(x); its items must be hashable */
            List *y = LST(x);
            for (int32_t j = 0; j < y->n; j++) if (y->a[j].t == T_LIST) FAULT(F_TYPE);
        }
        int32_t s = hs_find_add(g, &h, l->a, x, k);
        if (s == k) out->a[m++] = x;
    }
    out->n = m;
    return vlist(out);
}

/* numbers only, all within 64 of the least: 1 and the lowest value, else 0 (count_by's fast path) */
static int nums_in_window(const List *l, int64_t *lo) {
    if (l->n == 0 || !isnum(l->a[0])) return 0;
    int64_t mn = l->a[0].i, mx = mn;
    for (int32_t k = 1; k < l->n; k++) {
        if (!isnum(l->a[k])) return 0;
        if (l->a[k].i < mn) mn = l->a[k].i;
        if (l->a[k].i > mx) mx = l->a[k].i;
    }
    if ((uint64_t)mx - (uint64_t)mn >= 64) return 0;
    *lo = mn;
    return 1;
}

V rt_count_by(G *g, V xs) {
    List *l = as_list(g, xs);
    List *out = list_new(g, l->n);
    int64_t lo;
    if (nums_in_window(l, &lo)) {     /* small numbers: a mask of the values seen, in first-seen order */
        uint64_t seen = 0;
        int32_t slot[64], m = 0;
        for (int32_t k = 0; k < l->n; k++) {
            uint32_t d = (uint32_t)((uint64_t)l->a[k].i - (uint64_t)lo);
            if (!((seen >> d) & 1)) { seen |= (uint64_t)1 << d; slot[d] = m; out->a[m++] = vint(1); }
            else out->a[slot[d]].i += 1;
        }
        out->n = m;
        return vlist(out);
    }
    if (l->n <= SMALL_SET) {
        V firsts[SMALL_SET];
        int32_t m = 0;
        for (int32_t k = 0; k < l->n; k++) {
            V x = l->a[k];
            if (x.t == T_LIST) {
                List *y = LST(x);
                for (int32_t j = 0; j < y->n; j++) if (y->a[j].t == T_LIST) FAULT(F_TYPE);
            }
            int32_t at = -1;
            if (isnum(x)) {           /* a number equals only a number of the same value */
                for (int32_t j = 0; j < m; j++) if (isnum(firsts[j]) && firsts[j].i == x.i) { at = j; break; }
            } else {
                for (int32_t j = 0; j < m && at < 0; j++) if (py_eq(firsts[j], x)) at = j;
            }
            if (at < 0) { firsts[m] = x; out->a[m++] = vint(1); }
            else out->a[at].i += 1;
        }
        out->n = m;
        return vlist(out);
    }
    int32_t *pos = (int32_t *)aalloc(g, (size_t)(l->n + 1) * sizeof(int32_t));
    HSet h;
    hs_init(g, &h, l->n);
    int32_t m = 0;
    for (int32_t k = 0; k < l->n; k++) {
        V x = l->a[k];
        if (x.t == T_LIST) {
            List *y = LST(x);
            for (int32_t j = 0; j < y->n; j++) if (y->a[j].t == T_LIST) FAULT(F_TYPE);
        }
        int32_t s = hs_find_add(g, &h, l->a, x, k);
        if (s == k) { pos[k] = m; out->a[m++] = vint(1); }
        else out->a[pos[s]].i += 1;
    }
    out->n = m;
    return vlist(out);
}

V rt_unique(G *g, V xs) {      /* list(dict.fromkeys(xs)): keys must be hashable */
    List *l = as_list(g, xs);
    for (int32_t k = 0; k < l->n; k++) if (l->a[k].t == T_LIST) FAULT(F_TYPE);
    return rt_distinct(g, xs);
}

V rt_dense_rank(G *g, V xs, V i) {     /* sorted(set(vals), reverse=True).index(vals[i]) */
    if (xs.t == T_LIST && isnum(i) && LST(xs)->n <= 64) {     /* a few numbers: the distinct greater ones */
        const List *l = LST(xs);
        int64_t k = i.i < 0 ? i.i + l->n : i.i;
        int all = k >= 0 && k < l->n;
        for (int32_t j = 0; j < l->n && all; j++) all = isnum(l->a[j]);
        if (all) {
            int64_t v = l->a[k].i, r = 0;
            for (int32_t j = 0; j < l->n; j++) {
                if (l->a[j].i <= v) continue;
                int seen = 0;
                for (int32_t m = 0; m < j && !seen; m++) seen = l->a[m].i == l->a[j].i;
                r += !seen;
            }
            return vint(r);
        }
    }
    List *l = as_list(g, xs);
    int nums = 0, strs = 0;
    for (int32_t k = 0; k < l->n; k++) {
        if (isnum(l->a[k])) nums++;
        else if (l->a[k].t == T_STR) strs++;
        else if (l->a[k].t == T_LIST) FAULT(F_TYPE);      /* unhashable */
        else BAIL(B_TYPE);
    }
    if (nums && strs) FAULT(F_TYPE);
    V v = rt_index(g, xs, i);
    V d = rt_distinct(g, xs);
    List *u = LST(d);
    int64_t r = 0;
    for (int32_t k = 0; k < u->n; k++)
        if (py_lt(g, v, u->a[k])) r++;
    return vint(r);
}

static int small_has(const List *l, V x) {
    for (int32_t k = 0; k < l->n; k++) if (py_eq(l->a[k], x)) return 1;
    return 0;
}

V rt_run_length(G *g, V xs, V v) {     /* closures.run_length */
    List *l = as_list(g, xs);
    for (int32_t k = 0; k < l->n; k++) if (l->a[k].t == T_LIST) FAULT(F_TYPE);
    if (l->n <= SMALL_SET && isnum(v)) {   /* the numbers within 32 of v as bits: v is bit 32 */
        uint64_t bits = 0;
        for (int32_t k = 0; k < l->n; k++) {
            if (!isnum(l->a[k])) continue;          /* nothing else equals a number */
            int64_t d;
            if (__builtin_sub_overflow(l->a[k].i, v.i, &d) || d < -32 || d >= 32) continue;
            bits |= (uint64_t)1 << (d + 32);
        }
        if (!((bits >> 32) & 1)) return vint(0);
        uint32_t up = (uint32_t)(bits >> 32), down = (uint32_t)bits;
        if (up != 0xFFFFFFFFu && down != 0xFFFFFFFFu)      /* (at most 24 items: always) */
            return vint(__builtin_ctz(~up) + (down ? __builtin_clz(~down) : 0));
    }
    if (l->n <= SMALL_SET) {
        if (v.t == T_LIST) FAULT(F_TYPE);
        if (!small_has(l, v)) return vint(0);
        if (!isnum(v)) FAULT(F_TYPE);
        int64_t a[SMALL_SET];            /* the numbers only: nothing else equals an int probe */
        int32_t m = 0;
        for (int32_t k = 0; k < l->n; k++) if (isnum(l->a[k])) a[m++] = l->a[k].i;
        int64_t lo = v.i, hi = v.i;
        for (;;) {
            if (lo == INT64_MIN) break;
            int32_t j = 0;
            while (j < m && a[j] != lo - 1) j++;
            if (j == m) break;
            lo--;
        }
        for (;;) {                       /* (no value lies beyond int64) */
            if (hi == INT64_MAX) break;
            int32_t j = 0;
            while (j < m && a[j] != hi + 1) j++;
            if (j == m) break;
            hi++;
        }
        return vint(add_i(g, sub_i(g, hi, lo), 1));
    }
    HSet h;
    hs_init(g, &h, l->n);
    for (int32_t k = 0; k < l->n; k++) hs_find_add(g, &h, l->a, l->a[k], k);
    if (v.t == T_LIST) FAULT(F_TYPE);
    /* v in have? */
    int present = 0;
    for (int32_t k = 0; k < l->n && !present; k++) present = py_eq(l->a[k], v);
    if (!present) return vint(0);
    if (!isnum(v)) FAULT(F_TYPE);
    int64_t lo = v.i, hi = v.i;
    for (;;) {
        if (lo == INT64_MIN) BAIL(B_OVERFLOW);
        V probe = vint(lo - 1);
        uint64_t m = (uint64_t)h.cap - 1, p = py_hash(g, probe) & m;
        int found = 0;
        for (;;) { int32_t s = h.slot[p]; if (s < 0) break; if (py_eq(l->a[s], probe)) { found = 1; break; } p = (p + 1) & m; }
        if (!found) break;
        lo--;
    }
    for (;;) {
        if (hi == INT64_MAX) BAIL(B_OVERFLOW);
        V probe = vint(hi + 1);
        uint64_t m = (uint64_t)h.cap - 1, p = py_hash(g, probe) & m;
        int found = 0;
        for (;;) { int32_t s = h.slot[p]; if (s < 0) break; if (py_eq(l->a[s], probe)) { found = 1; break; } p = (p + 1) & m; }
        if (!found) break;
        hi++;
    }
    return vint(sub_i(g, hi, lo) + 1);
}

V rt_longest_run(G *g, V xs) {
    List *l = as_list(g, xs);
    if (l->n == 0) return vint(0);
    int64_t *a = (int64_t *)aalloc(g, (size_t)l->n * sizeof(int64_t));
    for (int32_t k = 0; k < l->n; k++) {
        if (l->a[k].t == T_LIST) FAULT(F_TYPE);
        if (!isnum(l->a[k])) FAULT(F_TYPE);
        a[k] = l->a[k].i;
    }
    qsort(a, (size_t)l->n, sizeof(int64_t), cmp_i64);
    int64_t best = 1, run = 1;
    for (int32_t k = 1; k < l->n; k++) {
        if (a[k] == a[k - 1]) continue;
        if (a[k - 1] != INT64_MAX && a[k] == a[k - 1] + 1) run++;
        else run = 1;
        if (run > best) best = run;
    }
    return vint(best);
}

V rt_index_of(G *g, V xs, V x) {
    List *l = as_list(g, xs);
    for (int32_t k = 0; k < l->n; k++)
        if (py_eq(l->a[k], x)) return vint(k);
    return vint(-1);
}

V rt_copy_root(G *g, V v) {
    if (v.t != T_LIST) return v;
    List *l = LST(v);
    List *out = list_new(g, l->n);
    for (int32_t k = 0; k < l->n; k++) out->a[k] = rt_copy_root(g, l->a[k]);
    return vlist(out);
}

/* ------------------------------------------------------------------------------------------ */
/* listings                                                                                   */
/* ------------------------------------------------------------------------------------------ */
void lst_reset(Listing *l) {
    l->n = 0;
    l->nv = 0;
    if (l->ar.head != NULL && (l->ar.cur != l->ar.head || l->ar.head->used)) arena_reset(&l->ar);
}

int32_t lst_grow(G *g, Listing *l, int32_t act, int32_t npairs) {
    if (l->n >= l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 64;
        int32_t *a = (int32_t *)realloc(l->act, (size_t)cap * sizeof(int32_t));
        if (a == NULL) rt_stop(g, B_MEMORY);
        l->act = a;
        a = (int32_t *)realloc(l->off, (size_t)cap * sizeof(int32_t));
        if (a == NULL) rt_stop(g, B_MEMORY);
        l->off = a;
        l->cap = cap;
    }
    if (l->nv + 2 * npairs > l->vcap) {
        int32_t cap = l->vcap ? l->vcap * 2 : 256;
        while (cap < l->nv + 2 * npairs) cap *= 2;
        V *a = (V *)realloc(l->vals, (size_t)cap * sizeof(V));
        if (a == NULL) rt_stop(g, B_MEMORY);
        l->vals = a;
        l->vcap = cap;
    }
    return lst_entry(g, l, act, npairs);
}

V lst_list(G *g, Listing *l, int64_t n) {
    List *x = (List *)aalloc_in(g, &l->ar, sizeof(List) + (size_t)n * sizeof(V));
    x->n = (int32_t)n;
    x->pad = 0;
    return vlist(x);
}

/* ------------------------------------------------------------------------------------------ */
/* the flow's bookkeeping                                                                     */
/* ------------------------------------------------------------------------------------------ */
/* rt_count_decision (State._count_decision): runtime.h, inline */


void rt_ff_init(G *g, int slot, V items) {
    Flow *f = &g->ff[slot];
    f->active = 1;
    f->items = items;
    f->idx = 0;
}


void rt_ff_clear_all(G *g) {      /* (all zero: inactive, no variable, index 0, none and none) */
    memset(g->ff, 0, (size_t)g->L->nfor * sizeof(Flow));
}

void rt_store_choice(G *g, int32_t k) {    /* State._store: recorded, not applied */
    rt_store_entry(g, &g->lst, k);
}

void rt_store_entry(G *g, Listing *l, int32_t k) {     /* entry k of listing l stored */
    if (g->nstored >= g->stcap) {
        int32_t cap = g->stcap ? g->stcap * 2 : 8;
        Stored *s = (Stored *)realloc(g->stored, (size_t)cap * sizeof(Stored));
        if (s == NULL) rt_stop(g, B_MEMORY);
        g->stored = s;
        g->stcap = cap;
    }
    int32_t act = l->act[k];
    Stored *s = &g->stored[g->nstored++];
    s->player = g->actor;
    s->act = act;
    int32_t np = act < 0 ? 0 : g->L->act_np[act];
    List *args = list_new(g, np);
    V *pv = lst_pairs(l, k);
    for (int32_t j = 0; j < np; j++) args->a[j] = rt_copy_root(g, pv[2 * j]);
    s->args = vlist(args);
}

/* At a decision boundary nothing but the state's own values is live: copy them into the other
 * arena and reset this one (a two-space copy of a handful of roots). rt_flip (runtime.h) calls it
 * once FLIP_AT is used. */
void rt_flip_now(G *g) {
    int32_t from = g->side;
    g->side ^= 1;
    arena_reset(&g->ar[g->side]);
    const Layout *L = g->L;
    for (int32_t k = 0; k < L->nvars; k++)
        if (g->v[k].t == T_LIST) g->v[k] = rt_copy_root(g, g->v[k]);
    for (int32_t k = 0; k < L->nfor; k++) {
        Flow *f = &g->ff[k];
        if (f->items.t == T_LIST) f->items = rt_copy_root(g, f->items);
        if (f->var.t == T_LIST) f->var = rt_copy_root(g, f->var);
    }
    for (int32_t k = 0; k < g->nstored; k++) g->stored[k].args = rt_copy_root(g, g->stored[k].args);
    for (int32_t p = 0; p < L->P; p++)
        if (g->scores[p].t == T_LIST) g->scores[p] = rt_copy_root(g, g->scores[p]);
    arena_reset(&g->ar[from]);
}

/* ------------------------------------------------------------------------------------------ */
/* RNGs (interpreter/rng.py and CPython's _randommodule.c, bit for bit)                       */
/* ------------------------------------------------------------------------------------------ */
uint64_t rng_seed_state(uint64_t seed) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return z ? z : 0x2545F4914F6CDD1DULL;
}

static const uint64_t KECCAK_RC[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};
#define ROL64(x, n) (((x) << (n)) | ((x) >> (64 - (n))))

static void keccak_f(uint64_t st[25]) {     /* Keccak-f[1600]: two rounds a loop, lanes in locals */
    uint64_t a0 = st[0]; uint64_t a1 = st[1]; uint64_t a2 = st[2]; uint64_t a3 = st[3]; uint64_t a4 = st[4]; uint64_t a5 = st[5]; uint64_t a6 = st[6]; uint64_t a7 = st[7]; uint64_t a8 = st[8]; uint64_t a9 = st[9]; uint64_t a10 = st[10]; uint64_t a11 = st[11]; uint64_t a12 = st[12]; uint64_t a13 = st[13]; uint64_t a14 = st[14]; uint64_t a15 = st[15]; uint64_t a16 = st[16]; uint64_t a17 = st[17]; uint64_t a18 = st[18]; uint64_t a19 = st[19]; uint64_t a20 = st[20]; uint64_t a21 = st[21]; uint64_t a22 = st[22]; uint64_t a23 = st[23]; uint64_t a24 = st[24];
    uint64_t e0; uint64_t e1; uint64_t e2; uint64_t e3; uint64_t e4; uint64_t e5; uint64_t e6; uint64_t e7; uint64_t e8; uint64_t e9; uint64_t e10; uint64_t e11; uint64_t e12; uint64_t e13; uint64_t e14; uint64_t e15; uint64_t e16; uint64_t e17; uint64_t e18; uint64_t e19; uint64_t e20; uint64_t e21; uint64_t e22; uint64_t e23; uint64_t e24;
    uint64_t b0, b1, b2, b3, b4, c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
    for (int round = 0; round < 24; round += 2) {
        c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20;
        c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21;
        c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22;
        c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23;
        c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24;
        d0 = c4 ^ ROL64(c1, 1);
        d1 = c0 ^ ROL64(c2, 1);
        d2 = c1 ^ ROL64(c3, 1);
        d3 = c2 ^ ROL64(c4, 1);
        d4 = c3 ^ ROL64(c0, 1);
        b0 = (a0 ^ d0);
        b1 = ROL64((a6 ^ d1), 44);
        b2 = ROL64((a12 ^ d2), 43);
        b3 = ROL64((a18 ^ d3), 21);
        b4 = ROL64((a24 ^ d4), 14);
        e0 = b0 ^ ((~b1) & b2);
        e1 = b1 ^ ((~b2) & b3);
        e2 = b2 ^ ((~b3) & b4);
        e3 = b3 ^ ((~b4) & b0);
        e4 = b4 ^ ((~b0) & b1);
        b0 = ROL64((a3 ^ d3), 28);
        b1 = ROL64((a9 ^ d4), 20);
        b2 = ROL64((a10 ^ d0), 3);
        b3 = ROL64((a16 ^ d1), 45);
        b4 = ROL64((a22 ^ d2), 61);
        e5 = b0 ^ ((~b1) & b2);
        e6 = b1 ^ ((~b2) & b3);
        e7 = b2 ^ ((~b3) & b4);
        e8 = b3 ^ ((~b4) & b0);
        e9 = b4 ^ ((~b0) & b1);
        b0 = ROL64((a1 ^ d1), 1);
        b1 = ROL64((a7 ^ d2), 6);
        b2 = ROL64((a13 ^ d3), 25);
        b3 = ROL64((a19 ^ d4), 8);
        b4 = ROL64((a20 ^ d0), 18);
        e10 = b0 ^ ((~b1) & b2);
        e11 = b1 ^ ((~b2) & b3);
        e12 = b2 ^ ((~b3) & b4);
        e13 = b3 ^ ((~b4) & b0);
        e14 = b4 ^ ((~b0) & b1);
        b0 = ROL64((a4 ^ d4), 27);
        b1 = ROL64((a5 ^ d0), 36);
        b2 = ROL64((a11 ^ d1), 10);
        b3 = ROL64((a17 ^ d2), 15);
        b4 = ROL64((a23 ^ d3), 56);
        e15 = b0 ^ ((~b1) & b2);
        e16 = b1 ^ ((~b2) & b3);
        e17 = b2 ^ ((~b3) & b4);
        e18 = b3 ^ ((~b4) & b0);
        e19 = b4 ^ ((~b0) & b1);
        b0 = ROL64((a2 ^ d2), 62);
        b1 = ROL64((a8 ^ d3), 55);
        b2 = ROL64((a14 ^ d4), 39);
        b3 = ROL64((a15 ^ d0), 41);
        b4 = ROL64((a21 ^ d1), 2);
        e20 = b0 ^ ((~b1) & b2);
        e21 = b1 ^ ((~b2) & b3);
        e22 = b2 ^ ((~b3) & b4);
        e23 = b3 ^ ((~b4) & b0);
        e24 = b4 ^ ((~b0) & b1);
        e0 ^= KECCAK_RC[round];
        c0 = e0 ^ e5 ^ e10 ^ e15 ^ e20;
        c1 = e1 ^ e6 ^ e11 ^ e16 ^ e21;
        c2 = e2 ^ e7 ^ e12 ^ e17 ^ e22;
        c3 = e3 ^ e8 ^ e13 ^ e18 ^ e23;
        c4 = e4 ^ e9 ^ e14 ^ e19 ^ e24;
        d0 = c4 ^ ROL64(c1, 1);
        d1 = c0 ^ ROL64(c2, 1);
        d2 = c1 ^ ROL64(c3, 1);
        d3 = c2 ^ ROL64(c4, 1);
        d4 = c3 ^ ROL64(c0, 1);
        b0 = (e0 ^ d0);
        b1 = ROL64((e6 ^ d1), 44);
        b2 = ROL64((e12 ^ d2), 43);
        b3 = ROL64((e18 ^ d3), 21);
        b4 = ROL64((e24 ^ d4), 14);
        a0 = b0 ^ ((~b1) & b2);
        a1 = b1 ^ ((~b2) & b3);
        a2 = b2 ^ ((~b3) & b4);
        a3 = b3 ^ ((~b4) & b0);
        a4 = b4 ^ ((~b0) & b1);
        b0 = ROL64((e3 ^ d3), 28);
        b1 = ROL64((e9 ^ d4), 20);
        b2 = ROL64((e10 ^ d0), 3);
        b3 = ROL64((e16 ^ d1), 45);
        b4 = ROL64((e22 ^ d2), 61);
        a5 = b0 ^ ((~b1) & b2);
        a6 = b1 ^ ((~b2) & b3);
        a7 = b2 ^ ((~b3) & b4);
        a8 = b3 ^ ((~b4) & b0);
        a9 = b4 ^ ((~b0) & b1);
        b0 = ROL64((e1 ^ d1), 1);
        b1 = ROL64((e7 ^ d2), 6);
        b2 = ROL64((e13 ^ d3), 25);
        b3 = ROL64((e19 ^ d4), 8);
        b4 = ROL64((e20 ^ d0), 18);
        a10 = b0 ^ ((~b1) & b2);
        a11 = b1 ^ ((~b2) & b3);
        a12 = b2 ^ ((~b3) & b4);
        a13 = b3 ^ ((~b4) & b0);
        a14 = b4 ^ ((~b0) & b1);
        b0 = ROL64((e4 ^ d4), 27);
        b1 = ROL64((e5 ^ d0), 36);
        b2 = ROL64((e11 ^ d1), 10);
        b3 = ROL64((e17 ^ d2), 15);
        b4 = ROL64((e23 ^ d3), 56);
        a15 = b0 ^ ((~b1) & b2);
        a16 = b1 ^ ((~b2) & b3);
        a17 = b2 ^ ((~b3) & b4);
        a18 = b3 ^ ((~b4) & b0);
        a19 = b4 ^ ((~b0) & b1);
        b0 = ROL64((e2 ^ d2), 62);
        b1 = ROL64((e8 ^ d3), 55);
        b2 = ROL64((e14 ^ d4), 39);
        b3 = ROL64((e15 ^ d0), 41);
        b4 = ROL64((e21 ^ d1), 2);
        a20 = b0 ^ ((~b1) & b2);
        a21 = b1 ^ ((~b2) & b3);
        a22 = b2 ^ ((~b3) & b4);
        a23 = b3 ^ ((~b4) & b0);
        a24 = b4 ^ ((~b0) & b1);
        a0 ^= KECCAK_RC[round + 1];
    }
    st[0] = a0; st[1] = a1; st[2] = a2; st[3] = a3; st[4] = a4; st[5] = a5; st[6] = a6; st[7] = a7; st[8] = a8; st[9] = a9; st[10] = a10; st[11] = a11; st[12] = a12; st[13] = a13; st[14] = a14; st[15] = a15; st[16] = a16; st[17] = a17; st[18] = a18; st[19] = a19; st[20] = a20; st[21] = a21; st[22] = a22; st[23] = a23; st[24] = a24;
}

typedef struct { uint64_t st[25]; uint8_t buf[168]; int pos; } Shake;

static void shake128_u64(Shake *s, uint64_t key) {    /* absorb 8 little-endian bytes, pad */
    memset(s->st, 0, sizeof(s->st));
    s->st[0] ^= key;                  /* lanes are little-endian */
    s->st[1] ^= 0x1FULL;              /* SHAKE's domain bits right after the 8 bytes */
    s->st[20] ^= 0x8000000000000000ULL;   /* the last bit of the 168-byte rate */
    keccak_f(s->st);
    for (int k = 0; k < 21; k++)
        for (int b = 0; b < 8; b++) s->buf[8 * k + b] = (uint8_t)(s->st[k] >> (8 * b));
    s->pos = 0;
}

static inline uint8_t shake_byte(Shake *s) {
    if (s->pos == 168) {
        keccak_f(s->st);
        for (int k = 0; k < 21; k++)
            for (int b = 0; b < 8; b++) s->buf[8 * k + b] = (uint8_t)(s->st[k] >> (8 * b));
        s->pos = 0;
    }
    return s->buf[s->pos++];
}

static inline uint32_t shake_u32(Shake *s) {
    if (s->pos + 4 <= 168) {
        const uint8_t *p = s->buf + s->pos;
        s->pos += 4;
        return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    }
    uint32_t r = 0;
    for (int b = 0; b < 4; b++) r |= (uint32_t)shake_byte(s) << (8 * b);
    return r;
}

uint64_t rng_shuffle_shake(uint64_t state, int32_t *items, int64_t n) {
    if (n < 2) return state;
    Shake s;
    shake128_u64(&s, state);
    uint64_t next = 0;
    for (int b = 0; b < 8; b++) next |= (uint64_t)shake_byte(&s) << (8 * b);
    for (int64_t i = n - 1; i > 0; i--) {
        uint64_t m = (uint64_t)i + 1;
        uint64_t limit = ((uint64_t)1 << 32) - ((uint64_t)1 << 32) % m;
        uint64_t r = shake_u32(&s);
        while (r >= limit) r = shake_u32(&s);
        int64_t j = (int64_t)(r % m);
        int32_t t = items[i]; items[i] = items[j]; items[j] = t;
    }
    return next ? next : 1;
}

uint64_t rng_shuffle_xorshift(uint64_t x, int32_t *items, int64_t n) {
    const uint64_t C = 0x2545F4914F6CDD1DULL;
    for (int64_t i = n - 1; i > 0; i--) {
        uint64_t m = (uint64_t)i + 1, r;
        uint64_t lim = UINT64_MAX - ((0 - m) % m);     /* M - (M + 1) % m */
        for (;;) {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            r = x * C;
            if (r <= lim) break;
        }
        int64_t j = (int64_t)(r % m);
        int32_t t = items[i]; items[i] = items[j]; items[j] = t;
    }
    return x;
}

/* the fast generator (rng.py FAST, docs/native.md "Fast generator"): splitmix64 streams, Lemire's
 * bounded draw; guessable, for simulations only */
#define FAST_GOLDEN 0x9E3779B97F4A7C15ULL
static inline uint64_t fast_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* rng.FastRandom.randrange(m), m >= 1: the high word of draw * m, redrawn while its low word is below
 * 2**64 mod m (exactly unbiased); *s advances by FAST_GOLDEN per draw */
static inline uint64_t fast_below(uint64_t *s, uint64_t m) {
    uint64_t x = *s + FAST_GOLDEN;
    __uint128_t p = (__uint128_t)fast_mix(x) * m;
    if (GS_UNLIKELY((uint64_t)p < m)) {
        uint64_t t = (0 - m) % m;
        while ((uint64_t)p < t) {
            x += FAST_GOLDEN;
            p = (__uint128_t)fast_mix(x) * m;
        }
    }
    *s = x;
    return (uint64_t)(p >> 64);
}

uint64_t rng_shuffle_fast(uint64_t state, int32_t *items, int64_t n) {     /* rng.shuffle_fast */
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)fast_below(&state, (uint64_t)i + 1);
        int32_t t = items[i]; items[i] = items[j]; items[j] = t;
    }
    return state;
}

/* rng.stream(seed, lane): lane 0 a playout's decisions, lane p + 1 seat p's RandomBot */
uint64_t fast_stream(uint64_t seed, uint64_t lane) {
    return rng_seed_state(rng_seed_state(seed) ^ ((lane + 1) * 0xD1B54A32D192ED03ULL));
}

/* MT19937 as CPython's random module */

static const uint32_t MT_BASE[624] = {   /* init_genrand(19650218): init_by_array's start */
    0x012bd6aaU, 0x82d2ab13U, 0x342096b7U, 0x54846536U, 0x2ae75db7U, 0x826fe838U, 0x2b03a8e8U, 0x6c2dcb8fU,
    0xa8e24d0eU, 0xe7d7d1c5U, 0x3bd2b928U, 0x4f5174d3U, 0xac6578e6U, 0xcff6b601U, 0xe5cae0d8U, 0xc55ce976U,
    0x54cab839U, 0x9a18a629U, 0xabd39209U, 0xa5ed816aU, 0xfaccb61cU, 0x8f137150U, 0x8b8e9770U, 0x9a6bc211U,
    0xe9e4bc97U, 0x48359a7dU, 0xb6364f06U, 0xccd250afU, 0x20d9dff8U, 0x4e9914f5U, 0x7147d862U, 0xd2da5a2eU,
    0x7da2a8e1U, 0xbbac8081U, 0x2369ced1U, 0x6c237198U, 0x48f5b281U, 0x26f5eca5U, 0x0f2daa3fU, 0xa8d8e202U,
    0xdc832a28U, 0x7c7da620U, 0xd261342fU, 0x02792187U, 0xab6c796fU, 0xfcc23d2eU, 0x539a37efU, 0x73486f15U,
    0xb8918714U, 0xac4f11dfU, 0x04cc5163U, 0x39df1742U, 0xb3447f3eU, 0x2cc14ee1U, 0x2fa187fbU, 0xd85cf93eU,
    0xaabafa49U, 0xe7c3e2d0U, 0x7c706879U, 0xbb896f93U, 0xc2e49d71U, 0xa2922037U, 0x94561227U, 0xb0adf5d8U,
    0x7e29a942U, 0xf6d9a2b0U, 0xd2d3fbe1U, 0xda9c526dU, 0x90cb63aaU, 0x922b398dU, 0xb3c43cb1U, 0x1dccbde6U,
    0x8cb10206U, 0xfa05efddU, 0x08c770e0U, 0xc83768abU, 0x61763294U, 0xf2c6b216U, 0xd8447f97U, 0xe85889b3U,
    0x106d82c0U, 0xa96d5611U, 0xb9b820d1U, 0xb8fade92U, 0x1204df24U, 0x01524d89U, 0x7bb5e863U, 0xdacf2101U,
    0xeb701822U, 0x750a2e5eU, 0xf86e22d5U, 0x2ff244c9U, 0x3ee3b4a9U, 0xe823b80aU, 0x87d36cebU, 0x0211a94cU,
    0xf5a5775cU, 0xcec2efdcU, 0x885ffa5dU, 0x17739edeU, 0x20b47bfaU, 0x5963b407U, 0x13d73cc4U, 0x5ccbddbbU,
    0x3e2d04caU, 0xf8d8fe1bU, 0x603f17e2U, 0x27e1e7faU, 0x711b500eU, 0xc2079d58U, 0x51b3c855U, 0x5c6efd93U,
    0x647b2d0aU, 0x6f00a8c8U, 0x8f1528bfU, 0x9f513804U, 0x623050d2U, 0xd215ceb4U, 0x693b7da9U, 0xaa4f7bbfU,
    0xd8bef709U, 0xaed1d16bU, 0x47b7cfe7U, 0x61111c39U, 0xd9621a94U, 0xb2104d10U, 0xad2b0a98U, 0x9cdd9941U,
    0xef4752efU, 0x66f8039dU, 0x430be90eU, 0x86d4fa6eU, 0x94fe9920U, 0x90539cefU, 0xf672bf07U, 0x8c9a811bU,
    0x3bba5065U, 0x144ac562U, 0xc2cf5234U, 0x424bdf3eU, 0x7120cb67U, 0xc693d5cbU, 0xae336076U, 0xcc0f2253U,
    0x4b855a20U, 0x8bbf3896U, 0x73c486f6U, 0xbd846f06U, 0x5dc4f128U, 0x47e116c2U, 0xb4515685U, 0xfd1662daU,
    0x14aa2135U, 0x77577782U, 0x6d0c4249U, 0xc546af03U, 0x718a0b9cU, 0x38f89a8eU, 0xa6acf8a4U, 0x27d8f01dU,
    0x9de14111U, 0xa136d820U, 0x353b780cU, 0x2c08c95fU, 0xa8d44a1fU, 0x7a35c316U, 0x063e47b9U, 0xcd034da4U,
    0x3a6d028bU, 0x192b6480U, 0xe667272aU, 0x78c664d8U, 0x202ceb49U, 0xf6a1e57aU, 0x43fc4a6bU, 0x97421681U,
    0xecb3fd5fU, 0x731d31fdU, 0xb828951eU, 0x4392d0bfU, 0x17d409aaU, 0xdb79cac7U, 0xffebe40aU, 0x3d58c944U,
    0xe898cc8cU, 0x75aa3c24U, 0xc75c8853U, 0xa6a4984bU, 0xca6e2689U, 0x15db0f2fU, 0x18d62549U, 0x376fc78cU,
    0x35b7a6fcU, 0x5ab5be2dU, 0xcfad941eU, 0x1c89f534U, 0xbb129248U, 0xf6a351f7U, 0xe2f6ea0aU, 0xe0e82754U,
    0xc006151bU, 0xb7582b41U, 0xf7c4ed39U, 0x183ba2adU, 0xe850c40dU, 0x252ad853U, 0x85f0c48dU, 0x6517143aU,
    0xad8b8f17U, 0xed34b11aU, 0x2c3f40afU, 0xe75b2cdeU, 0x8805f905U, 0x9fd0ff98U, 0xdb744298U, 0x02c03afeU,
    0xba5b350eU, 0xd8b35a95U, 0x3c570408U, 0xdbb4e003U, 0x9a3c60dcU, 0x77bb0673U, 0x985a8dd8U, 0x6a99a1e1U,
    0x335dbe40U, 0xa28c5021U, 0x2d3359b1U, 0x70191cb8U, 0x7f5656e1U, 0x51ae2745U, 0x2f94e2baU, 0x1e28fe49U,
    0x964064b5U, 0xb24eac1cU, 0xcff7f6c0U, 0xc337b6daU, 0x61c44589U, 0xe25d3795U, 0xfea0351cU, 0xb97b8d2aU,
    0x086119b8U, 0x991a9e89U, 0xa025f0c9U, 0xb661a40aU, 0x1186001cU, 0x70b10801U, 0x6b2028f6U, 0xcc5d596aU,
    0x538c7865U, 0x9d95046dU, 0xde3327c5U, 0xa8e1a819U, 0x60bac6a3U, 0xe46b10e7U, 0x1083aef2U, 0xdd318879U,
    0xf9ea2322U, 0xc8138606U, 0x288f8dfbU, 0x997b580aU, 0x57fe042cU, 0xc0aebbc6U, 0xc5cf82bfU, 0xfaf93133U,
    0xf7f318f8U, 0x7e242f10U, 0x96edabbfU, 0x2ad7e79cU, 0x9764dd98U, 0xbc98d8cfU, 0x9dee3eefU, 0x8326a990U,
    0xa9fe09aaU, 0x27fcb859U, 0x9bcb5d2fU, 0xd453d8d4U, 0x46009ce7U, 0x447efdd3U, 0x84ad86f0U, 0xfe4bc091U,
    0xb9ef1cb2U, 0x5a808289U, 0x6c4648c2U, 0x9600110aU, 0x0e5c0144U, 0x9fd5e4f1U, 0x4d8e5ffdU, 0xba6dbb8bU,
    0x33664f2dU, 0x2df752e2U, 0x1a1ca64cU, 0x3e60491fU, 0x36f7715fU, 0x48e492a0U, 0x030d03abU, 0x68c5f69eU,
    0x196e64e3U, 0xa2c049b8U, 0x9967a18cU, 0x4e39bc31U, 0x27ccf01cU, 0xc11db839U, 0x99e6ba10U, 0xe0190c49U,
    0x5f7b7462U, 0xafb2e740U, 0x3a25903cU, 0x4ca604dfU, 0xe02cbacaU, 0x491a4382U, 0x0212bee5U, 0xadd0de90U,
    0x0881f2d2U, 0x21f53013U, 0xf0fb23b9U, 0xeb49a39dU, 0x5def1c92U, 0xd1a5f23cU, 0xb8d54b19U, 0x831515e6U,
    0xc944a834U, 0xf39ccdf4U, 0xdcd772b5U, 0x585da911U, 0x5bdd4494U, 0x6412cd0eU, 0x7a90ef31U, 0xb57f0f37U,
    0x60b75e31U, 0x1d0fda39U, 0xf6989ac7U, 0xe063f49fU, 0x859afed8U, 0x987f374fU, 0x3de407afU, 0x7cdcb05aU,
    0x93ef4837U, 0xc07edb3aU, 0xdfecffcfU, 0x3bf918cfU, 0xf93691ffU, 0xd48b75c1U, 0x8d5848e0U, 0x5903b481U,
    0x098eb7d8U, 0x4c992191U, 0xd6504f2aU, 0xfe2b2d88U, 0x45355c33U, 0x79c22317U, 0x2bf89f0cU, 0xcf882d1bU,
    0x1c83a3d8U, 0x4d863d99U, 0x3c14a65aU, 0x45a1cce5U, 0xd9b7db58U, 0xad6a3f4cU, 0xe9edb92cU, 0x672d37f2U,
    0xf36d1f47U, 0xfaa4bb3dU, 0x51e40ee0U, 0xaf174930U, 0xa2b9a426U, 0x391107a1U, 0xc2342cf3U, 0x05322c1fU,
    0x2f4100abU, 0x96adc7e8U, 0xa1f21ac4U, 0xb8428791U, 0x05d22973U, 0x6a3de6d4U, 0x36c7107fU, 0x2bd67a92U,
    0x05347f12U, 0x3734c593U, 0x70929f79U, 0xdd7823d3U, 0x6640728cU, 0x7295a81eU, 0xf8dcecb9U, 0x5aeef0e1U,
    0xd54ce9e0U, 0x79b7c310U, 0xde5b1037U, 0xd7053a07U, 0xe7380918U, 0xd9b80c2cU, 0x8d6af711U, 0xcef1a706U,
    0xa4db9381U, 0xd9274f38U, 0xc485d6d1U, 0xa0822465U, 0x6ba47d2fU, 0x532502b3U, 0xc6e953c8U, 0x4672b3a6U,
    0x8af64173U, 0x12444c26U, 0xdebc6290U, 0x67189092U, 0xca14b693U, 0x8dcf1865U, 0xe594c139U, 0xefae4779U,
    0x40587ebaU, 0x19d91460U, 0x6d2c6b7aU, 0xac683c22U, 0xf22cda3cU, 0x1836d378U, 0x4d14a7f6U, 0x42ca7512U,
    0xea0c5d1fU, 0x5078b9adU, 0xfeb24e7eU, 0xc9c4ddf4U, 0x3b35c317U, 0x2b3e48b8U, 0x01852a3eU, 0x2cd6da1dU,
    0xde489419U, 0x8e9a59ebU, 0x9e622b97U, 0x1320f074U, 0xafd8f370U, 0x3afe0fa7U, 0x1e2d8d91U, 0x53b274e4U,
    0x5439ad09U, 0x33928dd9U, 0x33aa194fU, 0x6ed044deU, 0x231f84afU, 0x2e3a01c0U, 0x54127276U, 0x5fc9d9aaU,
    0xe7cc652fU, 0x29fc7815U, 0xd1719f03U, 0xc8eabcbbU, 0xaca2ee54U, 0x1a2e0fabU, 0x8c3bb335U, 0x60f72572U,
    0x0eb1531fU, 0x0b4a63fcU, 0x4fbf502eU, 0xddaccb4eU, 0xf9136c25U, 0xa69402c3U, 0x6d2560ebU, 0x6f027819U,
    0x86e63b40U, 0xe559b4d3U, 0x2fd7a7daU, 0xd7dee4cdU, 0x9d048512U, 0xc16e111dU, 0x5767d0a4U, 0x5b209fe8U,
    0x14d1c9bdU, 0xbbe5be62U, 0xc9257db2U, 0x87e551a8U, 0x49d333e6U, 0x066b1af8U, 0x36785daeU, 0xdf61157dU,
    0xd43fea8eU, 0xd798007aU, 0x7687f297U, 0x6e8efd09U, 0x6f0b1e04U, 0xb09686d6U, 0x5956a782U, 0x776a338eU,
    0xaf66e04bU, 0x2f9c8faeU, 0xe76acf88U, 0xc70246baU, 0xb6cde9e1U, 0x7a9cc374U, 0xf8a5bc0fU, 0xff599ea3U,
    0x8a9f3708U, 0x9e8b12dbU, 0x09e39287U, 0xa5e4102eU, 0x80d5ef48U, 0x147c041fU, 0xa3fb3929U, 0xd7e292e6U,
    0x0d438349U, 0xbfe3debeU, 0x0e3d7e1eU, 0xa192d1c9U, 0xb1bf6a0bU, 0x4282a882U, 0x094f98a5U, 0x0d9a8810U,
    0x89384048U, 0x379ef92bU, 0xf93d52f1U, 0x83333d75U, 0x115cf0efU, 0x0123f748U, 0xd57e1966U, 0x041a13d8U,
    0x3dd06e38U, 0x91bf7619U, 0x957b0da9U, 0x5789e97aU, 0x9db8f28bU, 0xa1820312U, 0x215ec756U, 0x9e6bacf5U,
    0x0ecc6e7bU, 0x27246b90U, 0x9fde81daU, 0xd32dd443U, 0xa56aff4cU, 0x68f979d3U, 0xd95c73e8U, 0x8aef80c6U,
    0x31c2b364U, 0xeb8d4c85U, 0x2c5ce8f0U, 0xd7e058c3U, 0xa841c5d4U, 0x45ac9583U, 0xc7a79060U, 0x2815f426U,
    0x455bab16U, 0xcd5ad12cU, 0x2b0fb0a5U, 0xd33c0034U, 0xa84a86cfU, 0x7325e5feU, 0x940236b9U, 0xf746ace6U,
    0xb7abc579U, 0xadd0bea8U, 0x380a3534U, 0xf6ebd3a7U, 0x98c945d8U, 0xdec03b27U, 0x8f799b5aU, 0x0e8463dfU,
    0x62c6c023U, 0xee2a0193U, 0x3c58affaU, 0x8d0039cdU, 0xa8af97d7U, 0x885ae636U, 0xac7aa8b2U, 0x8d7abf9fU,
    0xfb43a021U, 0x0b4e619bU, 0x77657759U, 0xcb4e2febU, 0x3cd410bcU, 0x41c33861U, 0x75d0a016U, 0x359c7a4aU,
    0x7433db6aU, 0xbcced670U, 0x237b9f34U, 0x7264a5bfU, 0xae9a1432U, 0x24e7a92dU, 0x2529d5ffU, 0x7affe6daU,
    0x2d7e49a7U, 0xffce7024U, 0xeb8820a5U, 0xb2b7b9c1U, 0x2d3aa733U, 0x52034464U, 0x95a70b1fU, 0xf9a4e9b8U,
    0x07424c0fU, 0xc0450b34U, 0x50beddfdU, 0x61fd72b7U, 0x365baa1aU, 0x1ee8088fU, 0xee08e9b9U, 0x8aaec2b1U,
    0x14099defU, 0x32d9389cU, 0xab42d3deU, 0xefc2541fU, 0xb3722d60U, 0x7c035bffU, 0x65803b8cU, 0xc850f5f8U,
    0xf971615fU, 0x9059a7a5U, 0xf7a8863dU, 0xb90626d1U, 0x5df93e9bU, 0x240c1f1fU, 0xa348e099U, 0xf4309286U,
    0x7335fdd9U, 0x6a0dc099U, 0x97a6565aU, 0x553d2b1bU, 0x82e8eda6U, 0xfc8e8819U, 0x9bc79ea8U, 0x58509579U,
    0xae1032c0U, 0x92dbdaf3U, 0x417f5c7fU, 0xaf30ee21U, 0x94b3b13bU, 0xb94b6eeaU, 0x6174ebf6U, 0xad2949e2U,
};

void mt_init_by_array(MT *m, const uint32_t *key, int keylen) {    /* CPython's init_by_array */
    uint32_t *mt = m->mt;
    memcpy(mt, MT_BASE, sizeof(MT_BASE));
    uint32_t prev = mt[0];
    int i = 1, j = 0;
    if (keylen <= 624) {     /* its loops with the wraps where they fall (a key is never longer here) */
        for (i = 1; i < 624; i++) {
            prev = mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
            if (++j >= keylen) j = 0;
        }
        mt[0] = prev = mt[623];
        prev = mt[1] = (mt[1] ^ ((prev ^ (prev >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        for (i = 2; i < 624; i++)
            prev = mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - (uint32_t)i;
        mt[0] = prev = mt[623];
        mt[1] = (mt[1] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - 1U;
        mt[0] = 0x80000000U;
        m->mti = 624;
        return;
    }
    int k = keylen;
    for (; k; k--) {
        uint32_t x = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        mt[i] = x;
        prev = x;
        i++; j++;
        if (j >= keylen) j = 0;
        if (i >= 624) { mt[0] = mt[623]; prev = mt[0]; i = 1; }
    }
    for (k = 623; k; k--) {
        uint32_t x = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - (uint32_t)i;
        mt[i] = x;
        prev = x;
        i++;
        if (i >= 624) { mt[0] = mt[623]; prev = mt[0]; i = 1; }
    }
    mt[0] = 0x80000000U;
    m->mti = 624;
}

void mt_seed_u64(MT *m, uint64_t seed) {    /* random.Random(int): the 32-bit words of |seed| */
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    mt_init_by_array(m, key, key[1] ? 2 : 1);
}

uint32_t mt_next(MT *m) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (m->mti >= 624) {
        int kk;
        for (kk = 0; kk < 624 - 397; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + 397] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < 623; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (m->mt[623] & 0x80000000U) | (m->mt[0] & 0x7fffffffU);
        m->mt[623] = m->mt[396] ^ (y >> 1) ^ mag01[y & 0x1U];
        m->mti = 0;
    }
    y = m->mt[m->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

uint64_t mt_getrandbits(MT *m, int k) {     /* k in 1..64 */
    if (k <= 32) return (uint64_t)(mt_next(m) >> (32 - k));
    uint64_t lo = mt_next(m);
    uint64_t hi = mt_next(m);
    if (k < 64) hi >>= (64 - k);
    return lo | (hi << 32);
}

int64_t mt_randbelow(MT *m, int64_t n) {    /* _randbelow_with_getrandbits, n >= 1 */
    int k = 64 - __builtin_clzll((uint64_t)n);
    uint64_t r = mt_getrandbits(m, k);
    while (r >= (uint64_t)n) r = mt_getrandbits(m, k);
    return (int64_t)r;
}

/* ------------------------------------------------------------------------------------------ */
/* ranking keys, subsets, listing copies                                                      */
/* ------------------------------------------------------------------------------------------ */
int keys_eq(const V *a, const V *b, int n) {
    for (int k = 0; k < n; k++)
        if (!py_eq(a[k], b[k])) return 0;
    return 1;
}

int keys_lt(G *g, const V *a, const V *b, int n) {      /* tuple a < tuple b */
    for (int k = 0; k < n; k++)
        if (!py_eq(a[k], b[k])) return py_lt(g, a[k], b[k]);
    return 0;
}

V rt_copy_to_listing(G *g, Listing *l, V v) {
    if (v.t != T_LIST) return v;
    List *x = LST(v);
    V out = lst_list(g, l, x->n);
    for (int32_t k = 0; k < x->n; k++) LST(out)->a[k] = rt_copy_to_listing(g, l, x->a[k]);
    return out;
}

static int cmp_i64s(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* ParamRT.candidates for a subset: every combination of positions, sizes lo..hi, in
 * itertools.combinations order, identical-looking ones (the same multiset of what the chooser sees)
 * once; a list of [positions, cards] pairs. */
List *rt_subsets(G *g, V cards, int from_zone, int64_t lo, int64_t hi) {
    (void)from_zone;
    const Layout *L = g->L;
    List *cs = need_list(g, cards);
    int32_t n = cs->n;
    int64_t *key = (int64_t *)aalloc(g, (size_t)(n + 1) * sizeof(int64_t));
    uint64_t bit = (uint64_t)1 << g->actor;
    for (int32_t i = 0; i < n; i++) {
        if (cs->a[i].t == T_NONE) BAIL(B_CARD);
        int64_t c = card_of(g, cs->a[i]);
        uint64_t vis = (g->nface && g->face[c]) ? (g->face[c] == 1 ? L->ALL : 0) : L->zvis[g->loc[c]];
        key[i] = ((vis | g->kn[c]) & bit) ? L->face_of[c] : -(int64_t)i - 1;
    }
    if (lo < 0) lo = 0;
    if (hi > n) hi = n;
    int64_t cap = 64, made = 0;
    List *out = list_new(g, cap);
    out->n = 0;
    /* the signatures seen: a hash of sorted key arrays */
    int64_t hcap = 1024;
    int64_t **sigs = (int64_t **)aalloc(g, (size_t)hcap * sizeof(int64_t *));
    int32_t *slen = (int32_t *)aalloc(g, (size_t)hcap * sizeof(int32_t));
    memset(sigs, 0, (size_t)hcap * sizeof(int64_t *));
    int64_t walked = 0;
    int32_t *idx = (int32_t *)aalloc(g, (size_t)(n + 1) * sizeof(int32_t));
    int64_t *sig = (int64_t *)aalloc(g, (size_t)(n + 1) * sizeof(int64_t));
    for (int64_t size = lo; size <= hi; size++) {
        for (int32_t i = 0; i < size; i++) idx[i] = i;
        for (;;) {
            if (++walked > MAX_COMBOS_WALKED) BAIL(B_LIMIT);
            for (int32_t i = 0; i < size; i++) sig[i] = key[idx[i]];
            qsort(sig, (size_t)size, sizeof(int64_t), cmp_i64s);
            uint64_t h = 1469598103934665603ULL + (uint64_t)size;
            for (int32_t i = 0; i < size; i++) h = (h ^ (uint64_t)sig[i]) * 1099511628211ULL;
            int64_t p = (int64_t)(h & (uint64_t)(hcap - 1));
            int dup = 0;
            while (sigs[p] != NULL) {
                if (slen[p] == size && memcmp(sigs[p], sig, (size_t)size * sizeof(int64_t)) == 0) { dup = 1; break; }
                p = (p + 1) & (hcap - 1);
            }
            if (!dup) {
                made++;
                if (made > MAX_CHOICES) FAULT(F_CHOICES);
                int64_t *keep = (int64_t *)aalloc(g, (size_t)(size + 1) * sizeof(int64_t));
                memcpy(keep, sig, (size_t)size * sizeof(int64_t));
                sigs[p] = keep;
                slen[p] = (int32_t)size;
                if (made * 2 > hcap) {      /* grow the table */
                    int64_t ncap = hcap * 4;
                    int64_t **ns = (int64_t **)aalloc(g, (size_t)ncap * sizeof(int64_t *));
                    int32_t *nl = (int32_t *)aalloc(g, (size_t)ncap * sizeof(int32_t));
                    memset(ns, 0, (size_t)ncap * sizeof(int64_t *));
                    for (int64_t q = 0; q < hcap; q++) {
                        if (sigs[q] == NULL) continue;
                        uint64_t hh = 1469598103934665603ULL + (uint64_t)slen[q];
                        for (int32_t i = 0; i < slen[q]; i++) hh = (hh ^ (uint64_t)sigs[q][i]) * 1099511628211ULL;
                        int64_t r = (int64_t)(hh & (uint64_t)(ncap - 1));
                        while (ns[r] != NULL) r = (r + 1) & (ncap - 1);
                        ns[r] = sigs[q];
                        nl[r] = slen[q];
                    }
                    sigs = ns; slen = nl; hcap = ncap;
                }
                if (out->n >= cap) {
                    List *bigger = list_new(g, cap * 2);
                    memcpy(bigger->a, out->a, (size_t)out->n * sizeof(V));
                    bigger->n = out->n;
                    out = bigger;
                    cap *= 2;
                }
                List *pos = list_new(g, size), *cds = list_new(g, size);
                for (int32_t i = 0; i < size; i++) { pos->a[i] = vint(idx[i]); cds->a[i] = cs->a[idx[i]]; }
                List *pair = list_new(g, 2);
                pair->a[0] = vlist(pos);
                pair->a[1] = vlist(cds);
                out->a[out->n++] = vlist(pair);
            }
            /* the next combination */
            int32_t i = (int32_t)size - 1;
            while (i >= 0 && idx[i] == n - size + i) i--;
            if (i < 0) break;
            idx[i]++;
            for (int32_t j = i + 1; j < size; j++) idx[j] = idx[j - 1] + 1;
        }
    }
    return out;
}

/* ------------------------------------------------------------------------------------------ */
/* the exported entry points                                                                  */
/* ------------------------------------------------------------------------------------------ */
extern const Layout GS_LAYOUT;

typedef struct Ctx { G g; MT pick; MT seats[64]; } Ctx;

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    return p;
}

GS_EXPORT int gs_abi(void) { return GS_ABI; }
GS_EXPORT const char *gs_key(void) { return GS_LAYOUT.key; }

GS_EXPORT void *gs_new(void) {
    const Layout *L = &GS_LAYOUT;
    Ctx *c = (Ctx *)xcalloc(1, sizeof(Ctx));
    if (c == NULL) return NULL;
    G *g = &c->g;
    g->L = L;
    g->z = (Zone *)xcalloc((size_t)L->nzones, sizeof(Zone));
    g->loc = (int32_t *)xcalloc((size_t)L->ncards, sizeof(int32_t));
    g->kn = (uint64_t *)xcalloc((size_t)L->ncards, sizeof(uint64_t));
    g->face = (uint8_t *)xcalloc((size_t)L->ncards, 1);
    g->mk = (int64_t *)xcalloc((size_t)L->nmarks * (size_t)L->ncards + 1, sizeof(int64_t));
    g->v = (V *)xcalloc((size_t)L->nvars + 1, sizeof(V));
    g->ff = (Flow *)xcalloc((size_t)L->nfor + 1, sizeof(Flow));
    g->scores = (V *)xcalloc((size_t)L->P, sizeof(V));
    g->stamp = (int32_t *)xcalloc((size_t)L->nlevels * (size_t)L->nfaces + 1, sizeof(int32_t));
    g->stamp_gen = (int32_t *)xcalloc((size_t)L->nlevels + 1, sizeof(int32_t));
    g->cnt = (int32_t *)xcalloc((size_t)L->cnt_size + 1, sizeof(int32_t));
    g->cnt0 = (int32_t *)xcalloc((size_t)L->cnt_size + 1, sizeof(int32_t));
    g->init_a = (int32_t *)xcalloc((size_t)L->ncards + 1, sizeof(int32_t));
    g->init_off = (int32_t *)xcalloc((size_t)L->nzones + 1, sizeof(int32_t));
    g->loc0 = (int32_t *)xcalloc((size_t)L->ncards + 1, sizeof(int32_t));
    g->pw = (L->nzones + 63) / 64;
    g->track_poss = 1;
    g->poss = (uint64_t *)xcalloc((size_t)L->nzones * (size_t)g->pw + 1, sizeof(uint64_t));
    if (!g->poss) return NULL;
    if (!g->z || !g->loc || !g->kn || !g->face || !g->mk || !g->v || !g->ff || !g->scores || !g->stamp ||
        !g->stamp_gen || !g->cnt || !g->cnt0 || !g->init_a ||
        !g->init_off || !g->loc0) return NULL;
    return c;
}

GS_EXPORT void gs_free(void *ctx) {
    if (ctx == NULL) return;
    Ctx *c = (Ctx *)ctx;
    G *g = &c->g;
    for (int32_t k = 0; k < g->L->nzones; k++) free(g->z[k].a);
    free(g->z); free(g->loc); free(g->kn); free(g->face); free(g->mk); free(g->v); free(g->ff);
    free(g->scores); free(g->stamp); free(g->stamp_gen); free(g->stored); free(g->cnt); free(g->cnt0);
    free(g->init_a); free(g->init_off); free(g->loc0); free(g->poss);
    free(g->lst.act); free(g->lst.off); free(g->lst.vals); arena_free(&g->lst.ar);
    free(g->lst2.act); free(g->lst2.off); free(g->lst2.vals); arena_free(&g->lst2.ar);
    arena_free(&g->ar[0]); arena_free(&g->ar[1]);
    free(c);
}

static void g_clear(G *g) {      /* everything but the zones' contents and the variables */
    const Layout *L = g->L;
    memset(g->kn, 0, (size_t)L->ncards * sizeof(uint64_t));
    memset(g->face, 0, (size_t)L->ncards);
    g->nface = 0;
    for (int32_t m = 0; m < L->nmarks; m++)
        for (int32_t c = 0; c < L->ncards; c++) g->mk[(int64_t)m * L->ncards + c] = L->mark_init[m];
    for (int32_t k = 0; k < L->nfor; k++) memset(&g->ff[k], 0, sizeof(Flow));
    g->nstored = 0;
    g->pc = 0; g->pending = -1; g->actor = 0; g->cur = 0; g->phase = -1; g->terminal = 0;
    g->turns = 0; g->decisions = 0; g->budget = L->max_steps; g->spent = 0;
    for (int32_t p = 0; p < L->P; p++) g->scores[p] = vnone();
    g->winners = 0;
    g->has_listing = 0;
    g->lst.n = 0;
    arena_reset(&g->ar[0]);
    arena_reset(&g->ar[1]);
    g->side = 0;
    g->why = 0;
}

static void g_new_game_gen(G *g, uint64_t seed, int32_t gen) {     /* State.new(seed, generator=gen) */
    const Layout *L = g->L;
    g_clear(g);
    if (g->init_made) {     /* the same every game: copied from the first one's */
        for (int32_t k = 0; k < L->nzones; k++) {
            Zone *z = &g->z[k];
            int32_t n = g->init_off[k + 1] - g->init_off[k];
            if (n > z->cap) zgrow(g, z, n);
            if (n) memcpy(z->a, g->init_a + g->init_off[k], (size_t)n * sizeof(int32_t));
            z->n = n;
        }
        memcpy(g->loc, g->loc0, (size_t)L->ncards * sizeof(int32_t));
    } else {
        for (int32_t k = 0; k < L->nzones; k++) g->z[k].n = 0;
        for (int32_t c = 0; c < L->ncards; c++) {
            int32_t zi = L->init_zone[c];
            Zone *z = &g->z[zi];
            if (z->n >= z->cap) zgrow(g, z, z->n + 1);
            z->a[z->n++] = c;
            g->loc[c] = zi;
        }
        int32_t off = 0;
        for (int32_t k = 0; k < L->nzones; k++) {
            g->init_off[k] = off;
            memcpy(g->init_a + off, g->z[k].a, (size_t)g->z[k].n * sizeof(int32_t));
            off += g->z[k].n;
        }
        g->init_off[L->nzones] = off;
        memcpy(g->loc0, g->loc, (size_t)L->ncards * sizeof(int32_t));
        g->init_made = 1;
    }
    cnt_recount(g, 1);
    CNT_CHECK(g);
    if (g->track_poss) rt_poss_reset(g, 0);
    L->setup(g);
    g->rng = rng_seed_state(seed);
    g->gen = gen;
    L->run(g, 0);
}

static void g_new_game(G *g, uint64_t seed) { g_new_game_gen(g, seed, 0); }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the pending decision's listing, made if it is not (State._enumerate: a lone skip where the step
 * is optional and nothing else is listed) */
static void ensure_listing(G *g) {
    if (g->has_listing) return;
    g->L->enumerate(g, g->pending, &g->lst);
    if (g->lst.n == 0 && g->L->ch_optional[g->pending]) lst_entry(g, &g->lst, -1, 0);
    g->has_listing = 1;
}

/* A game's trace (gamespec/simulate.py GameTrace), kept online: the actions played, and after each
 * decision that does not end the game the score expression for every seat (a rule's step allowance
 * each, the game's own budget and steps given back; a fault counts 0), signed, and from it the sole
 * leader: lead changes so far, per seat the last entry it did not lead and the most it trailed.
 * Bounded: a few numbers per seat and per action, whatever the game's length. */
typedef struct {
    int32_t mode;            /* 1: actions only, 2: also the score's leaders */
    int32_t last;            /* the last sole leader, -1: none yet */
    int32_t units;           /* who leads: the seats, or the teams under scoring.per_team */
    const int32_t *unit_of;  /* per seat: its team (NULL: the seats lead) */
    int64_t sign;            /* -1 where the lowest score wins */
    int64_t n, changes;      /* score entries, lead changes */
    int64_t *counts;         /* per action (the skip last): times played */
    int64_t *first;          /* per action (the skip last): the decision it was first played at, -1 */
    int64_t last_not[64];    /* per seat (team): the last entry it did not solely lead, -1 */
    int64_t gap[64];         /* per seat (team): the most it trailed the best score */
} GameTrace;

static void trace_move(G *g, GameTrace *t, int32_t k) {
    if (k < 0 || k >= g->lst.n) rt_stop(g, B_STATE);
    int32_t a = g->lst.act[k];
    if (a < -1 || a >= g->L->nactions) rt_stop(g, B_STATE);
    int32_t i = a < 0 ? g->L->nactions : a;
    if (t->counts[i]++ == 0) t->first[i] = g->decisions;
}

/* one entry: the signed scores sc[0..units-1]; `lead` >= 0 names the leader (a sole winner at the end) */
static void trace_note(G *g, GameTrace *t, const int64_t *sc, int32_t lead) {
    int32_t P = t->units;
    int64_t best = sc[0];
    for (int32_t p = 1; p < P; p++) if (sc[p] > best) best = sc[p];
    if (lead < 0) {
        int32_t at = 0;
        for (int32_t p = 0; p < P; p++) if (sc[p] == best) { at++; lead = p; }
        if (at != 1) lead = -1;
    }
    for (int32_t p = 0; p < P; p++) {
        int64_t d;
        if (__builtin_sub_overflow(best, sc[p], &d)) rt_stop(g, B_OVERFLOW);
        if (d > t->gap[p]) t->gap[p] = d;
        if (p != lead) t->last_not[p] = t->n;
    }
    if (lead >= 0) {
        if (t->last >= 0 && lead != t->last) t->changes++;
        t->last = lead;
    }
    t->n++;
}

/* the score expression for seat p on the state as it is, with a rule's step allowance and a stop of
 * its own: 0 and *out, or the fault or bail that stopped it */
static int trace_score(G *g, int64_t p, V *out) {
    jmp_buf jb;
    jmp_buf *outer = g->jb;
    Mark m = amark(g);
    g->budget = g->L->max_steps;
    g->jb = &jb;
    if (setjmp(jb) != 0) {
        g->jb = outer;
        arelease(g, m);
        return g->why;
    }
    V v = g->L->score(g, p);
    g->jb = outer;
    arelease(g, m);
    *out = v;
    return 0;
}

static void trace_after(G *g, GameTrace *t) {
    int32_t P = t->units;           /* the score expression of each seat, or of each team (its `t`) */
    int64_t sc[64];
    int64_t budget = g->budget, spent = g->spent;
    for (int32_t p = 0; p < P && p < 64; p++) {
        V v;
        int why = trace_score(g, p, &v);
        g->budget = budget;
        g->spent = spent;
        if (why >= 64) rt_stop(g, why);              /* Python would go on: it traces this game */
        if (why != 0) { sc[p] = 0; continue; }       /* GamespecError: counts 0 */
        if (!isnum(v)) rt_stop(g, B_TYPE);            /* not a plain number: Python's arithmetic */
        if (__builtin_mul_overflow(t->sign, v.i, &sc[p])) rt_stop(g, B_OVERFLOW);
    }
    trace_note(g, t, sc, -1);
}

/* random decisions to the end: one generator, or one per seat (`seats`); `fast` non-NULL: the fast
 * generator's streams instead of MT19937 (fast[actor] when `fast_seats`, else fast[0]); `t`: the
 * game's trace, or NULL */
static int play_random_with(G *g, MT *pick, MT *seats, uint64_t *fast, int fast_seats, double deadline,
                            GameTrace *t) {
    while (!g->terminal) {
        if (deadline > 0 && now_s() > deadline) return ST_TIMEOUT;
        rt_flip(g);
        ensure_listing(g);
        int32_t n = g->lst.n;
        if (n <= 0) rt_stop(g, B_STATE);
        int64_t k;
        if (fast != NULL) k = (int64_t)fast_below(&fast[fast_seats ? g->actor : 0], (uint64_t)n);
        else k = mt_randbelow(seats != NULL ? &seats[g->actor] : pick, n);
        if (g->trace != NULL && g->ntrace + 2 <= g->tcap) { g->trace[g->ntrace++] = n; g->trace[g->ntrace++] = g->budget; }
        if (GS_UNLIKELY(t != NULL)) trace_move(g, t, (int32_t)k);
        g->L->apply(g, (int32_t)k);
        if (!g->terminal && g->phase != g->last_phase) { g->phases_seen++; g->last_phase = g->phase; }
        if (GS_UNLIKELY(t != NULL) && t->mode == 2 && !g->terminal) trace_after(g, t);
    }
    return ST_OK;
}

static int play_random(G *g, MT *pick, MT *seats, double deadline, GameTrace *t) {
    return play_random_with(g, pick, seats, NULL, 0, deadline, t);
}

static int status_of(int why) { return why >= 64 ? ST_BAIL : ST_FAULT; }

static void results(G *g, int64_t *scores, int32_t *tags, uint64_t *winners, int64_t *decisions) {
    const Layout *L = g->L;
    for (int32_t p = 0; p < L->P; p++) {
        V s = g->scores[p];
        scores[p] = s.i;
        tags[p] = s.t;
    }
    *winners = g->winners;
    *decisions = g->decisions;
}

static int scores_ok(G *g) {
    for (int32_t p = 0; p < g->L->P; p++)
        if (!isnum(g->scores[p])) return 0;
    return 1;
}

/* one game of gs_playouts; the setjmp lives here, so that the caller's loop is untouched by a stop */
static int one_playout(Ctx *c, uint64_t s, int64_t *scores, int32_t *tags, uint64_t *winners, int64_t *decisions,
                       int32_t *why, int32_t gen) {
    G *g = &c->g;
    jmp_buf jb;
    g->jb = &jb;
    if (setjmp(jb) != 0) {
        *why = g->why;
        *decisions = g->decisions;
        return status_of(g->why);
    }
    g_new_game_gen(g, s, gen);
    if (gen == 2) {         /* the fast generator: one stream, no seeding table (rng.stream(s, 0)) */
        uint64_t f = fast_stream(s, 0);
        play_random_with(g, NULL, NULL, &f, 0, 0, NULL);
    } else {
        mt_seed_u64(&c->pick, s);
        play_random(g, &c->pick, NULL, 0, NULL);
    }
    if (!scores_ok(g)) rt_stop(g, B_TYPE);
    *why = 0;
    results(g, scores, tags, winners, decisions);
    return ST_OK;
}

/* n playouts: game i is State.new(seed + i, generator=gen) played with random.Random(seed + i), or under
 * the fast generator (gen 2) with rng.FastRandom(rng.stream(seed + i, 0)) (Game.playouts); -1 if gen
 * names no generator */
GS_EXPORT int64_t gs_playouts(void *ctx, uint64_t seed, int64_t n, int32_t *status, int32_t *why, int64_t *scores,
                    int32_t *tags, uint64_t *winners, int64_t *decisions, int32_t gen) {
    Ctx *c = (Ctx *)ctx;
    int32_t P = c->g.L->P;
    if (gen < 0 || gen > 2) return -1;
    c->g.track_poss = 0;        /* (nothing plans from a playout: the sets are reset by the next game or load) */
    for (int64_t i = 0; i < n; i++)
        status[i] = one_playout(c, seed + (uint64_t)i, scores + i * P, tags + i * P, winners + i, decisions + i, why + i,
                                gen);
    c->g.track_poss = 1;
    c->g.jb = NULL;
    return n;
}

/* the trace's numbers for game i (TR_* offsets into its row of gs_simulate's `tr`) */
enum { TR_CHANGES = 0, TR_N = 1, TR_SINCE = 2, TR_DEFICIT = 3, TR_COUNTS = 4 };

static int one_simulated(Ctx *c, uint64_t seed, const uint32_t *keys, const int32_t *keylen, int32_t stride,
                         double timeout, int64_t *scores, int32_t *tags, uint64_t *winners, int64_t *decisions,
                         int64_t *turns, int64_t *phases, int32_t *why, GameTrace *t, int64_t *tr, int32_t gen) {
    G *g = &c->g;
    const Layout *L = g->L;
    uint64_t fs[64];        /* the fast generator: seat p's stream, rng.stream(seed, p + 1) */
    jmp_buf jb;
    g->jb = &jb;
    if (setjmp(jb) != 0) {
        *why = g->why;
        *decisions = g->decisions;
        return status_of(g->why);
    }
    double t0 = timeout > 0 ? now_s() : 0;
    if (gen == 2)
        for (int32_t p = 0; p < L->P; p++) fs[p] = fast_stream(seed, (uint64_t)p + 1);
    else
        for (int32_t p = 0; p < L->P; p++) mt_init_by_array(&c->seats[p], keys + (int64_t)p * stride, keylen[p]);
    if (t != NULL) {
        int32_t na = L->nactions + 1;
        t->counts = tr + TR_COUNTS;
        t->first = tr + TR_COUNTS + na;
        for (int32_t a = 0; a < na; a++) { t->counts[a] = 0; t->first[a] = -1; }
        for (int32_t p = 0; p < 64; p++) { t->last_not[p] = -1; t->gap[p] = 0; }
        t->n = t->changes = 0;
        t->last = -1;
    }
    g->phases_seen = 0;
    g->last_phase = -1000;
    g_new_game_gen(g, seed, gen);
    if (!g->terminal && g->phase != g->last_phase) { g->phases_seen++; g->last_phase = g->phase; }
    int st = play_random_with(g, NULL, c->seats, gen == 2 ? fs : NULL, 1, timeout > 0 ? t0 + timeout : 0, t);
    *why = 0;
    if (st == ST_TIMEOUT) {
        *decisions = g->decisions;
        return ST_TIMEOUT;
    }
    if (!scores_ok(g)) rt_stop(g, B_TYPE);
    if (t != NULL && t->mode == 2) {        /* the final scores, a sole winner leading */
        int64_t sc[64];
        uint64_t won = g->winners;
        if (t->unit_of == NULL) {
            for (int32_t p = 0; p < L->P && p < 64; p++)
                if (__builtin_mul_overflow(t->sign, g->scores[p].i, &sc[p])) rt_stop(g, B_OVERFLOW);
        } else {    /* teams: each team's score (its members share it) and the winning teams */
            uint64_t have = 0;
            won = 0;
            for (int32_t p = L->P - 1; p >= 0; p--) {     /* a team's first member's score */
                int32_t u = t->unit_of[p];
                if (__builtin_mul_overflow(t->sign, g->scores[p].i, &sc[u])) rt_stop(g, B_OVERFLOW);
                have |= (uint64_t)1 << u;
                if (g->winners >> p & 1) won |= (uint64_t)1 << u;
            }
            if (have != (t->units == 64 ? ~(uint64_t)0 : ((uint64_t)1 << t->units) - 1)) rt_stop(g, B_STATE);
        }
        int32_t w = __builtin_popcountll(won) == 1 ? __builtin_ctzll(won) : -1;
        if (w >= t->units) rt_stop(g, B_STATE);
        trace_note(g, t, sc, w);
        tr[TR_CHANGES] = t->changes;
        tr[TR_N] = t->n;
        tr[TR_SINCE] = w >= 0 ? t->last_not[w] + 1 : -1;
        tr[TR_DEFICIT] = w >= 0 ? t->gap[w] : 0;
    }
    results(g, scores, tags, winners, decisions);
    *turns = g->turns;
    *phases = g->phases_seen;
    return ST_OK;
}

/* simulate's games with a RandomBot per seat: keys[i * P * stride + p * stride ..] are the 32-bit
 * words of seat p's seed (random.seed of its text), keylen[i * P + p] how many. `trace` 0: none;
 * 1: count the actions; 2: also the score's leaders (needs the score expression), `sign` -1 where
 * the lowest score wins; game i's trace in tr[i * tstride ..]: TR_CHANGES, TR_N, TR_SINCE (-1: no
 * sole winner), TR_DEFICIT, then per action (the skip last) its count, then its first decision
 * (tstride >= 4 + 2 * (nactions + 1)). `unit_of`: NULL, the seats lead; else (scoring.per_team)
 * each seat's team, of `units` teams: the teams lead (the score function takes a team). `gen`: the
 * games' generator (0 shake128 or 1 xorshift64*, the seats MT19937 from `keys`; 2 the fast one, the
 * seats' streams derived from the seed, `keys` unread). -1 if the arguments do not fit. */
GS_EXPORT int64_t gs_simulate(void *ctx, const uint64_t *seeds, int64_t n, const uint32_t *keys, const int32_t *keylen,
                    int32_t stride, double timeout, int32_t *status, int32_t *why, int64_t *scores, int32_t *tags,
                    uint64_t *winners, int64_t *decisions, int64_t *turns, int64_t *phases, double *seconds,
                    int32_t trace, int64_t sign, int64_t *tr, int64_t tstride, int32_t units,
                    const int32_t *unit_of, int32_t gen) {
    Ctx *c = (Ctx *)ctx;
    const Layout *L = c->g.L;
    int32_t P = L->P;
    if (P > 64 || gen < 0 || gen > 2) return -1;
    GameTrace gt;
    GameTrace *t = NULL;
    if (trace != 0) {
        if (trace < 0 || trace > 2 || (trace == 2 && L->score == NULL) || (sign != 1 && sign != -1) || tr == NULL
            || tstride < TR_COUNTS + 2 * ((int64_t)L->nactions + 1))
            return -1;
        if (unit_of == NULL) units = P;
        if (units < 1 || units > P) return -1;
        for (int32_t p = 0; unit_of != NULL && p < P; p++)
            if (unit_of[p] < 0 || unit_of[p] >= units) return -1;
        memset(&gt, 0, sizeof gt);
        gt.mode = trace;
        gt.sign = sign;
        gt.units = units;
        gt.unit_of = unit_of;
        t = &gt;
    }
    c->g.track_poss = 0;        /* (as gs_playouts) */
    for (int64_t i = 0; i < n; i++) {
        double t0 = now_s();
        status[i] = one_simulated(c, seeds[i], gen == 2 ? NULL : keys + i * P * stride, gen == 2 ? NULL : keylen + i * P,
                                  stride, timeout, scores + i * P, tags + i * P, winners + i, decisions + i, turns + i,
                                  phases + i, why + i, t, t != NULL ? tr + i * tstride : NULL, gen);
        seconds[i] = now_s() - t0;
    }
    c->g.track_poss = 1;
    c->g.jb = NULL;
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* a state from Python (interpreter/native_engine.py flattens it), and rollouts from it       */
/* ------------------------------------------------------------------------------------------ */
typedef struct { const int64_t *p; int64_t left; int bad; } Reader;

static int64_t rd(Reader *r) {
    if (r->left <= 0) { r->bad = 1; return 0; }
    r->left--;
    return *r->p++;
}

static V rd_value(G *g, Reader *r, int depth) {
    int64_t t = rd(r);
    if (depth > 64) { r->bad = 1; return vnone(); }
    switch (t) {
    case T_NONE: return vnone();
    case T_BOOL: return vbool((int)rd(r));
    case T_INT: return vint(rd(r));
    case T_STR: {
        int64_t id = rd(r);
        if (id < 0 || id >= g->L->nstr) { r->bad = 1; return vnone(); }
        return vstr(id);
    }
    case T_LIST: {
        int64_t n = rd(r);
        if (n < 0 || n > MAX_LIST || n > r->left) { r->bad = 1; return vnone(); }
        List *l = list_new(g, n);
        for (int64_t k = 0; k < n && !r->bad; k++) l->a[k] = rd_value(g, r, depth + 1);
        return vlist(l);
    }
    default: r->bad = 1; return vnone();
    }
}

/* 0: loaded; -1: the buffer is not a consistent state of this rule set */
static int load_state(G *g, const int64_t *buf, int64_t len) {
    const Layout *L = g->L;
    Reader r = {buf, len, 0};
    if (rd(&r) != GS_ABI) return -1;
    if (rd(&r) != L->ncards || rd(&r) != L->nzones || rd(&r) != L->nvars || rd(&r) != L->nfor) return -1;
    g_clear(g);
    g->pc = (int32_t)rd(&r); g->pending = (int32_t)rd(&r); g->actor = (int32_t)rd(&r); g->cur = (int32_t)rd(&r);
    g->phase = (int32_t)rd(&r); g->terminal = (int32_t)rd(&r); g->turns = rd(&r); g->decisions = rd(&r);
    g->budget = rd(&r); g->spent = rd(&r); g->rng = (uint64_t)rd(&r); g->gen = (int32_t)rd(&r);
    int64_t listed = rd(&r);
    if (g->pending < -1 || g->pending >= L->nchoose || g->actor < 0 || g->actor >= L->P || g->cur < 0 ||
        g->cur >= L->P || (g->gen < 0 || g->gen > 2)) return -1;
    for (int32_t c = 0; c < L->ncards; c++) g->loc[c] = -1;
    for (int32_t zi = 0; zi < L->nzones; zi++) {
        int64_t n = rd(&r);
        if (n < 0 || n > L->ncards || r.bad) return -1;
        Zone *z = &g->z[zi];
        z->n = 0;
        if (z->cap < n) zgrow(g, z, (int32_t)n);
        for (int64_t k = 0; k < n; k++) {
            int64_t c = rd(&r);
            if (c < 0 || c >= L->ncards || g->loc[c] != -1) return -1;
            z->a[z->n++] = (int32_t)c;
            g->loc[c] = zi;
        }
    }
    for (int32_t c = 0; c < L->ncards; c++) if (g->loc[c] < 0) return -1;
    cnt_recount(g, 0);
    g->track_poss = 1;
    rt_poss_reset(g, 1);
    for (int32_t c = 0; c < L->ncards; c++) g->kn[c] = (uint64_t)rd(&r) & L->ALL;
    for (int32_t c = 0; c < L->ncards; c++) {
        int64_t f = rd(&r);
        if (f < 0 || f > 2) return -1;
        g->face[c] = (uint8_t)f;
        if (f) g->nface++;
    }
    for (int64_t k = 0; k < (int64_t)L->nmarks * L->ncards; k++) g->mk[k] = rd(&r);
    for (int32_t k = 0; k < L->nvars; k++) g->v[k] = rd_value(g, &r, 0);
    for (int32_t k = 0; k < L->nfor; k++) {
        Flow *f = &g->ff[k];
        f->active = (int32_t)rd(&r);
        f->has_var = (int32_t)rd(&r);
        f->idx = rd(&r);
        f->items = rd_value(g, &r, 0);
        f->var = rd_value(g, &r, 0);
        if (f->idx < 0 || f->idx > MAX_LIST || (f->active && f->items.t != T_LIST)) return -1;
    }
    int64_t ns = rd(&r);
    if (ns < 0 || ns > 64) return -1;
    for (int64_t k = 0; k < ns; k++) {
        if (g->nstored >= g->stcap) {
            int32_t cap = g->stcap ? g->stcap * 2 : 8;
            Stored *s = (Stored *)realloc(g->stored, (size_t)cap * sizeof(Stored));
            if (s == NULL) return -1;
            g->stored = s;
            g->stcap = cap;
        }
        Stored *s = &g->stored[g->nstored++];
        s->player = (int32_t)rd(&r);
        s->act = (int32_t)rd(&r);
        s->args = rd_value(g, &r, 0);
        if (s->args.t != T_LIST || s->player < 0 || s->player >= L->P || s->act < -1 || s->act >= L->nactions)
            return -1;
        if (s->act >= 0 && LST(s->args)->n != L->act_np[s->act]) return -1;
    }
    if (r.bad || r.left != 0) return -1;
    if (!g->terminal && g->pending < 0) return -1;
    /* the listing: made now without its charge when the Python state had made it (the budget is
     * the one it left), else made by the playout (and charged) as State.playout makes it */
    if (!g->terminal && listed) {
        int64_t b = g->budget;
        ensure_listing(g);
        g->budget = b;
    }
    return 0;
}

GS_EXPORT int gs_load(void *ctx, const int64_t *buf, int64_t len) {
    Ctx *c = (Ctx *)ctx;
    G *g = &c->g;
    jmp_buf jb;
    g->jb = &jb;
    int rc;
    if (setjmp(jb) == 0) rc = load_state(g, buf, len);
    else rc = -2 - g->why;       /* the listing faulted: let Python play it */
    g->jb = NULL;
    return rc;
}

static void mt_from(MT *m, const uint32_t *st) {
    memcpy(m->mt, st, 624 * sizeof(uint32_t));
    m->mti = (int)st[624];
}

static void mt_to(const MT *m, uint32_t *st) {
    memcpy(st, m->mt, 624 * sizeof(uint32_t));
    st[624] = (uint32_t)m->mti;
}

/* random decisions from the loaded state to the end; the generator's state (624 words and the
 * index, random.getstate()'s) in and out */
GS_EXPORT int gs_rollout(void *ctx, uint32_t *mt, int32_t *why, int64_t *scores, int32_t *tags, uint64_t *winners,
               int64_t *decisions) {
    Ctx *c = (Ctx *)ctx;
    G *g = &c->g;
    jmp_buf jb;
    g->jb = &jb;
    int st;
    mt_from(&c->pick, mt);
    if (setjmp(jb) == 0) {
        play_random(g, &c->pick, NULL, 0, NULL);
        if (!scores_ok(g)) rt_stop(g, B_TYPE);
        results(g, scores, tags, winners, decisions);
        mt_to(&c->pick, mt);
        *why = 0;
        st = ST_OK;
    } else {
        *why = g->why;
        st = status_of(g->why);
    }
    g->jb = NULL;
    return st;
}

/* one playout with its listing sizes and budgets recorded (tests, debugging) */
GS_EXPORT int64_t gs_trace(void *ctx, uint64_t seed, int64_t *out, int64_t cap, int32_t *why) {
    Ctx *c = (Ctx *)ctx;
    G *g = &c->g;
    jmp_buf jb;
    g->jb = &jb;
    g->trace = out; g->ntrace = 0; g->tcap = cap;
    if (setjmp(jb) == 0) {
        g_new_game(g, seed);
        mt_seed_u64(&c->pick, seed);
        play_random(g, &c->pick, NULL, 0, NULL);
        *why = 0;
    } else {
        *why = g->why;
    }
    g->trace = NULL;
    g->jb = NULL;
    return g->ntrace;
}

/* the RNGs alone, for the tests */
GS_EXPORT uint64_t gs_test_shuffle(uint64_t state, int32_t *items, int64_t n, int gen) {
    return gen == 0 ? rng_shuffle_shake(state, items, n) : gen == 2 ? rng_shuffle_fast(state, items, n)
                    : rng_shuffle_xorshift(state, items, n);
}
GS_EXPORT uint64_t gs_test_seed_state(uint64_t seed) { return rng_seed_state(seed); }
/* the fast generator's draws: out[k] = fast_below(state, below[k]) in turn (lane >= 0: from
 * fast_stream(state, lane) instead); the state after */
GS_EXPORT uint64_t gs_test_fast(uint64_t state, int64_t lane, const uint64_t *below, int64_t n, uint64_t *out) {
    uint64_t s = lane >= 0 ? fast_stream(state, (uint64_t)lane) : state;
    for (int64_t k = 0; k < n; k++) out[k] = below[k] >= 1 ? fast_below(&s, below[k]) : 0;
    return s;
}
GS_EXPORT void gs_test_mt(const uint32_t *key, int keylen, int64_t n, const int64_t *below, int64_t *out, uint32_t *state) {
    MT m;
    mt_init_by_array(&m, key, keylen);
    for (int64_t i = 0; i < n; i++) out[i] = below[i] > 0 ? mt_randbelow(&m, below[i]) : (int64_t)mt_getrandbits(&m, (int)-below[i]);
    mt_to(&m, state);
}

/* the loaded or played state in the loader's format (tests: the struct mirrors the Python state) */
static int64_t wr_value(V v, int64_t *out, int64_t at, int64_t cap) {
    if (at + 2 > cap) return cap + 1;
    out[at++] = v.t;
    switch (v.t) {
    case T_NONE: return at;
    case T_LIST: {
        List *l = LST(v);
        out[at++] = l->n;
        for (int32_t k = 0; k < l->n; k++) at = wr_value(l->a[k], out, at, cap);
        return at;
    }
    default: out[at++] = v.i; return at;
    }
}

GS_EXPORT int64_t gs_dump(void *ctx, int64_t *out, int64_t cap, int64_t new_seed) {
    Ctx *c = (Ctx *)ctx;
    G *g = &c->g;
    const Layout *L = g->L;
    if (new_seed >= 0) {
        jmp_buf jb;
        g->jb = &jb;
        if (setjmp(jb) != 0) { g->jb = NULL; return -1 - g->why; }
        g_new_game(g, (uint64_t)new_seed);
        g->jb = NULL;
    }
    int64_t at = 0;
#define W(x) do { if (at >= cap) return -1; out[at++] = (int64_t)(x); } while (0)
    W(GS_ABI); W(L->ncards); W(L->nzones); W(L->nvars); W(L->nfor);
    W(g->pc); W(g->pending); W(g->actor); W(g->cur); W(g->phase); W(g->terminal); W(g->turns); W(g->decisions);
    W(g->budget); W(g->spent); W(g->rng); W(g->gen); W(g->has_listing);
    for (int32_t zi = 0; zi < L->nzones; zi++) {
        W(g->z[zi].n);
        for (int32_t k = 0; k < g->z[zi].n; k++) W(g->z[zi].a[k]);
    }
    for (int32_t k = 0; k < L->ncards; k++) W(g->kn[k]);
    for (int32_t k = 0; k < L->ncards; k++) W(g->face[k]);
    for (int64_t k = 0; k < (int64_t)L->nmarks * L->ncards; k++) W(g->mk[k]);
    for (int32_t k = 0; k < L->nvars; k++) { at = wr_value(g->v[k], out, at, cap); if (at > cap) return -1; }
    for (int32_t k = 0; k < L->nfor; k++) {
        W(g->ff[k].active); W(g->ff[k].has_var); W(g->ff[k].idx);
        at = wr_value(g->ff[k].items, out, at, cap);
        if (at > cap) return -1;
        at = wr_value(g->ff[k].var, out, at, cap);
        if (at > cap) return -1;
    }
    W(g->nstored);
    for (int32_t k = 0; k < g->nstored; k++) {
        W(g->stored[k].player); W(g->stored[k].act);
        at = wr_value(g->stored[k].args, out, at, cap);
        if (at > cap) return -1;
    }
#undef W
    return at;
}

GS_EXPORT int64_t gs_listing(void *ctx, int32_t *acts, int64_t cap) {   /* the pending listing's actions */
    Ctx *c = (Ctx *)ctx;
    G *g = &c->g;
    jmp_buf jb;
    g->jb = &jb;
    if (setjmp(jb) != 0) { g->jb = NULL; return -1 - g->why; }
    if (!g->terminal) ensure_listing(g);
    g->jb = NULL;
    int64_t n = g->terminal ? 0 : g->lst.n;
    for (int64_t k = 0; k < n && k < cap; k++) acts[k] = g->lst.act[k];
    return n;
}

GS_EXPORT int gs_apply(void *ctx, int32_t k) {     /* one decision: entry k of the pending listing */
    Ctx *c = (Ctx *)ctx;
    G *g = &c->g;
    jmp_buf jb;
    g->jb = &jb;
    if (setjmp(jb) != 0) { g->jb = NULL; return -1 - g->why; }
    if (g->terminal) { g->jb = NULL; return -1; }
    rt_flip(g);
    ensure_listing(g);
    if (k < 0 || k >= g->lst.n) { g->jb = NULL; return -1; }
    g->L->apply(g, k);
    g->jb = NULL;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* ISMCTS in C (gamespec/bots/ismcts.py, the same draws in the same order): per iteration a    */
/* determinization of the loaded state (interpreter/determinize.py's plan), the tree walk,     */
/* one expansion, a random playout and the backup                                              */
/* ------------------------------------------------------------------------------------------ */
#include <math.h>

static void g_copy(G *w, const G *b) {      /* a world starts as a copy of the base state */
    const Layout *L = b->L;
    for (int32_t zi = 0; zi < L->nzones; zi++) {
        Zone *zw = &w->z[zi];
        const Zone *zb = &b->z[zi];
        if (zw->cap < zb->n) zgrow(w, zw, zb->n);
        memcpy(zw->a, zb->a, (size_t)zb->n * sizeof(int32_t));
        zw->n = zb->n;
    }
    memcpy(w->loc, b->loc, (size_t)L->ncards * sizeof(int32_t));
    w->track_poss = b->track_poss;
    if (b->track_poss) memcpy(w->poss, b->poss, (size_t)L->nzones * (size_t)b->pw * sizeof(uint64_t));
    if (L->ncnt) memcpy(w->cnt, b->cnt, (size_t)L->cnt_size * sizeof(int32_t));
    CNT_CHECK(w);
    memcpy(w->kn, b->kn, (size_t)L->ncards * sizeof(uint64_t));
    memcpy(w->face, b->face, (size_t)L->ncards);
    w->nface = b->nface;
    memcpy(w->mk, b->mk, (size_t)L->nmarks * (size_t)L->ncards * sizeof(int64_t));
    memcpy(w->v, b->v, (size_t)L->nvars * sizeof(V));
    memcpy(w->ff, b->ff, (size_t)L->nfor * sizeof(Flow));
    if (w->stcap < b->nstored) {
        Stored *s = (Stored *)realloc(w->stored, (size_t)(b->nstored + 8) * sizeof(Stored));
        if (s == NULL) rt_stop(w, B_MEMORY);
        w->stored = s;
        w->stcap = b->nstored + 8;
    }
    memcpy(w->stored, b->stored, (size_t)b->nstored * sizeof(Stored));
    w->nstored = b->nstored;
    w->rng = b->rng; w->gen = b->gen;
    w->pc = b->pc; w->pending = b->pending; w->actor = b->actor; w->cur = b->cur; w->phase = b->phase;
    w->terminal = b->terminal; w->turns = b->turns; w->decisions = b->decisions;
    w->budget = b->budget; w->spent = b->spent;
    for (int32_t p = 0; p < L->P; p++) w->scores[p] = vnone();
    w->winners = 0;
    w->has_listing = 0;
    w->lst.n = 0;
    arena_reset(&w->ar[0]);
    arena_reset(&w->ar[1]);
    w->side = 0;
}

/* the determinizer's plan, read once per search */
typedef struct {
    int32_t nplaces; int32_t *pz, *pi, *pc;         /* per hidden place: zone, position, real card */
    int32_t kind;                                    /* 0: any card anywhere (a shuffle); 1: by origin */
    int32_t ncards; int32_t *cards;                  /* kind 0: the hidden cards, sorted */
    int32_t nb; int32_t *blen, *boff, *bcards;      /* kind 1: buckets (origins) of cards */
    int32_t nplan; int32_t *plan_i, *plan_nk, *plan_koff, *plan_k;
    int32_t ngroups; int32_t *glen, *goff, *gidx;
    int32_t ncv; int32_t *cv;                        /* card variables */
    int32_t nsec; int32_t *sec_i; V *sec_v;          /* variables the player cannot see: initial values */
    int32_t nflow; int32_t *flow_slot;               /* flow loops over cards */
    int32_t *mark_vis;                               /* per mark: 0 zone, 1 public, 2 hidden */
    int32_t nblind; int32_t *blind;                  /* real cards the player does not see where they lie */
    int32_t player, secret_pending;
} Plan;

static int32_t *rd_ints(G *g, Reader *r, int64_t n) {
    if (n < 0 || n > r->left) { r->bad = 1; return NULL; }
    int32_t *a = (int32_t *)aalloc(g, (size_t)(n + 1) * sizeof(int32_t));
    for (int64_t k = 0; k < n; k++) a[k] = (int32_t)rd(r);
    return a;
}

static int read_plan(G *g, Plan *pl, const int64_t *buf, int64_t len) {
    Reader r = {buf, len, 0};
    const Layout *L = g->L;
    memset(pl, 0, sizeof(Plan));
    pl->player = (int32_t)rd(&r);
    pl->secret_pending = (int32_t)rd(&r);
    pl->nplaces = (int32_t)rd(&r);
    if (pl->nplaces < 0 || pl->nplaces > L->ncards) return -1;
    pl->pz = (int32_t *)aalloc(g, (size_t)(pl->nplaces + 1) * sizeof(int32_t));
    pl->pi = (int32_t *)aalloc(g, (size_t)(pl->nplaces + 1) * sizeof(int32_t));
    pl->pc = (int32_t *)aalloc(g, (size_t)(pl->nplaces + 1) * sizeof(int32_t));
    for (int32_t k = 0; k < pl->nplaces; k++) {
        pl->pz[k] = (int32_t)rd(&r); pl->pi[k] = (int32_t)rd(&r); pl->pc[k] = (int32_t)rd(&r);
        if (pl->pz[k] < 0 || pl->pz[k] >= L->nzones || pl->pc[k] < 0 || pl->pc[k] >= L->ncards) return -1;
        if (pl->pi[k] < 0 || pl->pi[k] >= g->z[pl->pz[k]].n || g->z[pl->pz[k]].a[pl->pi[k]] != pl->pc[k]) return -1;
    }
    pl->kind = (int32_t)rd(&r);
    if (pl->kind == 0) {
        pl->ncards = (int32_t)rd(&r);
        if (pl->ncards != pl->nplaces) return -1;
        pl->cards = rd_ints(g, &r, pl->ncards);
    } else {
        pl->nb = (int32_t)rd(&r);
        if (pl->nb < 0 || pl->nb > L->nzones + 1) return -1;
        pl->blen = (int32_t *)aalloc(g, (size_t)(pl->nb + 1) * sizeof(int32_t));
        pl->boff = (int32_t *)aalloc(g, (size_t)(pl->nb + 1) * sizeof(int32_t));
        pl->bcards = (int32_t *)aalloc(g, (size_t)(pl->nplaces + 1) * sizeof(int32_t));
        int32_t at = 0;
        for (int32_t b = 0; b < pl->nb; b++) {
            pl->blen[b] = (int32_t)rd(&r);
            pl->boff[b] = at;
            if (pl->blen[b] < 0 || at + pl->blen[b] > pl->nplaces) return -1;
            for (int32_t k = 0; k < pl->blen[b]; k++) pl->bcards[at++] = (int32_t)rd(&r);
        }
        pl->nplan = (int32_t)rd(&r);
        if (pl->nplan != pl->nplaces) return -1;
        pl->plan_i = (int32_t *)aalloc(g, (size_t)(pl->nplan + 1) * sizeof(int32_t));
        pl->plan_nk = (int32_t *)aalloc(g, (size_t)(pl->nplan + 1) * sizeof(int32_t));
        pl->plan_koff = (int32_t *)aalloc(g, (size_t)(pl->nplan + 1) * sizeof(int32_t));
        pl->plan_k = (int32_t *)aalloc(g, (size_t)(pl->nplan * (pl->nb + 1) + 1) * sizeof(int32_t));
        at = 0;
        for (int32_t q = 0; q < pl->nplan; q++) {
            pl->plan_i[q] = (int32_t)rd(&r);
            pl->plan_nk[q] = (int32_t)rd(&r);
            pl->plan_koff[q] = at;
            if (pl->plan_i[q] < 0 || pl->plan_i[q] >= pl->nplaces || pl->plan_nk[q] < 0 || pl->plan_nk[q] > pl->nb)
                return -1;
            for (int32_t k = 0; k < pl->plan_nk[q]; k++) {
                pl->plan_k[at] = (int32_t)rd(&r);
                if (pl->plan_k[at] < 0 || pl->plan_k[at] >= pl->nb) return -1;
                at++;
            }
        }
        pl->ngroups = (int32_t)rd(&r);
        if (pl->ngroups < 0 || pl->ngroups > pl->nplaces + 1) return -1;
        pl->glen = (int32_t *)aalloc(g, (size_t)(pl->ngroups + 1) * sizeof(int32_t));
        pl->goff = (int32_t *)aalloc(g, (size_t)(pl->ngroups + 1) * sizeof(int32_t));
        pl->gidx = (int32_t *)aalloc(g, (size_t)(pl->nplaces + 1) * sizeof(int32_t));
        at = 0;
        for (int32_t q = 0; q < pl->ngroups; q++) {
            pl->glen[q] = (int32_t)rd(&r);
            pl->goff[q] = at;
            if (pl->glen[q] < 0 || at + pl->glen[q] > pl->nplaces) return -1;
            for (int32_t k = 0; k < pl->glen[q]; k++) {
                pl->gidx[at] = (int32_t)rd(&r);
                if (pl->gidx[at] < 0 || pl->gidx[at] >= pl->nplaces) return -1;
                at++;
            }
        }
    }
    pl->ncv = (int32_t)rd(&r);
    pl->cv = rd_ints(g, &r, pl->ncv);
    for (int32_t k = 0; k < pl->ncv; k++) if (pl->cv[k] < 0 || pl->cv[k] >= L->nvars) return -1;
    pl->nsec = (int32_t)rd(&r);
    if (pl->nsec < 0 || pl->nsec > L->nvars) return -1;
    pl->sec_i = (int32_t *)aalloc(g, (size_t)(pl->nsec + 1) * sizeof(int32_t));
    pl->sec_v = (V *)aalloc(g, (size_t)(pl->nsec + 1) * sizeof(V));
    for (int32_t k = 0; k < pl->nsec; k++) {
        pl->sec_i[k] = (int32_t)rd(&r);
        if (pl->sec_i[k] < 0 || pl->sec_i[k] >= L->nvars) return -1;
        pl->sec_v[k] = rd_value(g, &r, 0);
    }
    pl->nflow = (int32_t)rd(&r);
    pl->flow_slot = rd_ints(g, &r, pl->nflow);
    for (int32_t k = 0; k < pl->nflow; k++) if (pl->flow_slot[k] < 0 || pl->flow_slot[k] >= L->nfor) return -1;
    pl->mark_vis = rd_ints(g, &r, L->nmarks);
    pl->nblind = (int32_t)rd(&r);
    pl->blind = rd_ints(g, &r, pl->nblind);
    for (int32_t k = 0; k < pl->nblind; k++) if (pl->blind[k] < 0 || pl->blind[k] >= L->ncards) return -1;
    if (r.bad || r.left != 0 || pl->player < 0 || pl->player >= L->P) return -1;
    return 0;
}

static void mt_shuffle(MT *m, int32_t *a, int32_t n) {     /* random.shuffle */
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)mt_randbelow(m, (int64_t)i + 1);
        int32_t t = a[i]; a[i] = a[j]; a[j] = t;
    }
}

/* the determinizer's draw: a card for each hidden place */
static void draw_cards(G *w, const Plan *pl, MT *m, int32_t *drawn) {
    int32_t n = pl->nplaces;
    if (pl->kind == 0) {
        memcpy(drawn, pl->cards, (size_t)n * sizeof(int32_t));
        mt_shuffle(m, drawn, n);
        return;
    }
    int32_t *bk = (int32_t *)aalloc(w, (size_t)(n + 1) * sizeof(int32_t));
    int32_t *bl = (int32_t *)aalloc(w, (size_t)(pl->nb + 1) * sizeof(int32_t));
    for (int attempt = 0; attempt < 20; attempt++) {
        memcpy(bk, pl->bcards, (size_t)n * sizeof(int32_t));
        memcpy(bl, pl->blen, (size_t)pl->nb * sizeof(int32_t));
        int ok = 1;
        for (int32_t q = 0; q < pl->nplan && ok; q++) {
            int32_t i = pl->plan_i[q], nk = pl->plan_nk[q];
            const int32_t *ks = pl->plan_k + pl->plan_koff[q];
            int32_t b, j;
            if (nk == 1) {
                b = ks[0];
                if (bl[b] == 0) { ok = 0; break; }
                j = (int32_t)mt_randbelow(m, bl[b]);
            } else {
                int64_t total = 0;
                for (int32_t k = 0; k < nk; k++) total += bl[ks[k]];
                if (total == 0) { ok = 0; break; }
                int64_t jj = mt_randbelow(m, total);
                b = ks[nk - 1];
                for (int32_t k = 0; k < nk; k++) {
                    if (jj < bl[ks[k]]) { b = ks[k]; break; }
                    jj -= bl[ks[k]];
                }
                j = (int32_t)jj;
            }
            int32_t *cs = bk + pl->boff[b];
            drawn[i] = cs[j];
            cs[j] = cs[bl[b] - 1];
            bl[b]--;
        }
        if (ok) return;
    }
    for (int32_t q = 0; q < pl->ngroups; q++) {     /* only among the cards of the same origin */
        int32_t len = pl->glen[q];
        const int32_t *idx = pl->gidx + pl->goff[q];
        int32_t *cs = (int32_t *)aalloc(w, (size_t)(len + 1) * sizeof(int32_t));
        for (int32_t k = 0; k < len; k++) cs[k] = pl->pc[idx[k]];
        mt_shuffle(m, cs, len);
        for (int32_t k = 0; k < len; k++) drawn[idx[k]] = cs[k];
    }
}

/* determinize.determinizer's world(rng), in w (a copy of the base state b) */
static void make_world(G *w, const G *b, const Plan *pl, MT *m) {
    const Layout *L = b->L;
    g_copy(w, b);
    w->track_poss = 0;          /* (a world context is only ever a world: nothing plans from it) */
    int32_t n = pl->nplaces;
    int32_t *drawn = (int32_t *)aalloc(w, (size_t)(n + 1) * sizeof(int32_t));
    draw_cards(w, pl, m, drawn);
    int32_t *map = (int32_t *)aalloc(w, (size_t)L->ncards * sizeof(int32_t));
    for (int32_t c = 0; c < L->ncards; c++) map[c] = c;
    for (int32_t k = 0; k < n; k++) {
        int32_t c = pl->pc[k], x = drawn[k];
        map[c] = x;
        w->z[pl->pz[k]].a[pl->pi[k]] = x;
        w->loc[x] = pl->pz[k];
        w->kn[x] = b->kn[c];            /* knowledge belongs to the place */
        if (L->ncnt && x != c) cnt_swap(w, pl->pz[k], c, x);     /* the place's zone: c out, x in */
    }
    CNT_CHECK(w);
    if (b->nface) {                      /* so do turned faces */
        memset(w->face, 0, (size_t)L->ncards);
        for (int32_t c = 0; c < L->ncards; c++) if (b->face[c]) w->face[map[c]] = b->face[c];
    }
    for (int32_t mi = 0; mi < L->nmarks; mi++) {    /* and marks */
        int64_t *col = w->mk + (int64_t)mi * L->ncards;
        const int64_t *src = b->mk + (int64_t)mi * L->ncards;
        if (pl->mark_vis[mi] == 2) {
            for (int32_t c = 0; c < L->ncards; c++) col[c] = L->mark_init[mi];
            continue;
        }
        for (int32_t c = 0; c < L->ncards; c++) col[map[c]] = src[c];
        if (pl->mark_vis[mi] == 0)
            for (int32_t k = 0; k < pl->nblind; k++) col[map[pl->blind[k]]] = L->mark_init[mi];
    }
    for (int32_t k = 0; k < pl->nsec; k++) w->v[pl->sec_i[k]] = pl->sec_v[k];
    for (int32_t k = 0; k < pl->ncv; k++) {
        V x = w->v[pl->cv[k]];
        if (x.t == T_LIST) {
            List *l = LST(x), *o = list_new(w, l->n);
            for (int32_t j = 0; j < l->n; j++) o->a[j] = l->a[j].t == T_INT ? vint(map[card_of(w, l->a[j])]) : l->a[j];
            w->v[pl->cv[k]] = vlist(o);
        } else if (x.t == T_INT) {
            w->v[pl->cv[k]] = vint(map[card_of(w, x)]);
        }
    }
    for (int32_t k = 0; k < pl->nflow; k++) {
        Flow *f = &w->ff[pl->flow_slot[k]];
        if (f->has_var && f->var.t == T_INT) f->var = vint(map[card_of(w, f->var)]);
        if (f->items.t == T_LIST) {
            List *l = LST(f->items), *o = list_new(w, l->n);
            for (int32_t j = 0; j < l->n; j++) o->a[j] = l->a[j].t == T_INT ? vint(map[card_of(w, l->a[j])]) : l->a[j];
            f->items = vlist(o);
        }
    }
    w->rng = rng_seed_state(mt_getrandbits(m, 64));
    w->has_listing = 0;
    if (pl->secret_pending && w->pending >= 0) {    /* _redraw_pending: the others' stored choices */
        int any = 0;
        for (int32_t k = 0; k < w->nstored; k++) any |= w->stored[k].player != pl->player;
        if (any) {
            int32_t actor = w->actor;
            for (int32_t k = 0; k < w->nstored; k++) {
                if (w->stored[k].player == pl->player) continue;
                w->actor = w->stored[k].player;
                L->enumerate(w, w->pending, &w->lst2);
                if (w->lst2.n == 0 && L->ch_optional[w->pending]) lst_entry(w, &w->lst2, -1, 0);
                if (w->lst2.n == 0) continue;
                int32_t e = (int32_t)mt_randbelow(m, w->lst2.n);
                int32_t act = w->lst2.act[e];
                int32_t np = act < 0 ? 0 : L->act_np[act];
                List *args = list_new(w, np);
                V *pv = lst_pairs(&w->lst2, e);
                for (int32_t j = 0; j < np; j++) args->a[j] = rt_copy_root(w, pv[2 * j]);
                w->stored[k].act = act;
                w->stored[k].args = vlist(args);
            }
            w->actor = actor;
            w->has_listing = 0;
        }
    }
}

/* the tree */
typedef struct {
    int32_t player;
    int32_t nch, cap;        /* children: indices into the node array; a hash of their keys */
    int32_t *ch;
    int32_t hcap; int32_t *hash;
    int64_t visits, avail;
    double reward;
    uint64_t keyhash;
    int32_t keyoff, keylen;  /* key tokens in the key pool; keylen -1: a root position (keyhash) */
} Node;

typedef struct {
    Node *nodes; int32_t n, cap;
    int64_t *keys; int64_t nk, kcap;
    int oom;
} Tree;

static int64_t *tree_keys(Tree *t, int64_t n) {
    if (t->nk + n > t->kcap) {
        int64_t cap = t->kcap ? t->kcap * 2 : 4096;
        while (cap < t->nk + n) cap *= 2;
        int64_t *k = (int64_t *)realloc(t->keys, (size_t)cap * sizeof(int64_t));
        if (k == NULL) { t->oom = 1; return NULL; }
        t->keys = k;
        t->kcap = cap;
    }
    int64_t *p = t->keys + t->nk;
    t->nk += n;
    return p;
}

static int32_t tree_node(Tree *t, int32_t player) {
    if (t->n >= t->cap) {
        int32_t cap = t->cap ? t->cap * 2 : 1024;
        Node *n = (Node *)realloc(t->nodes, (size_t)cap * sizeof(Node));
        if (n == NULL) { t->oom = 1; return -1; }
        t->nodes = n;
        t->cap = cap;
    }
    Node *x = &t->nodes[t->n];
    memset(x, 0, sizeof(Node));
    x->player = player;
    x->keylen = -1;
    return t->n++;
}

static void tree_free(Tree *t) {
    for (int32_t k = 0; k < t->n; k++) { free(t->nodes[k].ch); free(t->nodes[k].hash); }
    free(t->nodes);
    free(t->keys);
}

/* an edge key below the root: (actor, action, its arguments), a bool as its number (1 == True) */
static int64_t key_tokens(V v, int64_t *out, int64_t at, int64_t cap) {
    if (at + 2 > cap) return cap + 1;
    switch (v.t) {
    case T_NONE: out[at++] = 0; return at;
    case T_BOOL: case T_INT: out[at++] = 2; out[at++] = v.i; return at;
    case T_STR: out[at++] = 3; out[at++] = v.i; return at;
    default: {
        List *l = LST(v);
        out[at++] = 4;
        out[at++] = l->n;
        for (int32_t k = 0; k < l->n; k++) at = key_tokens(l->a[k], out, at, cap);
        return at;
    }
    }
}

static uint64_t hash_tokens(const int64_t *k, int64_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (int64_t i = 0; i < n; i++) h = (h ^ (uint64_t)k[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

static int node_same_key(const Tree *t, const Node *c, uint64_t h, const int64_t *k, int64_t n) {
    if (c->keyhash != h) return 0;
    return c->keylen == n && memcmp(t->keys + c->keyoff, k, (size_t)n * sizeof(int64_t)) == 0;
}

static int32_t child_find(const Tree *t, const Node *x, uint64_t h, const int64_t *k, int64_t n) {
    if (x->hcap == 0) return -1;
    uint64_t mask = (uint64_t)x->hcap - 1;
    for (uint64_t p = h & mask;; p = (p + 1) & mask) {
        int32_t c = x->hash[p];
        if (c < 0) return -1;
        if (node_same_key(t, &t->nodes[c], h, k, n)) return c;
    }
}

static int child_add(Tree *t, int32_t xi, int32_t c) {
    Node *x = &t->nodes[xi];
    if (x->nch >= x->cap) {
        int32_t cap = x->cap ? x->cap * 2 : 8;
        int32_t *a = (int32_t *)realloc(x->ch, (size_t)cap * sizeof(int32_t));
        if (a == NULL) return -1;
        x->ch = a;
        x->cap = cap;
    }
    x->ch[x->nch++] = c;
    if (x->nch * 2 > x->hcap) {
        int32_t hcap = x->hcap ? x->hcap * 2 : 16;
        while (hcap < x->nch * 2) hcap *= 2;
        int32_t *hs = (int32_t *)malloc((size_t)hcap * sizeof(int32_t));
        if (hs == NULL) return -1;
        for (int32_t k = 0; k < hcap; k++) hs[k] = -1;
        for (int32_t k = 0; k < x->nch; k++) {
            uint64_t p = t->nodes[x->ch[k]].keyhash & (uint64_t)(hcap - 1);
            while (hs[p] >= 0) p = (p + 1) & (uint64_t)(hcap - 1);
            hs[p] = x->ch[k];
        }
        free(x->hash);
        x->hash = hs;
        x->hcap = hcap;
    } else {
        uint64_t mask = (uint64_t)x->hcap - 1, p = t->nodes[c].keyhash & mask;
        while (x->hash[p] >= 0) p = (p + 1) & mask;
        x->hash[p] = c;
    }
    return 0;
}


/* The search: the bot's random.Random (MT words and index) in and out; the root's children's
 * visits and rewards out (positions without a child: visits 0, reward 0). 0: done; else a code
 * (the Python search then runs instead, from the same generator state). */
static void search(G *b, G *w, const Layout *L, const Plan *pl, Tree *t, MT *m, int64_t iterations, double c,
                   double deadline, int64_t n_root, int32_t *path, int64_t *kbuf, int64_t kcap, int32_t *untried,
                   int32_t *kids, int64_t *koff, int64_t *itp, int32_t *why, int *rc) {
    int32_t root = tree_node(t, -1);
    while (*itp < iterations) {
        if (deadline > 0 && *itp && now_s() >= deadline) break;
        *itp += 1;
        make_world(w, b, pl, m);
        ensure_listing(w);           /* world.legal_action_count(): made (and charged) now */
        if (w->lst.n != n_root) { *why = B_STATE; *rc = 3; return; }
        int32_t np = 0;
        path[np++] = root;
        int32_t node = root;
        int32_t actor = w->actor;
        int below = 0;               /* keys: positions at the root, (actor, action, args) below */
        for (;;) {
            Listing *l = &w->lst;
            int32_t n = l->n, nun = 0;
            if (n > MAX_SEARCH) { *why = B_LIMIT; *rc = 2; return; }
            int64_t kat = 0;
            for (int32_t i = 0; i < n; i++) {     /* each key's tokens, then its child if any */
                int64_t *k = kbuf + kat;
                int64_t at = 0;
                if (!below) {
                    k[at++] = -1;
                    k[at++] = i;
                } else {
                    int32_t act = l->act[i];
                    int32_t npar = act < 0 ? 0 : L->act_np[act];
                    k[at++] = actor;
                    k[at++] = act;
                    V *pv = lst_pairs(l, i);
                    for (int32_t j = 0; j < npar; j++) at = key_tokens(pv[2 * j], k, at, kcap - kat);
                    if (at > kcap - kat) { *why = B_LIMIT; *rc = 2; return; }
                }
                koff[i] = kat;
                uint64_t h = hash_tokens(k, at);
                int32_t ch = child_find(t, &t->nodes[node], h, k, at);
                kids[i] = ch;
                if (ch < 0) untried[nun++] = i;
                else t->nodes[ch].avail += 1;
                kat += at;
            }
            koff[n] = kat;
            if (nun) {
                int32_t i = nun > 1 ? untried[mt_randbelow(m, nun)] : untried[0];
                int32_t ch = tree_node(t, actor);
                if (ch < 0) { *why = B_MEMORY; *rc = 2; return; }
                int64_t len = koff[i + 1] - koff[i];
                int64_t *dst = tree_keys(t, len);
                if (dst == NULL) { *why = B_MEMORY; *rc = 2; return; }
                memcpy(dst, kbuf + koff[i], (size_t)len * sizeof(int64_t));
                Node *cn = &t->nodes[ch];
                cn->avail = 1;
                cn->keyoff = (int32_t)(dst - t->keys);
                cn->keylen = (int32_t)len;
                cn->keyhash = hash_tokens(dst, len);
                if (child_add(t, node, ch) != 0) { *why = B_MEMORY; *rc = 2; return; }
                rt_flip(w);
                L->apply(w, i);
                path[np++] = ch;
                break;
            }
            int32_t best_i = 0;
            double best_v = -1.0;
            for (int32_t i = 0; i < n; i++) {
                Node *cn = &t->nodes[kids[i]];
                double v = cn->reward / (double)cn->visits + c * sqrt(log((double)cn->avail) / (double)cn->visits);
                if (v > best_v) { best_i = i; best_v = v; }
            }
            node = kids[best_i];
            rt_flip(w);
            L->apply(w, best_i);
            path[np++] = node;
            if (np >= MAX_SEARCH) { *why = B_LIMIT; *rc = 2; return; }
            if (w->terminal) break;
            ensure_listing(w);
            actor = w->actor;
            below = 1;
        }
        if (!w->terminal) play_random(w, m, NULL, 0, NULL);
        if (!scores_ok(w)) rt_stop(w, B_TYPE);
        int nw = __builtin_popcountll(w->winners);
        double share = nw ? 1.0 / (double)nw : 0.0;
        for (int32_t k = 0; k < np; k++) {
            Node *x = &t->nodes[path[k]];
            x->visits += 1;
            if (x->player >= 0 && ((w->winners >> x->player) & 1)) x->reward += share;
        }
    }
}

GS_EXPORT int gs_ismcts(void *ctx, void *wctx, const int64_t *plan, int64_t plan_len, int64_t iterations,
                        double c, double deadline, int64_t n_root, uint32_t *mt, int64_t *visits,
                        double *reward, int64_t *done_it, int32_t *why) {
    Ctx *cx = (Ctx *)ctx;
    G *b = &cx->g;                  /* the loaded real state */
    G *w = &((Ctx *)wctx)->g;       /* the world each iteration plays */
    const Layout *L = b->L;
    const int64_t kcap = 1 << 16;
    /* everything the search allocates is made before setjmp (a fault jumps back here) */
    MT *m = (MT *)malloc(sizeof(MT));
    Plan *pl = (Plan *)malloc(sizeof(Plan));
    Tree *tp = (Tree *)calloc(1, sizeof(Tree));
    int32_t *path = (int32_t *)malloc((size_t)100064 * sizeof(int32_t));
    int64_t *kbuf = (int64_t *)malloc((size_t)kcap * sizeof(int64_t));
    int32_t *untried = (int32_t *)malloc((size_t)100001 * sizeof(int32_t));
    int32_t *kids = (int32_t *)malloc((size_t)100001 * sizeof(int32_t));
    int64_t *koff = (int64_t *)malloc((size_t)100002 * sizeof(int64_t));
    int64_t *itp = (int64_t *)calloc(1, sizeof(int64_t));
    int rc = 0;
    jmp_buf jb;
    if (!m || !pl || !tp || !path || !kbuf || !untried || !kids || !koff || !itp) {
        *why = B_MEMORY;
        rc = 2;
        goto out;
    }
    mt_from(m, mt);
    b->jb = &jb;
    w->jb = &jb;
    if (setjmp(jb) != 0) {
        *why = b->why ? b->why : w->why;
        rc = 1;
        goto out;
    }
    if (read_plan(b, pl, plan, plan_len) != 0) { *why = B_STATE; rc = 2; goto out; }
    search(b, w, L, pl, tp, m, iterations, c, deadline, n_root, path, kbuf, kcap, untried, kids, koff, itp, why, &rc);
    if (rc == 0) {
        Tree *t = tp;
        for (int64_t i = 0; i < n_root; i++) { visits[i] = 0; reward[i] = 0.0; }
        Node *r = &t->nodes[0];
        for (int32_t k = 0; k < r->nch; k++) {
            Node *x = &t->nodes[r->ch[k]];
            int64_t i = t->keys[x->keyoff + 1];       /* a root key: (-1, position) */
            if (i >= 0 && i < n_root) { visits[i] = x->visits; reward[i] = x->reward; }
        }
        *done_it = *itp;
        mt_to(m, mt);
        *why = 0;
    }
out:
    if (tp) { tree_free(tp); free(tp); }
    free(m); free(pl); free(path); free(kbuf); free(untried); free(kids); free(koff); free(itp);
    b->jb = NULL;
    w->jb = NULL;
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* reaction windows (gamespec/compile/flow.py, make_window; docs/native.md "Reaction windows")  */
/* The generated flow calls these with its slot numbers (constants of the layout, checked here). */
/* ------------------------------------------------------------------------------------------ */
static Flow *win_slot(G *g, int slot) {
    if (GS_UNLIKELY(slot < 0 || slot >= g->L->nfor)) rt_stop(g, B_STATE);
    return &g->ff[slot];
}

static List *win_took(G *g, int tslot) {     /* an open window's responders so far */
    Flow *t = win_slot(g, tslot);
    if (GS_UNLIKELY(!t->has_var || t->var.t != T_LIST)) rt_stop(g, B_STATE);
    return LST(t->var);
}

void rt_win_open(G *g, int lslot, int tslot) {      /* window_open: flow._seats, then took = [] */
    Flow *f = win_slot(g, lslot);
    if (GS_UNLIKELY(!f->active || f->items.t != T_LIST)) rt_stop(g, B_STATE);
    const List *l = LST(f->items);
    uint64_t seen = 0;
    for (int32_t k = 0; k < l->n; k++) {
        V p = l->a[k];
        if (p.t != T_INT || p.i < 0 || p.i >= g->L->P) rt_stop(g, F_PLAYER);
        if (seen & ((uint64_t)1 << p.i)) rt_stop(g, F_REACT);
        seen |= (uint64_t)1 << p.i;
    }
    Flow *t = win_slot(g, tslot);
    t->has_var = 1;
    t->var = vlist(&EMPTY_LIST);
}

void rt_win_note(G *g, int tslot, int64_t p) {      /* State.apply / the reveal's note: took += [p] */
    const List *l = win_took(g, tslot);
    if (GS_UNLIKELY(l->n >= 64)) rt_stop(g, B_STATE);      /* seats, each once: at most P */
    List *o = list_new(g, l->n + 1);
    for (int32_t k = 0; k < l->n; k++) o->a[k] = l->a[k];
    o->a[l->n] = vint(p);
    g->ff[tslot].var = vlist(o);
}

int rt_win_took(G *g, int tslot) { return win_took(g, tslot)->n > 0; }

void rt_win_close(G *g, int tslot, int oslot, int every) {     /* window_close */
    List *l = win_took(g, tslot);
    Flow *t = &g->ff[tslot], *o = win_slot(g, oslot);
    t->has_var = 0;
    t->var = vnone();
    o->has_var = 1;
    o->var = every ? vlist(l) : (l->n ? l->a[0] : vnone());   /* (lists never change: shared) */
}

int rt_win_some(G *g, int oslot, int every) {      /* window_branch: then (1) or else (0) */
    Flow *o = win_slot(g, oslot);
    if (GS_UNLIKELY(!o->has_var)) rt_stop(g, B_STATE);
    if (every) {
        if (GS_UNLIKELY(o->var.t != T_LIST)) rt_stop(g, B_STATE);
        return LST(o->var)->n > 0;
    }
    return o->var.t != T_NONE;
}

void rt_win_done(G *g, int oslot) {                 /* window_done: the outcome dropped */
    Flow *o = win_slot(g, oslot);
    o->has_var = 0;
    o->var = vnone();
}

/* ------------------------------------------------------------------------------------------ */
/* agents: the per-step state and the vector environment (step.c; docs/agents.md)             */
/* ------------------------------------------------------------------------------------------ */
#include "step.c"

/* ------------------------------------------------------------------------------------------ */
/* combinatorics: subsets, combinations, permutations, product, runs (combi.c; docs/native.md) */
/* ------------------------------------------------------------------------------------------ */
#include "combi.c"

/* ------------------------------------------------------------------------------------------ */
/* the determinization plan built in C (plan.c; interpreter/determinize.py's)                 */
/* ------------------------------------------------------------------------------------------ */
#include "plan.c"
