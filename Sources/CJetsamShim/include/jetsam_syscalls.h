// Thin wrappers for Linux syscalls and macros that Swift's Glibc module does not expose.
// Every symbol carries the jetsam_ prefix. Each returns what the syscall returns (-1 with errno set on failure).
#pragma once
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>
// malloc_trim, for handing freed heap back to the kernel when the daemon is idle (Glibc does not export it).
#include <malloc.h>

/// pidfd_open(2).
int jetsam_pidfd_open(pid_t pid, unsigned int flags);
/// pidfd_send_signal(2) with no siginfo.
int jetsam_pidfd_send_signal(int pidfd, int sig);
/// process_mrelease(2): reap a killed process's memory now, on the caller's time (kernel 5.15+).
int jetsam_process_mrelease(int pidfd);
/// eventfd(2) with EFD_CLOEXEC|EFD_NONBLOCK.
int jetsam_eventfd(void);
/// pipe2(2) with O_CLOEXEC, and O_NONBLOCK on the read end only (the loop reads it; a child writes the other).
int jetsam_pipe_nonblocking_read(int fds[2]);
/// fcntl(2) F_SETPIPE_SZ: asks for a pipe of at least `bytes`; the size it then has, or -1 with errno (it keeps the
/// size it had).
int jetsam_pipe_resize(int fd, int bytes);
/// ioctl(2) FIONREAD on a pipe: the bytes it holds unread, or -1 with errno.
int jetsam_pipe_held(int fd);
/// splice(2) of up to `length` bytes from the pipe `from` to `to`, inside the kernel, with SPLICE_F_NONBLOCK: the
/// bytes moved (0 at the pipe's end of file), or -1 with errno (EAGAIN: the pipe is empty).
ssize_t jetsam_splice(int from, int to, size_t length);
/// waitid(P_PIDFD, pidfd, info, options).
int jetsam_waitid_pidfd(int pidfd, siginfo_t *info, int options);
/// statfs(2)'s f_type for a path (e.g. 0x63677270, CGROUP2_SUPER_MAGIC, for a cgroup2 mount), or -1 with errno.
long jetsam_statfs_type(const char *path);

/// Fields of a siginfo_t filled in by waitid or sd-event's child source (they live in a union Swift cannot name).
pid_t jetsam_siginfo_pid(const siginfo_t *info);
int jetsam_siginfo_code(const siginfo_t *info);
int jetsam_siginfo_status(const siginfo_t *info);

/// The CLD_* si_code values for a child's state change.
enum {
  JETSAM_CLD_EXITED = CLD_EXITED,
  JETSAM_CLD_KILLED = CLD_KILLED,
  JETSAM_CLD_DUMPED = CLD_DUMPED,
  JETSAM_CLD_STOPPED = CLD_STOPPED,
  JETSAM_CLD_CONTINUED = CLD_CONTINUED,
};

/// waitid(2) idtype and option values, exposed because release builds lose P_PIDFD in some files.
enum {
  JETSAM_P_PIDFD = 3,
  JETSAM_WEXITED = WEXITED,
  JETSAM_WSTOPPED = WSTOPPED,
  JETSAM_WCONTINUED = WCONTINUED,
  JETSAM_WNOHANG = WNOHANG,
  JETSAM_WNOWAIT = WNOWAIT,
};

/// Block signals in the calling thread (use first thing in main, before any thread starts).
int jetsam_block_signals(const int *signals, int count);

/// Makes stdout line-buffered (Swift 6 cannot touch the C `stdout` global).
void jetsam_stdout_line_buffered(void);

/// epoll event bits for sd-event io sources (the Glibc module does not export <sys/epoll.h>).
enum {
  JETSAM_EPOLLIN = 0x001,
  JETSAM_EPOLLPRI = 0x002,
  JETSAM_EPOLLOUT = 0x004,
  JETSAM_EPOLLERR = 0x008,
  JETSAM_EPOLLHUP = 0x010,
};

/// epoll_create1(EPOLL_CLOEXEC), for jetsam-spawner's loop (jetsamd's is sd-event's).
int jetsam_epoll_create(void);
/// epoll_ctl(2) EPOLL_CTL_ADD of `fd` for `events`, with `token` as the event's data.
int jetsam_epoll_add(int epfd, int fd, uint32_t events, uint64_t token);
/// epoll_ctl(2) EPOLL_CTL_MOD: `fd` now waits for `events`, with `token` as the event's data.
int jetsam_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token);
/// epoll_ctl(2) EPOLL_CTL_DEL of `fd`.
int jetsam_epoll_delete(int epfd, int fd);
/// epoll_wait(2) with no timeout: up to `capacity` ready events, each as its events and its token.
int jetsam_epoll_wait(int epfd, uint32_t *events, uint64_t *tokens, int capacity);
/// signalfd(2) for `signal` alone, with SFD_NONBLOCK | SFD_CLOEXEC (the signal must be blocked in every thread).
int jetsam_signalfd(int signal);
/// Reads one pending signal from a signalfd: 0 with its si_code in *code, or -1 with errno (EAGAIN: none pending).
int jetsam_signalfd_read(int fd, int *code);

/// sd_notify(3)'s protocol without libsystemd (for jetsam-spawner): sends `state` as one datagram to the socket
/// NOTIFY_SOCKET names (a path, or an abstract name after '@'). 1 when sent, 0 when NOTIFY_SOCKET is unset, -1 with
/// errno on failure.
int jetsam_notify(const char *state);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC).
int jetsam_accept_nonblocking(int fd);

/// send(2) with MSG_NOSIGNAL (a peer that went away is EPIPE, not a SIGPIPE) and MSG_DONTWAIT. Here rather than in
/// Swift: the Swift compiler now and then failed to find glibc's MSG_NOSIGNAL (a macro naming an enum constant)
/// in incremental builds of the shell.
ssize_t jetsam_send_nonblocking(int fd, const void *bytes, size_t length);
/// The most descriptors one message carries (SCM_RIGHTS) between jetsamd and its spawner service.
#define JETSAM_MAX_MESSAGE_FDS 24

/// sendmsg(2) of one message with `fd_count` (at most JETSAM_MAX_MESSAGE_FDS) descriptors attached (SCM_RIGHTS),
/// with MSG_NOSIGNAL and MSG_DONTWAIT. The kernel copies the descriptors: the caller still owns its own.
ssize_t jetsam_send_with_fds(int fd, const void *bytes, size_t length, const int *fds, size_t fd_count);
/// recvmsg(2) of one message with MSG_DONTWAIT and MSG_CMSG_CLOEXEC: up to `capacity` bytes into `bytes` and up to
/// `fd_capacity` received descriptors into `fds` (their number in *fd_count, owned by the caller). *truncated is 1
/// when the message or its descriptors did not fit; descriptors that did not fit are closed.
ssize_t jetsam_receive_with_fds(
    int fd, void *bytes, size_t capacity, int *fds, size_t fd_capacity, size_t *fd_count, int *truncated);
/// SOCK_SEQPACKET, as a function: Swift files of the shell now and then fail to find glibc's socket type constants
/// (they are enum constants and macros at once) in builds that pass -Werror to the clang importer.
int jetsam_sock_seqpacket(void);
/// socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC) whose first end receives every message with its sender's
/// credentials (SO_PASSCRED, set before any message can be sent) and does not block; 0 on success.
int jetsam_credentials_pair(int fds[2]);
/// recvmsg(2) of one message with MSG_DONTWAIT and MSG_CMSG_CLOEXEC, up to `capacity` bytes, with the sender's
/// process id as the kernel tells it (SCM_CREDENTIALS, on a socket with SO_PASSCRED) in *sender, 0 when none
/// came. *truncated is 1 when the message did not fit. Descriptors sent with it (SCM_RIGHTS) are closed at once:
/// whoever sent them gets nothing into the receiver.
ssize_t jetsam_receive_with_credentials(int fd, void *bytes, size_t capacity, pid_t *sender, int *truncated);
/// The peer's credentials of a connected Unix socket (SO_PEERCRED); 0 on success.
int jetsam_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// Unblocks every signal in the calling thread and restores default dispositions for SIGINT, SIGTERM and SIGPIPE
/// (a CLI must stay interruptible whatever mask or dispositions its parent left it).
void jetsam_reset_interrupt_signals(void);

/// How a process that is not our child ended, from its pidfd (PIDFD_GET_INFO with PIDFD_INFO_EXIT, Linux 6.15+).
/// Returns 1 and sets *wait_status (waitpid format) when the exit is known, 0 while it is not (yet), -1 with
/// errno when the kernel has no such ioctl.
int jetsam_pidfd_exit_status(int pidfd, int *wait_status);

/// A full-screen terminal view's set-up (`jetsamctl top`), in C because its undoing must run from a signal
/// handler: whatever ends the program (q, Ctrl-C, SIGTERM, SIGHUP), the terminal gets its modes back.

/// The terminal's size in rows and columns; 0 on success.
int jetsam_terminal_size(int fd, unsigned short *rows, unsigned short *columns);

/// Switches terminal `fd` to character-at-a-time input without echo or signal keys (Ctrl-C arrives as byte 3), to
/// the alternate screen with the cursor hidden, and installs handlers that undo it all on SIGTERM, SIGHUP and
/// SIGINT before dying of the signal. 0 on success.
int jetsam_terminal_enter_full_screen(int fd);

/// Undoes ``jetsam_terminal_enter_full_screen`` (does nothing if it was not entered).
void jetsam_terminal_leave_full_screen(void);
