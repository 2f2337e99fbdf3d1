// libjetsam-crash: jetsam's crash reporter inside an app, the in-process half of a crash diagnostic.
//
// Preloaded into an app (LD_PRELOAD) when jetsamd takes crash diagnostics, it installs a handler for the fatal
// signals of a crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP). When one arrives, the handler tells
// jetsamd on the crash socket (JETSAM_CRASH_FD) which process, thread, signal, code and address, and waits: jetsamd
// attaches to the process and takes every thread's stack (the crashed thread's from the faulting frame, through the
// signal frame), then answers. The handler then restores the signal's default action and lets it happen: a fault
// re-executes and kills the process as it would have, a sent signal is sent again. Without an answer within 5 s
// (jetsamd gone or stuck) it goes on all the same. The exit status is the crash's own.
//
// Everything in the handler is async-signal-safe: fstat, write, poll, read, sigaction, clock_gettime, raw syscalls. A
// program that installs its own handler for these signals later replaces this one (its crashes then have no stacks).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "jetsam_crash_handler.h"

enum { ANSWER_TIMEOUT_MS = 5000 };
// Where the socket is kept, out of the way of the descriptors a program opens. jetsamd hands it over at this number
// (CrashSocket.appDescriptor), so that it never has to move; one below it (an older jetsamd's) is moved here.
enum { HIGH_DESCRIPTOR = 900 };

static int crash_fd = -1;
static atomic_int reporting;
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};

// Appends `text` to `line` at `*at`.
static void put_text(char *line, size_t size, size_t *at, const char *text) {
  while (*text && *at + 1 < size) line[(*at)++] = *text++;
}

// Appends `value` in `base` (10 or 16) to `line` at `*at`.
static void put_number(char *line, size_t size, size_t *at, unsigned long long value, unsigned base) {
  char digits[32];
  int count = 0;
  do {
    digits[count++] = "0123456789abcdef"[value % base];
    value /= base;
  } while (value > 0 && count < (int)sizeof digits);
  while (count > 0 && *at + 1 < size) line[(*at)++] = digits[--count];
}

static long elapsed_ms(const struct timespec *since) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

// Tells jetsamd and waits for its answer (or the timeout, or its end of the socket closing).
static void report(int sig, const siginfo_t *info) {
  // Only to a socket: if the program closed the descriptor and reused its number, nothing is written into its file.
  struct stat st;
  if (crash_fd < 0 || fstat(crash_fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return;
  char line[192];
  size_t at = 0;
  long tid = syscall(SYS_gettid);
  put_text(line, sizeof line, &at, "crash pid=");
  put_number(line, sizeof line, &at, (unsigned long long)getpid(), 10);
  put_text(line, sizeof line, &at, " tid=");
  put_number(line, sizeof line, &at, (unsigned long long)tid, 10);
  put_text(line, sizeof line, &at, " signal=");
  put_number(line, sizeof line, &at, (unsigned long long)sig, 10);
  put_text(line, sizeof line, &at, " code=");
  if (info->si_code < 0) put_text(line, sizeof line, &at, "-");
  put_number(line, sizeof line, &at, (unsigned long long)(info->si_code < 0 ? -info->si_code : info->si_code), 10);
  put_text(line, sizeof line, &at, " address=0x");
  put_number(line, sizeof line, &at, (unsigned long long)(uintptr_t)info->si_addr, 16);
  line[at++] = '\n';
  for (size_t done = 0; done < at;) {
    ssize_t n = write(crash_fd, line + done, at - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nobody to tell: no wait
    done += (size_t)n;
  }
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    long left = ANSWER_TIMEOUT_MS - elapsed_ms(&start);
    if (left <= 0) return;
    struct pollfd answer = {crash_fd, POLLIN, 0};
    int ready = poll(&answer, 1, (int)left);
    if (ready < 0 && errno == EINTR) continue;  // jetsam-stack's attach interrupts it
    if (ready > 0) {
      char byte;
      while (read(crash_fd, &byte, 1) < 0 && errno == EINTR) {
      }
    }
    return;
  }
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context) {
  (void)context;
  int saved = errno;
  // One report per process: a second thread crashing meanwhile goes straight to the default action.
  if (atomic_exchange(&reporting, 1) == 0) report(sig, info);
  struct sigaction default_action;
  memset(&default_action, 0, sizeof default_action);
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(sig, &default_action, NULL);
  // A fault happens again when the handler returns; a signal sent by kill, raise or abort must be sent again (it
  // is blocked until the handler returns, then delivered with its default action).
  if (info->si_code <= 0) syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
  errno = saved;
}

__attribute__((constructor)) static void install_crash_handler(void) {
  const char *fd = getenv("JETSAM_CRASH_FD");
  if (fd == NULL || *fd == '\0') return;
  char *end = NULL;
  long number = strtol(fd, &end, 10);
  if (*end != '\0' || number < 0 || number > 1 << 20) return;
  // Only a socket is ours to take: a variable gone stale (see below) may name a descriptor the program holds for
  // something else, which must be neither moved nor closed.
  struct stat st;
  if (fstat((int)number, &st) != 0 || !S_ISSOCK(st.st_mode)) return;
  if (number >= HIGH_DESCRIPTOR) {
    // Moved already, by the handler in the process that started this one: it stays where the variable says. A
    // second move would make the variable wrong for every program that exports an environment of its own rather
    // than libc's (bash defines its own setenv, and exports the value it started with): `python3` as a pyenv shim runs
    // env, bash and bash again before Python, and Python found no socket at the number it was given.
    crash_fd = (int)number;
  } else {
    // Out of the program's way: the socket moves to a high descriptor number (the low one is the program's to
    // use), and the variable follows, for the programs it starts. jetsamd places it high already: only a socket
    // handed over low (by an older jetsamd) comes here.
    int high = fcntl((int)number, F_DUPFD, HIGH_DESCRIPTOR);
    if (high < 0) return;
    close((int)number);
    crash_fd = high;
    char text[16];
    snprintf(text, sizeof text, "%d", high);
    setenv("JETSAM_CRASH_FD", text, 1);
  }
  // A stack of its own for the handler, so that a stack overflow is reported too (the main thread's).
  static char alternate_stack[64 * 1024];
  stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0};
  sigaltstack(&stack, NULL);
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(fatal_signals[i], &action, NULL);
  }
}
