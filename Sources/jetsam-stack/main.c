// jetsam-stack: the call stacks of every thread of a live process, for jetsamd's diagnostics.
//
//   jetsam-stack [--samples N] [--interval-ms MS] [--pidfd FD] PID
//
// Attaches to PID with ptrace through elfutils' libdwfl (the library behind eu-stack and systemd-coredump),
// unwinds every thread, detaches, and prints one sample; with --samples, N samples MS apart (the process runs in
// between). A stopped process (SIGSTOP) stays stopped. With --pidfd, FD is a pidfd of the process meant: once
// attached (its threads held by ptrace), the tool checks that process is still alive, so that the pid it attached
// to cannot have been reused by another process since its caller checked it; if it is not, nothing is taken. jetsamd runs this in a child process of its own so that a
// capture that hangs (a process that cannot stop) is killed at its time budget, never blocking jetsamd.
//
// Output, one record per line, fields separated by tabs (tabs and newlines in names become spaces):
//   sample  N
//   thread  TID  NAME
//   frame   PC  MODULE_START  BUILD_ID  SYMBOL_OFFSET  MODULE_PATH  SYMBOL  ACTIVATION
// PC, MODULE_START and SYMBOL_OFFSET are hexadecimal; BUILD_ID is hex or "-"; MODULE_PATH and SYMBOL are "-" when
// unknown. Frames go from the innermost (where the thread is) outwards. A frame's PC is the return address minus
// one for every frame but the innermost and those a signal interrupted, so that it falls inside the call
// instruction's function. ACTIVATION is 1 for the innermost frame and for a frame a signal interrupted (its PC is
// the exact instruction, e.g. the one that faulted), 0 otherwise.
// Errors: "error\tMESSAGE" on stdout and exit status 2 (cannot attach: no such process, no permission, already
// traced by a debugger), 64 for misuse.
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_FAILED = 2, EXIT_USAGE = 64, MAX_FRAMES = 256 };

static char *debuginfo_path = NULL;
static const Dwfl_Callbacks callbacks = {
  .find_elf = dwfl_linux_proc_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .debuginfo_path = &debuginfo_path,
};

// Prints `text` with tabs and line breaks replaced, so that a field never splits a record.
static void print_field(const char *text) {
  if (text == NULL || *text == '\0') {
    fputs("-", stdout);
    return;
  }
  for (const char *c = text; *c; c++) putchar(*c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c);
}

static int frames_printed;

static int on_frame(Dwfl_Frame *frame, void *arg) {
  Dwfl *dwfl = arg;
  Dwarf_Addr pc;
  bool activation;
  if (!dwfl_frame_pc(frame, &pc, &activation)) return DWARF_CB_ABORT;
  // A caller's pc is a return address: the call that made the frame lies just before it.
  Dwarf_Addr lookup = activation ? pc : pc - 1;
  Dwfl_Module *module = dwfl_addrmodule(dwfl, lookup);
  Dwarf_Addr start = 0;
  const char *path = NULL, *symbol = NULL;
  GElf_Off offset = 0;
  char build_id[129] = "-";
  if (module != NULL) {
    path = dwfl_module_info(module, NULL, &start, NULL, NULL, NULL, NULL, NULL);
    // The symbol lookup loads the module's ELF file, which its build id is read from.
    GElf_Sym sym;
    symbol = dwfl_module_addrinfo(module, lookup, &offset, &sym, NULL, NULL, NULL);
    const unsigned char *bits;
    GElf_Addr vaddr;
    int length = dwfl_module_build_id(module, &bits, &vaddr);
    if (length > 0 && length <= 64) {
      for (int i = 0; i < length; i++) snprintf(build_id + 2 * i, 3, "%02x", bits[i]);
    }
  }
  printf("frame\t%" PRIx64 "\t%" PRIx64 "\t%s\t%" PRIx64 "\t", (uint64_t)lookup, (uint64_t)start, build_id,
         (uint64_t)offset);
  print_field(path);
  putchar('\t');
  print_field(symbol);
  printf("\t%d\n", activation ? 1 : 0);
  return ++frames_printed < MAX_FRAMES ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static int on_thread(Dwfl_Thread *thread, void *arg) {
  pid_t tid = dwfl_thread_tid(thread);
  char path[64], name[64] = "";
  snprintf(path, sizeof path, "/proc/%d/comm", (int)tid);
  FILE *comm = fopen(path, "r");
  if (comm != NULL) {
    if (fgets(name, sizeof name, comm) == NULL) name[0] = '\0';
    fclose(comm);
  }
  name[strcspn(name, "\n")] = '\0';
  printf("thread\t%d\t", (int)tid);
  print_field(name);
  putchar('\n');
  frames_printed = 0;
  // An unwind that stops early (no unwind info past some frame) still keeps what it found; one that found nothing
  // says why (the thread could not be attached: a debugger holds it, or it is gone).
  if (dwfl_thread_getframes(thread, on_frame, arg) != 0 && frames_printed == 0) {
    int error = dwfl_errno();
    printf("error\tunwinding thread %d: %s\n", (int)tid,
           errno == EPERM ? "not permitted (a debugger attached already, or no ptrace right)" : dwfl_errmsg(error));
  }
  return DWARF_CB_OK;
}

static void fail(const char *what) {
  printf("error\t%s: %s\n", what, dwfl_errmsg(-1));
  exit(EXIT_FAILED);
}

// Whether the process of `pidfd` (-1: none given) is still alive; a pid is reused only once its process is gone.
static bool is_meant_process(int pidfd) {
  return pidfd < 0 || syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

static void sample(pid_t pid, int pidfd, int index) {
  Dwfl *dwfl = dwfl_begin(&callbacks);
  if (dwfl == NULL) fail("dwfl_begin");
  errno = 0;
  int reported = dwfl_linux_proc_report(dwfl, pid);
  if (reported != 0) {
    printf("error\treading the modules of %d: %s\n", (int)pid, strerror(reported > 0 ? reported : errno));
    exit(EXIT_FAILED);
  }
  if (dwfl_report_end(dwfl, NULL, NULL) != 0) fail("dwfl_report_end");
  int attached = dwfl_linux_proc_attach(dwfl, pid, false);
  if (attached != 0) {
    // A positive value is an errno (EPERM when another tracer, a debugger, is attached already).
    printf("error\tattaching to %d: %s\n", (int)pid,
           attached > 0 ? (attached == EPERM ? "not permitted (a debugger attached already, or no ptrace right)"
                                            : strerror(attached))
                        : dwfl_errmsg(-1));
    exit(EXIT_FAILED);
  }
  if (!is_meant_process(pidfd)) {
    dwfl_end(dwfl);
    printf("error\tprocess %d ended before it was attached (its pid may name another process now)\n", (int)pid);
    exit(EXIT_FAILED);
  }
  printf("sample\t%d\n", index);
  if (dwfl_getthreads(dwfl, on_thread, dwfl) != 0) fail("unwinding");
  fflush(stdout);
  dwfl_end(dwfl);  // detaches: the process runs on (or stays stopped, if it was)
}

static const char usage[] = "usage: jetsam-stack [--samples 1-1000] [--interval-ms 0-60000] [--pidfd FD] PID\n";

int main(int argc, char **argv) {
  long samples = 1, interval_ms = 100, pidfd = -1;
  pid_t pid = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      fputs("Prints the call stacks of every thread of process PID (jetsamd's diagnostics run it).\n", stdout);
      return 0;
    } else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
      samples = strtol(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--interval-ms") == 0 && i + 1 < argc) {
      interval_ms = strtol(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--pidfd") == 0 && i + 1 < argc) {
      pidfd = strtol(argv[++i], NULL, 10);
    } else if (pid == 0) {
      pid = (pid_t)strtol(argv[i], NULL, 10);
    } else {
      pid = -1;
    }
  }
  if (pid <= 0 || samples < 1 || samples > 1000 || interval_ms < 0 || interval_ms > 60000 || pidfd < -1 ||
      pidfd > 1 << 20) {
    fputs(usage, stderr);
    return EXIT_USAGE;
  }
  for (long index = 0; index < samples; index++) {
    if (index > 0) {
      struct timespec pause = {interval_ms / 1000, (interval_ms % 1000) * 1000000L};
      while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
      }
    }
    sample(pid, (int)pidfd, (int)index);
  }
  return 0;
}
