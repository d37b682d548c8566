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
 * The search: MTD(f) over a fail-soft null-window alpha-beta with a two-way transposition
 * table of value bounds (exact values have no depth, so every bound is a true bound and the
 * game has no cycles: a move that puts no stone in a store only moves the mover's stones
 * towards its store), moves ordered by the table's best move, then extra moves, then gains;
 * and below a stone count, a table of exact values filled on demand by memoised search (the
 * endgame database), indexed by the rank of the position among all with as few stones.
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

typedef struct {
    uint64_t key;               /* packed pits; 0 is an empty slot (no position in play is 0) */
    int8_t lo, hi;              /* bounds on the value */
    uint8_t best;               /* the best pit's index + 1; 0 when none is known */
    uint8_t work;               /* log2 of the nodes its search took, for replacement */
    uint32_t pad;
} Entry;

typedef struct {
    PyObject_HEAD
    int n;                      /* pits a side */
    int always;                 /* capture from an empty opposite pit too */
    int wipeout;                /* a capture may leave the other side empty */
    Entry *tt;
    uint64_t tt_buckets;        /* a power of two; two entries each */
    int tt_shift;               /* 64 - log2(tt_buckets): a key's bucket is its hash's top bits */
    int db_stones;
    int8_t *db;
    uint64_t db_size;
    uint64_t binom[MAXDB + MAXPITS + 1][MAXPITS + 1];
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

static uint64_t pack(const Solver *s, const uint8_t *p)
{
    /* 5 bits for each pit but the last, which takes the rest; 0 if a pit does not fit. */
    uint64_t k = 0;
    int i, m = 2 * s->n;
    for (i = 0; i < m - 1; i++) {
        if (p[i] > 31)
            return 0;
        k = (k << 5) | p[i];
    }
    return (k << 9) | p[m - 1];
}

static Entry *probe(Solver *s, uint64_t key)
{
    Entry *e = s->tt + 2 * ((key * 0x9E3779B97F4A7C15ULL) >> s->tt_shift);
    if (e[0].key == key)
        return e;
    if (e[1].key == key)
        return e + 1;
    return NULL;
}

static void store(Solver *s, uint64_t key, int lo, int hi, int best, uint64_t work)
{
    Entry *e = s->tt + 2 * ((key * 0x9E3779B97F4A7C15ULL) >> s->tt_shift);
    Entry *slot;
    uint8_t w = 0;
    while (work > 1 && w < 63) {
        work >>= 1;
        w++;
    }
    if (e[0].key == key || e[1].key == key) {
        slot = e[0].key == key ? e : e + 1;
        if (slot->lo > lo)
            lo = slot->lo;
        if (slot->hi < hi)
            hi = slot->hi;
        if (!best)
            best = slot->best;
        if (slot->work > w)
            w = slot->work;
    } else if (w >= e[0].work) {
        e[1] = e[0];
        slot = e;
    } else {
        slot = e + 1;
    }
    slot->key = key;
    slot->lo = (int8_t)lo;
    slot->hi = (int8_t)hi;
    slot->best = (uint8_t)best;
    slot->work = w;
}

static int db_value(Solver *s, const uint8_t *p);

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
        return gain + db_value(s, c);
    return gain - db_value(s, c);
}

/* The exact value of a position with at most db_stones stones, from the table or searched
 * once in full and kept. */
static int db_value(Solver *s, const uint8_t *p)
{
    uint64_t r = rank(s, p);
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

static int search(Solver *s, const uint8_t *p, int total, int alpha, int beta)
{
    uint8_t kids[MAXN][MAXPITS];
    int gains[MAXN], status[MAXN], order[MAXN], score[MAXN];
    int i, k, m = 0, best = -MAXSTONES - 1, bestpit = 0, hint = 0, a0, b0;
    uint64_t key, before;
    Entry *e;

    if (total <= s->db_stones)
        return db_value(s, p);
    if (alpha >= total)
        return total;
    if (beta <= -total)
        return -total;
    if (++s->nodes >= s->next_check && checkpoint(s))
        return 0;
    before = s->nodes;
    key = pack(s, p);
    if (key && (e = probe(s, key)) != NULL) {
        if (e->lo >= beta)
            return e->lo;
        if (e->hi <= alpha)
            return e->hi;
        if (e->lo == e->hi)
            return e->lo;
        if (e->lo > alpha)
            alpha = e->lo;
        if (e->hi < beta)
            beta = e->hi;
        hint = e->best;
    }
    a0 = alpha;
    b0 = beta;
    for (i = s->n - 1; i >= 0; i--) {
        if (!p[i])
            continue;
        gains[m] = play(s, p, i, kids[m], &status[m]);
        /* The table's best first, then extra moves (nearest the store first), then gains. */
        score[m] = (i + 1 == hint ? 10000 : 0) + (status[m] == EXTRA ? 1000 : 0) +
                   16 * gains[m] + i;
        order[m] = i;
        k = m++;
        while (k > 0 && score[k] > score[k - 1]) {
            int t;
            uint8_t tk[MAXPITS];
            t = score[k]; score[k] = score[k - 1]; score[k - 1] = t;
            t = order[k]; order[k] = order[k - 1]; order[k - 1] = t;
            t = gains[k]; gains[k] = gains[k - 1]; gains[k - 1] = t;
            t = status[k]; status[k] = status[k - 1]; status[k - 1] = t;
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
            v = g + search(s, kids[k], total - g, alpha - g, beta - g);
        else
            v = g - search(s, kids[k], total - g, g - beta, g - alpha);
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
    if (key) {
        if (best <= a0)
            store(s, key, -MAXSTONES, best, bestpit, s->nodes - before);
        else if (best >= b0)
            store(s, key, best, MAXSTONES, bestpit, s->nodes - before);
        else
            store(s, key, best, best, bestpit, s->nodes - before);
    }
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
        g = search(s, p, total, beta - 1, beta);
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
    if (tt_bits < 4 || tt_bits > 30) {
        PyErr_Format(PyExc_ValueError, "tt_bits must be 4 to 30, got %d", tt_bits);
        return NULL;
    }
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
    for (b = 0; b <= MAXDB + MAXPITS; b++) {
        s->binom[b][0] = 1;
        for (k = 1; k <= MAXPITS && k <= b; k++)
            s->binom[b][k] = s->binom[b - 1][k - 1] + (k <= b - 1 ? s->binom[b - 1][k] : 0);
    }
    s->db_size = s->binom[db_stones + 2 * n][2 * n];
    s->db = malloc(s->db_size);
    s->tt_buckets = (uint64_t)1 << (tt_bits - 1);
    s->tt_shift = 64 - (tt_bits - 1);
    size = 2 * s->tt_buckets * sizeof(Entry);
    s->tt = calloc(1, size);    /* calloc: pages the search never touches cost nothing */
    if (!s->db || !s->tt) {
        Py_DECREF(s);
        return PyErr_NoMemory();
    }
    memset(s->db, UNKNOWN, s->db_size);
    return (PyObject *)s;
}

static void Solver_dealloc(Solver *s)
{
    free(s->tt);
    free(s->db);
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
        b[r] = (int8_t)(mine && theirs ? db_value(s, p) : mine - theirs);
    }
    if (finish(s, 0) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyMethodDef Solver_methods[] = {
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
              "Kalah values under one set of rules, with its tables kept between calls.",
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
