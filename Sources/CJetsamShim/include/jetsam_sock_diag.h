// The kernel's socket diagnostics (NETLINK_SOCK_DIAG, inet_diag), whose headers the Glibc module does not bring:
// jetsamd dumps an app's TCP and UDP sockets with them and destroys them (SOCK_DESTROY) at its suspension.
#pragma once
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
// getxattr(2), for a socket's protocol (`system.sockprotoname`) through its descriptor's /proc path.
#include <sys/xattr.h>
