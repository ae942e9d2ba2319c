/* Crash flush of the measurement core: what a rank writes when the program ends without
 * MPI_Finalize (fatal signal, exit, MPI_Abort, a peer's request), on a thread of its own. */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "core_internal.h"
#include "defs.h"
#include "peers.h"
#include "threads.h"

int gs_crashed;
int gs_finalize_state;
#ifndef GS_SMPI
/* This process flushed because another rank's process asked it to (peers.h). */
static int asked_by_peer;
#endif
/* How long a crashing process waits for the other ranks on its host to flush (peers.h),
 * and for its own flush thread; both end as soon as the work is done. */
enum { PEER_WAIT_MS = 10000, FLUSH_WAIT_MS = 2000 + PEER_WAIT_MS };

/* Until the flush is done (gs_crashed 2), at most about FLUSH_WAIT_MS. */
static void wait_for_flush(void)
{
    for (int i = 0; i < FLUSH_WAIT_MS && __atomic_load_n(&gs_crashed, __ATOMIC_ACQUIRE) != 2; i++)
        usleep(1000);
}

/* MPI_Finalize's events taken over from `state` (1), or not there (0). */
static int take_finalize(int state)
{
    return __atomic_compare_exchange_n(&gs_finalize_state, &state, GS_FIN_FLUSHED, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

static void crash_flush_now(int exit_status)
{
    /* Signals may arrive on any thread (Open MPI runs helper threads) while the main
     * thread heads for exit: the first caller flushes, later ones wait until it is done,
     * so the process does not end half-way through writing. */
    int expected = 0;
    if (!__atomic_compare_exchange_n(&gs_crashed, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        wait_for_flush();
        return;
    }
    /* A rank waiting in MPI_Finalize's collectives (core_internal.h): its events are ours. */
    const int in_sync = !gs.active && take_finalize(GS_FIN_SYNC);
    const int in_unify = !gs.active && !in_sync && take_finalize(GS_FIN_UNIFY);
    if (gs.active || in_sync || in_unify) {
        gs.active = 0;
#ifndef GS_SMPI
        /* The launcher may have closed our stdout/stderr already: a stray message must
         * not end the process half-way through the flush. */
        signal(SIGPIPE, SIG_IGN);
#endif
        uint64_t now = gs_time();
        gs_loc_t *L = &gs_master;
        /* In the unification finalize has written every event, the other threads' too. */
        if (!in_unify) {
            /* Close the regions still open so the trace stays well nested (MPI_Finalize's
             * Enter is written, not on the region stack). */
            if (in_sync) OTF2_EvtWriter_Leave(L->evt, NULL, now, GS_REGION_MPI_Finalize);
            for (int d = L->depth; d > 0; d--)
                if (d <= 256) OTF2_EvtWriter_Leave(L->evt, NULL, now, L->stack[d - 1]);
            OTF2_EvtWriter_ProgramEnd(L->evt, NULL, now, exit_status);
        }
        /* Events first: they matter most if the process is killed meanwhile. */
        OTF2_EvtWriter_GetNumberOfEvents(L->evt, &gs_run.nevents);
        OTF2_Archive_CloseEvtWriter(gs_archive, L->evt);
        L->evt = NULL;
        /* Other threads may still be running: only those outside any region are
         * closed (best effort, docs/collector.md "Threads"). */
        if (!in_unify) gs_threads_close(now, 1);
        /* Local definitions stay the start-up ones; the side file lets
         * gridscope-trace-repair complete them (docs/collector.md, "Crashes"). */
        if (!gs_run.parts) gs_defs_write_crash_sidecar(gs_trace_dir, gs_program_begin, now);
#ifndef GS_SMPI
        if (!asked_by_peer && !in_unify) gs_peers_flush_and_wait(gs_trace_dir, !gs_run.parts, PEER_WAIT_MS);
#endif
    }
    __atomic_store_n(&gs_crashed, 2, __ATOMIC_RELEASE);
}

#ifdef GS_SMPI
void gs_crash_flush(int exit_status)
{
    crash_flush_now(exit_status);
}
#else
/* The flush runs on a thread of its own, started at MPI_Init and waiting on a semaphore:
 * a signal may interrupt the main thread inside malloc or stdio, and flushing from the
 * handler would then deadlock on the lock it holds. Here the handler only posts the
 * semaphore (async-signal-safe) and waits; the other thread allocates from its own
 * malloc arena. */
static sem_t flush_request;
static int flush_status, flusher_started;

static void *flusher_main(void *arg)
{
    (void)arg;
    while (sem_wait(&flush_request) != 0) {
    }
    crash_flush_now(flush_status);
    return NULL;
}

static void start_flusher(void)
{
    pthread_t t;
    pthread_attr_t attr;
    sigset_t all, old;
    if (sem_init(&flush_request, 0, 0) != 0) return;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* the flusher never takes signals */
    flusher_started = pthread_create(&t, &attr, flusher_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

void gs_crash_flush(int exit_status)
{
    if (!flusher_started) {
        crash_flush_now(exit_status);
        return;
    }
    if (__atomic_load_n(&gs_crashed, __ATOMIC_ACQUIRE) == 0) {
        flush_status = exit_status;
        sem_post(&flush_request);
    }
    wait_for_flush();
}
#endif

#ifndef GS_SMPI
/* Fatal signals: flush, then hand the signal to whoever handled it before us (Open MPI
 * installs its own SIGSEGV/SIGBUS handlers in MPI_Init) or to the default action. */
static const int fatal_signals[] = {SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGABRT};
#define NFATAL (sizeof fatal_signals / sizeof *fatal_signals)
static struct sigaction previous[NFATAL];


/* The sender of the last SIGTERM that a helper thread forwarded to the main thread. */
static volatile pid_t forwarded_sender;

/* A SIGTERM from another rank's process asking for a flush (peers.h): once flushed,
 * this process waits for that one to end (the launcher then kills the job) rather than
 * end first, which would make the launcher kill ranks still flushing. */
static int peer_request(int sig, pid_t sender)
{
    if (sig != SIGTERM || sender == 0 || !gs_peers_is_peer(sender)) return 0;
    if (__atomic_load_n(&gs_crashed, __ATOMIC_ACQUIRE) != 0) return 1; /* flushing already */
    asked_by_peer = 1;
    gs_crash_flush(128 + SIGKILL); /* what the launcher is about to do */
    for (int i = 0; i < FLUSH_WAIT_MS && kill(sender, 0) == 0; i++) usleep(1000);
    return 0;
}

/* exit() called on a thread other than the main one, with this status + 1 (0: none): the
 * main thread flushes (on_exit_without_finalize) and goes on until the process ends. */
static volatile sig_atomic_t exit_request;

static void take_signal(int sig, pid_t sender)
{
    if (sig == SIGTERM && exit_request) {
        gs_crash_flush(exit_request - 1);
        return;
    }
    if (peer_request(sig, sender)) return;
    gs_crash_flush(128 + sig);
    for (size_t i = 0; i < NFATAL; i++)
        if (fatal_signals[i] == sig) sigaction(sig, &previous[i], NULL);
    raise(sig);
}

/* A request to end (SIGTERM, SIGINT) that arrived while the main thread was writing an
 * event, and its sender: taken as soon as that write is done (collector.h, GS_EMIT). */
volatile sig_atomic_t gs_signal_waiting;
static volatile pid_t waiting_sender;

void gs_take_waiting_signal(void)
{
    if (!pthread_equal(pthread_self(), gs_main_thread)) return;
    int sig = gs_signal_waiting;
    gs_signal_waiting = 0;
    if (sig) take_signal(sig, waiting_sender);
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    pid_t sender = info && info->si_code == SI_USER ? info->si_pid : 0;
    /* Process-directed signals may land on one of the MPI library's helper threads; the
     * main thread must do the flush, or it may leave the process meanwhile. */
    if (!pthread_equal(pthread_self(), gs_main_thread)) {
        forwarded_sender = sender;
        pthread_kill(gs_main_thread, sig);
        return;
    }
    if (sender == getpid()) sender = forwarded_sender;
    /* Half-way through an event: let it finish first. Faults (SIGSEGV, SIGBUS, SIGABRT)
     * cannot wait, and do not come from the outside. */
    if (gs_master.writing && (sig == SIGTERM || sig == SIGINT)) {
        waiting_sender = sender;
        gs_signal_waiting = sig;
        return;
    }
    take_signal(sig, sender);
}

/* exit() without MPI_Finalize. On another thread than the main one, which may be writing
 * an event meanwhile, the main thread is asked to flush (its signal handler waits for the
 * write to end, GS_EMIT) and the exit waits for it; the main thread then runs on with the
 * measurement off until the process ends. */
static void on_exit_without_finalize(int status, void *arg)
{
    (void)arg;
    if (pthread_equal(pthread_self(), gs_main_thread) ||
        !__atomic_load_n(&gs.active, __ATOMIC_ACQUIRE)) {
        gs_crash_flush(status);
        return;
    }
    exit_request = (status & 0xff) + 1;
    if (pthread_kill(gs_main_thread, SIGTERM) != 0) { /* (it has ended: nobody writes) */
        gs_crash_flush(status);
        return;
    }
    wait_for_flush();
}

/* Open MPI leaves through _exit() when it learns that the job is being aborted, possibly
 * from a helper thread while the main thread is still flushing. Interposing _exit lets
 * that flush finish (or does it) first; a forked child never touches the trace. */
static pid_t measured_pid;

GS_PUBLIC void _exit(int status)
{
    if (measured_pid && getpid() == measured_pid) {
        if (pthread_equal(pthread_self(), gs_main_thread)) {
            gs_crash_flush(status);
        } else if (__atomic_load_n(&gs_crashed, __ATOMIC_ACQUIRE) != 2) {
            /* The main thread does the flush: ask it to, wait a moment. */
            pthread_kill(gs_main_thread, SIGTERM);
            wait_for_flush();
        }
    }
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

void gs_install_crash_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask);
    start_flusher();
    for (size_t i = 0; i < NFATAL; i++) sigaction(fatal_signals[i], &sa, &previous[i]);
    measured_pid = getpid();
    on_exit(on_exit_without_finalize, NULL);
}
#endif
