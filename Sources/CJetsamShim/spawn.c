// jetsam_spawn: clone3(CLONE_PIDFD | CLONE_INTO_CGROUP) and a child that only makes async-signal-safe calls.
//
// Why not posix_spawn: it cannot start a process inside a cgroup, join v1 cgroups, set oom_score_adj or report
// *which* step failed. Why not fork(): it runs atfork handlers and copies glibc's locks in whatever state other
// threads left them. The child here is a raw clone3 (no CLONE_VM, so it gets a copy-on-write copy of the address
// space, like fork), and until execve it touches nothing but syscalls and the memory the parent prepared.
#define _GNU_SOURCE
#include "jetsam_spawn.h"
#include "jetsam_syscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#define JETSAM_CLONE_INTO_CGROUP 0x200000000ULL
#define JETSAM_CLOSE_RANGE_CLOEXEC (1U << 2)

// struct clone_args from <linux/sched.h>, spelled out so the shim does not depend on the kernel headers' version
// (CLONE_INTO_CGROUP needs the VER2 size, 88 bytes; kernel 5.7+).
struct jetsam_clone_args {
  uint64_t flags;
  uint64_t pidfd;
  uint64_t child_tid;
  uint64_t parent_tid;
  uint64_t exit_signal;
  uint64_t stack;
  uint64_t stack_size;
  uint64_t tls;
  uint64_t set_tid;
  uint64_t set_tid_size;
  uint64_t cgroup;
};

// What the child writes into the error pipe when a step fails. Smaller than PIPE_BUF, so the write is atomic.
struct jetsam_child_report {
  int stage;
  int error;
  int index;
};

// The layout getdents64 fills in (glibc only exposes it through readdir, which may allocate).
struct jetsam_dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// ---------------------------------------------------------------------------------------------------------------
// The child. Everything below until execve runs in a copy of a multi-threaded process: only async-signal-safe
// calls, no allocation, and raw syscalls where glibc's wrapper would coordinate with threads that do not exist
// in the child (setgroups/setresgid/setresuid broadcast to every thread through glibc's setxid machinery).
// ---------------------------------------------------------------------------------------------------------------

__attribute__((noreturn)) static void child_fail(int report_fd, int stage, int index) {
  struct jetsam_child_report report = {stage, errno, index};
  ssize_t written;
  do {
    written = write(report_fd, &report, sizeof report);
  } while (written < 0 && errno == EINTR);
  // 126/127 follow the shell's convention ("found but could not run" / "could not exec"); the parent reaps us
  // and reports the stage, so nobody else sees this status.
  _exit(stage == JETSAM_SPAWN_STAGE_EXECVE ? 127 : 126);
}

static int write_all_once(int fd, const char *text, size_t length) {
  ssize_t written;
  do {
    written = write(fd, text, length);
  } while (written < 0 && errno == EINTR);
  if (written < 0) return -1;
  if ((size_t)written != length) {
    errno = EIO;
    return -1;
  }
  return 0;
}

// Opens `path` and writes `text` in one write (cgroupfs and procfs take a value per write).
static int write_control_file(const char *path, const char *text, size_t length) {
  int fd;
  do {
    fd = open(path, O_WRONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return -1;
  int result = write_all_once(fd, text, length);
  int saved = errno;
  close(fd);
  errno = saved;
  return result;
}

// Sets every signal but SIGKILL/SIGSTOP to SIG_DFL with the raw rt_sigaction syscall. glibc's sigaction refuses
// its two internal real-time signals (32 and 33) with EINVAL, yet a process can inherit one of them as SIG_IGN
// (the Swift test runner's children do, for 32) and exec keeps SIG_IGN. An all-zero kernel sigaction is SIG_DFL
// with no flags and an empty mask on every architecture, whatever the order of its fields.
static void reset_signal_dispositions(void) {
  uint64_t zero_action[8];
  memset(zero_action, 0, sizeof zero_action);
  for (int sig = 1; sig < _NSIG; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    (void)syscall(SYS_rt_sigaction, sig, zero_action, NULL, (size_t)(_NSIG - 1) / 8);
  }
}

static int is_target(const int *sorted_targets, size_t count, int fd) {
  for (size_t i = 0; i < count; i++) {
    if (sorted_targets[i] == fd) return 1;
    if (sorted_targets[i] > fd) return 0;
  }
  return 0;
}

// Fallback for kernels without close_range(CLOSE_RANGE_CLOEXEC) (before 5.11): walk /proc/self/fd with
// getdents64 into a stack buffer and set FD_CLOEXEC on every descriptor >= 3 that is not a target.
static int cloexec_via_proc(const int *sorted_targets, size_t count) {
  int dir_fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return -1;
  char buffer[4096] __attribute__((aligned(8)));
  for (;;) {
    long length = syscall(SYS_getdents64, dir_fd, buffer, sizeof buffer);
    if (length < 0) {
      int saved = errno;
      close(dir_fd);
      errno = saved;
      return -1;
    }
    if (length == 0) break;
    for (long offset = 0; offset < length;) {
      struct jetsam_dirent64 *entry = (struct jetsam_dirent64 *)(buffer + offset);
      offset += entry->d_reclen;
      int fd = 0, digits = 0;
      for (const char *c = entry->d_name; *c >= '0' && *c <= '9'; c++, digits++) fd = fd * 10 + (*c - '0');
      if (digits == 0 || fd < 3 || fd == dir_fd || is_target(sorted_targets, count, fd)) continue;
      (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  close(dir_fd);
  return 0;
}

// Marks every descriptor >= 3 except the targets close-on-exec. Close-on-exec rather than close: the error pipe
// and the temporary duplicates must live until execve and vanish exactly then.
static int cloexec_all_but(const int *sorted_targets, size_t count) {
  unsigned int low = 3;
  for (size_t i = 0; i < count; i++) {
    unsigned int target = (unsigned int)sorted_targets[i];
    if (target < low) continue;
    if (target > low && syscall(SYS_close_range, low, target - 1, JETSAM_CLOSE_RANGE_CLOEXEC) < 0) {
      return cloexec_via_proc(sorted_targets, count);
    }
    low = target + 1;
  }
  if (syscall(SYS_close_range, low, ~0U, JETSAM_CLOSE_RANGE_CLOEXEC) < 0) {
    return cloexec_via_proc(sorted_targets, count);
  }
  return 0;
}

__attribute__((noreturn)) static void run_child(
  const struct jetsam_spawn_request *req, int report_fd, const char *oom_text, size_t oom_length) {
  // 1. Signals. The parent blocked every signal before clone3, so no handler of the parent can run here. Reset
  // every disposition to SIG_DFL now: exec keeps SIG_IGN (a daemon ignoring SIGPIPE would pass that on). The mask
  // stays full until just before execve: a signal sent meanwhile stays pending and hits the new program, with
  // default dispositions.
  reset_signal_dispositions();

  // 2. v1 cgroups. Joined before anything else allocates: v1 memory does not move charges on migration, so
  // whatever the program touches before joining would stay charged to the daemon's group.
  for (size_t i = 0; i < req->join_procs_count; i++) {
    if (write_control_file(req->join_procs_paths[i], "0", 1) < 0) {
      child_fail(report_fd, JETSAM_SPAWN_STAGE_JOIN_CGROUP, (int)i);
    }
  }

  // 2b. A cgroup namespace rooted at the cgroups just joined (the v2 one by CLONE_INTO_CGROUP, the v1 ones
  // above): only now, since a namespace made at clone3 would be rooted at the daemon's cgroups.
  if (req->new_cgroup_namespace && unshare(CLONE_NEWCGROUP) < 0) {
    child_fail(report_fd, JETSAM_SPAWN_STAGE_CGROUP_NAMESPACE, 0);
  }

  // 3. oom_score_adj (formatted by the parent; lowering it needs CAP_SYS_RESOURCE).
  if (req->set_oom_score_adj && write_control_file("/proc/self/oom_score_adj", oom_text, oom_length) < 0) {
    child_fail(report_fd, JETSAM_SPAWN_STAGE_OOM_SCORE_ADJ, 0);
  }

  // 3c. Normal scheduling priority: the daemon may run at a raised one, which apps must not inherit.
  (void)setpriority(PRIO_PROCESS, 0, 0);

  // 4. A session of its own: no controlling terminal, and the daemon's process group signals do not reach it.
  if (setsid() < 0) child_fail(report_fd, JETSAM_SPAWN_STAGE_SETSID, 0);

  // 5. Working directory.
  if (req->working_directory != NULL && chdir(req->working_directory) < 0) {
    child_fail(report_fd, JETSAM_SPAWN_STAGE_CHDIR, 0);
  }

  // 6. Credentials: groups first, uid last (after setresuid there is no privilege left to change groups).
  if (req->set_user) {
    if (syscall(SYS_setgroups, req->group_count, req->groups) < 0) {
      child_fail(report_fd, JETSAM_SPAWN_STAGE_SETGROUPS, 0);
    }
    if (syscall(SYS_setresgid, req->gid, req->gid, req->gid) < 0) {
      child_fail(report_fd, JETSAM_SPAWN_STAGE_SETGID, 0);
    }
    if (syscall(SYS_setresuid, req->uid, req->uid, req->uid) < 0) {
      child_fail(report_fd, JETSAM_SPAWN_STAGE_SETUID, 0);
    }
  }

  // 7. Descriptors. Sources and targets may overlap (a source may sit on another one's target number, or on the
  // error pipe's), so first duplicate every source above the highest target, then dup2 each into place.
  size_t count = 3 + req->passed_count;
  int sources[3 + JETSAM_SPAWN_MAX_PASSED];
  int targets[3 + JETSAM_SPAWN_MAX_PASSED];
  const int standard[3] = {req->stdin_fd, req->stdout_fd, req->stderr_fd};
  for (int i = 0; i < 3; i++) {
    targets[i] = i;
    sources[i] = standard[i];
    if (sources[i] < 0) {
      do {
        sources[i] = open("/dev/null", O_RDWR | O_CLOEXEC);
      } while (sources[i] < 0 && errno == EINTR);
      if (sources[i] < 0) child_fail(report_fd, JETSAM_SPAWN_STAGE_OPEN_DEV_NULL, i);
    }
  }
  int above_targets = 3;
  for (size_t i = 0; i < req->passed_count; i++) {
    sources[3 + i] = req->passed[i].source;
    targets[3 + i] = req->passed[i].target;
    if (targets[3 + i] >= above_targets) above_targets = targets[3 + i] + 1;
  }
  if (report_fd < above_targets) {
    int moved = fcntl(report_fd, F_DUPFD_CLOEXEC, above_targets);
    if (moved < 0) child_fail(report_fd, JETSAM_SPAWN_STAGE_DUP, 0);
    report_fd = moved;
  }
  for (size_t i = 0; i < count; i++) {
    int high = fcntl(sources[i], F_DUPFD_CLOEXEC, above_targets);
    if (high < 0) child_fail(report_fd, JETSAM_SPAWN_STAGE_DUP, (int)i);
    sources[i] = high;
  }
  for (size_t i = 0; i < count; i++) {
    // dup2 clears FD_CLOEXEC on the target, and source != target since every source is now >= above_targets.
    if (dup2(sources[i], targets[i]) < 0) child_fail(report_fd, JETSAM_SPAWN_STAGE_DUP, (int)i);
  }

  // 8. Everything else >= 3 closes at exec. Insertion sort: a few elements, no library call.
  for (size_t i = 1; i < count; i++) {
    int value = targets[i];
    size_t j = i;
    for (; j > 0 && targets[j - 1] > value; j--) targets[j] = targets[j - 1];
    targets[j] = value;
  }
  if (cloexec_all_but(targets, count) < 0) child_fail(report_fd, JETSAM_SPAWN_STAGE_CLOSE_FDS, 0);

  // 8b. The usual descriptor limit, not the daemon's raised one: only now, after the descriptors are in place
  // (lowering it earlier would make the duplications above fail with EMFILE once the daemon holds 1024 fds).
  if (req->nofile_soft_limit) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && req->nofile_soft_limit < limit.rlim_cur) {
      limit.rlim_cur = req->nofile_soft_limit;
      (void)setrlimit(RLIMIT_NOFILE, &limit);
    }
  }

  // 9. Unblock everything and exec.
  sigset_t empty;
  sigemptyset(&empty);
  if (sigprocmask(SIG_SETMASK, &empty, NULL) < 0) child_fail(report_fd, JETSAM_SPAWN_STAGE_SIGNALS, 0);
  execve(req->path, req->argv, req->envp);
  child_fail(report_fd, JETSAM_SPAWN_STAGE_EXECVE, 0);
}

// ---------------------------------------------------------------------------------------------------------------
// The parent.
// ---------------------------------------------------------------------------------------------------------------

static int fail(struct jetsam_spawn_result *result, int stage, int error, int index) {
  result->stage = stage;
  result->error = error;
  result->index = index;
  return -1;
}

// Formats a decimal int without snprintf's locale machinery; the buffer needs 12 bytes.
static size_t format_int(int value, char *buffer) {
  char digits[12];
  size_t n = 0;
  long long v = value;
  int negative = v < 0;
  if (negative) v = -v;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v > 0);
  size_t length = 0;
  if (negative) buffer[length++] = '-';
  while (n > 0) buffer[length++] = digits[--n];
  buffer[length] = '\0';
  return length;
}

int jetsam_spawn(const struct jetsam_spawn_request *req, struct jetsam_spawn_result *result) {
  memset(result, 0, sizeof *result);
  result->pid = -1;
  result->pidfd = -1;

  if (req->path == NULL || req->argv == NULL || req->envp == NULL || req->passed_count > JETSAM_SPAWN_MAX_PASSED ||
      (req->join_procs_count > 0 && req->join_procs_paths == NULL) || (req->passed_count > 0 && req->passed == NULL) ||
      (req->set_user && req->group_count > 0 && req->groups == NULL)) {
    return fail(result, JETSAM_SPAWN_STAGE_REQUEST, EINVAL, 0);
  }
  for (size_t i = 0; i < req->passed_count; i++) {
    if (req->passed[i].target < 3 || req->passed[i].source < 0) {
      return fail(result, JETSAM_SPAWN_STAGE_REQUEST, EINVAL, (int)(3 + i));
    }
    for (size_t j = 0; j < i; j++) {
      if (req->passed[j].target == req->passed[i].target) {
        return fail(result, JETSAM_SPAWN_STAGE_REQUEST, EINVAL, (int)(3 + i));
      }
    }
  }

  char oom_text[16];
  size_t oom_length = format_int(req->oom_score_adj, oom_text);

  // The error pipe: CLOEXEC on both ends, so a successful execve closes the child's end and read() sees EOF.
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) < 0) return fail(result, JETSAM_SPAWN_STAGE_PIPE, errno, 0);

  // Block every signal across clone3 so that none of the parent's handlers runs in the child before the child
  // has reset the dispositions. (glibc leaves its two internal signals unblocked; nobody sends them to the child.)
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);

  int pidfd = -1;
  struct jetsam_clone_args args;
  memset(&args, 0, sizeof args);
  args.flags = CLONE_PIDFD;
  args.pidfd = (uint64_t)(uintptr_t)&pidfd;
  args.exit_signal = SIGCHLD;
  if (req->cgroup_fd >= 0) {
    args.flags |= JETSAM_CLONE_INTO_CGROUP;
    args.cgroup = (uint64_t)req->cgroup_fd;
  }
  long pid = syscall(SYS_clone3, &args, sizeof args);
  if (pid == 0) {
    close(pipe_fds[0]);
    run_child(req, pipe_fds[1], oom_text, oom_length);
  }
  int clone_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous, NULL);
  close(pipe_fds[1]);
  if (pid < 0) {
    close(pipe_fds[0]);
    return fail(result, JETSAM_SPAWN_STAGE_CLONE, clone_error, 0);
  }

  struct jetsam_child_report report;
  ssize_t length;
  do {
    length = read(pipe_fds[0], &report, sizeof report);
  } while (length < 0 && errno == EINTR);
  int read_error = errno;
  close(pipe_fds[0]);

  if (length == 0) {
    // EOF without a report: the child's end closed at a successful execve. (Had the child been killed before
    // exec, the end would also close silently; the caller then sees that death when it reaps the pidfd.)
    result->pid = (pid_t)pid;
    result->pidfd = pidfd;
    return 0;
  }

  if (length != (ssize_t)sizeof report) {
    // Cannot happen with an atomic 12-byte write; make sure the program is not left running half-started.
    (void)jetsam_pidfd_send_signal(pidfd, SIGKILL);
    report.stage = JETSAM_SPAWN_STAGE_CLONE;
    report.error = length < 0 ? read_error : EIO;
    report.index = 0;
  }
  // The child failed before execve and is exiting: reap it so that no zombie is left behind.
  siginfo_t info;
  while (jetsam_waitid_pidfd(pidfd, &info, WEXITED) < 0 && errno == EINTR) {
  }
  close(pidfd);
  return fail(result, report.stage, report.error, report.index);
}
