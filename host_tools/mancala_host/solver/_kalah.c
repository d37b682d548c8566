/* The exact Kalah solver's compiled core, for Python: a CPython extension built by pip with
 * the system C compiler (setup.py) from this file and search.c, the search itself (its
 * comment says how it searches).
 *
 * A search runs without the GIL, on the calling thread and threads - 1 more of its own, and
 * stops by a node budget, a deadline, stop() from another thread or Ctrl-C (the signal
 * callback below, in the main thread); a stopped search has stored only true bounds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search.h"

typedef struct {
    PyObject_HEAD
    Core *c;
    PyThreadState *thread;      /* the searching thread's state while it runs without the GIL */
    int busy;                   /* a search is running (value() or endgame()) */
} Solver;

static PyObject *BudgetExceeded;

/* The search's signal callback, in the main thread without the GIL: takes it back for a
 * moment so that Python's handlers run; nonzero when one raised (Ctrl-C, as a rule). */
static int check_signals(void *arg)
{
    Solver *s = (Solver *)arg;
    int raised;
    PyEval_RestoreThread(s->thread);
    raised = PyErr_CheckSignals() < 0;
    s->thread = PyEval_SaveThread();
    return raised;
}

static int read_pits(Solver *s, PyObject *seq, uint8_t *p, int *total)
{
    PyObject *fast = PySequence_Fast(seq, "pits must be a sequence of numbers");
    Py_ssize_t i, len;
    int t = 0, mine = 0, theirs = 0, n = s->c->n;
    if (!fast)
        return -1;
    len = PySequence_Fast_GET_SIZE(fast);
    if (len != 2 * n) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "a position has %d pits (the mover's %d, then the "
                     "other seat's), got %zd", 2 * n, n, len);
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
        if (i < n)
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

static int bad_threads(long threads)
{
    if (threads < 1 || threads > MAXTHREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to %d, got %ld", MAXTHREADS,
                     threads);
        return -1;
    }
    return 0;
}

static PyObject *Solver_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *names[] = {"pits", "always", "wipeout", "tt_bits", "db_stones", "threads",
                            NULL};
    int n = 6, always = 0, wipeout = 1, tt_bits = 22, db_stones = 12, threads = 1;
    Solver *s;
    void *mem = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ippiii", names, &n, &always, &wipeout,
                                     &tt_bits, &db_stones, &threads))
        return NULL;
    if (n < 1 || n > MAXN) {
        PyErr_Format(PyExc_ValueError, "pits must be 1 to %d, got %d", MAXN, n);
        return NULL;
    }
    if (tt_bits < 4 || tt_bits > 34) {
        PyErr_Format(PyExc_ValueError, "tt_bits must be 4 to 34, got %d", tt_bits);
        return NULL;
    }
    if (db_stones < 0 || db_stones > MAXDB) {
        PyErr_Format(PyExc_ValueError, "db_stones must be 0 to %d, got %d", MAXDB, db_stones);
        return NULL;
    }
    if (bad_threads(threads))
        return NULL;
    s = (Solver *)type->tp_alloc(type, 0);
    if (!s)
        return NULL;
    if (posix_memalign(&mem, 64, sizeof(Core)))
        mem = NULL;
    if (mem) {
        memset(mem, 0, sizeof(Core));
        s->c = mem;
    }
    if (!s->c || core_init(s->c, n, always, wipeout, tt_bits, db_stones) < 0) {
        Py_DECREF(s);
        return PyErr_NoMemory();
    }
    s->c->threads = threads;
    return (PyObject *)s;
}

static void Solver_dealloc(Solver *s)
{
    if (s->c) {
        core_free(s->c);
        free(s->c);
    }
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
    struct timespec when;
    int timed = 0;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this solver is already searching (one search at "
                        "a time)");
        return -1;
    }
    if (deadline > 0) {
        /* The deadline is on Python's monotonic clock; it is turned into CLOCK_MONOTONIC by
         * the time left, so the two clocks need not be the same one. */
        PyObject *now_o = PyObject_CallNoArgs(Monotonic);
        double left;
        long long ns;
        struct timespec now;
        if (!now_o)
            return -1;
        left = deadline - PyFloat_AsDouble(now_o);
        Py_DECREF(now_o);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (left <= 0)
            left = 0;
        if (left > 1e9)
            left = 1e9;
        ns = (long long)now.tv_nsec + (long long)(left * 1e9);
        when.tv_sec = now.tv_sec + (time_t)(ns / 1000000000);
        when.tv_nsec = (long)(ns % 1000000000);
        timed = 1;
    }
    core_budget(s->c, max_nodes, timed ? &when : NULL);
    cur = PyObject_CallNoArgs(MainThread);
    if (!cur)
        return -1;
    {
        PyObject *ident = PyObject_GetAttrString(cur, "ident");
        int main_thread;
        Py_DECREF(cur);
        if (!ident)
            return -1;
        main_thread = PyLong_AsUnsignedLong(ident) == PyThread_get_thread_ident();
        Py_DECREF(ident);
        s->c->signals = main_thread ? check_signals : NULL;
        s->c->signals_arg = s;
    }
    s->busy = 1;
    s->thread = PyEval_SaveThread();
    return 0;
}

/* After a search that stopped for why: takes the GIL back and, unless why is GO_ON, raises
 * and returns -1: BudgetExceeded with .reason "nodes" or "time" (or "stopped" after stop()),
 * or the signal handler's exception (KeyboardInterrupt for Ctrl-C). */
static int finish(Solver *s, int why)
{
    const char *reason, *text;
    PyObject *exc, *r;
    PyEval_RestoreThread(s->thread);
    s->thread = NULL;
    s->busy = 0;
    if (why == GO_ON)
        return 0;
    if (why == BY_SIGNAL)
        return -1;              /* the handler's exception is set */
    if (why == BY_NODES) {
        reason = "nodes";
        text = "the search needed more nodes than its budget";
    } else if (why == BY_TIME) {
        reason = "time";
        text = "the search ran past its deadline";
    } else {
        reason = "stopped";
        text = "the search was stopped";
    }
    exc = PyObject_CallFunction(BudgetExceeded, "s", text);
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
    return -1;
}

static PyObject *Solver_value(Solver *s, PyObject *args, PyObject *kw)
{
    static char *names[] = {"pits", "max_nodes", "guess", "deadline", NULL};
    PyObject *seq;
    unsigned long long max_nodes = 0;
    int guess = 0, total, v = 0, why;
    double deadline = 0.0;
    uint8_t p[MAXPITS];
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Kid", names, &seq, &max_nodes, &guess,
                                     &deadline))
        return NULL;
    if (read_pits(s, seq, p, &total) < 0)
        return NULL;
    if (start(s, max_nodes, deadline) < 0)
        return NULL;
    why = core_value(s->c, p, total, guess, &v);
    if (finish(s, why) < 0)
        return NULL;
    return PyLong_FromLong(v);
}

static PyObject *Solver_stop(Solver *s, PyObject *unused)
{
    /* From any thread, the GIL held: the search running on this solver stops within CHECK
     * nodes and raises BudgetExceeded (reason "stopped"); without one, nothing happens. */
    if (s->busy)
        core_stop(s->c);
    Py_RETURN_NONE;
}

static PyObject *Solver_play(Solver *s, PyObject *args)
{
    PyObject *seq, *kids;
    int pit, total, status, gain, i, n = s->c->n;
    uint8_t p[MAXPITS], c[MAXPITS];
    if (!PyArg_ParseTuple(args, "Oi", &seq, &pit))
        return NULL;
    if (read_pits(s, seq, p, &total) < 0)
        return NULL;
    if (pit < 1 || pit > n || !p[pit - 1]) {
        PyErr_Format(PyExc_ValueError, "pit %d is not a move here", pit);
        return NULL;
    }
    gain = core_play(s->c, p, pit - 1, c, &status);
    if (status == OVER)
        memset(c, 0, sizeof c);
    kids = PyTuple_New(2 * n);
    if (!kids)
        return NULL;
    for (i = 0; i < 2 * n; i++)
        PyTuple_SET_ITEM(kids, i, PyLong_FromLong(c[i]));
    return Py_BuildValue("(Nii)", kids, gain, status);
}

static PyObject *Solver_get_nodes(Solver *s, void *closure)
{
    /* During a search in another thread: its count as of its threads' last checks. */
    return PyLong_FromUnsignedLongLong(core_nodes(s->c));
}

static PyObject *Solver_get_db_size(Solver *s, void *closure)
{
    return PyLong_FromUnsignedLongLong(s->c->db_size);
}

static PyObject *Solver_get_threads(Solver *s, void *closure)
{
    return PyLong_FromLong(s->c->threads);
}

static int Solver_set_threads(Solver *s, PyObject *value, void *closure)
{
    long threads;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "threads cannot be deleted");
        return -1;
    }
    threads = PyLong_AsLong(value);
    if (threads == -1 && PyErr_Occurred())
        return -1;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this solver is searching");
        return -1;
    }
    if (bad_threads(threads))
        return -1;
    s->c->threads = (int)threads;
    return 0;
}

static PyObject *Solver_get_help_after(Solver *s, void *closure)
{
    return PyLong_FromUnsignedLongLong(s->c->help_after);
}

static int Solver_set_help_after(Solver *s, PyObject *value, void *closure)
{
    unsigned long long nodes;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "help_after cannot be deleted");
        return -1;
    }
    nodes = PyLong_AsUnsignedLongLong(value);
    if (nodes == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    s->c->help_after = nodes;
    return 0;
}

static PyObject *Solver_endgame(Solver *s, PyObject *unused)
{
    /* The exact value of every position with at most db_stones stones, by rank, as signed
     * bytes; a position with an empty side is over, and its value is the sweep's. */
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)s->c->db_size);
    int why;
    if (!out)
        return NULL;
    if (start(s, 0, 0.0) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    why = core_endgame(s->c, (int8_t *)PyBytes_AS_STRING(out));
    if (finish(s, why) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *Solver_load_endgame(Solver *s, PyObject *args, PyObject *kw)
{
    /* Reads the whole endgame table (db_size bytes, as endgame() gives them) from a file at
     * an offset, straight into the table's memory, in as many parts at once as the search
     * has threads; or, mapped, maps the file instead of reading it. */
    static char *names[] = {"path", "offset", "mapped", NULL};
    const char *path;
    long long offset;
    int ok, mapped = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sL|p", names, &path, &offset, &mapped))
        return NULL;
    if (s->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this solver is searching");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    ok = (mapped ? core_map_endgame : core_load_endgame)(s->c, path, offset) == 0;
    Py_END_ALLOW_THREADS
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s does not hold an endgame table of %llu bytes at "
                     "offset %lld", path, (unsigned long long)s->c->db_size, offset);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef Solver_methods[] = {
    {"load_endgame", (PyCFunction)(void (*)(void))Solver_load_endgame,
     METH_VARARGS | METH_KEYWORDS,
     "load_endgame(path, offset, mapped=False): read the endgame table (db_size bytes, as "
     "endgame() gives them) from a file at offset, or map the file (no copy, no 2 MiB "
     "pages)."},
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
    {"threads", (getter)Solver_get_threads, (setter)Solver_set_threads,
     "threads a search runs on (1 to 8)", NULL},
    {"help_after", (getter)Solver_get_help_after, (setter)Solver_set_help_after,
     "nodes the calling thread searches alone before the other threads start", NULL},
    {NULL}
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mancala_host.solver._kalah.Solver",
    .tp_basicsize = sizeof(Solver),
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Solver(pits=6, always=False, wipeout=True, tt_bits=22, db_stones=12, "
              "threads=1): exact Kalah values under one set of rules, with its tables kept "
              "between calls (2^tt_bits entries of 8 bytes, at least 2^16).",
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
