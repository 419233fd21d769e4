/* The native engine's run-time library: values, arenas, faults, budgets, checked arithmetic, zones,
 * moves and knowledge, the RNGs (splitmix64, SHAKE128, xorshift64*, Python's MT19937), lists.
 * It mirrors interpreter/runtime.py, interpreter/rng.py and the run-time half of
 * gamespec/compile/closures.py; generated code (gamespec/compile/native/) includes it.
 * Everything here works on integers: no text from a spec ever reaches this file or the generated one. */
#ifndef GS_RUNTIME_H
#define GS_RUNTIME_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <setjmp.h>

#define GS_ABI 4
#define GS_EXPORT __attribute__((visibility("default")))

/* ---- values ------------------------------------------------------------------------------- */
enum { T_NONE = 0, T_BOOL = 1, T_INT = 2, T_STR = 3, T_LIST = 4 };

typedef struct { int64_t i; int32_t t; int32_t pad; } V;
typedef struct { int32_t n; int32_t pad; V a[]; } List;     /* never changed once built */

#define LST(v) ((List *)(intptr_t)(v).i)

static inline V vnone(void) { V v; v.i = 0; v.t = T_NONE; v.pad = 0; return v; }
static inline V vbool(int b) { V v; v.i = b ? 1 : 0; v.t = T_BOOL; v.pad = 0; return v; }
static inline V vint(int64_t i) { V v; v.i = i; v.t = T_INT; v.pad = 0; return v; }
static inline V vstr(int64_t id) { V v; v.i = id; v.t = T_STR; v.pad = 0; return v; }
static inline V vlist(List *l) { V v; v.i = (int64_t)(intptr_t)l; v.t = T_LIST; v.pad = 0; return v; }

/* ---- how a game stops early -------------------------------------------------------------- */
/* A fault: Python's engine stops the game there too. A bail: Python's dynamic semantics would go
 * on where this code does not follow (the game is played again in Python, which decides).
 * One table declares these codes (gamespec/mirrors.py: STATUS, FAULTS, BAILS); tests/test_mirrors.py
 * holds these enums equal to it, and interpreter/native_engine.WHY reads it. */
enum { ST_OK = 0, ST_FAULT = 1, ST_BAIL = 2, ST_TIMEOUT = 3, ST_ERROR = 4 };
enum {
    W_NONE = 0,
    /* faults */
    F_BUDGET = 1, F_DIV0 = 2, F_KEY = 3, F_INDEX = 4, F_NONE_ATTR = 5, F_PLAYER = 6, F_INT_SIZE = 7,
    F_VALUE_SIZE = 8, F_EMPTY_ZONE = 9, F_NO_LEGAL = 10, F_TYPE = 11, F_NO_CARD = 12, F_EMPTY_LIST = 13,
    F_GAME_BUDGET = 14, F_GAME_STEPS = 15, F_FLOW = 16, F_SIMULTANEOUS = 17, F_CHOICES = 18,
    F_DEAL = 19, F_MARK = 20, F_RANGE = 21, F_TEAM = 22, F_REACT = 23,
    /* bails */
    B_TYPE = 64, B_TEXT = 65, B_OVERFLOW = 66, B_MEMORY = 67, B_CARD = 68, B_STATE = 69, B_LIMIT = 70
};

/* ---- limits: one table (gamespec/mirrors.py, LIMITS); tests/test_mirrors.py holds these equal -- */
#define MAX_LIST 100000             /* items in a list a rule builds (F_VALUE_SIZE) */
#define MAX_RANGE 100000            /* numbers in one range(...) (F_RANGE) */
#define MAX_TEXT 1000000            /* characters in a text a rule builds (F_VALUE_SIZE) */
#define MAX_DEAL 100000             /* cards one deal(...) may name (F_DEAL) */
#define MAX_CHOICES 10000           /* values of one parameter (F_CHOICES) */
#define MAX_EXPONENT 64             /* the greatest exponent of ** (F_INT_SIZE) */
#define MAX_COMBOS_WALKED 20000000  /* subsets walked for one parameter (B_LIMIT: C's alone) */
#define MAX_SEARCH 100000           /* a search's listing size and path length (B_LIMIT: C's alone) */

/* ---- arenas ------------------------------------------------------------------------------ */
typedef struct Chunk { struct Chunk *next; size_t cap; size_t used; char *mem; } Chunk;
typedef struct { Chunk *head; Chunk *cur; size_t total; } Arena;
typedef struct { Chunk *chunk; size_t used; } Mark;

#define ARENA_CAP ((size_t)256 << 20)

/* ---- RNGs -------------------------------------------------------------------------------- */
typedef struct { uint32_t mt[624]; int mti; } MT;

/* ---- the game ---------------------------------------------------------------------------- */
typedef struct { int32_t n, cap; int32_t *a; } Zone;

typedef struct { int32_t active; int32_t has_var; int64_t idx; V items; V var; } Flow;

typedef struct { int32_t player; int32_t act; V args; } Stored;   /* act -1: a pass (skip) */

typedef struct {
    int32_t n, cap;          /* entries */
    int32_t *act;            /* per entry: action index, -1 for the skip */
    int32_t *off;            /* per entry: offset of its (arg, bind) pairs in vals */
    int32_t nv, vcap;
    V *vals;
    Arena ar;
} Listing;

struct Layout;

typedef struct G {
    const struct Layout *L;
    Zone *z;
    int32_t *loc;
    uint64_t *kn;
    uint8_t *face;
    int64_t nface;
    int64_t *mk;             /* nmarks x ncards */
    V *v;
    Flow *ff;
    Stored *stored; int32_t nstored, stcap;
    uint64_t rng; int32_t gen;     /* gen 0: shake128, 1: xorshift64*, 2: splitmix64 (the fast one) */
    int32_t pc, pending, actor, cur, phase, terminal;
    int64_t turns, decisions, budget, spent;
    V *scores; uint64_t winners;
    int32_t has_listing;     /* the pending decision's listing is made (else it is made, and charged) */
    Listing lst, lst2;
    Arena ar[2]; int32_t side;
    jmp_buf *jb;
    int32_t why, site;
    MT *pick;                /* the decisions' generator (playouts, rollouts) */
    MT *seat_pick;           /* per seat (simulate's random bots), or NULL */
    int32_t *stamp; int32_t *stamp_gen;   /* face de-duplication per parameter level */
    int64_t phases_seen; int32_t last_phase;
    int64_t *trace; int64_t ntrace, tcap;   /* tests: each decision's listing size */
    int32_t *cnt;            /* per zone and count column: the zone's cards of that class (Layout.cnt_col) */
    int32_t *cnt0;           /* the counts of a new game before its setup (made once) */
    int32_t cnt0_made;
    int32_t *init_a, *init_off, *loc0;   /* a new game's zones before its setup: cards by zone, offsets, loc */
    int32_t init_made;
    uint64_t *poss; int32_t pw;   /* per zone, pw words: the set-up zones its cards may come from (plan.c) */
    int32_t track_poss;      /* poss kept (1, a new context's); 0 in playouts and search worlds, which
                              * nothing plans from: a move's widening and a game's reset skipped */
} G;

typedef struct Layout {
    int32_t P, ncards, nzones, nvars, nmarks, nfor, nfaces, nlevels, maxparams, nstr;
    uint64_t ALL;
    const int32_t *face_of;
    const uint64_t *zvis;
    const uint64_t *set_blind;
    const uint8_t *is_set;
    const int32_t *refill_src;     /* -1: none */
    const uint8_t *refill_shuffle;
    const uint8_t *stop_empty;
    const int32_t *init_zone;      /* card -> zone at set-up */
    const int64_t *mark_init;
    const uint8_t *mark_reset;
    const uint8_t *mark_bool;
    const int64_t *str_len;
    int64_t max_steps, max_decisions, max_game_steps;
    void (*setup)(G *);
    void (*run)(G *, int32_t pc);
    void (*apply)(G *, int32_t k);
    void (*enumerate)(G *, int32_t ch, Listing *out);
    const int32_t *ch_optional;    /* per decision point: has an optional skip */
    int32_t nchoose;
    const int32_t *act_np;         /* per action: its number of parameters */
    int32_t nactions;
    V (*score)(G *, int64_t p);    /* the spec's score expression for seat p (traces), or NULL */
    const char *key;
    /* counts by fixed attributes (docs/native.md, "Zone counts by attribute"): count key k classes every
     * card; for a zone some count reads (its row r = cnt_row[zone], -1 for the others),
     * g->cnt[r * cnt_stride + cnt_col[c * ncnt + k]] counts its cards of c's class under key k (the
     * column: the key's first column plus the class); kept by every move, deal, load, copy and
     * determinization */
    int32_t ncnt;                  /* count keys (0: none kept) */
    int64_t cnt_size;              /* ints in g->cnt: rows * cnt_stride */
    int64_t cnt_stride;            /* columns per row: every key's classes */
    const int32_t *cnt_col;        /* ncards x ncnt */
    const int32_t *cnt_row;        /* nzones */
    void (*cnt_move)(G *, int32_t c, int64_t rs, int64_t rd);  /* card c from row rs to row rd (-1: none; generated) */
} Layout;

#ifndef GS_KEY
#define GS_KEY "unkeyed"
#endif

/* ---- faults ------------------------------------------------------------------------------ */
#if defined(__GNUC__)
#define GS_NORETURN __attribute__((noreturn))
#define GS_LIKELY(x) __builtin_expect(!!(x), 1)
#define GS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define GS_NORETURN
#define GS_LIKELY(x) (x)
#define GS_UNLIKELY(x) (x)
#endif

GS_NORETURN void rt_stop(G *g, int why);
#define FAULT(why) rt_stop(g, (why))
#define BAIL(why) rt_stop(g, (why))
static inline int64_t fault_i(G *g, int why) { rt_stop(g, why); }
static inline int64_t bail_i(G *g, int why) { rt_stop(g, why); }

static inline void charge(G *g, int64_t n) {
    g->budget -= n;
    if (GS_UNLIKELY(g->budget < 0)) rt_stop(g, F_BUDGET);
}

/* ---- arena ------------------------------------------------------------------------------- */
void *arena_more(G *g, Arena *a, size_t n);
void arena_reset(Arena *a);
void arena_free(Arena *a);

static inline void *aalloc_in(G *g, Arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    Chunk *c = a->cur;
    if (GS_LIKELY(c != NULL && c->used + n <= c->cap)) {
        void *p = c->mem + c->used;
        c->used += n;
        return p;
    }
    return arena_more(g, a, n);
}
static inline void *aalloc(G *g, size_t n) { return aalloc_in(g, &g->ar[g->side], n); }
static inline Mark amark(G *g) {
    Mark m; Arena *a = &g->ar[g->side]; m.chunk = a->cur; m.used = a->cur ? a->cur->used : 0; return m;
}
static inline void arelease(G *g, Mark m) {
    Arena *a = &g->ar[g->side];
    if (GS_LIKELY(m.chunk != NULL)) {
        a->cur = m.chunk;
        m.chunk->used = m.used;
    } else if (a->head != NULL) {
        a->cur = a->head;
        a->head->used = 0;
    }
}

static inline List *list_new(G *g, int64_t n) {
    List *l = (List *)aalloc(g, sizeof(List) + (size_t)(n > 0 ? n : 0) * sizeof(V));
    l->n = (int32_t)n; l->pad = 0;
    return l;
}
extern List EMPTY_LIST;

/* ---- value semantics (Python's) ---------------------------------------------------------- */
static inline int isnum(V v) { return v.t == T_INT || v.t == T_BOOL; }
static inline int truthy(V v) {
    switch (v.t) {
    case T_NONE: return 0;
    case T_BOOL: case T_INT: return v.i != 0;
    case T_STR: return v.i != 0;          /* id 0 is the empty text */
    default: return LST(v)->n > 0;
    }
}
static inline int64_t num(G *g, V v) {    /* a number (a bool counts as 0/1), else not ours */
    if (GS_LIKELY(isnum(v))) return v.i;
    BAIL(B_TYPE);
}
static inline int64_t need_int(G *g, V v) {   /* exactly an int (a seat, a key) */
    if (GS_LIKELY(v.t == T_INT)) return v.i;
    BAIL(B_TYPE);
}
static inline List *need_list(G *g, V v) {
    if (GS_LIKELY(v.t == T_LIST)) return LST(v);
    BAIL(B_TYPE);
}
int py_eq_slow(V a, V b);
int py_lt_slow(G *g, V a, V b);
static inline int py_eq(V a, V b) {
    if (GS_LIKELY(isnum(a) && isnum(b))) return a.i == b.i;
    if (a.t == T_STR && b.t == T_STR) return a.i == b.i;
    return py_eq_slow(a, b);
}
static inline int py_lt(G *g, V a, V b) {  /* a < b, or a fault/bail where Python raises */
    if (GS_LIKELY(isnum(a) && isnum(b))) return a.i < b.i;
    return py_lt_slow(g, a, b);
}
static inline int py_le(G *g, V a, V b) { return py_lt(g, a, b) || py_eq(a, b); }
uint64_t py_hash(G *g, V v);
int64_t py_len_slow(G *g, V v);
static inline int64_t py_len(G *g, V v) {   /* len(): a list or a text */
    if (GS_LIKELY(v.t == T_LIST)) return LST(v)->n;
    return py_len_slow(g, v);
}

/* ---- checked arithmetic ------------------------------------------------------------------ */
/* Every number a rule computes stays in |n| < 2**63 (runtime.bounded): `+`, `-` and `sum` fault
 * beyond it as `*` and `**` do, so no value is ever INT64_MIN and unary minus, abs, `//` and `%`
 * of rule values cannot overflow (their checks below are never reached by a rule's numbers). */
static inline int64_t add_i(G *g, int64_t a, int64_t b) {
    int64_t r;
    if (GS_UNLIKELY(__builtin_add_overflow(a, b, &r) || r == INT64_MIN)) FAULT(F_INT_SIZE);
    return r;
}
static inline int64_t sub_i(G *g, int64_t a, int64_t b) {
    int64_t r;
    if (GS_UNLIKELY(__builtin_sub_overflow(a, b, &r) || r == INT64_MIN)) FAULT(F_INT_SIZE);
    return r;
}
static inline int64_t span_i(int64_t lo, int64_t hi) {    /* hi - lo of range(): saturated, no fault */
    int64_t r;
    if (__builtin_sub_overflow(hi, lo, &r)) return hi > lo ? INT64_MAX : INT64_MIN;
    return r;
}
static inline int64_t sum_end(G *g, __int128 s) {            /* sum(): only the total must fit */
    if (GS_UNLIKELY(s <= INT64_MIN || s > INT64_MAX)) FAULT(F_INT_SIZE);
    return (int64_t)s;
}
static inline int64_t mul_i(G *g, int64_t a, int64_t b) {   /* checked_mul: |r| < 2**63 */
    int64_t r;
    if (GS_UNLIKELY(__builtin_mul_overflow(a, b, &r) || r == INT64_MIN)) FAULT(F_INT_SIZE);
    return r;
}
static inline int64_t neg_i(G *g, int64_t a) {
    if (GS_UNLIKELY(a == INT64_MIN)) BAIL(B_OVERFLOW);
    return -a;
}
static inline int64_t fdiv_i(G *g, int64_t a, int64_t b) {   /* Python's // */
    if (GS_UNLIKELY(b == 0)) FAULT(F_DIV0);
    if (GS_UNLIKELY(a == INT64_MIN && b == -1)) BAIL(B_OVERFLOW);
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
static inline int64_t mod_i(G *g, int64_t a, int64_t b) {    /* Python's % */
    if (GS_UNLIKELY(b == 0)) FAULT(F_DIV0);
    if (GS_UNLIKELY(b == -1)) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
int64_t pow_i(G *g, int64_t x, int64_t y);
static inline int64_t bounded_i(G *g, int64_t v) {          /* |v| < 2**63 */
    if (GS_UNLIKELY(v == INT64_MIN)) FAULT(F_INT_SIZE);
    return v;
}
static inline V bounded_v(G *g, V v) {
    if (v.t == T_INT && GS_UNLIKELY(v.i == INT64_MIN)) FAULT(F_INT_SIZE);
    return v;
}
static inline int64_t abs_i(G *g, int64_t a) { return a < 0 ? neg_i(g, a) : a; }

/* ---- seats, cards, zones ----------------------------------------------------------------- */
static inline int64_t seat(G *g, V v) {        /* a player index: exactly an int in 0..P-1 */
    if (GS_UNLIKELY(v.t != T_INT || v.i < 0 || v.i >= g->L->P)) FAULT(F_PLAYER);
    return v.i;
}
static inline int64_t seat_i(G *g, int64_t p) {
    if (GS_UNLIKELY(p < 0 || p >= g->L->P)) FAULT(F_PLAYER);
    return p;
}
static inline int64_t team_i(G *g, int64_t t, int64_t T) {   /* a team index: 0..T-1 (runtime.team_index) */
    if (GS_UNLIKELY(t < 0 || t >= T)) FAULT(F_TEAM);
    return t;
}
static inline int64_t team_v(G *g, V v, int64_t T) {        /* exactly an int (a bool is no team) */
    if (GS_UNLIKELY(v.t != T_INT || v.i < 0 || v.i >= T)) FAULT(F_TEAM);
    return v.i;
}
static inline int64_t card_of(G *g, V v) {     /* a card id to index a card table with */
    if (GS_LIKELY(v.t == T_INT && v.i >= 0 && v.i < g->L->ncards)) return v.i;
    if (v.t == T_NONE) FAULT(F_NONE_ATTR);
    BAIL(B_CARD);
}
static inline int64_t card_i(G *g, int64_t c) {
    if (GS_LIKELY(c >= 0 && c < g->L->ncards)) return c;
    BAIL(B_CARD);
}
static inline int zone_ok(G *g, int64_t zi) {
    if (GS_UNLIKELY(zi < 0 || zi >= g->L->nzones)) BAIL(B_STATE);
    return (int)zi;
}
static inline int64_t zsize(G *g, int64_t zi) { return g->z[zone_ok(g, zi)].n; }
static inline V ztop(G *g, int64_t zi) {
    Zone *z = &g->z[zone_ok(g, zi)];
    return z->n ? vint(z->a[z->n - 1]) : vnone();
}
/* a zone index the generated code has checked already (its kind z: made by a checked index or a
 * constant), as g->z[zi].n is read */
static inline V ztop_z(G *g, int64_t zi) {
    Zone *z = &g->z[zi];
    return z->n ? vint(z->a[z->n - 1]) : vnone();
}
static inline V zbottom(G *g, int64_t zi) {
    Zone *z = &g->z[zone_ok(g, zi)];
    return z->n ? vint(z->a[0]) : vnone();
}
List *zlist(G *g, int64_t zi);                 /* a copy of a zone's cards as a list */
List *ztopn(G *g, int64_t zi, int64_t m);      /* top m, topmost first */
List *zbottomn(G *g, int64_t zi, int64_t m);
int zcontains(G *g, int64_t zi, V x);

/* ---- effects (interpreter/runtime.py) ---------------------------------------------------- */
void rt_move(G *g, int64_t c, int64_t dst, int face, int bottom);
static inline void rt_move_v(G *g, V c, int64_t dst, int face, int bottom) {    /* a value that must be a card */
    if (GS_UNLIKELY(c.t != T_INT)) rt_stop(g, c.t == T_NONE ? F_NO_CARD : B_CARD);
    rt_move(g, c.i, dst, face, bottom);
}
void rt_move_list(G *g, V xs, int64_t dst, int face, int bottom);
void rt_move_zone(G *g, int64_t src, int64_t dst, int face, int bottom);
void rt_deal(G *g, int64_t src, int64_t dst, int64_t n, int face);
static inline void rt_poss_widen(G *g, int32_t src, int32_t dst) {   /* State.poss[dst] |= poss[src] */
    if (!g->track_poss) return;
    uint64_t *d = g->poss + (size_t)dst * (size_t)g->pw;
    const uint64_t *s = g->poss + (size_t)src * (size_t)g->pw;
    for (int32_t k = 0; k < g->pw; k++) d[k] |= s[k];
}
void rt_poss_reset(G *g, int any);    /* plan.c: a new game's (0) or a loaded state's (1, rs.any_poss) */
void rt_shuffle(G *g, int64_t zi);
/* a card picked blind from a set is drawn: the entry to play for entry k (interpreter/blind.py) */
int32_t rt_blind_pick(G *g, int32_t k, const uint8_t *kinds, int32_t maxp, int32_t *reordered);
int32_t rt_blind_refind(G *g, int32_t k, const Listing *to, const uint8_t *kinds, int32_t maxp);
void rt_reveal_card(G *g, V c, int64_t p);
void rt_reveal_list(G *g, V xs, int64_t p);
void rt_reveal_zone(G *g, int64_t zi, int64_t p);
void rt_set_mark(G *g, V what, int what_kind, int m, V val);  /* what_kind 0 card, 1 zone, 2 list */
/* a decision's cards chosen at places of piles, forgotten there by who did not see them (State._places) */
typedef struct { int32_t c, z, n; uint64_t seen; int32_t *before; } Place;
typedef struct { int32_t n; Place *a; } Places;
Places *rt_places_note(G *g, const V *pr, int32_t np, const uint8_t *kinds);  /* kinds: 1 card, 2 subset */
void rt_places_forget(G *g, const Places *ps, int64_t actor);
static inline V rt_get_mark(G *g, V c, int m) {
    if (c.t == T_NONE) FAULT(F_NO_CARD);
    int64_t ci = card_of(g, c);
    int64_t x = g->mk[(int64_t)m * g->L->ncards + ci];
    return g->L->mark_bool[m] ? vbool((int)x) : vint(x);
}
static inline V rt_zone_of(G *g, V c) {
    if (c.t == T_NONE) FAULT(F_TYPE);
    return vint(g->loc[card_of(g, c)]);
}
static inline int rt_face_down(G *g, V c) {
    if (c.t == T_NONE) return 0;          /* s.face.get(None) == 2 is False */
    if (c.t != T_INT) BAIL(B_TYPE);
    if (c.i < 0 || c.i >= g->L->ncards) return 0;
    return g->face[c.i] == 2;
}

static inline int v_same(V a, V b) {       /* json_key equality: true is not 1, lists item by item */
    if (a.t != b.t) return 0;
    if (a.t == T_NONE) return 1;
    if (a.t != T_LIST) return a.i == b.i;
    const List *x = LST(a), *y = LST(b);
    if (x->n != y->n) return 0;
    for (int32_t k = 0; k < x->n; k++) if (!v_same(x->a[k], y->a[k])) return 0;
    return 1;
}


/* ---- lists -------------------------------------------------------------------------------- */
V rt_index_slow(G *g, V xs, V i);
static inline V rt_index(G *g, V xs, V i) {    /* xs[i], Python's indexing */
    if (GS_LIKELY(xs.t == T_LIST && isnum(i))) {
        List *l = LST(xs);
        int64_t k = i.i < 0 ? i.i + l->n : i.i;
        if (GS_LIKELY(k >= 0 && k < l->n)) return l->a[k];
    }
    return rt_index_slow(g, xs, i);
}
V rt_join(G *g, V a, V b);                     /* a + b on lists (charged) */
V rt_add_assign(G *g, V a, V b, int sign);     /* `+=` / `-=` (closures._add) */
V rt_plus_slow(G *g, V a, V b);
static inline V rt_plus_any(G *g, V a, V b) {  /* checked_plus; numbers inline */
    if (GS_LIKELY(isnum(a) && isnum(b))) return vint(add_i(g, a.i, b.i));
    return rt_plus_slow(g, a, b);
}
V rt_arith_any(G *g, int op, V a, V b);        /* checked_arith: '-', '//', '%' */
V rt_mul_any(G *g, V a, V b);                  /* checked_mul */
V rt_range(G *g, int64_t a, int64_t b);        /* charged */
int rt_in_slow(G *g, V x, V xs);
static inline int rt_in(G *g, V x, V xs) {     /* x in xs (charged); a number in a list: inline */
    if (GS_LIKELY(xs.t == T_LIST && isnum(x))) {
        const List *l = LST(xs);
        charge(g, l->n);
        for (int32_t k = 0; k < l->n; k++)
            if (isnum(l->a[k]) ? l->a[k].i == x.i : py_eq(x, l->a[k])) return 1;
        return 0;
    }
    return rt_in_slow(g, x, xs);
}
V rt_sum(G *g, V xs);
V rt_maxmin(G *g, V xs, int is_max, int has_default, V dflt);
V rt_sorted(G *g, V xs);
V rt_sorted_by(G *g, List *keys, List *items);   /* items by their keys, stably (sorted_by) */
V rt_first_n(G *g, V xs, int64_t k);
V rt_last_n(G *g, V xs, int64_t k);
V rt_first(G *g, V xs);
V rt_last(G *g, V xs);
int rt_any(G *g, V xs);
int rt_all(G *g, V xs);
int rt_majority_slow(G *g, V xs, V i, V mn, int sole);
/* is_max / is_sole_max (codegen._majority): a list of numbers inline, in one pass (max and count
 * together); anything else, or an index out of range, in runtime.c */
static inline int rt_majority(G *g, V xs, V i, V mn, int sole) {
    if (GS_LIKELY(xs.t == T_LIST && isnum(i) && isnum(mn))) {
        const List *l = LST(xs);
        int64_t k = i.i < 0 ? i.i + l->n : i.i;
        if (GS_LIKELY(k >= 0 && k < l->n && isnum(l->a[k]))) {
            int64_t v = l->a[k].i;
            if (v < mn.i) return 0;
            int64_t mx = INT64_MIN, c = 0;
            int32_t j = 0;
            for (; j < l->n && isnum(l->a[j]); j++) {
                if (l->a[j].i > mx) mx = l->a[j].i;
                c += l->a[j].i == v;
            }
            if (j == l->n) return v < mx ? 0 : (!sole || c == 1);
        }
    }
    return rt_majority_slow(g, xs, i, mn, sole);
}
V rt_dense_rank(G *g, V xs, V i);
V rt_run_length(G *g, V xs, V v);
V rt_longest_run(G *g, V xs);
V rt_index_of(G *g, V xs, V x);
V rt_distinct(G *g, V xs);
V rt_count_by(G *g, V xs);
V rt_unique(G *g, V xs);                       /* dict.fromkeys: a choice parameter's values */
V rt_copy_root(G *g, V v);                     /* into the current arena, deep */

/* ---- the spec's functions (generated: static V fnN(G *g, int32_t d, V args...)) -------------- */
enum { F_CALL_DEPTH = 24 };      /* a fault: functions nested more than MAX_CALL_DEPTH calls (call-depth) */

/* ---- combinatorics (combi.c, included by runtime.c; runtime.py's, sized and charged first) ---- */
V rt_cb_subsets(G *g, V xs);                   /* subsets(xs) as a value */
V rt_cb_combinations(G *g, V xs, V k);
V rt_cb_permutations(G *g, V xs, V k, int has_k);
int64_t rt_cb_product(G *g, V xs);             /* product(xs): a step per item */
int64_t rt_cb_multiply(G *g, V xs);            /* the items of product(e for ...), charged already */
V rt_cb_runs(G *g, V xs);

/* ---- listings ------------------------------------------------------------------------------ */
void lst_reset(Listing *l);
int32_t lst_grow(G *g, Listing *l, int32_t act, int32_t npairs);
static inline int32_t lst_entry(G *g, Listing *l, int32_t act, int32_t npairs) {  /* returns the vals offset */
    if (GS_UNLIKELY(l->n >= l->cap || l->nv + 2 * npairs > l->vcap)) return lst_grow(g, l, act, npairs);
    int32_t off = l->nv;
    l->act[l->n] = act;
    l->off[l->n] = off;
    l->n++;
    l->nv += 2 * npairs;
    return off;
}
static inline V *lst_pairs(Listing *l, int32_t k) { return l->vals + l->off[k]; }
/* A listing's cursor: an action's entries appended with the listing's counts and arrays in locals (a
 * V stored through vals cannot alias them, so they stay in registers); lc_close writes the counts
 * back. Opened and closed by each generated enumN around its entries (nothing reads the listing
 * while they are made; a fault leaves it to be reset, as before). */
typedef struct { Listing *l; int32_t *act, *off; V *vals; int32_t n, nv, cap, vcap; } LCur;
static inline void lc_open(LCur *c, Listing *l) {
    c->l = l; c->act = l->act; c->off = l->off; c->vals = l->vals;
    c->n = l->n; c->nv = l->nv; c->cap = l->cap; c->vcap = l->vcap;
}
static inline void lc_close(LCur *c) { c->l->n = c->n; c->l->nv = c->nv; }
static inline V *lc_entry(G *g, LCur *c, int32_t act, int32_t npairs) {   /* the entry's pairs */
    if (GS_UNLIKELY(c->n >= c->cap || c->nv + 2 * npairs > c->vcap)) {
        lc_close(c);
        int32_t off = lst_grow(g, c->l, act, npairs);
        lc_open(c, c->l);
        return c->vals + off;
    }
    int32_t off = c->nv;
    c->act[c->n] = act;
    c->off[c->n] = off;
    c->n++;
    c->nv = off + 2 * npairs;
    return c->vals + off;
}
V lst_list(G *g, Listing *l, int64_t n);          /* a list allocated with the listing (subsets) */

/* ---- the flow and the game (runtime.c) ---------------------------------------------------- */
static inline void rt_count_decision(G *g) {     /* State._count_decision */
    const Layout *L = g->L;
    if (GS_UNLIKELY(g->decisions >= L->max_decisions)) rt_stop(g, F_GAME_BUDGET);
    int64_t spent = g->spent + L->max_steps - g->budget;
    if (GS_UNLIKELY(spent > L->max_game_steps)) rt_stop(g, F_GAME_STEPS);
    g->spent = spent;
    g->decisions += 1;
}
void rt_flip_now(G *g);
#define FLIP_AT ((size_t)48 << 10)    /* reclaim once this much of the first chunk is used */
static inline void rt_flip(G *g) {  /* at a decision boundary: live values to the other arena */
    Arena *a = &g->ar[g->side];
    if (a->head == NULL || (a->cur == a->head && a->head->used < FLIP_AT)) return;
    rt_flip_now(g);
}
void rt_store_choice(G *g, int32_t k);
void rt_store_entry(G *g, Listing *l, int32_t k);
void rt_ff_init(G *g, int slot, V items);
static inline V rt_ff_var(G *g, int slot) {
    if (GS_UNLIKELY(!g->ff[slot].has_var)) rt_stop(g, F_KEY);
    return g->ff[slot].var;
}
void rt_ff_clear_all(G *g);
int keys_lt(G *g, const V *a, const V *b, int n);     /* tuples: a < b */
int keys_eq(const V *a, const V *b, int n);
List *rt_subsets(G *g, V cards, int from_zone, int64_t lo, int64_t hi);
V rt_copy_to_listing(G *g, Listing *l, V v);

/* ---- reaction windows (runtime.c, "reaction windows"; flow.make_window) ------------------- */
/* A window's state lives in flow slots (Flow): its asking loop's (the listed players, the responder),
 * `took` (has_var while open; var: the list of responders so far) and `out` (has_var from the close
 * to window_done; var: the responder or none, or the list of responders). */
void rt_win_open(G *g, int lslot, int tslot);          /* each listed player a seat, once; took = [] */
void rt_win_note(G *g, int tslot, int64_t p);          /* took += [p] */
int rt_win_took(G *g, int tslot);                      /* someone responded */
void rt_win_close(G *g, int tslot, int oslot, int every);
int rt_win_some(G *g, int oslot, int every);           /* the outcome names someone */
void rt_win_done(G *g, int oslot);

/* ---- RNG ---------------------------------------------------------------------------------- */
uint64_t rng_seed_state(uint64_t seed);
uint64_t rng_shuffle_shake(uint64_t state, int32_t *items, int64_t n);
uint64_t rng_shuffle_xorshift(uint64_t state, int32_t *items, int64_t n);
uint64_t rng_shuffle_fast(uint64_t state, int32_t *items, int64_t n);
uint64_t fast_stream(uint64_t seed, uint64_t lane);
void mt_init_by_array(MT *m, const uint32_t *key, int n);
void mt_seed_u64(MT *m, uint64_t seed);
uint32_t mt_next(MT *m);
uint64_t mt_getrandbits(MT *m, int k);
int64_t mt_randbelow(MT *m, int64_t n);

#endif
