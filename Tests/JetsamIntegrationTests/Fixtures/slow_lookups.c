// A test-only preload for jetsamd: every getgrouplist takes 2 s, as under an sssd or LDAP server that is slow to
// answer. Both the control socket's check of a member's groups and a launch as a user call it. Before it sleeps it
// appends a line to $JETSAM_SLOW_LOOKUP_MARKER, so that a test knows a lookup is under way without guessing.
// Built by UserLookupTests: cc -shared -fPIC -o slow_lookups.so slow_lookups.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int getgrouplist(const char *user, gid_t group, gid_t *groups, int *ngroups) {
  int (*real)(const char *, gid_t, gid_t *, int *) = dlsym(RTLD_NEXT, "getgrouplist");
  const char *marker = getenv("JETSAM_SLOW_LOOKUP_MARKER");
  if (marker != NULL) {
    int fd = open(marker, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      char line[256];
      size_t length = strlen(user) < 200 ? strlen(user) : 200;
      memcpy(line, user, length);
      line[length] = '\n';
      (void)!write(fd, line, length + 1);
      close(fd);
    }
  }
  struct timespec left = {2, 0};
  while (nanosleep(&left, &left) != 0) {
  }
  return real(user, group, groups, ngroups);
}
