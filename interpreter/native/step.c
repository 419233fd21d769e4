/* Agents at native speed (docs/agents.md, "The native per-step state"): one game kept in its C
 * struct and stepped one decision at a time by fixed action id, its legal ids, action mask and
 * observation tensor computed here from the tables the generator emits (agent.h, GS_AGENT: the
 * action space of gamespec/compile/action_space.py and the layout of interpreter/obs_tensor.py),
 * and the vector environment's batched step (opponent seats played here, threads).
 *
 * Included at the end of runtime.c (it uses the run time's own statics: Ctx, g_new_game, g_copy,
 * ensure_listing, rt_flip). Every table index is checked against its table's size; an id outside
 * the action space, a value of an unexpected kind or any stop of the game is reported to Python,
 * which then plays the game on the Python engine from its recorded ids (same game, its own errors). */
#include "agent.h"
#include <pthread.h>
#include <unistd.h>
#include <stddef.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#define POOL_PACED 1          /* a monotonic clock for the condition variable's timed wait, a timer slack */
#else
#define POOL_PACED 0
#endif

extern const AgentTables GS_AGENT;

enum { W_IDS = 200, W_OBS = 201, W_RANGE = 202 };   /* not a game's stop: the tables cannot say, a value does not
                                                       fit the row's type (Python decides, or names it) */

typedef struct { int64_t at; double val; } BadPlace;    /* the first place whose value did not fit (at -1: none) */

typedef struct AState {
    Ctx *c;                  /* G and the opponents' generator (the seats' generators cut off) */
    int32_t n, cap;          /* the legal entries, their ids in listing order */
    int64_t *ids;
    int32_t why;             /* the first stop (a why code), 0 while the game runs in C */
    int32_t have_ids;        /* ids[] is the listing's (opponents in C need none: made when asked) */
    uint8_t fin_dirty[2];    /* VectorEnv: per buffer set, this env's final-observation row holds a tensor */
    BadPlace bad;            /* VectorEnv: where a row's value did not fit its type (at -1: none) */
    uint64_t pick_seed;      /* the game's seed: `pick` is seeded from it at the first opponent's choice (a */
    int32_t pick_ready;      /* Mersenne Twister's seeding is ~3,000 instructions; without opponents, never) */
    int64_t ism_iters; double ism_c; void *ism_world;   /* ISMCTS opponents (plan.c, gs_st_set_ismcts) */
} AState;

static inline uint64_t st_vis(const G *g, int64_t c) {   /* State._sight: who sees card c where it lies */
    return (g->nface && g->face[c]) ? (g->face[c] == 1 ? g->L->ALL : 0) : g->L->zvis[g->loc[c]];
}

/* ---- ids (action_space.ActionSpace._id) --------------------------------------------------- */
static int64_t card_id(G *g, const ACards *cd, int64_t c) {
    const Layout *L = g->L;
    if (c < 0 || c >= L->ncards) return -1;
    uint64_t bit = (uint64_t)1 << g->actor;
    if ((st_vis(g, c) | g->kn[c]) & bit) {
        int32_t f = L->face_of[c];
        return (f >= 0 && f < L->nfaces) ? cd->face_pos[f] : -1;
    }
    int32_t zi = g->loc[c];
    if (zi < 0 || zi >= L->nzones) return -1;
    int32_t k = cd->zone_pos[zi];
    if (k < 0) return -1;
    const Zone *z = &g->z[zi];
    int64_t pos = 0;
    int found = 0;
    if (!L->is_set[zi]) {
        for (int32_t i = 0; i < z->n; i++) if (z->a[i] == c) { pos = i; found = 1; break; }
    } else {
        for (int32_t i = 0; i < z->n; i++) {
            int32_t x = z->a[i];
            if (x == c) { found = 1; break; }
            if (!((st_vis(g, x) | g->kn[x]) & bit)) pos++;
        }
    }
    if (!found || pos >= cd->cap) return -1;
    return cd->nfaces + (int64_t)k * cd->cap + pos;
}

static int64_t comb(int64_t n, int64_t r) {      /* math.comb, for results below 2**62 */
    if (r < 0 || n < 0 || r > n) return 0;
    if (r > n - r) r = n - r;
    __int128 x = 1;
    for (int64_t i = 0; i < r; i++) {
        x = x * (n - i) / (i + 1);
        if (x > ((__int128)1 << 62)) return -1;
    }
    return (int64_t)x;
}

static int64_t subset_id(G *g, const ADom *d, const ACards *cd, V cards) {
    if (cards.t != T_LIST) return -1;
    const List *l = LST(cards);
    int64_t k = l->n;
    if (k < d->lo || k > d->hi) return -1;
    int64_t small[64];
    int64_t *items = k <= 64 ? small : (int64_t *)malloc((size_t)k * sizeof(int64_t));
    if (items == NULL) return -1;
    int64_t r = -1;
    for (int64_t j = 0; j < k; j++) {
        if (l->a[j].t != T_INT) goto out;
        items[j] = card_id(g, cd, l->a[j].i);
        if (items[j] < 0) goto out;
    }
    qsort(items, (size_t)k, sizeof(int64_t), cmp_i64);
    r = d->size_off[k - d->lo];
    for (int64_t j = 0; j < k; j++) {
        int64_t c = comb(items[j] + j, j + 1);
        if (c < 0) { r = -1; goto out; }
        r += c;
    }
    if (r >= d->size) r = -1;
out:
    if (items != small) free(items);
    return r;
}

/* the last card placed (card, its domain, its place): a listing names a card in several entries in a
 * row (Bacchus's "send": a card with each column), and placing a card the seat cannot see scans its zone */
typedef struct { int64_t card; int32_t dom; int64_t x; } CardMemo;

static inline int64_t entry_id(G *g, int32_t k, CardMemo *cm) {
    const AgentTables *A = &GS_AGENT;
    const Layout *L = g->L;
    int32_t act = g->lst.act[k];
    if (act < 0) return 0;                  /* the skip */
    if (act >= L->nactions) return -1;
    const V *pr = lst_pairs(&g->lst, k);
    int32_t np = L->act_np[act];
    const ADom *d = &A->doms[A->act_dom[act]];
    int64_t id = 0;
    for (int32_t j = 0; j < np; j++, d++) {
        V a = pr[2 * j], b = pr[2 * j + 1];
        int64_t x = -1;
        switch (d->kind) {
        case AD_VALUES:
            if (d->vidx != NULL) {          /* every value has the tag vtag: another tag is in no place */
                int64_t k = a.i - d->vlo;
                if (a.t == d->vtag && k >= 0 && k < d->vspan) x = d->vidx[k];
            } else {
                for (int32_t t = 0; t < d->nvals; t++) if (v_same(a, d->vals[t])) { x = t; break; }
            }
            break;
        case AD_RANGE:
            if (a.t == T_INT && a.i - d->lo >= 0 && a.i - d->lo < d->size) x = a.i - d->lo;
            break;
        case AD_CARDS:
            if (b.t != T_INT) break;
            if (b.i == cm->card && d->cards == cm->dom) { x = cm->x; break; }
            x = card_id(g, &A->cards[d->cards], b.i);
            cm->card = b.i; cm->dom = d->cards; cm->x = x;
            break;
        default:
            x = subset_id(g, d, &A->cards[d->cards], b);
        }
        if (x < 0) return -1;
        id = id * d->size + x;
    }
    return A->act_base[act] + id;
}

/* after a decision (or at a new game): the next listing made (as play_random makes it) */
static void st_prepare(AState *s) {
    G *g = &s->c->g;
    s->n = 0;
    s->have_ids = 0;
    if (g->terminal) { s->have_ids = 1; return; }
    rt_flip(g);
    ensure_listing(g);
    if (g->lst.n <= 0) rt_stop(g, B_STATE);
}

/* the listing's ids (under the caller's setjmp) */
static void st_ids_in(AState *s) {
    G *g = &s->c->g;
    if (s->have_ids) return;
    int32_t n = g->lst.n;
    if (n > s->cap) {
        int32_t cap = s->cap ? s->cap : 64;
        while (cap < n) cap *= 2;
        int64_t *ids = (int64_t *)realloc(s->ids, (size_t)cap * sizeof(int64_t));
        if (ids == NULL) rt_stop(g, B_MEMORY);
        s->ids = ids;
        s->cap = cap;
    }
    CardMemo cm = {-1, -1, -1};
    for (int32_t k = 0; k < n; k++) {
        int64_t id = entry_id(g, k, &cm);
        if (id < 0) rt_stop(g, W_IDS);
        s->ids[k] = id;
    }
    s->n = n;
    s->have_ids = 1;
}

static int st_ids(AState *s) {     /* 0, or -why */
    if (s->have_ids || s->why) return s->why ? -s->why : 0;
    G *g = &s->c->g;
    jmp_buf jb;
    g->jb = &jb;
    if (setjmp(jb) != 0) { g->jb = NULL; s->why = g->why ? g->why : B_STATE; s->n = 0; return -s->why; }
    st_ids_in(s);
    g->jb = NULL;
    return 0;
}

GS_EXPORT int gs_agent_tables(int64_t *out) {    /* [action space ok, N, observations ok, size, P] */
    out[0] = GS_AGENT.ok; out[1] = GS_AGENT.nids; out[2] = GS_AGENT.obs_ok; out[3] = GS_AGENT.obs_size;
    out[4] = GS_LAYOUT.P;
    return GS_AGENT.ok;
}

GS_EXPORT void *gs_st_new(void) {
    Ctx *c = (Ctx *)gs_new();
    if (c == NULL) return NULL;
    /* a per-step state needs no seats' generators: keep G and `pick` only (G holds no pointer to itself) */
    Ctx *small = (Ctx *)realloc(c, offsetof(Ctx, seats));
    if (small != NULL) c = small;
    AState *s = (AState *)calloc(1, sizeof(AState));
    if (s == NULL) { gs_free(c); return NULL; }
    s->c = c;
    return s;
}

GS_EXPORT void gs_st_free(void *p) {
    if (p == NULL) return;
    AState *s = (AState *)p;
    gs_free(s->c);
    free(s->ids);
    if (s->ism_world != NULL) gs_st_free(s->ism_world);
    free(s);
}

/* a new game (State.new(seed)); the opponents' generator seeded with random.Random(seed)'s */
static int st_reset(AState *s, uint64_t seed) {
    G *g = &s->c->g;
    jmp_buf jb;
    g->jb = &jb;
    s->n = 0;
    if (setjmp(jb) != 0) { g->jb = NULL; s->why = g->why ? g->why : B_STATE; return -s->why; }
    g_new_game(g, seed);
    s->pick_seed = seed;
    s->pick_ready = 0;
    s->why = 0;
    st_prepare(s);
    g->jb = NULL;
    return 0;
}

GS_EXPORT int gs_st_reset(void *p, uint64_t seed) {
    int rc = st_reset((AState *)p, seed);
    return rc ? rc : st_ids((AState *)p);
}

/* a Python State flattened (native_engine.flatten, runtime.c's load_state checks it): 0, or not 0 */
GS_EXPORT int gs_st_load(void *p, const int64_t *buf, int64_t len) {
    AState *s = (AState *)p;
    G *g = &s->c->g;
    jmp_buf jb;
    g->jb = &jb;
    s->n = 0;
    if (setjmp(jb) != 0) { g->jb = NULL; s->why = g->why ? g->why : B_STATE; return -s->why; }
    int rc = load_state(g, buf, len);
    if (rc != 0) { g->jb = NULL; s->why = B_STATE; return rc > 0 ? rc : -rc + 1; }
    s->why = 0;
    st_prepare(s);
    st_ids_in(s);
    g->jb = NULL;
    return 0;
}

/* one decision by entry k, then the next listing; 0 or -why */
static int st_apply_entry(AState *s, int32_t k) {
    G *g = &s->c->g;
    jmp_buf jb;
    g->jb = &jb;
    if (setjmp(jb) != 0) { g->jb = NULL; s->why = g->why ? g->why : B_STATE; s->n = 0; return -s->why; }
    g->L->apply(g, k);
    st_prepare(s);
    g->jb = NULL;
    return 0;
}

static int32_t st_find(const AState *s, int64_t id) {
    for (int32_t k = 0; k < s->n; k++) if (s->ids[k] == id) return k;
    return -1;
}

GS_EXPORT void gs_st_info(void *p, int32_t *info) {     /* [terminal, actor, legal entries, why, decisions] */
    AState *s = (AState *)p;
    G *g = &s->c->g;
    info[0] = g->terminal; info[1] = g->actor; info[2] = s->n; info[3] = s->why;
    info[4] = g->decisions > INT32_MAX ? INT32_MAX : (int32_t)g->decisions;
}

/* a traced game's scores after a decision (simulate.GameTrace.after): the score expression of each
 * of `units` seats (or teams, where the spec scores teams), each with a rule's allowance of steps and
 * the game's budget and steps put back; a fault or a value that is no number counts 0. 0, or -1 if
 * C cannot say (a bail: the Python engine evaluates them) */
GS_EXPORT int gs_st_trace_scores(void *p, int64_t units, int64_t *out) {
    AState *s = (AState *)p;
    G *g = &s->c->g;
    if (s->why || g->L->score == NULL || units < 1 || units > 64) return -1;
    int64_t budget = g->budget, spent = g->spent;
    int32_t why0 = g->why;
    int rc = 0;
    for (int64_t u = 0; u < units; u++) {
        V v;
        int why = trace_score(g, u, &v);
        g->budget = budget;
        g->spent = spent;
        if (why >= 64) { rc = -1; break; }
        out[u] = why != 0 ? 0 : isnum(v) ? v.i : 0;
    }
    g->why = why0;
    return rc;
}

GS_EXPORT void gs_st_progress(void *p, int64_t *out) {      /* [turns, phase] (State.turns, State.phase) */
    const G *g = &((AState *)p)->c->g;
    out[0] = g->turns;
    out[1] = g->phase;
}

/* the decision with fixed id `id`: 1 if it is not legal now (nothing changes), 0 done, -why stopped;
 * afterwards info as gs_st_info and the legal ids in listing order (all of them if cap allows) */
GS_EXPORT int gs_st_apply(void *p, int64_t id, int32_t *info, int64_t *ids, int64_t cap) {
    AState *s = (AState *)p;
    G *g = &s->c->g;
    int rc = st_ids(s) ? -s->why : 1;
    if (rc == 1 && !g->terminal) {
        int32_t k = st_find(s, id);
        if (k >= 0) rc = st_apply_entry(s, k);
        if (rc == 0) rc = st_ids(s);
    }
    gs_st_info(p, info);
    if (s->n <= cap) memcpy(ids, s->ids, (size_t)s->n * sizeof(int64_t));
    return rc;
}

/* the legal ids, in listing order (State's legal_actions order), at most cap; returns how many there are */
GS_EXPORT int64_t gs_st_ids(void *p, int64_t *out, int64_t cap) {
    AState *s = (AState *)p;
    for (int64_t k = 0; k < s->n && k < cap; k++) out[k] = s->ids[k];
    return s->n;
}

GS_EXPORT void gs_st_mask(void *p, int8_t *out) {     /* N bytes, 1 where an id is legal */
    AState *s = (AState *)p;
    memset(out, 0, (size_t)GS_AGENT.nids);
    for (int32_t k = 0; k < s->n; k++) if (s->ids[k] >= 0 && s->ids[k] < GS_AGENT.nids) out[s->ids[k]] = 1;
}

/* the final scores (value and tag) and winners; 0, or -1 before the end */
GS_EXPORT int gs_st_result(void *p, int64_t *scores, int32_t *tags, uint64_t *winners) {
    AState *s = (AState *)p;
    G *g = &s->c->g;
    if (!g->terminal) return -1;
    results(g, scores, tags, winners, &(int64_t){0});
    return 0;
}

/* a deep copy: its own lists, the listing made (as State.clone shares it: never charged again) */
GS_EXPORT int gs_st_clone(void *dst, void *src) {
    AState *d = (AState *)dst, *s = (AState *)src;
    G *w = &d->c->g;
    const G *b = &s->c->g;
    const Layout *L = b->L;
    jmp_buf jb;
    w->jb = &jb;
    if (setjmp(jb) != 0) { w->jb = NULL; return -1; }
    g_copy(w, b);
    for (int32_t k = 0; k < L->nvars; k++) w->v[k] = rt_copy_root(w, b->v[k]);
    for (int32_t k = 0; k < L->nfor; k++) {
        w->ff[k].items = rt_copy_root(w, b->ff[k].items);
        w->ff[k].var = rt_copy_root(w, b->ff[k].var);
    }
    for (int32_t k = 0; k < b->nstored; k++) w->stored[k].args = rt_copy_root(w, b->stored[k].args);
    for (int32_t p = 0; p < L->P; p++) w->scores[p] = rt_copy_root(w, b->scores[p]);
    w->winners = b->winners;
    lst_reset(&w->lst);
    if (b->has_listing) {
        for (int32_t k = 0; k < b->lst.n; k++) {
            int32_t act = b->lst.act[k];
            int32_t np = act < 0 ? 0 : L->act_np[act];
            int32_t off = lst_entry(w, &w->lst, act, np);
            const V *pv = b->lst.vals + b->lst.off[k];
            for (int32_t j = 0; j < 2 * np; j++) w->lst.vals[off + j] = rt_copy_to_listing(w, &w->lst, pv[j]);
        }
    }
    w->has_listing = b->has_listing;
    memcpy(&d->c->pick, &s->c->pick, sizeof(MT));
    d->pick_seed = s->pick_seed;
    d->pick_ready = s->pick_ready;
    w->jb = NULL;
    if (d->cap < s->n) {
        int64_t *ids = (int64_t *)realloc(d->ids, (size_t)s->n * sizeof(int64_t));
        if (ids == NULL) return -1;
        d->ids = ids;
        d->cap = s->n;
    }
    memcpy(d->ids, s->ids, (size_t)s->n * sizeof(int64_t));
    d->n = s->n;
    d->why = s->why;
    d->have_ids = s->have_ids;
    return 0;
}

/* ---- the observation tensor (obs_tensor.ObservationEncoder.encode) ---------------------------- */
/* The element type of a tensor row: float32 (the default), or a whole-number type where every value
 * fits (VectorEnv's obs_dtype): counts, one-hots and values are whole numbers, so a narrower row holds
 * the same tensor in 2-4x fewer bytes. A value that does not fit is never clipped: the writer reports it
 * (W_RANGE) and Python names the place. */
enum { OT_F32 = 0, OT_I16 = 1, OT_I8 = 2, OT_U8 = 3 };
static const int64_t OT_SIZE[4] = {4, 2, 1, 1};

#define GS_INLINE static inline __attribute__((always_inline))

GS_INLINE int ob_put(void *t, const int kind, int64_t i, double x) {    /* t[i] = x; 0: x does not fit */
    switch (kind) {
    case OT_F32: ((float *)t)[i] = (float)x; return 1;
    case OT_I16: if (x >= -32768.0 && x <= 32767.0) { ((int16_t *)t)[i] = (int16_t)x; return 1; } return 0;
    case OT_I8: if (x >= -128.0 && x <= 127.0) { ((int8_t *)t)[i] = (int8_t)x; return 1; } return 0;
    default: if (x >= 0.0 && x <= 255.0) { ((uint8_t *)t)[i] = (uint8_t)x; return 1; } return 0;
    }
}

GS_INLINE void ob_one(void *t, const int kind, int64_t i) {                   /* t[i] = 1 (a one-hot) */
    switch (kind) {
    case OT_F32: ((float *)t)[i] = 1.0f; break;
    case OT_I16: ((int16_t *)t)[i] = 1; break;
    case OT_I8: ((int8_t *)t)[i] = 1; break;
    default: ((uint8_t *)t)[i] = 1;
    }
}

GS_INLINE int ob_inc(void *t, const int kind, int64_t i) {        /* t[i] += 1 (a count); 0: it does not fit */
    switch (kind) {
    case OT_F32: ((float *)t)[i] += 1.0f; return 1;
    case OT_I16: if (((int16_t *)t)[i] < 32767) { ((int16_t *)t)[i]++; return 1; } return 0;
    case OT_I8: if (((int8_t *)t)[i] < 127) { ((int8_t *)t)[i]++; return 1; } return 0;
    default: if (((uint8_t *)t)[i] < 255) { ((uint8_t *)t)[i]++; return 1; } return 0;
    }
}

/* every index is checked against the tensor's size; the first value that does not fit is kept (bad) */
#define BADAT(i, x) do { if (!rb && bad != NULL) { bad->at = (i); bad->val = (x); } rb = 1; } while (0)
#define put(i, x) do { int64_t i_ = (i); double x_ = (double)(x); \
        if (i_ >= 0 && i_ < S && !ob_put(t, kind, i_, x_)) BADAT(i_, x_); } while (0)
#define one(i) do { int64_t i_ = (i); if (i_ >= 0 && i_ < S) ob_one(t, kind, i_); } while (0)
#define add1(i) do { int64_t i_ = (i); \
        if (i_ >= 0 && i_ < S && !ob_inc(t, kind, i_)) BADAT(i_, 1.0 + (kind == OT_I16 ? 32767 : kind == OT_I8 ? 127 : 255)); } while (0)
/* add1 and one at a place already proved within 0..S-1 (a zone's face block or its top's, checked per zone) */
#define add1_in(i) do { int64_t i_ = (i); \
        if (!ob_inc(t, kind, i_)) BADAT(i_, 1.0 + (kind == OT_I16 ? 32767 : kind == OT_I8 ? 127 : 255)); } while (0)
#define one_in(i) ob_one(t, kind, (i))

/* every card's face within 0..nfaces-1, checked once per library (its tables are constants): the
 * writer's card loops then index a zone's face block, whose bounds the zone's own check proved, with no
 * check per card (Bacchus: ~400 instructions a row fewer) */
static int faces_in_range(const Layout *L) {
    static int state;          /* 0 not checked yet, 1 every face in range, 2 not (the writer refuses) */
    int st = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (st == 0) {
        st = 1;
        for (int32_t c = 0; c < L->ncards; c++)
            if (L->face_of[c] < 0 || L->face_of[c] >= L->nfaces) st = 2;
        __atomic_store_n(&state, st, __ATOMIC_RELEASE);
    }
    return st == 1;
}

/* the tensor of player p into t (zeroed first), its elements of type `kind` (a constant where it is
 * inlined: one copy of the writer per type); 0, -1 (a table or a value the tables cannot place), or
 * W_RANGE (a value that does not fit the type: its place and value in *bad if not NULL) */
GS_INLINE int write_obs_k(const G *g, int64_t p, void *t, const int kind, BadPlace *bad) {
    const AgentTables *A = &GS_AGENT;
    const Layout *L = g->L;
    int64_t S = A->obs_size;
    if (!A->obs_ok || p < 0 || p >= L->P || !faces_in_range(L)) return -1;
    memset(t, 0, (size_t)(S * OT_SIZE[kind]));
    int rb = 0;
    int64_t P = L->P, F = L->nfaces, F1 = L->nfaces + 1;
    one(A->o_player + p);
    one(A->o_to_move + (g->terminal ? P : g->actor));
    if (g->phase >= 0) one(A->o_phase + g->phase);
    uint64_t bit = (uint64_t)1 << p;
    int64_t depth = A->depth;
    /* the zones' pieces, zone by zone, the tables' pointers in locals (the tensor's stores could alias
     * them for the compiler: -fno-strict-aliasing), one loop per case: a zone p sees or not, cards turned
     * or not. A card counts by face where p sees it (its zone's sight, or face up) or knows it. */
    const int32_t *face_of = L->face_of, *oz = A->oz;
    const uint64_t *kn = g->kn, *zvis = L->zvis;
    const uint8_t *fc = g->nface ? g->face : NULL;
    const Zone *zs = g->z;
    const int32_t NZ = L->nzones, NC = L->ncards;
    for (int32_t zi = 0; zi < NZ; zi++) {
        const Zone *z = &zs[zi];
        const int32_t n = z->n;
        if (!n) continue;
        const int32_t *o = oz + 4 * zi;
        if (o[1] < 0 || o[1] + F > S) return -1;
        put(o[0], n);
        const int64_t faces = o[1];
        const int32_t *za = z->a;
        const int zseen = (zvis[zi] & bit) != 0;
        int32_t h = 0;
        if (zseen && fc == NULL) {
            for (int32_t i = 0; i < n; i++) {
                const int32_t c = za[i];
                if ((uint32_t)c >= (uint32_t)NC) return -1;
                add1_in(faces + face_of[c]);
            }
        } else if (zseen) {               /* seen, save a card face down p does not know */
            for (int32_t i = 0; i < n; i++) {
                const int32_t c = za[i];
                if ((uint32_t)c >= (uint32_t)NC) return -1;
                if (fc[c] == 2 && !(kn[c] & bit)) h++;
                else add1_in(faces + face_of[c]);
            }
        } else if (fc == NULL) {          /* hidden, save the cards p knows */
            for (int32_t i = 0; i < n; i++) {
                const int32_t c = za[i];
                if ((uint32_t)c >= (uint32_t)NC) return -1;
                if (kn[c] & bit) add1_in(faces + face_of[c]);
                else h++;
            }
        } else {                          /* hidden, save the cards face up or known */
            for (int32_t i = 0; i < n; i++) {
                const int32_t c = za[i];
                if ((uint32_t)c >= (uint32_t)NC) return -1;
                if (fc[c] == 1 || (kn[c] & bit)) add1_in(faces + face_of[c]);
                else h++;
            }
        }
        if (h) put(o[2], h);
        if (o[3] >= 0) {
            const int64_t top = o[3];
            if (top + (depth < n ? depth : n) * F1 > S) return -1;
            for (int64_t d = 0; d < depth && d < n; d++) {
                const int32_t c = za[n - 1 - d];
                int sn = fc != NULL && fc[c] ? fc[c] == 1 : zseen;
                sn = sn || (kn[c] & bit);
                one_in(top + d * F1 + (sn ? face_of[c] : F));
            }
        }
    }
    for (int32_t e = 0; e < A->nmk; e++) {
        const int32_t *o = A->omk + 4 * e;
        int32_t zi = o[0], m = o[1];
        if (zi < 0 || zi >= L->nzones || m < 0 || m >= L->nmarks) return -1;
        const Zone *z = &g->z[zi];
        int32_t n = z->n;
        if (!n) continue;
        int64_t sight = A->mark_sight[m];
        if (sight != -1 && !((uint64_t)sight & bit)) continue;
        const int64_t *col = g->mk + (int64_t)m * L->ncards;
        __int128 sum = 0;
        for (int32_t i = 0; i < n; i++)
            if (sight != -1 || (st_vis(g, z->a[i]) & bit)) sum += col[z->a[i]];
        put(o[2], (double)sum);
        if (o[3] >= 0)
            for (int64_t d = 0; d < depth && d < n; d++) {
                int32_t c = z->a[n - 1 - d];
                if (sight != -1 || (st_vis(g, c) & bit)) put(o[3] + d, (double)col[c]);
            }
    }
    for (int32_t e = 0; e < A->nov; e++) {
        const int32_t *o = A->ov + 3 * e;
        if (!(A->ov_sight[e] & bit)) continue;
        if (o[0] < 0 || o[0] >= L->nvars) return -1;
        V v = g->v[o[0]];
        int64_t off = o[2];
        if (v.t == T_NONE) continue;
        switch (o[1]) {
        case 0:
            if (!isnum(v)) return -1;
            put(off, (double)v.i);
            one(off + 1);
            break;
        case 1:
            one(off + 1);
            break;
        case 2:
            one(off + ((isnum(v) && v.i >= 0 && v.i < P) ? v.i : P));
            break;
        case 3:
            if (v.t != T_INT || v.i < 0 || v.i >= L->ncards) return -1;
            if ((st_vis(g, v.i) | g->kn[v.i]) & bit) {
                one(off + A->face_slot[L->face_of[v.i]]);
                one(off + F);
            }
            break;
        default: {
            if (v.t != T_LIST) return -1;
            const List *l = LST(v);
            if (o[1] == 4)
                for (int32_t i = 0; i < l->n; i++) {
                    V x = l->a[i];
                    if (x.t == T_NONE) continue;
                    if (x.t != T_INT || x.i < 0 || x.i >= L->ncards) return -1;
                    if ((st_vis(g, x.i) | g->kn[x.i]) & bit) add1(off + A->face_slot[L->face_of[x.i]]);
                }
            put(off + F, l->n);
            one(off + F + 1);
        }
        }
    }
    return rb ? W_RANGE : 0;
}
#undef BADAT
#undef put
#undef one
#undef add1
#undef add1_in
#undef one_in

static int write_obs(const G *g, int64_t p, void *t, int kind, BadPlace *bad) {   /* one writer per type */
    switch (kind) {
    case OT_F32: return write_obs_k(g, p, t, OT_F32, bad);
    case OT_I16: return write_obs_k(g, p, t, OT_I16, bad);
    case OT_I8: return write_obs_k(g, p, t, OT_I8, bad);
    case OT_U8: return write_obs_k(g, p, t, OT_U8, bad);
    default: return -1;
    }
}

GS_EXPORT int gs_st_obs(void *p, int64_t player, float *out) {
    AState *s = (AState *)p;
    return write_obs(&s->c->g, player, out, OT_F32, NULL);
}

/* the tensor of `player` into t (float32, obs_size places), compared with prev (the row this state
 * last gave that player as a list, kept by Python; zeros at first): the places that differ into idx
 * and val, and prev updated (the OpenSpiel adapter's list is its last one with these places changed:
 * a few of a few thousand between two decisions); returns how many, or -1 (Python asks the Python
 * engine) */
GS_EXPORT int64_t gs_st_obs_delta(void *p, int64_t player, float *t, float *prev, int64_t *idx, double *val) {
    AState *s = (AState *)p;
    if (write_obs(&s->c->g, player, t, OT_F32, NULL) != 0) return -1;
    int64_t k = 0, S = GS_AGENT.obs_size;
    /* most of a row is as it was: blocks of 16 places compared whole (memcmp, vectorised), the
     * places of a block that differs one by one (no -0.0 or NaN is written, so bytes equal = values equal) */
    for (int64_t b = 0; b < S; b += 16) {
        int64_t e = b + 16 < S ? b + 16 : S;
        if (memcmp(t + b, prev + b, (size_t)(e - b) * sizeof(float)) == 0) continue;
        for (int64_t i = b; i < e; i++)
            if (t[i] != prev[i]) { idx[k] = i; val[k] = (double)t[i]; prev[i] = t[i]; k++; }
    }
    return k;
}

/* VectorEnv: the place and value of the last row of this env that did not fit its type (-1: none) */
GS_EXPORT int64_t gs_st_bad(void *p, double *val) {
    AState *s = (AState *)p;
    *val = s->bad.val;
    return s->bad.at;
}

/* ---- the vector environment --------------------------------------------------------------- */
typedef struct {
    AState **envs; int64_t lo, hi;
    const int64_t *actions;      /* per env: the id to apply, -1: none (after a reset) */
    uint64_t *seeds;             /* per env: its game's seed (advanced by `stride` at each reset) */
    uint64_t stride;
    int32_t learner;             /* the seat the caller plays, -1: every seat */
    int32_t reward_kind;         /* 0 win, 1 score */
    char *obs; int8_t *mask; float *rewards; uint8_t *done; int32_t *seat; int32_t *status;
    int64_t *games;              /* per env: games finished so far */
    char *fobs;                  /* per env: the final observation of a game that ended at this step, else 0 */
    int32_t set;                 /* which of the caller's two buffer sets (0, 1): its rows' fin_dirty */
    int32_t kind;                /* the rows' element type (OT_F32 ...) */
    int64_t row;                 /* bytes per tensor row */
    char *scratch;               /* a row written here (in cache) then streamed out; NULL: written in place */
    float *reward;               /* per env: the learner's reward (with opponents), else the mover's (NULL: none) */
    struct VecNext *next;        /* per thread's home range, its first env no thread has taken (shared by the
                                  * call's threads); NULL: lo..hi */
    int32_t id, nth;             /* with next: this thread's number, the call's threads */
    int64_t per, n;              /* with next: envs per home range, envs in all */
} VecJob;
typedef struct VecNext { int64_t v; char pad[56]; } VecNext;   /* a cache line each: no false sharing */

static int vec_rewards(G *g, float *r, int kind) {
    const Layout *L = g->L;
    if (!scores_ok(g)) return -1;
    int all = 1;
    for (int32_t q = 0; q < L->P; q++) if (!(g->winners >> q & 1)) all = 0;
    for (int32_t q = 0; q < L->P; q++) {
        if (kind == 1) r[q] = (float)(double)((GS_AGENT.highest ? 1 : -1) * g->scores[q].i);
        else r[q] = all ? 0.0f : ((g->winners >> q & 1) ? 1.0f : -1.0f);
    }
    return 0;
}

static int64_t st_ismcts_pick(AState *s);      /* plan.c */

/* opponents (random, or ISMCTS: plan.c; with the game's own generator) until the learner is to move
 * or the game ends */
static int vec_opponents(AState *s, int32_t learner) {
    G *g = &s->c->g;
    while (learner >= 0 && !g->terminal && g->actor != learner) {
        if (!s->pick_ready) { mt_seed_u64(&s->c->pick, s->pick_seed); s->pick_ready = 1; }
        int64_t k = s->ism_iters > 0 ? st_ismcts_pick(s) : mt_randbelow(&s->c->pick, g->lst.n);
        if (k < 0) return (int)k;
        int rc = st_apply_entry(s, (int32_t)k);
        if (rc) return rc;
    }
    return 0;
}

/* dst[0..n) = src[0..n) with non-temporal stores where the CPU has them: a buffer set far larger than
 * the caches is written without reading each line first (a plain store fetches the line it writes) */
#if defined(__SSE__)
#include <immintrin.h>
static void stream_row(char *dst, const char *src, int64_t n) {      /* n bytes */
    int64_t k = 0;
    while (k < n && ((uintptr_t)(dst + k) & 15)) { dst[k] = src[k]; k++; }
    for (; k + 16 <= n; k += 16) _mm_stream_si128((__m128i *)(dst + k), _mm_loadu_si128((const __m128i *)(src + k)));
    for (; k < n; k++) dst[k] = src[k];
}
#define STREAM_FENCE() _mm_sfence()
#else
static void stream_row(char *dst, const char *src, int64_t n) { memcpy(dst, src, (size_t)n); }
#define STREAM_FENCE() ((void)0)
#endif

static void vec_one(VecJob *j, int64_t i) {
    AState *s = j->envs[i];
    G *g = &s->c->g;
    const Layout *L = g->L;
    int32_t set = j->set & 1;
    int64_t R = j->row;
    float *rw = j->rewards + i * L->P;
    for (int32_t q = 0; q < L->P; q++) rw[q] = 0.0f;
    if (j->reward != NULL) j->reward[i] = 0.0f;
    j->done[i] = 0;
    j->status[i] = 0;
    if (j->fobs != NULL && s->fin_dirty[set]) {     /* the row of a game that ended at this set's last use */
        memset(j->fobs + i * R, 0, (size_t)R);
        s->fin_dirty[set] = 0;
    }
    int rc = 0;
    int32_t mover = g->terminal ? -1 : g->actor;       /* whose reward `rewards` shows without opponents */
    if (s->why) { j->status[i] = s->why; goto out; }
    if (j->actions[i] >= 0) {
        int32_t k = (s->why || g->terminal || st_ids(s)) ? -1 : st_find(s, j->actions[i]);
        if (k < 0) { j->status[i] = s->why ? s->why : 1; goto out; }
        rc = st_apply_entry(s, k);
        if (!rc) rc = vec_opponents(s, j->learner);
    } else {
        rc = vec_opponents(s, j->learner);
    }
    if (rc) { j->status[i] = -rc; goto out; }
    if (g->terminal) {
        if (vec_rewards(g, rw, j->reward_kind)) { j->status[i] = B_TYPE; goto out; }
        j->done[i] = 1;
        if (j->reward != NULL) {
            int32_t q = j->learner >= 0 ? j->learner : mover;
            j->reward[i] = q >= 0 ? rw[q] : 0.0f;
        }
        if (j->fobs != NULL) {     /* what the learner (else the seat that just moved) sees at the end */
            int32_t q = j->learner >= 0 ? j->learner : mover;
            s->fin_dirty[set] = 1;
            s->bad.at = -1;
            int w = q < 0 ? -1 : write_obs(g, q, j->fobs + i * R, j->kind, &s->bad);
            if (w != 0) { j->status[i] = w == W_RANGE ? W_RANGE : W_OBS; goto out; }
        }
        /* the next game; one that ends before the learner's first decision (opponents in C) holds
         * nothing for it: counted, and the one after it started, so the row always shows a decision */
        for (int32_t k = 0; !rc && g->terminal && k < 4096; k++) {
            j->games[i]++;
            j->seeds[i] += j->stride;
            rc = st_reset(s, j->seeds[i]);
            if (!rc) rc = vec_opponents(s, j->learner);
        }
        if (!rc && g->terminal) rc = -B_STATE;
        if (rc) { j->status[i] = -rc; goto out; }
    }
    if (st_ids(s)) j->status[i] = s->why;
out:
    j->seat[i] = g->terminal ? -1 : g->actor;
    if (j->obs != NULL) {
        char *o = j->obs + i * R;
        char *w = j->scratch != NULL ? j->scratch : o;
        if (!j->status[i]) s->bad.at = -1;
        int rw_ = (g->terminal || s->why) ? -1 : write_obs(g, g->actor, w, j->kind, &s->bad);
        if (rw_ != 0) {
            memset(w, 0, (size_t)R);
            if (!j->status[i] && !g->terminal && !s->why) j->status[i] = rw_ == W_RANGE ? W_RANGE : W_OBS;
        }
        if (w != o) stream_row(o, w, R);
    }
    if (j->mask != NULL) gs_st_mask(s, j->mask + i * GS_AGENT.nids);
}

/* the envs of one thread: lo..hi, or with `next` a few at a time, taken as threads come free (games
 * differ in cost: a reset, opponents). Each thread takes from its home range first, then from the
 * others': while the threads keep pace, a game is stepped by the same thread call after call, so its
 * state stays in that core's cache (taken from one shared counter, 64-game calls on 2 threads were
 * 1.6x, not 2x: each game's lines moved between the cores). An env's results do not depend on the
 * thread that steps it. */
enum { VEC_CHUNK = 4 };
static void *vec_run(void *arg) {
    VecJob *j = (VecJob *)arg;
    if (j->next == NULL) {
        for (int64_t i = j->lo; i < j->hi; i++) vec_one(j, i);
    } else {
        for (int32_t k = 0; k < j->nth; k++) {
            int32_t r = (j->id + k) % j->nth;
            int64_t hi = (r + 1) * j->per < j->n ? (r + 1) * j->per : j->n;
            for (;;) {
                int64_t i0 = __atomic_fetch_add(&j->next[r].v, VEC_CHUNK, __ATOMIC_RELAXED);
                if (i0 >= hi) break;
                int64_t i1 = i0 + VEC_CHUNK < hi ? i0 + VEC_CHUNK : hi;
                for (int64_t i = i0; i < i1; i++) vec_one(j, i);
            }
        }
    }
    STREAM_FENCE();
    return NULL;
}

/* The vector env's worker threads, kept between calls: a thread made and joined per call cost about
 * 60 µs here, and a sleeping thread's wake-up 20-50 µs (a virtual machine's futex), a seventh of a
 * 256-game call. Made at the first call that asks for more threads than there are; between jobs a
 * worker spins for twice the last gap between two jobs (5 µs after a gap longer than half of
 * POOL_SPIN_NS: a caller that does other work between its steps is not charged a spinning core),
 * then sleeps on the condition variable; the caller spins up to POOL_SPIN_NS for the workers
 * to finish. A caller that steps at a steady pace with work of its own between its calls (a policy's
 * forward pass, the bench's argmax over the masks: gaps of 100 µs and more, each within a quarter of
 * the one before) has the worker sleep until POOL_LEAD_NS before the next job is due and spin from
 * there (paced): the job is not kept waiting for a wake-up (a 256-game call's worker started 10-15 µs
 * late on every call before), for two leads of spinning a call. Worker t runs
 * jobs[t] of a job that uses more than t threads. One call at a time has the pool (another, at the
 * same moment, makes its own threads as before); a child process (fork) has no workers: it starts
 * its own pool. */
#define POOL_SPIN_NS 200000
#define POOL_LEAD_NS 40000
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    int32_t n;               /* workers made: ids 1..n */
    uint64_t gen;            /* the current job's number (atomic; written under mu) */
    double posted;           /* when the current job was posted (now_s; written before gen) */
    int32_t want;            /* threads the current job uses (the caller is thread 0) */
    int32_t busy;            /* workers still on it (atomic) */
    VecJob *jobs;
    pid_t pid;               /* the process the workers belong to */
    uint64_t claim[64];      /* per worker: the job's number while it waits for that worker, | POOL_RUN once
                              * the worker took it, | POOL_CANCEL once the caller, done with every game
                              * first, took it back (a worker still asleep is not waited for) */
} VecPool;
#define POOL_RUN ((uint64_t)1 << 63)
#define POOL_CANCEL ((uint64_t)1 << 62)
static VecPool POOL = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
                       0, 0, 0, 0, 0, NULL, 0, {0}};
static pthread_mutex_t POOL_USE = PTHREAD_MUTEX_INITIALIZER;
typedef struct { int32_t id; uint64_t gen; } PoolStart;
static PoolStart POOL_START[64];

/* the condition variables made anew (no thread waits on them): `go` on the monotonic clock where a
 * timed wait can use it (the paced sleep) */
static void pool_conds_init(void) {
#if POOL_PACED
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&POOL.go, &ca);
    pthread_condattr_destroy(&ca);
#else
    pthread_cond_init(&POOL.go, NULL);
#endif
    pthread_cond_init(&POOL.done, NULL);
}

static inline void pool_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* spin until the job number is not `seen`, for at most `budget` seconds; the seconds it took, or -1 */
static double pool_spin_gen(uint64_t seen, double budget) {
    double t0 = now_s();
    for (int k = 1;; k++) {
        if (__atomic_load_n(&POOL.gen, __ATOMIC_ACQUIRE) != seen) return now_s() - t0;
        pool_relax();
        if ((k & 63) == 0 && now_s() - t0 > budget) return -1;
    }
}
static int pool_spin_busy(void) {
    double until = now_s() + POOL_SPIN_NS * 1e-9;
    for (int k = 1;; k++) {
        if (__atomic_load_n(&POOL.busy, __ATOMIC_ACQUIRE) == 0) return 1;
        pool_relax();
        if ((k & 255) == 0 && now_s() > until) return 0;
    }
}

/* sleep until the job number is not `seen` or the monotonic clock reads `until` (paced workers) */
static void pool_sleep_until(uint64_t seen, double until) {
#if POOL_PACED
    struct timespec ts;
    ts.tv_sec = (time_t)until;
    ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&POOL.mu);
    while (__atomic_load_n(&POOL.gen, __ATOMIC_ACQUIRE) == seen)
        if (pthread_cond_timedwait(&POOL.go, &POOL.mu, &ts) != 0) break;
    pthread_mutex_unlock(&POOL.mu);
#else
    (void)seen; (void)until;
#endif
}

static void *pool_worker(void *arg) {
    const PoolStart *st = (const PoolStart *)arg;
    int32_t id = st->id;
    uint64_t seen = st->gen;         /* the number before its first job */
    const double most = POOL_SPIN_NS * 1e-9, least = 5e-6, lead = POOL_LEAD_NS * 1e-9;
    double budget = most, last = 0, before = 0;     /* the last two gaps between jobs */
#if POOL_PACED
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);       /* a timed wait ends within 1 µs of its time, not 50 */
#endif
    for (;;) {
        double t0 = now_s();
        int came = pool_spin_gen(seen, budget) >= 0;
        if (!came && POOL_PACED && last > most / 2 && fabs(last - before) < last / 4) {
            /* paced: asleep until a lead before the job is due, then spinning up to two leads past it */
            double due = t0 + last;
            if (now_s() < due - lead) pool_sleep_until(seen, due - lead);
            double left = due + lead - now_s();
            came = __atomic_load_n(&POOL.gen, __ATOMIC_ACQUIRE) != seen ||
                   (left > 0 && pool_spin_gen(seen, left < 4 * lead ? left : 4 * lead) >= 0);
        }
        if (!came) {
            pthread_mutex_lock(&POOL.mu);
            while (__atomic_load_n(&POOL.gen, __ATOMIC_ACQUIRE) == seen) pthread_cond_wait(&POOL.go, &POOL.mu);
            pthread_mutex_unlock(&POOL.mu);
        }
        /* until this job was posted (not until this thread saw it: a wake-up's latency, counted, made the
         * next gap look long, the worker sleep again and the job wait again, call after call) */
        double gap;
        __atomic_load(&POOL.posted, &gap, __ATOMIC_ACQUIRE);
        gap -= t0;
        if (gap < 0) gap = 0;
        before = last;
        last = gap;
        budget = 2 * gap > most ? least : (2 * gap > least ? 2 * gap : least);
        seen = __atomic_load_n(&POOL.gen, __ATOMIC_ACQUIRE);
        uint64_t want = seen;              /* this job, unless the caller took it back (or it is not ours) */
        if (!__atomic_compare_exchange_n(&POOL.claim[id], &want, seen | POOL_RUN, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue;
        vec_run(&POOL.jobs[id]);            /* (jobs is written before the claim, read after it) */
        if (__atomic_sub_fetch(&POOL.busy, 1, __ATOMIC_ACQ_REL) == 0) {
            pthread_mutex_lock(&POOL.mu);
            pthread_cond_signal(&POOL.done);
            pthread_mutex_unlock(&POOL.mu);
        }
    }
    return NULL;
}

/* jobs[0..nthreads-1] run on the pool's workers and this thread; 0, or -1 if the pool is taken or
 * cannot have that many workers (the caller makes its own threads) */
static int pool_run(VecJob *jobs, int32_t nthreads) {
    if (pthread_mutex_trylock(&POOL_USE) != 0) return -1;
    if (POOL.pid != 0 && POOL.pid != getpid()) {
        /* forked: the workers stayed in the parent, and the condition variables still count them as
         * waiters (a broadcast would wait for them): made anew (this thread is the child's only one) */
        pthread_mutex_init(&POOL.mu, NULL);
        pool_conds_init();
        POOL.n = 0;
        __atomic_store_n(&POOL.gen, 0, __ATOMIC_RELEASE);
        for (int32_t t = 0; t < 64; t++) POOL.claim[t] = 0;
    }
    pthread_mutex_lock(&POOL.mu);
    if (POOL.pid == 0) pool_conds_init();      /* the first use: no worker waits yet */
    POOL.pid = getpid();
    while (POOL.n < nthreads - 1) {
        int32_t id = POOL.n + 1;
        POOL_START[id].id = id;
        POOL_START[id].gen = __atomic_load_n(&POOL.gen, __ATOMIC_ACQUIRE);
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&th, &at, pool_worker, &POOL_START[id]);
        pthread_attr_destroy(&at);
        if (rc != 0) break;
        POOL.n = id;
    }
    if (POOL.n < nthreads - 1) {
        pthread_mutex_unlock(&POOL.mu);
        pthread_mutex_unlock(&POOL_USE);
        return -1;
    }
    POOL.jobs = jobs;
    POOL.want = nthreads;
    uint64_t job = (__atomic_load_n(&POOL.gen, __ATOMIC_ACQUIRE) + 1) & ~(POOL_RUN | POOL_CANCEL);
    for (int32_t t = 1; t < 64; t++) __atomic_store_n(&POOL.claim[t], t < nthreads ? job : 0, __ATOMIC_RELEASE);
    __atomic_store_n(&POOL.busy, nthreads - 1, __ATOMIC_RELEASE);
    double posted = now_s();
    __atomic_store(&POOL.posted, &posted, __ATOMIC_RELEASE);
    __atomic_store_n(&POOL.gen, job, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&POOL.go);
    pthread_mutex_unlock(&POOL.mu);
    vec_run(&jobs[0]);
    for (int32_t t = 1; t < nthreads; t++) {     /* every game taken: the workers not started yet, taken back */
        uint64_t want = job;
        if (__atomic_compare_exchange_n(&POOL.claim[t], &want, job | POOL_CANCEL, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            __atomic_sub_fetch(&POOL.busy, 1, __ATOMIC_ACQ_REL);
    }
    if (!pool_spin_busy()) {
        pthread_mutex_lock(&POOL.mu);
        while (__atomic_load_n(&POOL.busy, __ATOMIC_ACQUIRE) > 0) pthread_cond_wait(&POOL.done, &POOL.mu);
        pthread_mutex_unlock(&POOL.mu);
    }
    pthread_mutex_unlock(&POOL_USE);
    return 0;
}

/* one step of n games: action ids in, observations, masks, rewards, ends, seats to move out; games
 * that end are started again on their next seed. Returns 0, or -1 if the arguments are refused. */
static int vec_step(float *reward, void **envs, int64_t n, const int64_t *actions, uint64_t *seeds, uint64_t stride,
                          int32_t learner, int32_t reward_kind, int32_t nthreads, void *obs, int8_t *mask,
                          float *rewards, uint8_t *done, int32_t *seat, int32_t *status, int64_t *games,
                          void *fobs, int32_t set, int32_t stream, int32_t kind) {
    if (n < 0 || learner >= GS_LAYOUT.P || !GS_AGENT.ok || set < 0 || set > 1 || kind < OT_F32 || kind > OT_U8)
        return -1;
    if (nthreads < 1) nthreads = 1;
    if (nthreads > 64) nthreads = 64;
    if (nthreads > n) nthreads = n > 0 ? (int32_t)n : 1;
    VecJob jobs[64];
    pthread_t th[64];
    int started[64] = {0};
    int64_t per = nthreads ? (n + nthreads - 1) / nthreads : n;
    VecNext next[64];            /* the pool's threads take envs a few at a time, home range first (vec_run) */
    /* stream 1, or -1 and a set of tensors larger than the caches (16 MB): each row written in a scratch
     * row (in cache) and streamed out (measured, 4,096 games: Bacchus 0.22 -> 0.25 M steps per CPU s) */
    int64_t R = GS_AGENT.obs_size * OT_SIZE[kind];
    if (stream < 0) stream = n * R > ((int64_t)16 << 20);
    char *scratch = obs != NULL && R > 0 && stream ? (char *)malloc((size_t)nthreads * (size_t)R) : NULL;
    for (int32_t t = 0; t < nthreads; t++) {
        VecJob *j = &jobs[t];
        j->scratch = scratch != NULL ? scratch + (int64_t)t * R : NULL;
        j->kind = kind; j->row = R;
        j->envs = (AState **)envs; j->actions = actions; j->seeds = seeds; j->stride = stride;
        j->learner = learner; j->reward_kind = reward_kind; j->obs = (char *)obs; j->mask = mask; j->rewards = rewards;
        j->done = done; j->seat = seat; j->status = status; j->games = games; j->fobs = (char *)fobs; j->set = set;
        j->reward = reward;
        j->lo = t * per; j->hi = (t + 1) * per < n ? (t + 1) * per : n;
        if (j->lo > j->hi) j->lo = j->hi;
    }
    for (int32_t t = 0; t < nthreads; t++) jobs[t].next = NULL;
    if (nthreads == 1) {
        vec_run(&jobs[0]);
    } else {
        for (int32_t t = 0; t < nthreads; t++) {
            next[t].v = jobs[t].lo;
            jobs[t].next = next; jobs[t].id = t; jobs[t].nth = nthreads; jobs[t].per = per; jobs[t].n = n;
        }
        if (pool_run(jobs, nthreads) != 0) {
            for (int32_t t = 1; t < nthreads; t++)
                started[t] = pthread_create(&th[t], NULL, vec_run, &jobs[t]) == 0;
            vec_run(&jobs[0]);
            for (int32_t t = 1; t < nthreads; t++)
                if (started[t]) pthread_join(th[t], NULL);
        }
    }
    free(scratch);
    return 0;
}

/* VectorEnv's call: every argument in one struct made once per buffer set (a ctypes call of one pointer
 * instead of 19), `reset` 1: start every env's game `seeds[i]` first (the actions are not read). C also
 * writes `reward` (per env the learner's reward, else that of the seat that just moved) and `summary`:
 * [the first env whose status is not 0, or -1; how many games ended], so Python reads two numbers. */
typedef struct {
    void **envs; int64_t n; const int64_t *actions; uint64_t *seeds; uint64_t stride;
    int64_t learner, reward_kind, nthreads, set, stream, kind, reset;
    void *obs; int8_t *mask; float *rewards; uint8_t *done; int32_t *seat; int32_t *status; int64_t *games;
    void *fobs; float *reward; int64_t *summary; int64_t *none;
} VecArgs;

GS_EXPORT int gs_vec_call(const VecArgs *a) {
    int64_t n = a->n;
    const int64_t *actions = a->actions;
    if (a->reset) {
        for (int64_t i = 0; i < n; i++) st_reset((AState *)a->envs[i], a->seeds[i]);   /* a stop: s->why, reported */
        actions = a->none;          /* n times -1 */
    }
    int rc = vec_step(a->reward, a->envs, n, actions, a->seeds, a->stride, (int32_t)a->learner, (int32_t)a->reward_kind,
                      (int32_t)a->nthreads, a->obs, a->mask, a->rewards, a->done, a->seat, a->status, a->games, a->fobs,
                      (int32_t)a->set, (int32_t)a->stream, (int32_t)a->kind);
    int64_t first = -1, ended = 0;
    for (int64_t i = 0; i < n; i++) {
        if (a->status[i] && first < 0) first = i;
        ended += a->done[i];
    }
    a->summary[0] = first;
    a->summary[1] = ended;
    return rc;
}
