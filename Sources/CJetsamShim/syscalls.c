#define _GNU_SOURCE
#include "jetsam_syscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
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

// Closes both ends of a pair whose set-up failed, keeping the failure's errno; returns -1.
static int close_pair(int fds[2]) {
  int saved = errno;
  close(fds[0]);
  close(fds[1]);
  errno = saved;
  return -1;
}

int jetsam_pipe_nonblocking_read(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  int flags = fcntl(fds[0], F_GETFL);
  if (flags < 0 || fcntl(fds[0], F_SETFL, flags | O_NONBLOCK) != 0) return close_pair(fds);
  return 0;
}

int jetsam_pipe_resize(int fd, int bytes) { return fcntl(fd, F_SETPIPE_SZ, bytes); }

int jetsam_pipe_held(int fd) {
  int held = 0;
  return ioctl(fd, FIONREAD, &held) < 0 ? -1 : held;
}

ssize_t jetsam_splice(int from, int to, size_t length) {
  return splice(from, NULL, to, NULL, length, SPLICE_F_NONBLOCK);
}

int jetsam_waitid_pidfd(int pidfd, siginfo_t *info, int options) {
  return waitid((idtype_t)JETSAM_P_PIDFD, (id_t)pidfd, info, options);
}

long jetsam_statfs_type(const char *path) {
  struct statfs info;
  if (statfs(path, &info) < 0) return -1;
  return (long)info.f_type;
}

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

#include <sys/signalfd.h>

int jetsam_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int jetsam_epoll_control(int epfd, int op, int fd, uint32_t events, uint64_t token) {
  struct epoll_event event = {.events = events, .data = {.u64 = token}};
  return epoll_ctl(epfd, op, fd, &event);
}

int jetsam_epoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
  return jetsam_epoll_control(epfd, EPOLL_CTL_ADD, fd, events, token);
}

int jetsam_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token) {
  return jetsam_epoll_control(epfd, EPOLL_CTL_MOD, fd, events, token);
}

int jetsam_epoll_delete(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int jetsam_epoll_wait(int epfd, uint32_t *events, uint64_t *tokens, int capacity) {
  struct epoll_event ready[64];
  if (capacity > 64) capacity = 64;
  int count = epoll_wait(epfd, ready, capacity, -1);
  for (int i = 0; i < count; i++) {
    events[i] = ready[i].events;
    tokens[i] = ready[i].data.u64;
  }
  return count;
}

int jetsam_signalfd(int signal) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int jetsam_signalfd_read(int fd, int *code) {
  struct signalfd_siginfo info;
  ssize_t n = read(fd, &info, sizeof info);
  if (n < 0) return -1;
  if (n != sizeof info) {
    errno = EIO;
    return -1;
  }
  *code = info.ssi_code;
  return 0;
}

#include <stddef.h>
#include <stdlib.h>
#include <sys/un.h>

int jetsam_notify(const char *state) {
  const char *path = getenv("NOTIFY_SOCKET");
  if (path == NULL || path[0] == 0) return 0;
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  size_t length = strlen(path);
  if ((path[0] != '/' && path[0] != '@') || length >= sizeof address.sun_path) {
    errno = EINVAL;
    return -1;
  }
  memcpy(address.sun_path, path, length);
  if (path[0] == '@') address.sun_path[0] = 0;
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  ssize_t sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&address,
                        (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length));
  int saved = errno;
  close(fd);
  errno = saved;
  return sent < 0 ? -1 : 1;
}

int jetsam_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

ssize_t jetsam_send_nonblocking(int fd, const void *bytes, size_t length) {
  return send(fd, bytes, length, MSG_NOSIGNAL | MSG_DONTWAIT);
}

ssize_t jetsam_send_with_fds(int fd, const void *bytes, size_t length, const int *fds, size_t fd_count) {
  if (fd_count > JETSAM_MAX_MESSAGE_FDS) {
    errno = EINVAL;
    return -1;
  }
  union {
    char buffer[CMSG_SPACE(sizeof(int) * JETSAM_MAX_MESSAGE_FDS)];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct iovec iov = {.iov_base = (void *)bytes, .iov_len = length};
  struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1};
  if (fd_count > 0) {
    message.msg_control = control.buffer;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * fd_count);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fd_count);
    memcpy(CMSG_DATA(header), fds, sizeof(int) * fd_count);
  }
  return sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
}

// recvmsg(2) of one message with MSG_DONTWAIT and MSG_CMSG_CLOEXEC, its flags in *flags. Descriptors it carries go
// to `fds` (up to `fd_capacity`; their number in *fd_count) when `fds` is given; the others are closed (and
// *fds_dropped set). The sender's pid (SCM_CREDENTIALS) goes to *sender when it is given.
static ssize_t receive_message(int fd, void *bytes, size_t capacity, int *fds, size_t fd_capacity, size_t *fd_count,
                               int *fds_dropped, pid_t *sender, int *flags) {
  union {
    char buffer[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * JETSAM_MAX_MESSAGE_FDS)];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = bytes, .iov_len = capacity};
  struct msghdr message = {
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer};
  *fd_count = 0;
  *fds_dropped = 0;
  if (sender) *sender = 0;
  ssize_t received = recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (received < 0) return -1;
  *flags = message.msg_flags;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET) continue;
    if (header->cmsg_type == SCM_CREDENTIALS && header->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
      struct ucred credentials;
      memcpy(&credentials, CMSG_DATA(header), sizeof credentials);
      if (sender) *sender = credentials.pid;
    } else if (header->cmsg_type == SCM_RIGHTS) {
      size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; i++) {
        int passed;
        memcpy(&passed, CMSG_DATA(header) + i * sizeof(int), sizeof passed);
        if (fds && *fd_count < fd_capacity) {
          fds[(*fd_count)++] = passed;
        } else {
          close(passed);
          *fds_dropped = 1;
        }
      }
    }
  }
  return received;
}

ssize_t jetsam_receive_with_fds(
    int fd, void *bytes, size_t capacity, int *fds, size_t fd_capacity, size_t *fd_count, int *truncated) {
  int dropped = 0, flags = 0;
  ssize_t received = receive_message(fd, bytes, capacity, fds, fd_capacity, fd_count, &dropped, NULL, &flags);
  *truncated = received >= 0 && ((flags & (MSG_TRUNC | MSG_CTRUNC)) || dropped);
  return received;
}

int jetsam_sock_seqpacket(void) { return SOCK_SEQPACKET; }

int jetsam_credentials_pair(int fds[2]) {
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0) return -1;
  int on = 1;
  if (setsockopt(fds[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0 ||
      fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK) < 0) {
    return close_pair(fds);
  }
  return 0;
}

ssize_t jetsam_receive_with_credentials(int fd, void *bytes, size_t capacity, pid_t *sender, int *truncated) {
  size_t fd_count = 0;
  int dropped = 0, flags = 0;
  ssize_t received = receive_message(fd, bytes, capacity, NULL, 0, &fd_count, &dropped, sender, &flags);
  // Only the bytes count here: descriptors sent with a report are closed either way.
  *truncated = received >= 0 && (flags & MSG_TRUNC);
  return received;
}

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

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

// The first published layout of struct pidfd_info (64 bytes, Linux 6.13); since 6.15 its last field holds the
// exit status. Defined here because the build machines' kernel headers predate it.
struct jetsam_pidfd_info {
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  int32_t exit_code;
};
_Static_assert(sizeof(struct jetsam_pidfd_info) == 64, "PIDFD_INFO_SIZE_VER0");
#define JETSAM_PIDFD_GET_INFO _IOWR(0xFF, 11, struct jetsam_pidfd_info)
#define JETSAM_PIDFD_INFO_EXIT (1UL << 3)

int jetsam_pidfd_exit_status(int pidfd, int *wait_status) {
  struct jetsam_pidfd_info info;
  memset(&info, 0, sizeof info);
  info.mask = JETSAM_PIDFD_INFO_EXIT;
  if (ioctl(pidfd, JETSAM_PIDFD_GET_INFO, &info) < 0) {
    // ESRCH: the process is gone and its exit was not kept; that is "unknown", not "no such ioctl".
    return errno == ESRCH ? 0 : -1;
  }
  if (!(info.mask & JETSAM_PIDFD_INFO_EXIT)) return 0;
  *wait_status = info.exit_code;
  return 1;
}
