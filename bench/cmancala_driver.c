/* A small driver for CMancala (github.com/LifesLight/CMancala, MIT), so that bench/solver.py
 * can time its exact search on the same positions as ours.  It is written for this project
 * and linked against CMancala's own sources (all but its src/main.c); nothing of CMancala is
 * kept in this repository.
 *
 *     cmancala_driver [--egdb N] [--cache P]
 *
 * builds (or loads from ./EGDB/) CMancala's endgame database of up to N stones, then reads
 * lines of 12 numbers from stdin: a position's pits from the side to move (its own pits 1..6,
 * then the other seat's), both stores empty, as our solver takes them.  For each it prints
 * "value nodes cpu_seconds wall_seconds peak_kib": the exact value for the side to move by
 * CMancala's unbounded MTD(f) search (binarySearchRoot, its fastest exact search), its node
 * count, the time the search took and the process's peak resident set so far.  The cells are
 * set directly, so a store of any size is never an issue; the transposition table carries
 * over from line to line.  Before the first line it prints "egdb SECONDS" (the database's
 * CPU time: built once, or loaded). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "containers.h"
#include "logic/board.h"
#include "logic/solver/algo.h"
#include "logic/solver/cache.h"
#include "logic/solver/egdb/core.h"

void binarySearchRoot(Context *context, SolverConfig *config);
extern int64_t nodeCount;

static Context context;     /* large (per-depth timings): not on the stack */

static double seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int egdb = 0, cache = 24, i;
    char line[512];
    double t0;
    FILE *out;
    SolverConfig config = {
        .solver = LOCAL_SOLVER, .depth = 0, .timeLimit = 0.0, .clip = false,
        .compressCache = AUTO, .progressBar = false, .useOpeningBook = false};
    for (i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--egdb"))
            egdb = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cache"))
            cache = atoi(argv[i + 1]);
    }
    /* CMancala reports its progress on stdout: that goes to /dev/null, the answers to the
     * original stdout. */
    out = fdopen(dup(1), "w");
    if (!out || !freopen("/dev/null", "w", stdout))
        return 1;
    setCacheSize(cache);
    setMoveFunction(CLASSIC_MOVE);
    t0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    if (egdb > 0)
        generateEGDB(egdb, false);
    fprintf(out, "egdb %.3f\n", seconds(CLOCK_PROCESS_CPUTIME_ID) - t0);
    fflush(out);
    while (fgets(line, sizeof line, stdin)) {
        Board board, last;
        int pits[12], total = 0;
        double c0, w0;
        struct rusage ru;
        if (sscanf(line, "%d %d %d %d %d %d %d %d %d %d %d %d", &pits[0], &pits[1], &pits[2],
                   &pits[3], &pits[4], &pits[5], &pits[6], &pits[7], &pits[8], &pits[9],
                   &pits[10], &pits[11]) != 12) {
            fprintf(out, "error: a line is 12 numbers\n");
            fflush(out);
            continue;
        }
        memset(&board, 0, sizeof board);
        memset(&last, 0, sizeof last);
        for (i = 0; i < 6; i++) {
            board.cells[i] = (uint8_t)pits[i];
            board.cells[7 + i] = (uint8_t)pits[6 + i];
            total += pits[i] + pits[6 + i];
        }
        board.color = 1;
        setStoneCount(total);
        context.board = &board;
        context.lastBoard = &last;
        context.metadata.lastMove = -1;
        c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
        w0 = seconds(CLOCK_MONOTONIC);
        binarySearchRoot(&context, &config);
        c0 = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
        w0 = seconds(CLOCK_MONOTONIC) - w0;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(out, "%d %lld %.3f %.3f %ld\n", context.metadata.lastEvaluation,
               (long long)context.metadata.lastNodes, c0, w0, ru.ru_maxrss);
        fflush(out);
    }
    return 0;
}
