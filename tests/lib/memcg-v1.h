/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory controller on a cgroup v1 hierarchy, for the tests that need
 * v1 features (soft limits, charge moving), and back on cgroup v2 after.
 *
 * v1_mount() takes +memory away from the v2 root if it is there, cycles
 * swap (below), and mounts the controller on a v1 hierarchy at V1,
 * retrying while dying v2 memcgs hold it; it skips the test, saying why,
 * when the kernel refuses.  v1_release() empties the given groups,
 * removes them, unmounts the hierarchy and waits for the controller to
 * come back to v2, cycling swap again; it runs at exit too (atexit), so
 * a check that fails half-way still gives the controller back.
 *
 * Swap is turned off and on again (every device in /proc/swaps) before
 * the v1 mount and after the controller is back on v2.  Under v2 a
 * swapped-in page keeps its slot and its swap_cgroup record, and pages
 * read ahead from swap and never mapped stay in the swap cache; when the
 * controller moves to v1, reclaim of such a page calls
 * mem_cgroup_swapout(), which finds the old record and hits
 * VM_BUG_ON_FOLIO(oldid) (seen on zone-debug/numa with memcg-v1-soft
 * right after anon-swap, kswapd1, mm/memcontrol.c:7402; the code involved
 * is the same at both ends of the series).  Rebinding the memory
 * controller with swap in use is outside what the kernel supports;
 * swapoff empties the swap cache and frees every slot and record.
 */
#ifndef NODELRU_MEMCG_V1_H
#define NODELRU_MEMCG_V1_H

#include <sys/mount.h>
#include <sys/swap.h>

#include "nodelru.h"

#define V1		"/mnt/v1"
#define V1_MAX_GROUPS	4

/* num_cgroups of the memory line in /proc/cgroups: groups not yet freed. */
static inline int memory_cgroups(void)
{
	char line[256], name[32];
	int h, n, e;
	FILE *f = fopen("/proc/cgroups", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %d %d %d", name, &h, &n, &e) == 4 &&
		    !strcmp(name, "memory")) {
			fclose(f);
			return n;
		}
	fclose(f);
	return -1;
}

/*
 * swapoff and swapon every active swap device; returns how many, or -1
 * after printing what failed (no verdict here: v1_release() runs at exit,
 * where a verdict cannot be given).
 */
static inline int swap_cycle(void)
{
	char line[512], dev[256];
	int n = 0;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f) {
		note("# open /proc/swaps: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s", dev) != 1 || dev[0] != '/')
			continue;
		if (swapoff(dev) || swapon(dev, 0)) {
			note("# swapoff/swapon %s: %s", dev, strerror(errno));
			n = -1;
			break;
		}
		n++;
	}
	fclose(f);
	return n;
}

static const char *v1_groups[V1_MAX_GROUPS];
static int v1_ngroups, v1_mounted;
static pid_t v1_pid;

/*
 * Empty the v1 hierarchy and unmount it so that the controller goes back
 * to cgroup v2.  A hierarchy is only released at umount when its root
 * has no children left, and a removed memcg stays (dying) while any page
 * is charged to it, e.g. block device pages of ext4 metadata its writes
 * brought in.  So: reclaim the groups (force_empty), remove them, and
 * drop caches until /proc/cgroups counts the root alone, then unmount.
 * The caller removes its files first and kills its tasks in the groups.
 * Returns 0 when the controller is back on cgroup v2 (or was never
 * taken), -1 when not: the tests after this one would find no memory
 * controller on v2 and skip, so the caller fails.
 */
static inline int v1_release(void)
{
	char path[512];
	int i, n = -1;

	if (!v1_mounted || getpid() != v1_pid)
		return 0;
	v1_mounted = 0;

	sync();
	for (i = 0; i < v1_ngroups; i++) {
		snprintf(path, sizeof(path), "%s/memory.force_empty",
			 v1_groups[i]);
		try_write_file(path, "0");
	}
	for (i = 0; i < v1_ngroups; i++)
		cg_remove(v1_groups[i]);
	for (i = 0; i < 30; i++) {
		n = memory_cgroups();
		if (n <= 1)
			break;
		drop_caches();
		usleep(500000);
	}
	if (n > 1)
		note("# warning: %d memory cgroups still counted in /proc/cgroups after 15 s",
		     n);
	for (i = 0; i < 2; i++) {
		if (umount(V1))
			note("# warning: umount %s: %s", V1, strerror(errno));
		if (memcg_on_v2(5)) {
			n = swap_cycle();
			note("swap cycled on v2 again: %d device(s)", n);
			return n < 0 ? -1 : 0;
		}
		/*
		 * Mount the lingering hierarchy again and let it go again (not
		 * after the last try: a mounted hierarchy is never released).
		 */
		drop_caches();
		if (i == 1 || mount("none", V1, "cgroup", 0, "memory"))
			break;
	}
	note("the memory controller did not return to cgroup v2 (/proc/cgroups: %d memory cgroups)",
	     memory_cgroups());
	return -1;
}

/* The release at exit, after a failure: the verdict is already made. */
static inline void v1_release_atexit(void)
{
	v1_release();
}

/* The release at the end of a test that passed so far. */
static inline void v1_release_or_fail(void)
{
	if (v1_release())
		test_fail("expected the memory controller back on cgroup v2 and swap cycled after the v1 hierarchy was released, saw otherwise (above; /proc/cgroups: %d memory cgroups; later memcg tests would skip)",
			  memory_cgroups());
}

/*
 * Mount the memory controller on a v1 hierarchy at V1 and make the groups
 * GROUPS (NULL-terminated, full paths under V1).  Skips the test when the
 * controller cannot be had; the release is registered with atexit().
 * NEED is a control file the test needs in each group (e.g.
 * "memory.soft_limit_in_bytes"): skip if the hierarchy does not have it.
 */
static inline void v1_mount(const char * const *groups, const char *need)
{
	char buf[256], path[512];
	long long cached;
	int i, err = 0, mounted = 0;

	/* The controller must not be in use on cgroup v2. */
	if (!read_line("/sys/fs/cgroup/cgroup.subtree_control", buf,
		       sizeof(buf)) && strstr(buf, "memory")) {
		err = try_write_file("/sys/fs/cgroup/cgroup.subtree_control",
				     "-memory");
		/*
		 * The runner orders the v1 tests before anything enables
		 * the controller below the v2 root: a refusal here is the
		 * harness's fault or a leak, not something the kernel lacks.
		 */
		if (err)
			test_fail("expected '-memory' in the cgroup v2 root's subtree_control to succeed (no v2 group uses the controller this early), saw %s",
				  strerror(err));
		note("took +memory away from the cgroup v2 root");
	}
	cached = meminfo_kb("SwapCached:");
	i = swap_cycle();
	if (i < 0)
		test_fail("expected swapoff and swapon of every swap device to succeed before the v1 mount (above)");
	note("swap cycled before the v1 mount: %d device(s), SwapCached was %lld kB, now %lld kB",
	     i, cached, meminfo_kb("SwapCached:"));
	if (mkdir(V1, 0755) && errno != EEXIST)
		test_fail("mkdir %s: %s", V1, strerror(errno));
	/* Dying v2 memcgs (page cache still charged) hold it for a while. */
	for (i = 0; i < 10; i++) {
		if (!mount("none", V1, "cgroup", 0, "memory")) {
			mounted = 1;
			break;
		}
		err = errno;
		if (err != EBUSY)
			break;
		drop_caches();
		sleep(1);
	}
	/*
	 * EBUSY for ten seconds means memcgs still hold the controller on
	 * v2 although drop_caches had every chance to free their pages: a
	 * leak of dying memcgs, which must not read as a skip.  Any other
	 * refusal is the kernel declining a v1 memory hierarchy.
	 */
	if (!mounted && err == EBUSY)
		test_fail("expected the memory controller free for a v1 hierarchy on %s within %d tries a second apart, saw EBUSY every time (/proc/cgroups: %d memory cgroups; dying memcgs leaked?)",
			  V1, i, memory_cgroups());
	if (!mounted)
		test_skip("mount -t cgroup -o memory none %s was refused: %s (tried %d times)",
			  V1, strerror(err), i + (i < 10));
	snprintf(path, sizeof(path), V1 "/%s", need);
	if (access(path, F_OK)) {
		umount(V1);
		test_skip("the v1 memory hierarchy on %s has no %s", V1, need);
	}
	v1_mounted = 1;
	v1_pid = getpid();
	atexit(v1_release_atexit);	/* also when a check fails half-way */
	note("memory controller mounted on cgroup v1 at %s", V1);
	for (v1_ngroups = 0; groups[v1_ngroups]; v1_ngroups++) {
		if (v1_ngroups == V1_MAX_GROUPS)
			test_fail("more than %d v1 groups", V1_MAX_GROUPS);
		v1_groups[v1_ngroups] = groups[v1_ngroups];
		if (mkdir(groups[v1_ngroups], 0755) && errno != EEXIST)
			test_fail("mkdir %s: %s", groups[v1_ngroups],
				  strerror(errno));
	}
}

#endif /* NODELRU_MEMCG_V1_H */
