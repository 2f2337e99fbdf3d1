// jetsam-testapp: a small program that misbehaves on request, for jetsam's tests, demo and benchmarks.
//
//   jetsam-testapp idle                       pause forever
//   jetsam-testapp alloc MB [--rate MB_PER_S] [--hold] [--mark-file PATH --mark-at MB]
//                                             touch MB MiB in 1 MiB malloc'd chunks, optionally rate-limited;
//                                             --mark-file gets the CLOCK_MONOTONIC nanoseconds at which the total
//                                             reached --mark-at MiB; --hold pauses forever afterwards (else exit 0)
//   jetsam-testapp crash segv|bus|ill|abort|trap [--core]
//                                             die of that signal for real; --core raises RLIMIT_CORE first
//   jetsam-testapp forge-crash PID|self [--count N] [--done-file PATH]
//                                             write N (1) crash report lines naming PID (or itself) to the crash
//                                             socket (JETSAM_CRASH_FD), as a hostile app would; then pause
//   jetsam-testapp exit N                     exit with status N
//   jetsam-testapp fork-child [--pid-file PATH]
//                                             fork a child that sleeps forever, publish its pid, pause
//   jetsam-testapp forkbomb [--report PATH] [--max N]
//                                             fork until fork fails (EAGAIN under pids.max), report, pause
//   jetsam-testapp spin [--processing-task NAME | --share PERCENT]
//                                             burn CPU forever in burn_cpu() (with --share, that share of one core
//                                             in burn_cpu_share()); with --processing-task, first open a
//                                             background task of kind processing on the app channel (JETSAM_FD) and
//                                             acknowledge every lifecycle event from a second thread
//   jetsam-testapp threads N                  run N threads (the main one included), all sleeping in thread_idle()
//   jetsam-testapp speak [--hang-in EVENT] [--slow-in EVENT MS]
//                                             speak the app protocol on JETSAM_FD: acknowledge every lifecycle event
//                                             on the main thread, except EVENT, whose handler (handle_event ->
//                                             stuck_in_handler) never returns; with --slow-in, EVENT's handler takes
//                                             MS milliseconds (a hang jetsamd counts from 250 ms)
//
// Files written for a reader that polls (mark, pid, report) are written to PATH.tmp, fsync'd and renamed, so a
// reader never sees a partial value. Misuse exits 64 (EX_USAGE); an unexpected failure exits 70 (EX_SOFTWARE).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_USAGE = 64, EXIT_SOFTWARE = 70 };
static const size_t MIB = 1024 * 1024;

static void usage(void) {
  fprintf(stderr,
          "usage: jetsam-testapp idle\n"
          "       jetsam-testapp alloc MB [--rate MB_PER_S] [--hold] [--mark-file PATH --mark-at MB]\n"
          "       jetsam-testapp crash segv|bus|ill|abort|trap [--core]\n"
          "       jetsam-testapp forge-crash PID|self [--count N] [--done-file PATH]\n"
          "       jetsam-testapp exit N\n"
          "       jetsam-testapp fork-child [--pid-file PATH]\n"
          "       jetsam-testapp forkbomb [--report PATH] [--max N]\n"
          "       jetsam-testapp spin [--processing-task NAME | --share PERCENT]\n"
          "       jetsam-testapp threads N\n"
          "       jetsam-testapp speak [--hang-in EVENT] [--slow-in EVENT MS]\n");
  exit(EXIT_USAGE);
}

static void die(const char *what) {
  fprintf(stderr, "jetsam-testapp: %s: %s\n", what, strerror(errno));
  exit(EXIT_SOFTWARE);
}

// Sleeps until a signal ends the process. pause() returns after a handled signal; there are none, but loop anyway.
static void pause_forever(void) {
  for (;;) pause();
}

static double parse_number(const char *text, const char *what) {
  char *end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || value < 0) {
    fprintf(stderr, "jetsam-testapp: %s must be a non-negative number, not '%s'\n", what, text);
    exit(EXIT_USAGE);
  }
  return value;
}

static uint64_t monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

// Writes `text` to PATH.tmp, fsyncs it and renames it over PATH: a poller sees nothing or the whole value.
static void publish_file(const char *path, const char *text) {
  char temporary[4096];
  if (snprintf(temporary, sizeof temporary, "%s.tmp", path) >= (int)sizeof temporary) {
    errno = ENAMETOOLONG;
    die(path);
  }
  int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die(temporary);
  size_t length = strlen(text);
  if (write(fd, text, length) != (ssize_t)length) die(temporary);
  if (fsync(fd) < 0) die(temporary);
  close(fd);
  if (rename(temporary, path) < 0) die(path);
}

// ---- alloc -----------------------------------------------------------------------------------------------------

static int command_alloc(int argc, char **argv) {
  if (argc < 1) usage();
  double total_mb = parse_number(argv[0], "MB");
  double rate = 0, mark_at = -1;
  int hold = 0;
  const char *mark_file = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--hold") == 0) {
      hold = 1;
    } else if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc) {
      rate = parse_number(argv[++i], "--rate");
    } else if (strcmp(argv[i], "--mark-file") == 0 && i + 1 < argc) {
      mark_file = argv[++i];
    } else if (strcmp(argv[i], "--mark-at") == 0 && i + 1 < argc) {
      mark_at = parse_number(argv[++i], "--mark-at");
    } else {
      usage();
    }
  }
  if ((mark_file == NULL) != (mark_at < 0)) {
    fprintf(stderr, "jetsam-testapp: --mark-file and --mark-at go together\n");
    exit(EXIT_USAGE);
  }

  size_t chunks = (size_t)total_mb;
  int marked = 0;
  uint64_t start = monotonic_ns();
  for (size_t touched = 0;; touched++) {
    // The mark goes out as soon as `touched` MiB are resident (so --mark-at 0 marks before the first chunk).
    if (mark_file != NULL && !marked && (double)touched >= mark_at) {
      char text[32];
      snprintf(text, sizeof text, "%llu", (unsigned long long)monotonic_ns());
      publish_file(mark_file, text);
      marked = 1;
    }
    if (touched == chunks) break;

    if (rate > 0) {
      // Chunk n is due at start + n / rate seconds; sleeping to an absolute time keeps the rate from drifting.
      uint64_t due = start + (uint64_t)((double)touched / rate * 1e9);
      struct timespec deadline = {(time_t)(due / 1000000000u), (long)(due % 1000000000u)};
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR) {
      }
    }
    // The chunks are leaked on purpose. A non-zero fill makes every page really resident (no shared zero page).
    char *chunk = malloc(MIB);
    if (chunk == NULL) die("malloc");
    memset(chunk, 0xA5, MIB);
    // An optimizing compiler may drop a malloc'd, filled and never-read block altogether (clang -O does, so the
    // release build touched nothing): this empty asm "uses" the pointer and "reads" memory, so both must stay.
    __asm__ volatile("" : : "r"(chunk) : "memory");

    size_t now = touched + 1;
    if (now % 16 == 0 || now == chunks) printf("allocated %zu MiB\n", now);
  }
  printf("done: %zu MiB in %.3f s\n", chunks, (double)(monotonic_ns() - start) / 1e9);
  // Out now, not at exit: jetsamd's balloon reads "done:" from a pipe to learn its memory is charged.
  fflush(stdout);
  if (hold) pause_forever();
  return 0;
}

// ---- crash -----------------------------------------------------------------------------------------------------

// Kept out of line and reached through a volatile pointer so that the compiler cannot prove anything and must
// emit the real faulting access.
__attribute__((noinline)) static void crash_segv(void) {
  int *volatile nowhere = NULL;
  *nowhere = 42;
}

// SIGBUS: map one page of an empty file and read it. The page lies entirely beyond end-of-file.
__attribute__((noinline)) static void crash_bus(void) {
  int fd = memfd_create("jetsam-testapp-bus", MFD_CLOEXEC);
  if (fd < 0) die("memfd_create");
  volatile char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (page == MAP_FAILED) die("mmap");
  (void)page[0];
}

// SIGILL: an instruction that is architecturally undefined. (__builtin_trap is SIGILL on x86-64 but SIGTRAP on
// arm64, hence the explicit instructions.)
__attribute__((noinline)) static void crash_ill(void) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ volatile("ud2");
#elif defined(__aarch64__)
  __asm__ volatile("udf #0");
#else
  raise(SIGILL);
#endif
}

static int command_crash(int argc, char **argv) {
  if (argc < 1) usage();
  const char *kind = argv[0];
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--core") != 0) usage();
    // Let the kernel write a core (into the working directory, or to a core_pattern pipe), so the exit is
    // reported as CLD_DUMPED.
    struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
    if (setrlimit(RLIMIT_CORE, &unlimited) < 0) die("setrlimit RLIMIT_CORE");
  }
  // Make sure the signal takes its default, fatal action even if a launcher left it ignored or blocked, or the Swift
  // runtime (which SwiftPM links into this C program) installed its backtracer, which swallows a raised signal.
  // Under jetsamd with crash diagnostics (JETSAM_CRASH_FD set), jetsam's crash reporter is the handler: it stays,
  // and lets the crash happen once it has reported it.
  bool reporter = getenv("JETSAM_CRASH_FD") != NULL;
  int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGTRAP};
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
    struct sigaction current;
    if (!reporter || (sigaction(signals[i], NULL, &current) == 0 && current.sa_handler == SIG_IGN)) {
      signal(signals[i], SIG_DFL);
    }
    sigaddset(&set, signals[i]);
  }
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  fflush(stdout);

  if (strcmp(kind, "segv") == 0) {
    crash_segv();
  } else if (strcmp(kind, "bus") == 0) {
    crash_bus();
  } else if (strcmp(kind, "ill") == 0) {
    crash_ill();
  } else if (strcmp(kind, "abort") == 0) {
    abort();
  } else if (strcmp(kind, "trap") == 0) {
    raise(SIGTRAP);
  } else {
    usage();
  }
  fprintf(stderr, "jetsam-testapp: crash %s did not crash\n", kind);
  return EXIT_SOFTWARE;
}

// ---- forge-crash -----------------------------------------------------------------------------------------------

// Writes crash report lines that name another process (or this one, again and again) without crashing: what jetsamd
// must refuse, or take only once.
static int command_forge_crash(int argc, char **argv) {
  if (argc < 1) usage();
  long target = strcmp(argv[0], "self") == 0 ? (long)getpid() : strtol(argv[0], NULL, 10);
  long count = 1;
  const char *done_file = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) {
      count = strtol(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--done-file") == 0 && i + 1 < argc) {
      done_file = argv[++i];
    } else {
      usage();
    }
  }
  const char *fd_text = getenv("JETSAM_CRASH_FD");
  if (target <= 0 || count < 1 || fd_text == NULL) usage();
  int fd = (int)strtol(fd_text, NULL, 10);
  char line[160];
  int length = snprintf(line, sizeof line, "crash pid=%ld tid=%ld signal=11 code=1 address=0x400000\n", target, target);
  for (long i = 0; i < count; i++) {
    if (write(fd, line, (size_t)length) != length) die("write JETSAM_CRASH_FD");
  }
  if (done_file != NULL) publish_file(done_file, "done\n");
  pause_forever();
  return 0;
}

// ---- exit ------------------------------------------------------------------------------------------------------

static int command_exit(int argc, char **argv) {
  if (argc != 1) usage();
  char *end = NULL;
  long status = strtol(argv[0], &end, 10);
  if (end == argv[0] || *end != '\0' || status < 0 || status > 255) usage();
  return (int)status;
}

// The value of the one option `name VALUE` a command takes, or NULL when it is not given; anything else is misuse.
static const char *only_option(int argc, char **argv, const char *name) {
  const char *value = NULL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], name) == 0 && i + 1 < argc) {
      value = argv[++i];
    } else {
      usage();
    }
  }
  return value;
}

// ---- fork-child ------------------------------------------------------------------------------------------------

static int command_fork_child(int argc, char **argv) {
  const char *pid_file = only_option(argc, argv, "--pid-file");
  fflush(stdout);  // or the child would print the parent's buffered output again
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) pause_forever();

  char text[32];
  snprintf(text, sizeof text, "%d", (int)child);
  if (pid_file != NULL) publish_file(pid_file, text);
  printf("child %s\n", text);
  pause_forever();
  return 0;
}

// ---- forkbomb --------------------------------------------------------------------------------------------------

static int command_forkbomb(int argc, char **argv) {
  const char *report = NULL;
  // A safety cap, so that running it by mistake outside a pids-limited cgroup does not take the machine down.
  long max = 4096;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--report") == 0 && i + 1 < argc) {
      report = argv[++i];
    } else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) {
      max = (long)parse_number(argv[++i], "--max");
    } else {
      usage();
    }
  }
  fflush(stdout);
  long forked = 0;
  int failure = 0;
  while (forked < max) {
    pid_t child = fork();
    if (child == 0) pause_forever();
    if (child < 0) {
      failure = errno;
      break;
    }
    forked++;
  }
  // "forked=N errno=E": E is 0 when the --max cap stopped the loop rather than a failing fork.
  char text[64];
  snprintf(text, sizeof text, "forked=%ld errno=%d\n", forked, failure);
  if (report != NULL) publish_file(report, text);
  printf("%s", text);
  pause_forever();
  return 0;
}

// ---- spin ------------------------------------------------------------------------------------------------------

// The app channel (JETSAM_FD), for the few lines this program speaks.
static int channel_fd = -1;

static void channel_write(const char *line) {
  size_t length = strlen(line), done = 0;
  while (done < length) {
    ssize_t n = write(channel_fd, line + done, length - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die("write to the app channel");
    done += (size_t)n;
  }
}

// Reads one line from the channel into `line` (without its newline); returns 0 at end of file.
static int channel_read_line(char *line, size_t size) {
  size_t used = 0;
  for (;;) {
    char byte;
    ssize_t n = read(channel_fd, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("read from the app channel");
    if (n == 0) return 0;
    if (byte == '\n') break;
    if (used + 1 < size) line[used++] = byte;
  }
  line[used] = '\0';
  return 1;
}

// Opens the channel jetsamd gave the app (JETSAM_FD), or exits: `what` needs it.
static void open_channel(const char *what) {
  const char *fd = getenv("JETSAM_FD");
  if (fd == NULL) {
    fprintf(stderr, "jetsam-testapp: %s needs JETSAM_FD (run it under jetsamd)\n", what);
    exit(EXIT_USAGE);
  }
  channel_fd = (int)parse_number(fd, "JETSAM_FD");
}

// Acknowledges event `id`.
static void acknowledge(int id) {
  char ack[64];
  snprintf(ack, sizeof ack, "ack event=%d\n", id);
  channel_write(ack);
}

// Acknowledges `line` if it is a lifecycle event, as an app whose handlers return at once.
static void acknowledge_if_event(const char *line) {
  int id;
  if (sscanf(line, "event id=%d", &id) == 1) acknowledge(id);
}

// Acknowledges every lifecycle event from now on.
static void *acknowledge_events(void *unused) {
  (void)unused;
  char line[4096];
  while (channel_read_line(line, sizeof line)) acknowledge_if_event(line);
  return NULL;
}

// Where the CPU goes: named, and never inlined, so that a call stack shows it.
__attribute__((noinline)) void burn_cpu(void) {
  volatile uint64_t counter = 0;
  for (;;) counter++;
}

// Burns `percent` of one core: that much CPU time in each 100 ms, then sleeps out the rest of them (a process
// the machine starves gets less, never more).
__attribute__((noinline)) void burn_cpu_share(double percent) {
  const long period = 100000000L, share = (long)(percent / 100 * period);
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    struct timespec cpu;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    long start = cpu.tv_sec * 1000000000L + cpu.tv_nsec, used = 0;
    volatile uint64_t counter = 0;
    while (used < share) {
      for (int i = 0; i < 10000; i++) counter++;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
      used = cpu.tv_sec * 1000000000L + cpu.tv_nsec - start;
    }
    next.tv_nsec += period;
    if (next.tv_nsec >= 1000000000L) {
      next.tv_sec += 1;
      next.tv_nsec -= 1000000000L;
    }
    // Starved past the period: start the next one now rather than catch up with a longer burst.
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) next = now;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {}
  }
}

static int command_spin(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[0], "--share") == 0) {
    double percent = parse_number(argv[1], "--share");
    if (percent <= 0 || percent > 100) usage();
    burn_cpu_share(percent);
  }
  const char *task = only_option(argc, argv, "--processing-task");
  if (task != NULL) {
    open_channel("--processing-task");
    char line[4096];
    snprintf(line, sizeof line, "beginBackgroundTask id=1 name=%s kind=processing\n", task);
    channel_write(line);
    // The reply comes after the hello and maybe the launch event: the task is open once it is in.
    while (channel_read_line(line, sizeof line)) {
      acknowledge_if_event(line);
      if (strncmp(line, "reply id=1 ", 11) == 0) break;
      if (strncmp(line, "error ", 6) == 0) {
        fprintf(stderr, "jetsam-testapp: jetsamd refused the task: %s\n", line);
        return EXIT_SOFTWARE;
      }
    }
    printf("task open\n");
    pthread_t thread;
    if (pthread_create(&thread, NULL, acknowledge_events, NULL) != 0) die("pthread_create");
  }
  burn_cpu();
  return 0;
}

// ---- threads ---------------------------------------------------------------------------------------------------

// Where each thread of `threads` sleeps: named, for call stacks.
__attribute__((noinline)) void *thread_idle(void *unused) {
  (void)unused;
  for (;;) pause();
  return NULL;
}

static int command_threads(int argc, char **argv) {
  if (argc != 1) usage();
  long count = (long)parse_number(argv[0], "N");
  if (count < 1 || count > 4096) usage();
  for (long i = 1; i < count; i++) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, thread_idle, NULL) != 0) die("pthread_create");
  }
  thread_idle(NULL);
  return 0;
}

// ---- speak -----------------------------------------------------------------------------------------------------

// A handler that never returns: where a hang diagnostic must find the app.
__attribute__((noinline)) void stuck_in_handler(void) {
  for (;;) pause();
}

// What a handler does besides acknowledging: never return (hang_in), or take slow_ms first (slow_in).
struct handler_behaviour {
  const char *hang_in;
  const char *slow_in;
  long slow_ms;
};

// Handles one lifecycle event on the main thread, as an app's delegate would.
__attribute__((noinline)) void handle_event(int id, const char *name, const struct handler_behaviour *behaviour) {
  if (behaviour->hang_in != NULL && strcmp(name, behaviour->hang_in) == 0) stuck_in_handler();
  if (behaviour->slow_in != NULL && strcmp(name, behaviour->slow_in) == 0) {
    struct timespec slow = {.tv_sec = behaviour->slow_ms / 1000, .tv_nsec = (behaviour->slow_ms % 1000) * 1000000L};
    while (nanosleep(&slow, &slow) != 0 && errno == EINTR) {
    }
  }
  acknowledge(id);
}

static int command_speak(int argc, char **argv) {
  struct handler_behaviour behaviour = {0};
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--hang-in") == 0 && i + 1 < argc) {
      behaviour.hang_in = argv[++i];
    } else if (strcmp(argv[i], "--slow-in") == 0 && i + 2 < argc) {
      behaviour.slow_in = argv[++i];
      char *end;
      behaviour.slow_ms = strtol(argv[++i], &end, 10);
      if (*end != '\0' || behaviour.slow_ms < 0) usage();
    } else {
      usage();
    }
  }
  open_channel("speak");
  channel_write("hello version=1\n");
  char line[4096];
  while (channel_read_line(line, sizeof line)) {
    int id;
    char name[64];
    if (sscanf(line, "event id=%d name=%63s", &id, name) == 2) handle_event(id, name, &behaviour);
  }
  return 0;
}

int main(int argc, char **argv) {
  // Line-buffered even into a pipe, so a reader sees progress as it happens.
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2) usage();
  const char *command = argv[1];
  int rest = argc - 2;
  char **args = argv + 2;

  if (strcmp(command, "idle") == 0 && rest == 0) {
    pause_forever();
  } else if (strcmp(command, "alloc") == 0) {
    return command_alloc(rest, args);
  } else if (strcmp(command, "crash") == 0) {
    return command_crash(rest, args);
  } else if (strcmp(command, "forge-crash") == 0) {
    return command_forge_crash(rest, args);
  } else if (strcmp(command, "exit") == 0) {
    return command_exit(rest, args);
  } else if (strcmp(command, "fork-child") == 0) {
    return command_fork_child(rest, args);
  } else if (strcmp(command, "forkbomb") == 0) {
    return command_forkbomb(rest, args);
  } else if (strcmp(command, "spin") == 0) {
    return command_spin(rest, args);
  } else if (strcmp(command, "threads") == 0) {
    return command_threads(rest, args);
  } else if (strcmp(command, "speak") == 0) {
    return command_speak(rest, args);
  }
  usage();
  return EXIT_USAGE;
}
