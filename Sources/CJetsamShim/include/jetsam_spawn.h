// Spawning a worker straight into its cgroups with clone3(CLONE_PIDFD | CLONE_INTO_CGROUP).
//
// The Swift side (JetsamShell/Processes/Spawner.swift) builds every string and array beforehand (the resolved
// executable path, argv, envp), because the child of a multi-threaded process may only make async-signal-safe
// calls between clone and execve: no malloc, no locks, no Swift.
#pragma once
#include <stddef.h>
#include <sys/types.h>

/// Where a spawn failed. Stages from JETSAM_SPAWN_STAGE_SIGNALS on happen in the child, which reports
/// {stage, errno, index} through a CLOEXEC pipe and exits (126, or 127 for execve) without running the program.
enum jetsam_spawn_stage {
  JETSAM_SPAWN_STAGE_NONE = 0,
  /// Parent: the request is malformed (errno EINVAL), e.g. too many passed descriptors or a negative target.
  JETSAM_SPAWN_STAGE_REQUEST = 1,
  /// Parent: pipe2 for the error pipe.
  JETSAM_SPAWN_STAGE_PIPE = 2,
  /// Parent: clone3 itself (ENOSYS/E2BIG on old kernels, EBADF for a cgroup fd that is not cgroup v2, ...).
  JETSAM_SPAWN_STAGE_CLONE = 3,
  /// Child: resetting signal dispositions or the signal mask.
  JETSAM_SPAWN_STAGE_SIGNALS = 10,
  /// Child: joining join_procs_paths[index] (open or write of "0").
  JETSAM_SPAWN_STAGE_JOIN_CGROUP = 11,
  /// Child: writing /proc/self/oom_score_adj.
  JETSAM_SPAWN_STAGE_OOM_SCORE_ADJ = 12,
  /// Child: setsid.
  JETSAM_SPAWN_STAGE_SETSID = 13,
  /// Child: chdir to working_directory.
  JETSAM_SPAWN_STAGE_CHDIR = 14,
  /// Child: setgroups / setresgid / setresuid.
  JETSAM_SPAWN_STAGE_SETGROUPS = 15,
  JETSAM_SPAWN_STAGE_SETGID = 16,
  JETSAM_SPAWN_STAGE_SETUID = 17,
  /// Child: opening /dev/null for a standard stream given as -1 (index 0, 1 or 2).
  JETSAM_SPAWN_STAGE_OPEN_DEV_NULL = 18,
  /// Child: duplicating a descriptor to its target; index 0-2 are stdin/stdout/stderr, 3+i is passed[i].
  JETSAM_SPAWN_STAGE_DUP = 19,
  /// Child: marking every other descriptor close-on-exec.
  JETSAM_SPAWN_STAGE_CLOSE_FDS = 20,
  /// Child: execve.
  JETSAM_SPAWN_STAGE_EXECVE = 21,
  /// Child: unshare(CLONE_NEWCGROUP) (EPERM without CAP_SYS_ADMIN).
  JETSAM_SPAWN_STAGE_CGROUP_NAMESPACE = 22,
};

/// A descriptor the child keeps: `source` (open in the parent) becomes `target` in the program, without CLOEXEC.
struct jetsam_spawn_fd {
  int source;
  int target;
};

/// Everything the child needs, prepared by the parent. Arrays and strings must stay valid during the call.
struct jetsam_spawn_request {
  /// The program to execve: an absolute or relative path, already resolved by the caller (no PATH search here).
  const char *path;
  /// NULL-terminated argv and envp ("KEY=VALUE").
  char *const *argv;
  char *const *envp;
  /// chdir target, or NULL to inherit the parent's working directory.
  const char *working_directory;
  /// A cgroup v2 directory fd for CLONE_INTO_CGROUP, or -1 to start in the parent's cgroup.
  int cgroup_fd;
  /// cgroup v1 `cgroup.procs` files the child writes "0" into before anything else (hybrid layout).
  const char *const *join_procs_paths;
  size_t join_procs_count;
  /// When non-zero, the child enters a cgroup namespace of its own once it is in its cgroups (needs
  /// CAP_SYS_ADMIN): the program sees its cgroups as the root, and where cgroup2 is mounted with `nsdelegate`
  /// the kernel refuses to move it, even as root, to a cgroup outside them.
  int new_cgroup_namespace;
  /// When non-zero, oom_score_adj is written to /proc/self/oom_score_adj.
  int set_oom_score_adj;
  int oom_score_adj;
  /// When non-zero, the soft RLIMIT_NOFILE the program starts with (the daemon raises its own for hundreds of
  /// apps; programs expect the usual 1024). Best effort: a failure is ignored.
  unsigned long nofile_soft_limit;
  /// When non-zero, the child drops to uid/gid with exactly these supplementary groups.
  int set_user;
  uid_t uid;
  gid_t gid;
  const gid_t *groups;
  size_t group_count;
  /// Descriptors for the program's stdin, stdout, stderr; -1 opens /dev/null instead.
  int stdin_fd;
  int stdout_fd;
  int stderr_fd;
  /// Extra descriptors to keep (targets must be >= 3 and distinct; at most JETSAM_SPAWN_MAX_PASSED).
  const struct jetsam_spawn_fd *passed;
  size_t passed_count;
};

enum { JETSAM_SPAWN_MAX_PASSED = 256 };

/// The outcome: on success pid and pidfd (O_CLOEXEC, owned by the caller); on failure stage, error and index.
struct jetsam_spawn_result {
  pid_t pid;
  int pidfd;
  /// A jetsam_spawn_stage; JETSAM_SPAWN_STAGE_NONE on success.
  int stage;
  /// The errno of the failed step.
  int error;
  /// Which path or descriptor the failed step was about (see the stage), else 0.
  int index;
};

/// Starts `req->path` in a new process and waits until it has exec'd or failed.
///
/// The child resets every signal disposition to SIG_DFL and its mask to empty, joins the v1 cgroups, sets
/// oom_score_adj, calls setsid, chdir, drops privileges, arranges descriptors, and execs. It never sets
/// PR_SET_PDEATHSIG: workers outlive a restarting daemon. A child that fails before execve is reaped here.
///
/// Returns 0 and fills pid/pidfd on success; returns -1 and fills stage/error/index otherwise.
int jetsam_spawn(const struct jetsam_spawn_request *req, struct jetsam_spawn_result *result);
