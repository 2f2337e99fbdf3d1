import Glibc

/// Whether this process runs as root (creating cgroups, changing users and starting jetsamd need it).
public let isRoot = getuid() == 0
