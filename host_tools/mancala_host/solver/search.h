/* The exact Kalah solver's search, in plain C with no Python in it (search.c); _kalah.c wraps
 * it for Python.  See search.c for the position, the rules and the search. */
#ifndef KALAH_SEARCH_H
#define KALAH_SEARCH_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define MAXN 6                  /* pits a side */
#define MAXPITS (2 * MAXN)
#define MAXSTONES 96
#define MAXDB 40                /* the endgame database's largest stone count */
#define MAXTHREADS 8
#define HELP_AFTER (1 << 20)    /* help_after's default: about a third of a second */
#define NORMAL 0
#define EXTRA 1
#define OVER 2
/* Why a search stopped. */
#define GO_ON 0
#define BY_NODES 1
#define BY_TIME 2
#define BY_SIGNAL 3             /* the signal callback said so: Ctrl-C, as a rule */
#define BY_STOP 4
#define BY_DONE 5               /* another thread of the same search found the value */

typedef struct Core Core;

/* One thread of a search: its own counters, on a cache line of their own. */
typedef struct {
    Core *c;
    uint64_t nodes;             /* nodes this thread searched in this search */
    uint64_t next_check;        /* the node count of its next check: a single compare a node */
    uint64_t shown;             /* nodes as of its last check, read by other threads */
    uint64_t filled;            /* empty table slots it filled since its last check */
    int aborted;                /* GO_ON, or why it stopped */
    int id;                     /* 0: the calling thread */
    int ack;                    /* the last table growth it stood still for */
    int exited;                 /* it is not searching (finished, or never started) */
    const uint8_t *root;
    int total, guess, value;
    pthread_t tid;
} __attribute__((aligned(64))) Worker;

struct Core {
    int n;                      /* pits a side */
    int always;                 /* capture from an empty opposite pit too */
    int wipeout;                /* a capture may leave the other side empty */
    uint64_t *tt;               /* the transposition table, WAYS entries a bucket */
    uint64_t tt_size;           /* its bytes */
    int tt_index_bits;          /* log2 of the buckets in use: a key's bucket is its hash's top
                                 * bits; the table grows up to tt_max_bits as it fills */
    int tt_max_bits;
    uint64_t filled;            /* slots in use, as of the threads' last checks */
    int grow_gen, growing;      /* a growth of the table, the threads standing still for it */
    int db_stones;
    int8_t *db;
    uint64_t db_size;
    int db_ready;               /* db holds values or UNKNOWN: it is filled at the first search
                                 * unless a file was read or mapped into it before */
    void *db_map;               /* the file mapping db points into (core_map_endgame), or NULL */
    uint64_t db_map_size;
    uint64_t *busy;             /* keys being searched by some thread (threads > 1) */
    int threads;                /* threads a search runs on, 1 to MAXTHREADS */
    uint64_t help_after;        /* nodes thread 0 searches alone before it starts the others */
    uint64_t nodes;             /* nodes of every search finished so far */
    uint64_t max_nodes;         /* this search's budget over all its threads; 0: none */
    struct timespec deadline;   /* CLOCK_MONOTONIC; tv_sec 0: none */
    int stop;                   /* set by core_stop() from another thread */
    int done;                   /* the search is over: a thread found the value or stopped */
    int why;                    /* the first reason a thread stopped, other than BY_DONE */
    int found;                  /* a thread found the value: result */
    int started;                /* threads of this search started so far, the caller's too */
    int result;
    /* Looked at by thread 0 every SIGNALS nodes: nonzero stops the search (BY_SIGNAL). */
    int (*signals)(void *arg);
    void *signals_arg;
    uint64_t binom[MAXSTONES + MAXPITS + 1][MAXPITS + 1];
    Worker w[MAXTHREADS];
};

int core_init(Core *c, int n, int always, int wipeout, int tt_bits, int db_stones);
void core_free(Core *c);
int core_play(const Core *c, const uint8_t *p, int i, uint8_t *out, int *status);
/* Before a search: the budget (0: none) and the deadline (NULL: none). */
void core_budget(Core *c, uint64_t max_nodes, const struct timespec *deadline);
/* The value of p (total stones) on c->threads threads; returns GO_ON with *value set, or why
 * it stopped.  Adds its nodes to c->nodes. */
int core_value(Core *c, const uint8_t *p, int total, int guess, int *value);
/* Every position of the endgame table valued into out (db_size bytes); GO_ON or why not. */
int core_endgame(Core *c, int8_t *out);
/* Reads the endgame table from path at offset (0), on c->threads threads; -1 if the file
 * does not hold that many bytes there (the table is then emptied). */
int core_load_endgame(Core *c, const char *path, long long offset);
/* Or maps it: the table then shares the file's cached pages (4 KiB ones), with no copy. */
int core_map_endgame(Core *c, const char *path, long long offset);
/* From any thread: nodes so far, the running search's as of its threads' last checks. */
uint64_t core_nodes(const Core *c);
void core_stop(Core *c);

#endif
