/* The agent tables a generated game exports (GS_AGENT), read by step.c: the fixed action ids of
 * gamespec/compile/action_space.py and the observation tensor's layout of interpreter/obs_tensor.py,
 * emitted by gamespec/compile/native/agent.py from those very objects (one table per concept, both
 * engines read it). Numbers only. */
#ifndef GS_AGENT_H
#define GS_AGENT_H

#include "runtime.h"

/* a parameter's domain (action_space._Values, _Range, _Cards, _Subsets) */
enum { AD_VALUES = 0, AD_RANGE = 1, AD_CARDS = 2, AD_SUBSET = 3 };

typedef struct {
    int32_t kind;
    int64_t size;
    int64_t lo;                 /* AD_RANGE: the first value; AD_SUBSET: the smallest size */
    int32_t nvals; const V *vals;   /* AD_VALUES */
    int32_t cards;              /* AD_CARDS, AD_SUBSET: index of its card domain */
    int64_t hi;                 /* AD_SUBSET: the largest size */
    const int64_t *size_off;    /* AD_SUBSET: per size lo..hi, the rank of its first multiset */
    /* AD_VALUES whose values are all of one tag (int, bool or text) in a short span: a direct index
     * (vidx[x.i - vlo]: the first place of that value, -1: none) instead of a scan; NULL: scan */
    int32_t vtag; int64_t vlo, vspan; const int32_t *vidx;
} ADom;

typedef struct {
    int64_t size;               /* faces + zones x cap */
    int32_t nfaces;
    const int32_t *face_pos;    /* per face of the game: its place in the domain, -1: not there */
    const int32_t *zone_pos;    /* per zone: its place among the handle zones, -1: none */
    int32_t cap;                /* positions per handle zone */
} ACards;

typedef struct {
    int32_t ok;                 /* 0: the spec has no fixed action space (ActionSpaceError) */
    int64_t nids;               /* N */
    const int64_t *act_base;    /* per action index: its first id (the skip is id 0) */
    const int32_t *act_dom;     /* per action index: its first parameter's domain */
    const ADom *doms;
    const ACards *cards;
    /* the observation tensor (obs_tensor.ObservationEncoder's layout) */
    int32_t obs_ok;
    int64_t obs_size;
    int32_t depth, o_player, o_to_move, o_phase;
    const int32_t *oz;          /* per zone: offsets of size, faces, hidden, top (-1: a set) */
    int32_t nmk; const int32_t *omk;   /* per (zone, mark): zone, mark, offset of the sum, of the top (-1) */
    const int64_t *mark_sight;  /* per mark: -1 seen with the card, else the mask of who sees it */
    int32_t nov; const int32_t *ov;    /* per variable cell: slot, kind (0 int/bool, 1 str, 2 player,
                                          3 card, 4 cards, 5 list), offset */
    const uint64_t *ov_sight;   /* per variable cell: who sees it */
    const int32_t *face_slot;   /* per face: its column (obs_tensor's face_id) */
    int32_t highest;            /* 1: the highest score wins (rewards 'score' sign) */
} AgentTables;

#endif
