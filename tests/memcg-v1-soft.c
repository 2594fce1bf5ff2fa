// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=240 topo=all order=40
 *
 * cgroup v1 memory soft limits steer global reclaim.  The memory
 * controller is bound to a v1 hierarchy on /mnt/v1 (possible while cgroup
 * v2 does not use it: this test runs before the v2 memcg tests, and takes
 * +memory away from the v2 root first if it is there).  Groups A and B
 * each read S = 192 MiB (MemTotal/16 on a small guest) of page cache (a
 * sparse file on the scratch disk: clean cache without disk I/O); A's
 * memory.soft_limit_in_bytes is S/8 and B's 3S/4, so A is 7S/8 over its
 * soft limit and B S/4.  B reads first, so plain
 * LRU order would take from B rather than A.  Then a child in the root
 * group touches MemFree + S/2 of anon: global reclaim (kswapd and direct)
 * runs soft limit reclaim on the group with the largest excess first.
 * Pass: A loses more than B, and at least S/8 (reclaim did reach the
 * groups).  Usage before and after of both is printed.  If the kernel
 * refuses the v1 mount the test skips and says why.  At the end the v1
 * hierarchy is emptied and unmounted so the controller returns to v2,
 * then the accounting checks: vm.stat_refresh succeeds, nr_isolated_* = 0.
 *
 * Swap is turned off and on again (every swap device in /proc/swaps)
 * before the v1 mount and after the controller is back on v2.  Under v2 a
 * swapped-in page keeps its slot and its swap_cgroup record, and pages
 * read ahead from swap and never mapped stay in the swap cache; when the
 * controller moves to v1, reclaim of such a page calls
 * mem_cgroup_swapout(), which finds the old record and hits
 * VM_BUG_ON_FOLIO(oldid) (seen on zone-debug/numa with this test right
 * after anon-swap, kswapd1, mm/memcontrol.c:7402; the code involved is the
 * same at both ends of the series).  Rebinding the memory controller
 * with swap in use is outside what the kernel supports; swapoff empties
 * the swap cache and frees every slot and record.  The set also runs this
 * test first (order=40), before any test that swaps.
 *
 * Fault: INJECT=soft-swap swaps the two soft limits; the comparison must
 * fail.
 */
#include <sys/mount.h>
#include <sys/swap.h>

#include "lib/nodelru.h"

#define V1		"/mnt/v1"
#define G_A		V1 "/nodelru-a"
#define G_B		V1 "/nodelru-b"
#define SCRATCH		"/mnt/scratch"

static void fill_cache(const char *cg, const char *path, size_t size)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		test_fail("fork failed: %s", strerror(errno));
	if (!pid) {
		cg_enter(cg);
		sparse_cache(path, size);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		test_fail("reading %zu MiB of %s from %s: expected exit 0, saw status 0x%x",
			  size >> 20, path, cg, status);
}

/* num_cgroups of the memory line in /proc/cgroups: groups not yet freed. */
static int memory_cgroups(void)
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
 * Empty the v1 hierarchy and unmount it so that the controller goes back
 * to cgroup v2.  A hierarchy is only released at umount when its root
 * has no children left, and a removed memcg stays (dying) while any page
 * is charged to it, e.g. block device pages of ext4 metadata its writes
 * brought in.  So: reclaim the groups (force_empty), remove them, and
 * drop caches until /proc/cgroups counts the root alone, then unmount.
 */
static int v1_mounted;
static pid_t main_pid;

/* swapoff and swapon every active swap device; returns how many. */
static int swap_cycle(void)
{
	char line[512], dev[256];
	int n = 0;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		test_fail("open /proc/swaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s", dev) != 1 || dev[0] != '/')
			continue;
		if (swapoff(dev))
			test_fail("swapoff %s: %s", dev, strerror(errno));
		if (swapon(dev, 0))
			test_fail("swapon %s: %s", dev, strerror(errno));
		n++;
	}
	fclose(f);
	return n;
}

static void cleanup(void)
{
	int i, n = -1;

	if (!v1_mounted || getpid() != main_pid)
		return;
	v1_mounted = 0;

	unlink(SCRATCH "/soft-a.dat");
	unlink(SCRATCH "/soft-b.dat");
	sync();
	try_write_file(G_A "/memory.force_empty", "0");
	try_write_file(G_B "/memory.force_empty", "0");
	cg_remove(G_A);
	cg_remove(G_B);
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
			note("swap cycled on v2 again: %d device(s)", swap_cycle());
			return;
		}
		/* Mount the lingering hierarchy again and let it go again. */
		drop_caches();
		if (mount("none", V1, "cgroup", 0, "memory"))
			break;
	}
	note("# warning: the memory controller did not return to cgroup v2 (/proc/cgroups: %d memory cgroups)",
	     memory_cgroups());
}

int main(void)
{
	long long mem_kb = meminfo_kb("MemTotal:");
	long long swap_kb = meminfo_kb("SwapTotal:");
	long long a0, b0, a1, b1, al, bl, soft_a, soft_b, kills0, cached;
	char buf[256];
	size_t s, pressure;
	double took;
	int i, err = 0, mounted = 0;

	elapsed();
	kills0 = vmstat("oom_kill");
	if (access(SCRATCH "/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on %s", SCRATCH);
	if (swap_kb < 256 * 1024)
		test_skip("needs 256 MiB of swap, SwapTotal is %lld kB", swap_kb);
	s = (size_t)mem_kb * 1024 / 16;
	if (s > 192 << 20)
		s = 192 << 20;
	s &= ~((size_t)(1 << 20) - 1);

	/* The controller must not be in use on cgroup v2. */
	if (!read_line("/sys/fs/cgroup/cgroup.subtree_control", buf,
		       sizeof(buf)) && strstr(buf, "memory")) {
		err = try_write_file("/sys/fs/cgroup/cgroup.subtree_control",
				     "-memory");
		if (err)
			test_skip("cgroup v2 uses the memory controller and '-memory' was refused (%s)",
				  strerror(err));
		note("took +memory away from the cgroup v2 root");
	}
	cached = meminfo_kb("SwapCached:");
	i = swap_cycle();
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
	if (!mounted)
		test_skip("mount -t cgroup -o memory none %s was refused: %s (tried %d times)",
			  V1, strerror(err), i + (i < 10));
	if (access(V1 "/memory.soft_limit_in_bytes", F_OK)) {
		umount(V1);
		test_skip("the v1 memory hierarchy on %s has no memory.soft_limit_in_bytes",
			  V1);
	}
	v1_mounted = 1;
	main_pid = getpid();
	atexit(cleanup);	/* also when a check fails half-way */
	note("memory controller mounted on cgroup v1 at %s", V1);
	if ((mkdir(G_A, 0755) && errno != EEXIST) ||
	    (mkdir(G_B, 0755) && errno != EEXIST))
		test_fail("mkdir of the v1 groups failed: %s", strerror(errno));

	soft_a = s / 8;
	soft_b = s * 3 / 4;
	if (injected("soft-swap")) {
		long long t = soft_a;

		soft_a = soft_b;
		soft_b = t;
	}
	cg_write_ll(G_A, "memory.soft_limit_in_bytes", soft_a);
	cg_write_ll(G_B, "memory.soft_limit_in_bytes", soft_b);
	note("S %zu MiB of page cache each; soft limits: A %lld MiB, B %lld MiB",
	     s >> 20, soft_a >> 20, soft_b >> 20);

	sparse_create(SCRATCH "/soft-b.dat", s);
	sparse_create(SCRATCH "/soft-a.dat", s);
	fill_cache(G_B, SCRATCH "/soft-b.dat", s);
	fill_cache(G_A, SCRATCH "/soft-a.dat", s);
	a0 = cg_read(G_A, "memory.usage_in_bytes");
	b0 = cg_read(G_B, "memory.usage_in_bytes");
	note("%.1fs: before: A %lld kB (%lld kB over its soft limit), B %lld kB (%lld kB over)",
	     elapsed(), a0 >> 10, (a0 - soft_a) >> 10, b0 >> 10,
	     (b0 - soft_b) >> 10);

	pressure = meminfo_kb("MemFree:") * 1024 + s / 2;
	took = global_pressure(pressure);
	a1 = cg_read(G_A, "memory.usage_in_bytes");
	b1 = cg_read(G_B, "memory.usage_in_bytes");
	al = a0 - a1;
	bl = b0 - b1;
	note("%.1fs: global pressure of %zu MiB took %.1fs", elapsed(),
	     pressure >> 20, took);
	note("after: A %lld kB (lost %lld kB), B %lld kB (lost %lld kB)",
	     a1 >> 10, al >> 10, b1 >> 10, bl >> 10);
	cleanup();
	if (vmstat("oom_kill") != kills0)
		test_fail("expected no OOM kill, saw oom_kill +%lld",
			  vmstat("oom_kill") - kills0);
	if (al < (long long)s / 8)
		test_fail("expected global reclaim to take at least %zu kB from A, saw %lld kB",
			  s / 8 >> 10, al >> 10);
	if (al <= bl)
		test_fail("expected A (further over its soft limit) to lose more than B (%lld kB), saw %lld kB",
			  bl >> 10, al >> 10);
	final_accounting();
	note("ok: the group further over its soft limit lost %lld kB, the other %lld kB",
	     al >> 10, bl >> 10);
	return KSFT_PASS;
}
