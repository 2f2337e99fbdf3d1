#include <libcgroup.h>
