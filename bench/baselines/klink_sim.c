/* Hand-written Klink simulator in C with uniformly random decisions (speed baseline, issue 37).
 *
 * The C twin of klink_baseline.py (same rules: /work/shared/rules/klink.md and its [decision] lines,
 * the same decision points and choice lists as games/klink.yaml; see that file's docstring) with the
 * native engine's fast generator (docs/native.md, "Fast generator"): splitmix64 draws, Lemire's
 * bounded draw, Fisher-Yates from the top down. One stream per game, seeded once
 * (seed_state(seed)), for the shuffles and the decisions alike. It is what "a competent
 * hand-written simulator" costs, for the gap figure of bench/callgrind.py --baseline: it keeps
 * what the rules need in the cheapest form (a collection is a count per value plus a count of
 * face-down cards) and builds a choice list only where the choices are not a plain range.
 *
 *   cc -O2 -o klink_sim bench/baselines/klink_sim.c && ./klink_sim 2000 4 0
 *   (-DCALLGRIND: zero the counts before the games and dump them after, callgrind's client requests)
 *
 * Prints the games, players, seed, decisions per game and the mean total per seat. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef CALLGRIND
#include <valgrind/callgrind.h>
#endif

#define GOLDEN 0x9E3779B97F4A7C15ULL
#define VMIN (-5)
#define NV 26                    /* values -5..20 */
#define MAXP 5
enum { SWAP, DROP, HIDE, GIFT, PEEK, SHIELD };
#define ROUND_CARDS 10
#define GAME_END 77

static uint64_t seed_state(uint64_t seed) {
    uint64_t z = seed + GOLDEN;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return z ? z : 0x2545F4914F6CDD1DULL;
}
static inline uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static inline uint32_t below(uint64_t *s, uint64_t m) {     /* uniform in 0..m-1 (Lemire, exact) */
    uint64_t x = *s + GOLDEN;
    __uint128_t p = (__uint128_t)mix(x) * m;
    if ((uint64_t)p < m) {
        uint64_t t = (0 - m) % m;
        while ((uint64_t)p < t) { x += GOLDEN; p = (__uint128_t)mix(x) * m; }
    }
    *s = x;
    return (uint32_t)(p >> 64);
}
static inline void shuffle(uint64_t *s, int8_t *a, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)below(s, (uint64_t)i + 1);
        int8_t t = a[i]; a[i] = a[j]; a[j] = t;
    }
}

static int8_t NUMBERS[63];

typedef struct {
    int8_t up[MAXP][NV];         /* face-up cards per value (after a reset: 0 or 1, Swap/Gift may add) */
    int nup[MAXP];               /* face-up cards */
    int down[MAXP];              /* face-down cards (they count 0) */
} Table;

static inline int run_length(const int8_t *up, int v) {      /* the run of face-up values through v */
    int i = v - VMIN;
    if (!up[i]) return 0;
    int lo = i, hi = i;
    while (lo > 0 && up[lo - 1]) lo--;
    while (hi < NV - 1 && up[hi + 1]) hi++;
    return hi - lo + 1;
}

static inline void take_up(Table *t, int p, int v) { t->up[p][v - VMIN]--; t->nup[p]--; }
static inline void give_up(Table *t, int p, int v) { t->up[p][v - VMIN]++; t->nup[p]++; }

static int64_t play_game(uint64_t seed, int P, int64_t *totals) {
    uint64_t s = seed_state(seed);
    int64_t decisions = 0;
    int starter = 0;
    for (int p = 0; p < P; p++) totals[p] = 0;
    for (;;) {
        int8_t deck[63], ab[12], ab_disc[12], ab_up[3];
        memcpy(deck, NUMBERS, sizeof deck);
        int nd = 63;
        shuffle(&s, deck, nd);
        for (int k = 0; k < 12; k++) ab[k] = (int8_t)(k / 2);
        int nab = 12, ndisc = 0;
        shuffle(&s, ab, nab);
        for (int k = 0; k < 3; k++) ab_up[k] = ab[--nab];
        Table t;
        memset(&t, 0, sizeof t);
        int player = starter;
        for (;;) {
            if (nd < 2) break;
            int full = 0;
            for (int p = 0; p < P; p++) if (t.nup[p] + t.down[p] >= ROUND_CARDS) full = 1;
            if (full) break;
            int a = deck[--nd], b = deck[--nd];
            int had = 1 << player, holder = player;
            for (;;) {                               /* look (2 choices), then keep or pass */
                decisions += 2;
                below(&s, 2);
                int n = 1 + P - __builtin_popcount((unsigned)had);
                int k = (int)below(&s, (uint64_t)n);
                if (k == 0) break;
                int q = 0;
                for (;; q++) if (!(had >> q & 1) && --k == 0) break;
                had |= 1 << q;
                holder = q;
            }
            int8_t *mine = t.up[holder];
            give_up(&t, holder, a);
            give_up(&t, holder, b);
            for (int i = 0; i < NV; i++)             /* reset: equal values face down in pairs */
                if (mine[i] >= 2) {
                    int d = mine[i] & ~1;
                    mine[i] -= (int8_t)d; t.nup[holder] -= d; t.down[holder] += d;
                }
            if (run_length(mine, a) < 3 && run_length(mine, b) < 3) { player = holder; continue; }
            /* a straight: every legal use of a face-up ability, one decision */
            int has[6] = {0};
            for (int k = 0; k < 3; k++) has[ab_up[k]] = 1;
            int8_t vals[NV]; int m = 0;
            for (int i = 0; i < NV; i++) if (mine[i]) vals[m++] = (int8_t)(i + VMIN);
            int nswap = 0;
            if (has[SWAP])
                for (int to = 0; to < P; to++)
                    if (to != holder && t.nup[to])
                        for (int i = 0; i < NV; i++) nswap += t.up[to][i] != 0;
            nswap *= m;
            int n = nswap + (has[DROP] ? m : 0) + (has[HIDE] ? m : 0) + (has[GIFT] ? m * (P - 1) : 0)
                    + (has[PEEK] && nd > 0) + (has[SHIELD] && t.down[holder] > 0);
            if (n == 0) { player = holder; continue; }
            decisions++;
            int k = (int)below(&s, (uint64_t)n), kind;
            if (k < nswap) {                         /* the k-th of (m, to, t) in the list's order */
                kind = SWAP;
                for (int mi = 0; mi < m; mi++)
                    for (int to = 0; to < P; to++) {
                        if (to == holder || !t.nup[to]) continue;
                        for (int i = 0; i < NV; i++) {
                            if (!t.up[to][i]) continue;
                            if (k-- == 0) {
                                take_up(&t, holder, vals[mi]); give_up(&t, to, vals[mi]);
                                take_up(&t, to, i + VMIN); give_up(&t, holder, i + VMIN);
                                goto used;
                            }
                        }
                    }
            }
            k -= nswap;
            if (has[DROP]) { if (k < m) { kind = DROP; take_up(&t, holder, vals[k]); goto used; } k -= m; }
            if (has[HIDE]) { if (k < m) { kind = HIDE; take_up(&t, holder, vals[k]); t.down[holder]++; goto used; } k -= m; }
            if (has[GIFT]) {
                if (k < m * (P - 1)) {
                    kind = GIFT;
                    int to = k % (P - 1);
                    if (to >= holder) to++;
                    take_up(&t, holder, vals[k / (P - 1)]); give_up(&t, to, vals[k / (P - 1)]);
                    goto used;
                }
                k -= m * (P - 1);
            }
            if (has[PEEK] && nd > 0) { if (k == 0) { kind = PEEK; goto used; } k--; }
            kind = SHIELD;
            t.down[holder]--;
        used:
            for (int j = 0; j < 3; j++)              /* discard the used card, then draw its replacement */
                if (ab_up[j] == kind) { ab_up[j] = ab_up[2]; break; }
            ab_disc[ndisc++] = (int8_t)kind;
            if (nab == 0) { memcpy(ab, ab_disc, (size_t)ndisc); nab = ndisc; ndisc = 0; shuffle(&s, ab, nab); }
            ab_up[2] = ab[--nab];
            if (kind == PEEK) {                      /* which of the top 2 goes on top */
                decisions++;
                int two = nd >= 2 && deck[nd - 1] != deck[nd - 2];
                if (below(&s, two ? 2 : 1) == 1) {
                    int8_t x = deck[nd - 1]; deck[nd - 1] = deck[nd - 2]; deck[nd - 2] = x;
                }
            }
            player = holder;
        }
        /* round scoring: face-up values, -10 for the most cards, +10 for the fewest (at least 1) */
        int n[MAXP], most = 0, fewest = 1 << 30, pts[MAXP];
        for (int p = 0; p < P; p++) {
            n[p] = t.nup[p] + t.down[p];
            if (n[p] > most) most = n[p];
            if (n[p] >= 1 && n[p] < fewest) fewest = n[p];
        }
        if (fewest == 1 << 30) fewest = 0;
        int same = 1;
        for (int p = 0; p < P; p++) same &= n[p] == most;
        int best = -(1 << 30), over = 0;
        for (int p = 0; p < P; p++) {
            int sum = 0;
            for (int i = 0; i < NV; i++) sum += t.up[p][i] * (i + VMIN);
            if (!same) {
                if (n[p] == most) sum -= 10;
                else if (n[p] >= 1 && n[p] == fewest && fewest < most) sum += 10;
            }
            pts[p] = sum;
            totals[p] += sum;
            if (sum > best) best = sum;
            if (totals[p] >= GAME_END) over = 1;
        }
        for (int i = 0; i < P; i++) {
            int q = (starter + i) % P;
            if (pts[q] == best) { starter = q; break; }
        }
        if (over) return decisions;
    }
}

int main(int argc, char **argv) {
    long games = argc > 1 ? atol(argv[1]) : 2000;
    int P = argc > 2 ? atoi(argv[2]) : 4;
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;
    if (P < 3 || P > MAXP || games < 0) { fprintf(stderr, "usage: klink_sim GAMES PLAYERS(3-5) SEED\n"); return 2; }
    int k = 0;
    for (int v = -5; v < 0; v++) NUMBERS[k++] = (int8_t)v;
    NUMBERS[k++] = 0; NUMBERS[k++] = 0;
    for (int v = 1; v <= 16; v++) for (int c = 0; c < 3; c++) NUMBERS[k++] = (int8_t)v;
    for (int v = 17; v <= 20; v++) for (int c = 0; c < 2; c++) NUMBERS[k++] = (int8_t)v;
    int64_t decisions = 0, totals[MAXP], sums[MAXP] = {0};
#ifdef CALLGRIND
    CALLGRIND_ZERO_STATS;
#endif
    for (long g = 0; g < games; g++) {
        decisions += play_game(seed + (uint64_t)g, P, totals);
        for (int p = 0; p < P; p++) sums[p] += totals[p];
    }
#ifdef CALLGRIND
    CALLGRIND_DUMP_STATS_AT("games");
#endif
    printf("games %ld players %d seed %llu decisions %lld per_game %.2f means", games, P,
           (unsigned long long)seed, (long long)decisions, games ? (double)decisions / games : 0.0);
    for (int p = 0; p < P; p++) printf(" %.2f", games ? (double)sums[p] / games : 0.0);
    printf("\n");
    return 0;
}
