// libjetsam-crash: preloaded into apps (LD_PRELOAD) when jetsamd takes crash diagnostics. It has no API: its
// constructor installs the handler when JETSAM_CRASH_FD names jetsamd's crash socket.
#pragma once
