// SPDX-License-Identifier: GPL-2.0
/*
 * mlock-hog: take memory out of play, cheaply, for a shell test.
 *
 *   mlock-hog LEAVE_MIB [NODE]
 *
 * Maps all but LEAVE_MIB MiB of MemFree (rounded down to 2 MiB) as anon
 * memory in huge pages where THP allows (cheap to fault under TCG: one
 * kernel clear per 2 MiB instead of 512 faults), mlocks it (never
 * reclaimed or swapped), prints
 *   held N MiB (MemFree now F kB)
 * With NODE, MemFree is that node's (/sys/devices/system/node/nodeN/
 * meminfo), the memory is bound to it (set_mempolicy MPOL_BIND), and the
 * line ends "(node NODE MemFree now F kB)".
 * and waits until it is killed (SIGTERM), its parent (the test) dies, or
 * an hour has passed, so a test that died cannot leave it holding memory
 * for the tests after it.  Exit 1 with a "FAIL: ..." line when the memory
 * cannot be had.
 */
#include <signal.h>

#include "lib/nodelru.h"

#define HUGE_SIZE	(2UL << 20)
#define WAIT_SECONDS	3600

int main(int argc, char **argv)
{
	long long leave, free_b, nid = -1;
	size_t size;
	char *map, *p, *end;

	die_with_parent();
	if (argc != 2 && argc != 3)
		test_fail("usage: mlock-hog LEAVE_MIB [NODE]");
	leave = strtoll(argv[1], &end, 10);
	if (leave < 0 || end == argv[1] || *end)
		test_fail("usage: mlock-hog LEAVE_MIB [NODE] (a size in MiB, not %s)",
			  argv[1]);
	if (argc == 3) {
		nid = strtoll(argv[2], &end, 10);
		if (nid < 0 || nid >= 64 || end == argv[2] || *end)
			test_fail("usage: mlock-hog LEAVE_MIB [NODE] (a node under 64, not %s)",
				  argv[2]);
		bind_to_node(nid);
		free_b = node_meminfo_kb(nid, "MemFree:") * 1024 -
			 (leave << 20);
	} else {
		free_b = meminfo_kb("MemFree:") * 1024 - (leave << 20);
	}
	size = free_b > 0 ? (size_t)free_b & ~(HUGE_SIZE - 1) : 0;
	if (size) {
		map = mmap(NULL, size + HUGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED)
			test_fail("mmap of %zu MiB: %s", size >> 20,
				  strerror(errno));
		p = (char *)(((uintptr_t)map + HUGE_SIZE - 1) &
			     ~(HUGE_SIZE - 1));
		madvise(p, size, MADV_HUGEPAGE);
		if (mlock(p, size))
			test_fail("mlock of %zu MiB: %s", size >> 20,
				  strerror(errno));
	}
	if (nid < 0)
		note("held %zu MiB (MemFree now %lld kB)", size >> 20,
		     meminfo_kb("MemFree:"));
	else
		note("held %zu MiB (node %lld MemFree now %lld kB)", size >> 20,
		     nid, node_meminfo_kb(nid, "MemFree:"));
	sleep(WAIT_SECONDS);
	return KSFT_FAIL;
}
