/* simple_exscan: the scan test (test_scan.c) with the exclusive call:
 * thread i > 0 gets pids 0..i-1, pid 0's recv is left untouched. */
#define SCAN_EXCLUSIVE 1
#include "test_scan.c"
