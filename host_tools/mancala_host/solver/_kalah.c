/* The exact Kalah solver's search core: a CPython extension built by pip with the system C
 * compiler (pyproject.toml, [[tool.setuptools.ext-modules]]).
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
 * A search runs without the GIL and stops by a node budget, a deadline, stop() from another
 * thread or Ctrl-C (checkpoint()); a stopped search has stored only true bounds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#define MAXN 6                  /* pits a side */
#define MAXPITS (2 * MAXN)
#define MAXSTONES 96
#define UNKNOWN (-128)
#define NORMAL 0
#define EXTRA 1
#define OVER 2
#define MAXDB 40                /* the endgame database's largest stone count */
/* Every CHECK nodes the search looks at the clock and for a stop() from another thread, and
 * publishes its node count; every SIGNALS nodes, in the main thread, it takes the GIL back
 * for a moment to let Python see Ctrl-C.  At about 4 million nodes a second that is every
 * millisecond and every 16 ms. */
#define CHECK 4096
#define SIGNALS 65536
/* Why a search stopped (Solver.aborted). */
#define GO_ON 0
#define BY_NODES 1
#define BY_TIME 2
#define BY_SIGNAL 3             /* a Python exception is set: Ctrl-C, as a rule */
#define BY_STOP 4

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

typedef struct {
    PyObject_HEAD
    int n;                      /* pits a side */
    int always;                 /* capture from an empty opposite pit too */
    int wipeout;                /* a capture may leave the other side empty */
    uint64_t *tt;               /* the transposition table, WAYS entries a bucket */
    uint64_t tt_size;           /* its bytes */
    int tt_index_bits;          /* log2 of its buckets: a key's bucket is its hash's top bits */
    int db_stones;
    int8_t *db;
    uint64_t db_size;
    uint64_t binom[MAXSTONES + MAXPITS + 1][MAXPITS + 1];
    uint64_t nodes, max_nodes;
    uint64_t next_check;        /* the node count of the next check: a single compare a node */
    uint64_t shown_nodes;       /* nodes as of the last check, read by other threads */
    struct timespec deadline;   /* CLOCK_MONOTONIC; tv_sec 0: none */
    PyThreadState *thread;      /* the searching thread's state while it runs without the GIL */
    int signals;                /* the search runs in the main thread: look for Ctrl-C */
    int stop;                   /* set by stop() from another thread */
    int busy;                   /* a search is running (value() or endgame()) */
    int aborted;                /* GO_ON, or why the search stopped */
} Solver;

static PyObject *BudgetExceeded;

/* ------------------------------------------------------------------------------ rules */

/* Plays index i (0-based) of p for the side to move.  Writes the position that follows into
 * out (from the side to move next: swapped unless the move earns an extra one) and returns the
 * stones the mover gains on the other seat by it, the end's sweep included; *status is
 * NORMAL, EXTRA or OVER. */
static int play(const Solver *s, const uint8_t *p, int i, uint8_t *out, int *status)
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

/* ------------------------------------------------------------------------------ tables */

static uint64_t rank(const Solver *s, const uint8_t *p)
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
static uint64_t probe(const Solver *s, uint64_t h)
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
static void store(Solver *s, uint64_t h, int lo, int hi, int best, uint64_t work)
{
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
    __atomic_store_n(&b[victim], entry(tag, lo, hi, best, w), __ATOMIC_RELAXED);
}

static int db_value(Solver *s, const uint8_t *p, uint64_t r);

/* ------------------------------------------------------------------------------ stopping */

static int past(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

/* Called when nodes reaches next_check: sets aborted when the node budget is spent, the
 * deadline has passed, stop() was called or a signal handler raised; returns aborted.  The
 * node budget is exact (next_check never passes max_nodes + 1); the rest are looked at every
 * CHECK nodes. */
static int checkpoint(Solver *s)
{
    if (s->aborted)
        return s->aborted;
    __atomic_store_n(&s->shown_nodes, s->nodes, __ATOMIC_RELAXED);
    if (s->max_nodes && s->nodes > s->max_nodes)
        s->aborted = BY_NODES;
    else if (__atomic_load_n(&s->stop, __ATOMIC_RELAXED))
        s->aborted = BY_STOP;
    else if (s->deadline.tv_sec && past(&s->deadline))
        s->aborted = BY_TIME;
    else if (s->signals && s->thread && s->nodes % SIGNALS < CHECK) {
        int raised;
        PyEval_RestoreThread(s->thread);
        raised = PyErr_CheckSignals() < 0;
        s->thread = PyEval_SaveThread();
        if (raised)
            s->aborted = BY_SIGNAL;
    }
    if (s->aborted) {
        s->next_check = 0;      /* every node now returns at once */
        return s->aborted;
    }
    s->next_check = s->nodes + CHECK;
    if (s->max_nodes && s->next_check > s->max_nodes + 1)
        s->next_check = s->max_nodes + 1;
    return s->aborted;
}

static int child_value(Solver *s, const uint8_t *p, int i)
{
    uint8_t c[MAXPITS];
    int status, gain = play(s, p, i, c, &status);
    if (status == OVER)
        return gain;
    if (status == EXTRA)
        return gain + db_value(s, c, rank(s, c));
    return gain - db_value(s, c, rank(s, c));
}

/* The exact value of a position with at most db_stones stones, from the table or searched
 * once in full and kept. */
static int db_value(Solver *s, const uint8_t *p, uint64_t r)
{
    int v = s->db[r], i, best = UNKNOWN;
    if (v != UNKNOWN)
        return v;
    if (++s->nodes >= s->next_check && checkpoint(s))
        return 0;
    for (i = 0; i < s->n; i++)
        if (p[i]) {
            v = child_value(s, p, i);
            if (s->aborted)
                return 0;
            if (v > best)
                best = v;
        }
    s->db[r] = (int8_t)best;
    return best;
}

/* ------------------------------------------------------------------------------ search */

/* The value of position p (total stones, rank r) for the side to move, fail-soft within
 * alpha..beta. */
static int search(Solver *s, const uint8_t *p, int total, uint64_t r, int alpha, int beta)
{
    uint8_t kids[MAXN][MAXPITS];
    uint64_t ranks[MAXN];
    int gains[MAXN], status[MAXN], order[MAXN], score[MAXN];
    int i, k, m = 0, best = -MAXSTONES - 1, bestpit = 0, hint = 0, a0, b0;
    uint64_t key, before, e;

    if (total <= s->db_stones)
        return db_value(s, p, r);
    if (alpha >= total)
        return total;
    if (beta <= -total)
        return -total;
    if (++s->nodes >= s->next_check && checkpoint(s))
        return 0;
    before = s->nodes;
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
    for (k = 0; k < m; k++) {
        int g = gains[k], v;
        if (status[k] == OVER)
            v = g;
        else if (status[k] == EXTRA)
            v = g + search(s, kids[k], total - g, ranks[k], alpha - g, beta - g);
        else
            v = g - search(s, kids[k], total - g, ranks[k], g - beta, g - alpha);
        if (s->aborted)
            return 0;
        if (v > best) {
            best = v;
            bestpit = order[k] + 1;
            if (v > alpha)
                alpha = v;
            if (alpha >= beta)
                break;
        }
    }
    if (best <= a0)
        store(s, key, -MAXSTONES, best, bestpit, s->nodes - before);
    else if (best >= b0)
        store(s, key, best, MAXSTONES, bestpit, s->nodes - before);
    else
        store(s, key, best, best, bestpit, s->nodes - before);
    return best;
}

static int mtdf(Solver *s, const uint8_t *p, int total, int guess)
{
    int lower = -total, upper = total, g = guess, beta;
    if (g < lower)
        g = lower;
    if (g > upper)
        g = upper;
    while (lower < upper) {
        beta = g == lower ? g + 1 : g;
        g = search(s, p, total, rank(s, p), beta - 1, beta);
        if (s->aborted)
            break;
        if (g < beta)
            upper = g;
        else
            lower = g;
    }
    return g;
}

/* ------------------------------------------------------------------------------ Python */

static int read_pits(Solver *s, PyObject *seq, uint8_t *p, int *total)
{
    PyObject *fast = PySequence_Fast(seq, "pits must be a sequence of numbers");
    Py_ssize_t i, len;
    int t = 0, mine = 0, theirs = 0;
    if (!fast)
        return -1;
    len = PySequence_Fast_GET_SIZE(fast);
    if (len != 2 * s->n) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "a position has %d pits (the mover's %d, then the "
                     "other seat's), got %zd", 2 * s->n, s->n, len);
        return -1;
    }
    for (i = 0; i < len; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < 0 || v > MAXSTONES) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "a pit holds 0 to %d stones, got %ld",
                         MAXSTONES, v);
            return -1;
        }
        p[i] = (uint8_t)v;
        t += (int)v;
        if (i < s->n)
            mine += (int)v;
        else
            theirs += (int)v;
    }
    Py_DECREF(fast);
    if (t > MAXSTONES) {
        PyErr_Format(PyExc_ValueError, "a position holds at most %d stones, got %d",
                     MAXSTONES, t);
        return -1;
    }
    if (!mine || !theirs) {
        PyErr_SetString(PyExc_ValueError, "the game is over when a side is empty: there is "
                        "no position to solve");
        return -1;
    }
    *total = t;
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

static PyObject *Solver_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *names[] = {"pits", "always", "wipeout", "tt_bits", "db_stones", NULL};
    int n = 6, always = 0, wipeout = 1, tt_bits = 22, db_stones = 12, b, k;
    uint64_t size = 1;
    Solver *s;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ippii", names, &n, &always, &wipeout,
                                     &tt_bits, &db_stones))
        return NULL;
    if (n < 1 || n > MAXN) {
        PyErr_Format(PyExc_ValueError, "pits must be 1 to %d, got %d", MAXN, n);
        return NULL;
    }
    if (tt_bits < 4 || tt_bits > 34) {
        PyErr_Format(PyExc_ValueError, "tt_bits must be 4 to 34, got %d", tt_bits);
        return NULL;
    }
    if (tt_bits < MIN_TT_BITS)
        tt_bits = MIN_TT_BITS;
    if (db_stones < 0 || db_stones > MAXDB) {
        PyErr_Format(PyExc_ValueError, "db_stones must be 0 to %d, got %d", MAXDB, db_stones);
        return NULL;
    }
    s = (Solver *)type->tp_alloc(type, 0);
    if (!s)
        return NULL;
    s->n = n;
    s->always = always;
    s->wipeout = wipeout;
    s->db_stones = db_stones;
    memset(s->binom, 0, sizeof s->binom);
    for (b = 0; b <= MAXSTONES + MAXPITS; b++) {
        s->binom[b][0] = 1;
        for (k = 1; k <= MAXPITS && k <= b; k++)
            s->binom[b][k] = s->binom[b - 1][k - 1] + (k <= b - 1 ? s->binom[b - 1][k] : 0);
    }
    s->db_size = s->binom[db_stones + 2 * n][2 * n];
    s->db = big_alloc(s->db_size);
    if (s->db)
        memset(s->db, UNKNOWN, s->db_size);
    s->tt_index_bits = tt_bits - 2;     /* WAYS = 4 entries a bucket */
    size = ((uint64_t)1 << tt_bits) * sizeof(uint64_t);
    s->tt = big_alloc(size);
    s->tt_size = size;
    if (!s->db || !s->tt) {
        Py_DECREF(s);
        return PyErr_NoMemory();
    }
    return (PyObject *)s;
}

static void Solver_dealloc(Solver *s)
{
    if (s->tt)
        munmap(s->tt, s->tt_size);
    if (s->db)
        munmap(s->db, s->db_size);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *MainThread;    /* threading.main_thread(), for the Ctrl-C checks */
static PyObject *Monotonic;     /* time.monotonic, the clock deadlines are given on */

/* Before a search, holding the GIL: refuses a second search at once on the same solver, sets
 * the budget and the deadline (a time.monotonic() value, 0 for none; one already past stops
 * the search before it starts) and releases the GIL. */
static int start(Solver *s, unsigned long long max_nodes, double deadline)
{
    PyObject *cur;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this solver is already searching (one search at "
                        "a time)");
        return -1;
    }
    s->aborted = GO_ON;
    s->stop = 0;
    s->max_nodes = max_nodes ? s->nodes + max_nodes : 0;
    s->deadline.tv_sec = 0;
    s->deadline.tv_nsec = 0;
    if (deadline > 0) {
        /* The deadline is on Python's monotonic clock; it is turned into CLOCK_MONOTONIC by
         * the time left, so the two clocks need not be the same one. */
        PyObject *now_o = PyObject_CallNoArgs(Monotonic);
        double left;
        struct timespec now;
        if (!now_o)
            return -1;
        left = deadline - PyFloat_AsDouble(now_o);
        Py_DECREF(now_o);
        if (left <= 0) {
            s->aborted = BY_TIME;
        } else {
            long long ns;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (left > 1e9)
                left = 1e9;
            ns = (long long)now.tv_nsec + (long long)(left * 1e9);
            s->deadline.tv_sec = now.tv_sec + (time_t)(ns / 1000000000);
            s->deadline.tv_nsec = (long)(ns % 1000000000);
        }
    }
    cur = PyObject_CallNoArgs(MainThread);
    if (!cur)
        return -1;
    {
        PyObject *ident = PyObject_GetAttrString(cur, "ident");
        Py_DECREF(cur);
        if (!ident)
            return -1;
        s->signals = PyLong_AsUnsignedLong(ident) == PyThread_get_thread_ident();
        Py_DECREF(ident);
    }
    s->next_check = s->aborted ? 0 : s->nodes + 1;    /* the first node checks at once */
    if (s->max_nodes && s->next_check > s->max_nodes + 1)
        s->next_check = s->max_nodes + 1;
    s->busy = 1;
    s->thread = PyEval_SaveThread();
    return 0;
}

/* After a search: takes the GIL back and, when the search stopped, raises why and returns
 * -1: BudgetExceeded with .reason "nodes" or "time" (or "stopped" after stop()), or the
 * signal handler's exception (KeyboardInterrupt for Ctrl-C). */
static int finish(Solver *s, unsigned long long max_nodes)
{
    int why = s->aborted;
    const char *reason;
    PyObject *exc, *r;
    PyEval_RestoreThread(s->thread);
    s->thread = NULL;
    s->busy = 0;
    s->max_nodes = 0;
    s->aborted = GO_ON;
    s->shown_nodes = s->nodes;
    if (why == GO_ON)
        return 0;
    if (why == BY_SIGNAL)
        return -1;              /* the handler's exception is set */
    if (why == BY_NODES) {
        reason = "nodes";
        exc = PyObject_CallFunction(BudgetExceeded, "s", "the search needed more nodes "
                                    "than its budget");
    } else if (why == BY_TIME) {
        reason = "time";
        exc = PyObject_CallFunction(BudgetExceeded, "s", "the search ran past its deadline");
    } else {
        reason = "stopped";
        exc = PyObject_CallFunction(BudgetExceeded, "s", "the search was stopped");
    }
    if (!exc)
        return -1;
    r = PyUnicode_FromString(reason);
    if (!r || PyObject_SetAttrString(exc, "reason", r) < 0) {
        Py_XDECREF(r);
        Py_DECREF(exc);
        return -1;
    }
    Py_DECREF(r);
    PyErr_SetObject(BudgetExceeded, exc);
    Py_DECREF(exc);
    (void)max_nodes;
    return -1;
}

static PyObject *Solver_value(Solver *s, PyObject *args, PyObject *kw)
{
    static char *names[] = {"pits", "max_nodes", "guess", "deadline", NULL};
    PyObject *seq;
    unsigned long long max_nodes = 0;
    int guess = 0, total, v = 0;
    double deadline = 0.0;
    uint8_t p[MAXPITS];
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Kid", names, &seq, &max_nodes, &guess,
                                     &deadline))
        return NULL;
    if (read_pits(s, seq, p, &total) < 0)
        return NULL;
    if (start(s, max_nodes, deadline) < 0)
        return NULL;
    if (!s->aborted)
        v = mtdf(s, p, total, guess);
    if (finish(s, max_nodes) < 0)
        return NULL;
    return PyLong_FromLong(v);
}

static PyObject *Solver_stop(Solver *s, PyObject *unused)
{
    /* From any thread, the GIL held: the search running on this solver stops within CHECK
     * nodes and raises BudgetExceeded (reason "stopped"); without one, nothing happens. */
    if (s->busy)
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
    Py_RETURN_NONE;
}

static PyObject *Solver_play(Solver *s, PyObject *args)
{
    PyObject *seq, *kids;
    int pit, total, status, gain, i;
    uint8_t p[MAXPITS], c[MAXPITS];
    if (!PyArg_ParseTuple(args, "Oi", &seq, &pit))
        return NULL;
    if (read_pits(s, seq, p, &total) < 0)
        return NULL;
    if (pit < 1 || pit > s->n || !p[pit - 1]) {
        PyErr_Format(PyExc_ValueError, "pit %d is not a move here", pit);
        return NULL;
    }
    gain = play(s, p, pit - 1, c, &status);
    if (status == OVER)
        memset(c, 0, sizeof c);
    kids = PyTuple_New(2 * s->n);
    if (!kids)
        return NULL;
    for (i = 0; i < 2 * s->n; i++)
        PyTuple_SET_ITEM(kids, i, PyLong_FromLong(c[i]));
    return Py_BuildValue("(Nii)", kids, gain, status);
}

static PyObject *Solver_get_nodes(Solver *s, void *closure)
{
    /* During a search in another thread: its count as of its last check (CHECK nodes). */
    if (s->busy)
        return PyLong_FromUnsignedLongLong(__atomic_load_n(&s->shown_nodes, __ATOMIC_RELAXED));
    return PyLong_FromUnsignedLongLong(s->nodes);
}

static PyObject *Solver_get_db_size(Solver *s, void *closure)
{
    return PyLong_FromUnsignedLongLong(s->db_size);
}

static PyObject *Solver_endgame(Solver *s, PyObject *unused)
{
    /* The exact value of every position with at most db_stones stones, by rank, as signed
     * bytes; a position with an empty side is over, and its value is the sweep's. */
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)s->db_size);
    int8_t *b;
    uint64_t r;
    int m = 2 * s->n;
    if (!out)
        return NULL;
    b = (int8_t *)PyBytes_AS_STRING(out);
    if (start(s, 0, 0.0) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    for (r = 0; r < s->db_size && !s->aborted; r++) {
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
        b[r] = (int8_t)(mine && theirs ? db_value(s, p, r) : mine - theirs);
    }
    if (finish(s, 0) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *Solver_load_endgame(Solver *s, PyObject *args)
{
    /* Reads the whole endgame table (db_size bytes, as endgame() gives them) from a file at
     * an offset, straight into the table's memory. */
    const char *path;
    long long offset;
    FILE *f;
    size_t got = 0;
    if (!PyArg_ParseTuple(args, "sL", &path, &offset))
        return NULL;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this solver is searching");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    f = fopen(path, "rb");
    if (f && fseeko(f, (off_t)offset, SEEK_SET) == 0) {
        size_t n;
        while (got < s->db_size &&
               (n = fread(s->db + got, 1, s->db_size - got > (1 << 24) ? (1 << 24)
                          : s->db_size - got, f)) > 0)
            got += n;
    }
    if (f)
        fclose(f);
    Py_END_ALLOW_THREADS
    if (got != s->db_size) {
        memset(s->db, UNKNOWN, s->db_size);
        PyErr_Format(PyExc_ValueError, "%s does not hold an endgame table of %llu bytes at "
                     "offset %lld", path, (unsigned long long)s->db_size, offset);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef Solver_methods[] = {
    {"load_endgame", (PyCFunction)Solver_load_endgame, METH_VARARGS,
     "load_endgame(path, offset): read the endgame table (db_size bytes, as endgame() gives "
     "them) from a file at offset."},
    {"value", (PyCFunction)(void (*)(void))Solver_value, METH_VARARGS | METH_KEYWORDS,
     "value(pits, max_nodes=0, guess=0, deadline=0.0): the exact value of the position for "
     "the side to move; BudgetExceeded after max_nodes nodes (0: no limit) or past deadline "
     "(a time.monotonic() value; 0: none), KeyboardInterrupt on Ctrl-C."},
    {"stop", (PyCFunction)Solver_stop, METH_NOARGS,
     "stop(): from another thread, stop the running search (BudgetExceeded, reason "
     "'stopped')."},
    {"play", (PyCFunction)Solver_play, METH_VARARGS,
     "play(pits, pit): (next pits, gain, status) with status 0 (the other side moves), "
     "1 (an extra move) or 2 (the game is over; gain includes the sweep)."},
    {"endgame", (PyCFunction)Solver_endgame, METH_NOARGS,
     "the exact value of every position with at most db_stones stones, by rank, as signed "
     "bytes (the endgame table, filled in full)"},
    {NULL}
};

static PyGetSetDef Solver_getset[] = {
    {"nodes", (getter)Solver_get_nodes, NULL, "nodes searched so far", NULL},
    {"db_size", (getter)Solver_get_db_size, NULL, "positions in the endgame table", NULL},
    {NULL}
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mancala_host.solver._kalah.Solver",
    .tp_basicsize = sizeof(Solver),
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Solver(pits=6, always=False, wipeout=True, tt_bits=22, db_stones=12): exact "
              "Kalah values under one set of rules, with its tables kept between calls "
              "(2^tt_bits entries of 8 bytes, at least 2^16).",
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
    .tp_new = Solver_new,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kalah", "The exact Kalah solver's compiled core.", -1, NULL
};

PyMODINIT_FUNC PyInit__kalah(void)
{
    PyObject *m;
    if (PyType_Ready(&SolverType) < 0)
        return NULL;
    m = PyModule_Create(&module);
    if (!m)
        return NULL;
    BudgetExceeded = PyErr_NewException("mancala_host.solver._kalah.BudgetExceeded",
                                        PyExc_RuntimeError, NULL);
    Py_INCREF(BudgetExceeded);
    {
        PyObject *threading = PyImport_ImportModule("threading");
        PyObject *time_mod = PyImport_ImportModule("time");
        if (!threading || !time_mod) {
            Py_XDECREF(threading);
            Py_XDECREF(time_mod);
            return NULL;
        }
        MainThread = PyObject_GetAttrString(threading, "main_thread");
        Monotonic = PyObject_GetAttrString(time_mod, "monotonic");
        Py_DECREF(threading);
        Py_DECREF(time_mod);
        if (!MainThread || !Monotonic)
            return NULL;
    }
    PyModule_AddObject(m, "BudgetExceeded", BudgetExceeded);
    Py_INCREF(&SolverType);
    PyModule_AddObject(m, "Solver", (PyObject *)&SolverType);
    return m;
}
