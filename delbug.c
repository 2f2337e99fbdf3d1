#include <libcgroup.h>
#include <stdio.h>
int main(){
  cgroup_init();
  struct cgroup *cg = cgroup_new_cgroup("delbug");
  cgroup_add_controller(cg, "pids");
  int r = cgroup_delete_cgroup_ext(cg, CGFLAG_DELETE_EMPTY_ONLY); printf("delete populated -> %d errno %d\n", r, cgroup_get_last_errno());
  return 0;
}
