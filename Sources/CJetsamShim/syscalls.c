#define _GNU_SOURCE
#include "jetsam_syscalls.h"

#include <errno.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

int jetsam_pidfd_open(pid_t pid, unsigned int flags) { return (int)syscall(SYS_pidfd_open, pid, flags); }

int jetsam_pidfd_send_signal(int pidfd, int sig) {
  return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int jetsam_process_mrelease(int pidfd) { return (int)syscall(SYS_process_mrelease, pidfd, 0); }

int jetsam_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int jetsam_waitid_pidfd(int pidfd, siginfo_t *info, int options) {
  return waitid((idtype_t)JETSAM_P_PIDFD, (id_t)pidfd, info, options);
}

long jetsam_statfs_type(const char *path) {
  struct statfs info;
  if (statfs(path, &info) < 0) return -1;
  return (long)info.f_type;
}

int jetsam_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

int jetsam_set_pdeathsig(int sig) { return prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0); }

pid_t jetsam_siginfo_pid(const siginfo_t *info) { return info->si_pid; }
int jetsam_siginfo_code(const siginfo_t *info) { return info->si_code; }
int jetsam_siginfo_status(const siginfo_t *info) { return info->si_status; }

int jetsam_block_signals(const int *signals, int count) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
  return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

#include <stdio.h>
void jetsam_stdout_line_buffered(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

#include <sys/epoll.h>
#include <sys/socket.h>
_Static_assert(JETSAM_EPOLLIN == EPOLLIN && JETSAM_EPOLLPRI == EPOLLPRI && JETSAM_EPOLLOUT == EPOLLOUT &&
                   JETSAM_EPOLLERR == EPOLLERR && JETSAM_EPOLLHUP == EPOLLHUP,
               "epoll bits");

int jetsam_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int jetsam_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) return -1;
  *pid = cred.pid;
  *uid = cred.uid;
  *gid = cred.gid;
  return 0;
}

void jetsam_reset_interrupt_signals(void) {
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, NULL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
}
