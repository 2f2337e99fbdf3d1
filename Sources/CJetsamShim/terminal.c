#define _GNU_SOURCE
#include "jetsam_syscalls.h"

#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved_modes;
static volatile sig_atomic_t entered_fd = -1;

// Show the cursor, leave the alternate screen.
static const char leave_sequence[] = "\033[?25h\033[?1049l";
// Enter the alternate screen, hide the cursor, clear.
static const char enter_sequence[] = "\033[?1049h\033[?25l\033[2J";

int jetsam_terminal_size(int fd, unsigned short *rows, unsigned short *columns) {
  struct winsize size;
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
  *rows = size.ws_row;
  *columns = size.ws_col;
  return 0;
}

void jetsam_terminal_leave_full_screen(void) {
  int fd = entered_fd;
  if (fd < 0) return;
  entered_fd = -1;
  // Only async-signal-safe calls: this also runs from the handler below.
  tcsetattr(fd, TCSAFLUSH, &saved_modes);
  ssize_t ignored = write(STDOUT_FILENO, leave_sequence, sizeof leave_sequence - 1);
  (void)ignored;
}

static void leave_and_die(int signal_number) {
  jetsam_terminal_leave_full_screen();
  // Die of the signal as if there had been no handler, so that the parent sees why.
  struct sigaction default_action;
  memset(&default_action, 0, sizeof default_action);
  default_action.sa_handler = SIG_DFL;
  sigaction(signal_number, &default_action, NULL);
  raise(signal_number);
}

int jetsam_terminal_enter_full_screen(int fd) {
  if (tcgetattr(fd, &saved_modes) != 0) return -1;
  struct termios raw = saved_modes;
  raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
  raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  if (tcsetattr(fd, TCSAFLUSH, &raw) != 0) return -1;
  entered_fd = fd;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = leave_and_die;
  sigemptyset(&action.sa_mask);
  int signals[] = {SIGTERM, SIGHUP, SIGINT};
  for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &action, NULL);
  ssize_t ignored = write(STDOUT_FILENO, enter_sequence, sizeof enter_sequence - 1);
  (void)ignored;
  return 0;
}
