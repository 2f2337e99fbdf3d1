#pragma once

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
