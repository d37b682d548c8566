/* The exact Kalah solver's search (search.h); _kalah.c is its Python interface.
 *
 * A position is the pits alone, from the side to move: p[0..n-1] are the mover's pits 1..n,
 * p[n..2n-1] the other seat's pits 1..n.  Stores never move again, so they do not change what
 * is left to win: the value of a position is the final store difference that perfect play
 * still adds, for the side to move (mover's gains minus the other's).  A game's exact value is
 * the store difference now plus that.
 *
 * The rules are the engine's (firmware/lib/mancala/game.py, docs/rules.md): sowing skips the
 * other store and does not skip the emptied pit; a last stone in the own store moves again; a
 * last stone in an own empty pit captures itself and the opposite pit, when that pit holds
 * stones or with capture "always", and not when wipe-outs are refused and every other pit of
 * the other side is empty; after every move the game ends as soon as either side is empty and
 * each seat puts its own pits into its own store.
 *
 * The search: MTD(f) over a fail-soft null-window alpha-beta with a transposition table of
 * value bounds (exact values have no depth, so every bound is a true bound and the game has
 * no cycles: a move that puts no stone in a store only moves the mover's stones towards its
 * store), four one-word entries a bucket keyed by the position's rank; moves ordered by the
 * table's best move, then extra moves, then gains; and below a stone count, a table of exact
 * values (the endgame database), filled on demand by memoised search or read whole from a
 * file, indexed by the rank of the position among all with as few stones.  Both tables live
 * in 2 MiB pages where the system allows: their reads are random, and the search spends most
 * of its time waiting for them.
 *
 * Threads: with threads > 1, every thread runs the same MTD(f) from the root on the shared
 * tables, and the first to find the value ends the search (every stored bound is true, so
 * any thread's answer is the value).  They split the work as in simplified ABDADA: a thread
 * entering a large node marks its key busy, and a thread that meets a busy child past its
 * first move leaves that child to the end, by which time the other thread has usually put
 * its value in the table.  Entries are single 64-bit words and the endgame table's are
 * bytes, read and written whole, so no lock is needed.
 *
 * A search stops by a node budget, a deadline, core_stop() from another thread or the
 * signal callback; a stopped search has stored only true bounds.
 */
#include "search.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define UNKNOWN (-128)
/* Every CHECK nodes a thread looks at the clock and for a stop, and publishes its node count;
 * every SIGNALS nodes thread 0 calls the signal callback.  At about 4 million nodes a second
 * that is every millisecond and every 16 ms. */
#define CHECK 4096
#define SIGNALS 65536

/* A transposition table entry is one 64-bit word, read and written whole (so that threads
 * sharing the table never see half an entry): bits 0-7 the lower bound + 128, 8-15 the upper
 * bound + 128, 16-18 the best pit's index + 1 (0: none known), 19-23 log2 of the nodes its
 * search took (for replacement), 24-63 the key's tag.  0 is an empty slot: a real entry's
 * upper bound + 128 is never 0. */
#define WAYS 4                  /* entries a bucket: 32 bytes, half a cache line */
#define TAG_SHIFT 24
#define KEY_BITS 51             /* every position's rank is below C(96 + 12, 12) < 2^51 */
#define KEY_MASK ((1ULL << KEY_BITS) - 1)
#define MIN_TT_BITS 16          /* so that a tag never needs more than 40 bits */
#define START_INDEX_BITS 16     /* the table starts with 2^16 buckets (2 MiB) and grows */
/* The busy keys (threads > 1): a small table, read on every child of a node with at least
 * BUSY_ABOVE stones more than the endgame table's. */
#define BUSY_SLOTS (1 << 14)
#define BUSY_ABOVE 4

/* ------------------------------------------------------------------------------ rules */

/* Plays index i (0-based) of p for the side to move.  Writes the position that follows into
 * out (from the side to move next: swapped unless the move earns an extra one) and returns the
 * stones the mover gains on the other seat by it, the end's sweep included; *status is
 * NORMAL, EXTRA or OVER. */
static inline int play(const Core *s, const uint8_t *p, int i, uint8_t *out, int *status)
{
    const int n = s->n, L = 2 * n + 1;
    uint8_t q[2 * MAXN + 1];
    int j, st, laps, rem, last, gain, mine = 0, theirs = 0;
    for (j = 0; j < n; j++) {
        q[j] = p[j];
        q[n + 1 + j] = p[n + j];
    }
    q[n] = 0;
    st = q[i];
    q[i] = 0;
    laps = st / L;
    rem = st % L;
    if (laps)
        for (j = 0; j < L; j++)
            q[j] += laps;
    for (j = 1; j <= rem; j++)
        q[(i + j) % L]++;
    last = (i + st) % L;
    if (last < n && q[last] == 1) {
        int opp = 2 * n - last, take = q[opp] || s->always;
        if (take && !s->wipeout) {
            take = 0;
            for (j = n + 1; j < L; j++)
                if (j != opp && q[j]) {
                    take = 1;
                    break;
                }
        }
        if (take) {
            q[n] += q[opp] + 1;
            q[opp] = 0;
            q[last] = 0;
        }
    }
    gain = q[n];
    for (j = 0; j < n; j++) {
        mine += q[j];
        theirs += q[n + 1 + j];
    }
    if (!mine || !theirs) {
        *status = OVER;
        return gain + mine - theirs;
    }
    if (last == n) {
        *status = EXTRA;
        for (j = 0; j < n; j++) {
            out[j] = q[j];
            out[n + j] = q[n + 1 + j];
        }
    } else {
        *status = NORMAL;
        for (j = 0; j < n; j++) {
            out[j] = q[n + 1 + j];
            out[n + j] = q[j];
        }
    }
    return gain;
}

/* The same, for _kalah.c.  The search calls the static play() directly: through the shared
 * object's exported symbol every call went by the PLT (Kalah(6,4)'s start: 15.0 s of CPU
 * before, 13.9 and 14.7 s after, the same 26.7 million nodes, load about 10). */
int core_play(const Core *s, const uint8_t *p, int i, uint8_t *out, int *status)
{
    return play(s, p, i, out, status);
}

/* ------------------------------------------------------------------------------ tables */

static uint64_t rank(const Core *s, const uint8_t *p)
{
    /* The colex rank of the bars of p's stars-and-bars picture: positions with fewer stones
     * come first, so the ranks of those with at most N stones are 0 .. C(N + 2n, 2n) - 1. */
    uint64_t r = 0;
    int b = 0, i;
    for (i = 0; i < 2 * s->n; i++) {
        b += p[i];
        r += s->binom[b + i][i + 1];
    }
    return r;
}

/* The table's key for a position is its rank, which is below 2^51 and different for every
 * position, mixed by a bijection of 51 bits: the top bits pick the bucket, the rest are the
 * tag kept in the entry, so that a match is exact. */
static uint64_t mix(uint64_t r)
{
    r = (r * 0x9E3779B97F4A7C15ULL) & KEY_MASK;
    r ^= r >> 25;
    r = (r * 0xBF58476D1CE4E5B9ULL) & KEY_MASK;
    r ^= r >> 27;
    return r;
}

#define E_LO(e) ((int)((e) & 0xFF) - 128)
#define E_HI(e) ((int)(((e) >> 8) & 0xFF) - 128)
#define E_BEST(e) ((int)(((e) >> 16) & 7))
#define E_WORK(e) ((int)(((e) >> 19) & 31))
#define E_TAG(e) ((e) >> TAG_SHIFT)

static uint64_t entry(uint64_t tag, int lo, int hi, int best, int work)
{
    return (tag << TAG_SHIFT) | ((uint64_t)work << 19) | ((uint64_t)best << 16) |
           ((uint64_t)(hi + 128) << 8) | (uint64_t)(lo + 128);
}

/* The entry of key h (mixed) in its bucket, or 0. */
static uint64_t probe(const Core *s, uint64_t h)
{
    const uint64_t *b = s->tt + WAYS * (h >> (KEY_BITS - s->tt_index_bits));
    uint64_t tag = h & ((1ULL << (KEY_BITS - s->tt_index_bits)) - 1);
    int i;
    for (i = 0; i < WAYS; i++) {
        uint64_t e = __atomic_load_n(&b[i], __ATOMIC_RELAXED);
        if (e && E_TAG(e) == tag)
            return e;
    }
    return 0;
}

/* Keeps bounds lo..hi and the best pit for key h: merged with the entry the key has, or in
 * the bucket's slot whose search was the smallest. */
static void store(Worker *wk, uint64_t h, int lo, int hi, int best, uint64_t work)
{
    Core *s = wk->c;
    uint64_t *b = s->tt + WAYS * (h >> (KEY_BITS - s->tt_index_bits));
    uint64_t tag = h & ((1ULL << (KEY_BITS - s->tt_index_bits)) - 1);
    int i, w = 0, victim = 0, least = 64;
    while (work > 1 && w < 31) {
        work >>= 1;
        w++;
    }
    for (i = 0; i < WAYS; i++) {
        uint64_t e = __atomic_load_n(&b[i], __ATOMIC_RELAXED);
        if (e && E_TAG(e) == tag) {
            if (E_LO(e) > lo)
                lo = E_LO(e);
            if (E_HI(e) < hi)
                hi = E_HI(e);
            if (!best)
                best = E_BEST(e);
            if (E_WORK(e) > w)
                w = E_WORK(e);
            victim = i;
            break;
        }
        if (!e) {
            victim = i;
            least = -1;
        } else if (E_WORK(e) < least) {
            victim = i;
            least = E_WORK(e);
        }
    }
    wk->filled += least < 0;
    __atomic_store_n(&b[victim], entry(tag, lo, hi, best, w), __ATOMIC_RELAXED);
}

/* Doubles the buckets in use, in place: bucket i's entries go to bucket 2i or 2i + 1 by the
 * top bit of their tag, which they lose.  From the last bucket down, each goes to buckets
 * already emptied.  Only with every other thread standing still (checkpoint). */
static void grow(Core *s)
{
    int bits = s->tt_index_bits, i;
    int top = KEY_BITS - bits - 1;  /* the tag's top bit */
    uint64_t b;
    for (b = (1ULL << bits); b-- > 0;) {
        uint64_t *old = s->tt + WAYS * b, e[WAYS], *to[2];
        int used[2] = {0, 0};
        memcpy(e, old, sizeof e);
        memset(old, 0, sizeof e);
        to[0] = s->tt + WAYS * (2 * b);
        to[1] = to[0] + WAYS;
        for (i = 0; i < WAYS; i++) {
            uint64_t tag;
            int half;
            if (!e[i])
                continue;
            tag = E_TAG(e[i]);
            half = (int)(tag >> top) & 1;
            tag &= (1ULL << top) - 1;
            to[half][used[half]++] = (tag << TAG_SHIFT) | (e[i] & ((1ULL << TAG_SHIFT) - 1));
        }
    }
    s->tt_index_bits = bits + 1;
}

/* The busy marks: a slot a key, by its low bits; a lost mark only costs a duplicated search. */
static int busy_has(const Core *s, uint64_t h)
{
    return __atomic_load_n(&s->busy[h & (BUSY_SLOTS - 1)], __ATOMIC_RELAXED) == h + 1;
}

static void busy_mark(Core *s, uint64_t h)
{
    __atomic_store_n(&s->busy[h & (BUSY_SLOTS - 1)], h + 1, __ATOMIC_RELAXED);
}

static void busy_clear(Core *s, uint64_t h)
{
    uint64_t mine = h + 1;
    __atomic_compare_exchange_n(&s->busy[h & (BUSY_SLOTS - 1)], &mine, 0, 0,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static int db_value(Worker *w, const uint8_t *p, uint64_t r);
static void start_helpers(Core *s);

/* ------------------------------------------------------------------------------ stopping */

static int past(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static void give_up(Core *s, int why)
{
    int none = GO_ON;
    if (why != BY_DONE)
        __atomic_compare_exchange_n(&s->why, &none, why, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
    __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
}

/* The table grows, by thread 0 at its checks, when half its slots in use are filled: a
 * search that needs a small table touches only that much memory (a fresh page costs the
 * system far more than the search's use of it).  The other threads stand still meanwhile,
 * each at its next check: thread 0 waits until every one has, or has stopped searching. */
static void stand_still(Core *s, Worker *w)
{
    int gen = __atomic_load_n(&s->grow_gen, __ATOMIC_ACQUIRE);
    __atomic_store_n(&w->ack, gen, __ATOMIC_RELEASE);
    while (__atomic_load_n(&s->growing, __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&s->grow_gen, __ATOMIC_ACQUIRE) == gen)
        sched_yield();
}

static void maybe_grow(Core *s)
{
    int i, gen;
    if (s->tt_index_bits >= s->tt_max_bits ||
        __atomic_load_n(&s->filled, __ATOMIC_RELAXED) < (WAYS / 2) << s->tt_index_bits)
        return;
    gen = s->grow_gen + 1;
    __atomic_store_n(&s->grow_gen, gen, __ATOMIC_RELEASE);
    __atomic_store_n(&s->growing, 1, __ATOMIC_RELEASE);
    for (i = 1; i < s->threads; i++)
        while (__atomic_load_n(&s->w[i].ack, __ATOMIC_ACQUIRE) != gen &&
               !__atomic_load_n(&s->w[i].exited, __ATOMIC_ACQUIRE))
            sched_yield();
    grow(s);
    __atomic_store_n(&s->growing, 0, __ATOMIC_RELEASE);
}

/* Called when a thread's nodes reach next_check: sets its aborted when the node budget is
 * spent, the deadline has passed, stop() was called, the signal callback said so or another
 * thread ended the search; returns aborted.  With one thread the node budget is exact
 * (next_check never passes max_nodes + 1); with more, the threads' counts as of their last
 * checks are added.  The rest are looked at every CHECK nodes. */
static int checkpoint(Worker *w)
{
    Core *s = w->c;
    if (w->aborted)
        return w->aborted;
    __atomic_store_n(&w->shown, w->nodes, __ATOMIC_RELAXED);
    if (s->max_nodes) {
        uint64_t all = w->nodes;
        int i;
        for (i = 0; i < s->threads; i++)
            if (i != w->id)
                all += __atomic_load_n(&s->w[i].shown, __ATOMIC_RELAXED);
        if (all > s->max_nodes)
            w->aborted = BY_NODES;
    }
    if (w->aborted)
        ;
    else if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
        w->aborted = BY_DONE;
    else if (__atomic_load_n(&s->stop, __ATOMIC_RELAXED))
        w->aborted = BY_STOP;
    else if (s->deadline.tv_sec && past(&s->deadline))
        w->aborted = BY_TIME;
    else if (w->id == 0 && s->signals && w->nodes % SIGNALS < CHECK &&
             s->signals(s->signals_arg))
        w->aborted = BY_SIGNAL;
    if (w->aborted) {
        give_up(s, w->aborted);
        w->next_check = 0;      /* every node now returns at once */
        return w->aborted;
    }
    if (w->filled) {
        __atomic_fetch_add(&s->filled, w->filled, __ATOMIC_RELAXED);
        w->filled = 0;
    }
    if (w->id == 0) {
        if (s->threads > 1 && !s->started && w->nodes >= s->help_after)
            start_helpers(s);
        maybe_grow(s);
    }
    else if (__atomic_load_n(&s->growing, __ATOMIC_ACQUIRE))
        stand_still(s, w);
    w->next_check = w->nodes + CHECK;
    if (s->max_nodes && w->next_check > s->max_nodes + 1)
        w->next_check = s->max_nodes + 1;
    return w->aborted;
}

static int child_value(Worker *w, const uint8_t *p, int i)
{
    uint8_t c[MAXPITS];
    int status, gain = play(w->c, p, i, c, &status);
    if (status == OVER)
        return gain;
    if (status == EXTRA)
        return gain + db_value(w, c, rank(w->c, c));
    return gain - db_value(w, c, rank(w->c, c));
}

/* The exact value of a position with at most db_stones stones, from the table or searched
 * once in full and kept. */
static int db_value(Worker *w, const uint8_t *p, uint64_t r)
{
    Core *s = w->c;
    int v = __atomic_load_n(&s->db[r], __ATOMIC_RELAXED), i, best = UNKNOWN;
    if (v != UNKNOWN)
        return v;
    if (++w->nodes >= w->next_check && checkpoint(w))
        return 0;
    for (i = 0; i < s->n; i++)
        if (p[i]) {
            v = child_value(w, p, i);
            if (w->aborted)
                return 0;
            if (v > best)
                best = v;
        }
    __atomic_store_n(&s->db[r], (int8_t)best, __ATOMIC_RELAXED);
    return best;
}

/* ------------------------------------------------------------------------------ search */

/* The value of position p (total stones, rank r) for the side to move, fail-soft within
 * alpha..beta. */
static int search(Worker *w, const uint8_t *p, int total, uint64_t r, int alpha, int beta)
{
    Core *s = w->c;
    uint8_t kids[MAXN][MAXPITS];
    uint64_t ranks[MAXN];
    int gains[MAXN], status[MAXN], order[MAXN], score[MAXN], later[MAXN];
    int i, j, k, m = 0, nlater = 0, best = -MAXSTONES - 1, bestpit = 0, hint = 0, a0, b0;
    int shared;
    uint64_t key, before, e;

    if (total <= s->db_stones)
        return db_value(w, p, r);
    if (alpha >= total)
        return total;
    if (beta <= -total)
        return -total;
    if (++w->nodes >= w->next_check && checkpoint(w))
        return 0;
    before = w->nodes;
    key = mix(r);
    if ((e = probe(s, key)) != 0) {
        int lo = E_LO(e), hi = E_HI(e);
        if (lo >= beta)
            return lo;
        if (hi <= alpha)
            return hi;
        if (lo == hi)
            return lo;
        if (lo > alpha)
            alpha = lo;
        if (hi < beta)
            beta = hi;
        hint = E_BEST(e);
    }
    a0 = alpha;
    b0 = beta;
    for (i = s->n - 1; i >= 0; i--) {
        if (!p[i])
            continue;
        gains[m] = play(s, p, i, kids[m], &status[m]);
        if (status[m] != OVER)
            ranks[m] = rank(s, kids[m]);
        /* The table's best first, then extra moves (nearest the store first), then gains. */
        score[m] = (i + 1 == hint ? 10000 : 0) + (status[m] == EXTRA ? 1000 : 0) +
                   16 * gains[m] + i;
        order[m] = i;
        k = m++;
        while (k > 0 && score[k] > score[k - 1]) {
            int t;
            uint64_t tr;
            uint8_t tk[MAXPITS];
            t = score[k]; score[k] = score[k - 1]; score[k - 1] = t;
            t = order[k]; order[k] = order[k - 1]; order[k - 1] = t;
            t = gains[k]; gains[k] = gains[k - 1]; gains[k - 1] = t;
            t = status[k]; status[k] = status[k - 1]; status[k - 1] = t;
            tr = ranks[k]; ranks[k] = ranks[k - 1]; ranks[k - 1] = tr;
            memcpy(tk, kids[k], sizeof tk);
            memcpy(kids[k], kids[k - 1], sizeof tk);
            memcpy(kids[k - 1], tk, sizeof tk);
            k--;
        }
    }
    /* With other threads: this node is busy while it is searched, and its children that
     * another thread is searching (past the first) wait for the end. */
    shared = s->threads > 1 && total >= s->db_stones + BUSY_ABOVE;
    if (shared)
        busy_mark(s, key);
    for (j = 0; j < m + nlater; j++) {
        int g, v;
        k = j < m ? j : later[j - m];
        g = gains[k];
        if (j < m && j > 0 && shared && status[k] != OVER && total - g > s->db_stones &&
            busy_has(s, mix(ranks[k]))) {
            later[nlater++] = k;
            continue;
        }
        if (status[k] == OVER)
            v = g;
        else if (status[k] == EXTRA)
            v = g + search(w, kids[k], total - g, ranks[k], alpha - g, beta - g);
        else
            v = g - search(w, kids[k], total - g, ranks[k], g - beta, g - alpha);
        if (w->aborted)
            break;
        if (v > best) {
            best = v;
            bestpit = order[k] + 1;
            if (v > alpha)
                alpha = v;
            if (alpha >= beta)
                break;
        }
    }
    if (shared)
        busy_clear(s, key);
    if (w->aborted)
        return 0;
    if (best <= a0)
        store(w, key, -MAXSTONES, best, bestpit, w->nodes - before);
    else if (best >= b0)
        store(w, key, best, MAXSTONES, bestpit, w->nodes - before);
    else
        store(w, key, best, best, bestpit, w->nodes - before);
    return best;
}

static int mtdf(Worker *w, const uint8_t *p, int total, int guess)
{
    int lower = -total, upper = total, g = guess, beta;
    if (g < lower)
        g = lower;
    if (g > upper)
        g = upper;
    while (lower < upper) {
        beta = g == lower ? g + 1 : g;
        g = search(w, p, total, rank(w->c, p), beta - 1, beta);
        if (w->aborted)
            break;
        if (g < beta)
            upper = g;
        else
            lower = g;
    }
    return g;
}

/* ------------------------------------------------------------------------------ driving */

static void worker_reset(Core *s, int id)
{
    Worker *w = &s->w[id];
    w->c = s;
    w->id = id;
    w->nodes = 0;
    w->shown = 0;
    w->aborted = GO_ON;
    w->filled = 0;
    w->exited = 0;
    w->next_check = 1;          /* the first node checks at once */
    if (s->max_nodes && w->next_check > s->max_nodes + 1)
        w->next_check = s->max_nodes + 1;
}

static void worker_run(Worker *w)
{
    Core *s = w->c;
    int v = mtdf(w, w->root, w->total, w->guess), no = 0;
    if (!w->aborted && __atomic_compare_exchange_n(&s->found, &no, 1, 0, __ATOMIC_ACQ_REL,
                                                   __ATOMIC_RELAXED)) {
        s->result = v;
        give_up(s, BY_DONE);
    }
    if (w->filled) {
        __atomic_fetch_add(&s->filled, w->filled, __ATOMIC_RELAXED);
        w->filled = 0;
    }
    __atomic_store_n(&w->exited, 1, __ATOMIC_RELEASE);
}

static void *worker_main(void *arg)
{
    worker_run((Worker *)arg);
    return NULL;
}

void core_budget(Core *s, uint64_t max_nodes, const struct timespec *deadline)
{
    s->max_nodes = max_nodes;
    s->deadline.tv_sec = 0;
    s->deadline.tv_nsec = 0;
    if (deadline)
        s->deadline = *deadline;
}

static void begin(Core *s, int threads)
{
    int i;
    if (!s->db_ready) {
        memset(s->db, UNKNOWN, s->db_size);
        s->db_ready = 1;
    }
    s->done = 0;
    s->why = GO_ON;
    s->found = 0;
    for (i = 0; i < MAXTHREADS; i++) {
        worker_reset(s, i);
        s->w[i].exited = i >= threads;
    }
    if (s->deadline.tv_sec && past(&s->deadline))
        give_up(s, BY_TIME);
}

static void end(Core *s, int threads)
{
    int i;
    for (i = 0; i < threads; i++) {
        s->nodes += s->w[i].nodes;
        s->w[i].nodes = s->w[i].shown = 0;
    }
    s->stop = 0;
}

/* The other threads, once thread 0 has searched help_after nodes (checkpoint): a smaller
 * search is over before they would pay for themselves. */
static void start_helpers(Core *s)
{
    int i;
    s->started = 1;
    for (i = 1; i < s->threads; i++) {
        __atomic_store_n(&s->w[i].exited, 0, __ATOMIC_RELEASE);
        if (pthread_create(&s->w[i].tid, NULL, worker_main, &s->w[i])) {
            __atomic_store_n(&s->w[i].exited, 1, __ATOMIC_RELEASE);
            break;
        }
        s->started++;
    }
}

int core_value(Core *s, const uint8_t *p, int total, int guess, int *value)
{
    int i, why;
    begin(s, 1);
    s->started = 0;
    if (s->done) {
        end(s, s->threads);
        return s->why;
    }
    for (i = 0; i < s->threads; i++) {
        s->w[i].root = p;
        s->w[i].total = total;
        s->w[i].guess = guess;
    }
    if (s->threads > 1)
        memset(s->busy, 0, BUSY_SLOTS * sizeof *s->busy);
    worker_run(&s->w[0]);
    give_up(s, BY_DONE);        /* the helpers stop at their next check */
    for (i = 1; i < s->started; i++)
        pthread_join(s->w[i].tid, NULL);
    why = s->w[0].aborted == BY_SIGNAL ? BY_SIGNAL : s->found ? GO_ON : s->why;
    *value = s->result;
    end(s, s->threads);
    return why;
}

int core_endgame(Core *s, int8_t *out)
{
    uint64_t r;
    int m = 2 * s->n, why;
    Worker *w = &s->w[0];
    begin(s, 1);
    s->started = 1;             /* on this thread alone: no helper ever starts */
    w->aborted = s->done ? s->why : GO_ON;
    for (r = 0; r < s->db_size && !w->aborted; r++) {
        uint8_t p[MAXPITS];
        uint64_t left = r;
        int i, bar, next = 0, mine = 0, theirs = 0;
        /* Unrank: the bars, from the last, each the largest b with C(b, i + 1) <= left. */
        int bars[MAXPITS];
        for (i = m - 1; i >= 0; i--) {
            bar = i;
            while (s->binom[bar + 1][i + 1] <= left)
                bar++;
            left -= s->binom[bar][i + 1];
            bars[i] = bar;
        }
        for (i = 0; i < m; i++) {
            p[i] = (uint8_t)(bars[i] - next);
            next = bars[i] + 1;
            if (i < s->n)
                mine += p[i];
            else
                theirs += p[i];
        }
        out[r] = (int8_t)(mine && theirs ? db_value(w, p, r) : mine - theirs);
    }
    why = w->aborted;
    end(s, 1);
    return why;
}

uint64_t core_nodes(const Core *s)
{
    uint64_t all = s->nodes;
    int i;
    for (i = 0; i < s->threads; i++)
        all += __atomic_load_n(&s->w[i].shown, __ATOMIC_RELAXED);
    return all;
}

void core_stop(Core *s)
{
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------------------ memory */

typedef struct {
    int fd;
    int8_t *to;
    uint64_t size;
    long long from;
    int ok;
    pthread_t tid;
} Part;

static void *read_part(void *arg)
{
    Part *p = arg;
    uint64_t got = 0;
    while (got < p->size) {
        uint64_t want = p->size - got > (1 << 24) ? (1 << 24) : p->size - got;
        ssize_t n = pread(p->fd, p->to + got, want, (off_t)(p->from + got));
        if (n <= 0)
            break;
        got += (uint64_t)n;
    }
    p->ok = got == p->size;
    return NULL;
}

static void db_free(Core *s)
{
    if (s->db_map)
        munmap(s->db_map, s->db_map_size);
    else if (s->db)
        munmap(s->db, s->db_size);
    s->db = NULL;
    s->db_map = NULL;
}

int core_map_endgame(Core *s, const char *path, long long offset)
{
    struct stat st;
    void *m;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) < 0 || offset < 0 ||
        (uint64_t)st.st_size < (uint64_t)offset + s->db_size) {
        close(fd);
        return -1;
    }
    /* Private and writable: a write (none is needed with a full table) copies its page. */
    m = mmap(NULL, (uint64_t)offset + s->db_size, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return -1;
    db_free(s);
    s->db_map = m;
    s->db_map_size = (uint64_t)offset + s->db_size;
    s->db = (int8_t *)m + offset;
    s->db_ready = 1;
    return 0;
}

int core_load_endgame(Core *s, const char *path, long long offset)
{
    Part parts[MAXTHREADS];
    int i, k = s->threads, started = 0, ok = 1;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    for (i = 0; i < k; i++) {
        uint64_t a = s->db_size * i / k, b = s->db_size * (i + 1) / k;
        parts[i] = (Part){fd, s->db + a, b - a, offset + (long long)a, 0, 0};
    }
    /* Every part but the first in a thread of its own, the first here. */
    for (i = 1; i < k; i++)
        if (pthread_create(&parts[i].tid, NULL, read_part, &parts[i]) == 0)
            started = i;
        else
            break;
    for (i = started + 1; i < k; i++)
        read_part(&parts[i]);
    read_part(&parts[0]);
    for (i = 1; i <= started; i++)
        pthread_join(parts[i].tid, NULL);
    close(fd);
    for (i = 0; i < k; i++)
        ok &= parts[i].ok;
    s->db_ready = 1;
    if (!ok) {
        memset(s->db, UNKNOWN, s->db_size);
        return -1;
    }
    return 0;
}

/* Zeroed memory for a large table, in 2 MiB pages where the system gives them: the tables
 * are read at random, and with 4 KiB pages nearly every read would also miss the TLB.  Pages
 * the search never touches cost nothing. */
static void *big_alloc(uint64_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

int core_init(Core *s, int n, int always, int wipeout, int tt_bits, int db_stones)
{
    int b, k;
    if (tt_bits < MIN_TT_BITS)
        tt_bits = MIN_TT_BITS;
    s->n = n;
    s->always = always;
    s->wipeout = wipeout;
    s->db_stones = db_stones;
    s->threads = 1;
    s->help_after = HELP_AFTER;
    memset(s->binom, 0, sizeof s->binom);
    for (b = 0; b <= MAXSTONES + MAXPITS; b++) {
        s->binom[b][0] = 1;
        for (k = 1; k <= MAXPITS && k <= b; k++)
            s->binom[b][k] = s->binom[b - 1][k - 1] + (k <= b - 1 ? s->binom[b - 1][k] : 0);
    }
    s->db_size = s->binom[db_stones + 2 * n][2 * n];
    s->db = big_alloc(s->db_size);
    s->tt_max_bits = tt_bits - 2;       /* WAYS = 4 entries a bucket */
    s->tt_index_bits = s->tt_max_bits < START_INDEX_BITS ? s->tt_max_bits : START_INDEX_BITS;
    s->tt_size = ((uint64_t)1 << tt_bits) * sizeof(uint64_t);
    s->tt = big_alloc(s->tt_size);
    s->busy = calloc(BUSY_SLOTS, sizeof *s->busy);
    if (!s->db || !s->tt || !s->busy)
        return -1;
    return 0;
}

void core_free(Core *s)
{
    if (s->tt)
        munmap(s->tt, s->tt_size);
    db_free(s);
    free(s->busy);
    s->tt = NULL;
    s->db = NULL;
    s->busy = NULL;
}
