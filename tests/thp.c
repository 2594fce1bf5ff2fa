// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=300 topo=all order=68
 *
 * Transparent huge pages under reclaim: anon THP (MADV_HUGEPAGE, with
 * transparent_hugepage/enabled = madvise) and huge tmpfs (huge=always).
 * A child in a cgroup v2 group fills 2 MiB-aligned anon of A = 64 MiB and
 * writes a tmpfs file of T = 64 MiB, both with a per-page pattern.  Then
 * the group's memory.max is set to (A + T) / 2, which reclaims in the
 * group at once: huge pages must be split and swapped (anon THP may also
 * go to swap whole, thp_swpout).  Without the memory controller on v2,
 * global pressure (a child touching MemFree + (A + T) / 2) does it.
 * defrag is set to always for the test (huge tmpfs allocates without a
 * VMA and compacts only then), and vm.compact_memory is written first.
 * Pass:
 *   - before reclaim: the child's AnonHugePages >= A/2 and ShmemHugePages
 *     >= T/2 (THP really was in use; the kernels have CONFIG_BASE_FULL,
 *     without which MAX_PAGECACHE_ORDER is 7 and tmpfs never gets
 *     PMD-sized pages);
 *   - before and after reclaim: nr_anon_transparent_hugepages and
 *     nr_shmem_hugepages summed over nodeN/vmstat equal /proc/vmstat,
 *     after vm.stat_refresh (one of 5 rounds); a missing counter fails;
 *   - thp_split_page + thp_swpout moved, and pswpout moved;
 *   - all anon and tmpfs data intact afterwards;
 *   - then vm.compact_memory is written and a fresh madvised 64 MiB
 *     region is touched: its AnonHugePages share is printed as the THP
 *     success rate, not asserted (it depends on fragmentation).
 * The runner checks the books after the test (tests/lib/books.sh).
 *
 * Fault: INJECT=thp-corrupt flips a word of the anon THP data.
 */
#include <signal.h>
#include <sys/mount.h>

#include "lib/nodelru.h"

#define SEED		0x7468707465737431ULL
#define THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"
#define THP_DEFRAG	"/sys/kernel/mm/transparent_hugepage/defrag"
#define TMPFS		"/mnt/thp-tmpfs"
#define TFILE		TMPFS "/data"
#define CGROOT		"/sys/fs/cgroup"
#define G_THP		CGROOT "/nodelru-thp"
#define HPAGE		(2UL << 20)
#define SIZE		(64UL << 20)

static size_t page_size;
static pid_t main_pid;
static char old_mode[32], old_defrag[32];

/* On any exit of the test itself: THP mode back, tmpfs away. */
static void restore(void)
{
	if (getpid() != main_pid)
		return;
	unlink(TFILE);
	umount(TMPFS);
	if (old_mode[0])
		try_write_file(THP_ENABLED, old_mode);
	if (old_defrag[0])
		try_write_file(THP_DEFRAG, old_defrag);
}

/* The bracketed word of "always [madvise] never". */
static void thp_mode(const char *path, char *mode)
{
	char line[128], *b;

	if (read_line(path, line, sizeof(line)))
		test_skip("no %s (CONFIG_TRANSPARENT_HUGEPAGE off)", path);
	b = strchr(line, '[');
	if (!b || sscanf(b + 1, "%31[^]]", mode) != 1)
		test_fail("cannot parse %s: '%s'", path, line);
}

static const char * const counters[] = {
	"thp_fault_alloc", "thp_fault_fallback", "thp_split_page",
	"thp_split_pmd", "thp_swpout", "thp_swpout_fallback", "pswpout",
	"pswpin", "thp_file_alloc",
};
#define NR_COUNTERS	(sizeof(counters) / sizeof(counters[0]))

static void *map_huge(size_t size)
{
	char *p = mmap(NULL, size + HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		test_fail("mmap of %zu MiB failed: %s", size >> 20,
			  strerror(errno));
	a = (char *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(a, size, MADV_HUGEPAGE))
		test_fail("madvise MADV_HUGEPAGE failed: %s", strerror(errno));
	return a;
}

/* AnonHugePages of process PID (smaps_rollup), in kB. */
static long long anon_huge_kb(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	return file_counter(path, "AnonHugePages:");
}

static int nr_nodes(void)
{
	char path[64];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d",
			 n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

/* Per-node THP counters sum to /proc/vmstat (5 rounds). */
static void check_sums(const char *when)
{
	static const char * const keys[] = {
		"nr_anon_transparent_hugepages", "nr_shmem_hugepages",
	};
	long long sum[2], glob[2], v;
	int round, i, n, nodes = nr_nodes(), bad = 0;
	char path[128];

	for (round = 1; round <= 5; round++) {
		write_file("/proc/sys/vm/stat_refresh", "1");
		bad = 0;
		for (i = 0; i < 2; i++) {
			sum[i] = 0;
			for (n = 0; n < nodes; n++) {
				snprintf(path, sizeof(path),
					 "/sys/devices/system/node/node%d/vmstat", n);
				v = file_counter(path, keys[i]);
				if (v < 0)
					test_fail("%s: expected %s in %s, it is missing",
						  when, keys[i], path);
				sum[i] += v;
			}
			glob[i] = vmstat(keys[i]);
			if (glob[i] < 0)
				test_fail("%s: expected %s in /proc/vmstat, it is missing",
					  when, keys[i]);
			if (sum[i] != glob[i])
				bad = 1;
		}
		note("%s, round %d: %s nodes %lld /proc/vmstat %lld; %s nodes %lld /proc/vmstat %lld",
		     when, round, keys[0], sum[0], glob[0], keys[1], sum[1],
		     glob[1]);
		if (!bad)
			return;
		sleep(1);
	}
	test_fail("%s: expected the per-node sums to equal /proc/vmstat: %s %lld vs %lld, %s %lld vs %lld (5 rounds)",
		  when, keys[0], sum[0], glob[0], keys[1], sum[1], glob[1]);
}

static void child(int go, int ready)
{
	size_t npages = SIZE / page_size;
	uint64_t *a = map_huge(SIZE);
	char c = 'r';

	fill_pages(a, npages, SEED);
	if (injected("thp-corrupt"))
		a[(npages / 2 + 3) * (page_size / 8) + 7] ^= 1ULL << 40;
	pattern_file_write(TFILE, SIZE, SEED + 1);
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(3);
	verify_pages("anon THP", a, npages, SEED);
	pattern_file_verify(TFILE, SIZE, SEED + 1);
	munmap(a, SIZE);
	fflush(stdout);
	_exit(0);
}

/* Skip without swap or memory; set the THP modes, mount huge tmpfs. */
static void setup(void)
{
	if (meminfo_kb("SwapTotal:") < 256 * 1024)
		test_skip("needs 256 MiB of swap");
	if (meminfo_kb("MemAvailable:") * 1024 < 8 * (long long)SIZE)
		test_skip("needs MemAvailable of %lu MiB", 8 * SIZE >> 20);
	main_pid = getpid();
	thp_mode(THP_ENABLED, old_mode);
	thp_mode(THP_DEFRAG, old_defrag);
	atexit(restore);
	write_file(THP_ENABLED, "madvise");
	/*
	 * Huge tmpfs allocates without a VMA: only defrag=always lets it
	 * compact.  And compact first, so that the fills find huge pages.
	 */
	write_file(THP_DEFRAG, "always");
	write_file("/proc/sys/vm/compact_memory", "1");
	if (mkdir(TMPFS, 0755) && errno != EEXIST)
		test_fail("mkdir %s: %s", TMPFS, strerror(errno));
	if (mount("none", TMPFS, "tmpfs", 0, "huge=always,size=96m"))
		test_fail("mount -t tmpfs -o huge=always %s failed: %s", TMPFS,
			  strerror(errno));
}

/* Is there a v2 group for the child (else: global pressure)? */
static int memcg_group(void)
{
	return memcg_on_v2(10) &&
	       !try_write_file(CGROOT "/cgroup.subtree_control", "+memory") &&
	       (!mkdir(G_THP, 0755) || errno == EEXIST);
}

static void read_counters(long long *val)
{
	size_t i;

	for (i = 0; i < NR_COUNTERS; i++)
		val[i] = vmstat(counters[i]);
}

/* The child and the ends of its pipes the parent keeps. */
struct filler {
	pid_t pid;
	int go;			/* parent writes a byte: verify and exit */
	int ready;		/* child writes a byte: filled */
};

/* Fork the child (into the group if MEMCG), wait until it has filled. */
static void start_child(struct filler *f, int memcg)
{
	int down[2], up[2];
	char c;

	if (pipe(down) || pipe(up))
		test_fail("pipe failed: %s", strerror(errno));
	f->pid = fork_or_fail();
	if (!f->pid) {
		close(down[1]);
		close(up[0]);
		if (memcg)
			cg_enter(G_THP);
		child(down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	f->go = down[1];
	f->ready = up[0];
	if (read(f->ready, &c, 1) != 1)
		test_fail("the child died while filling: see its message above");
}

/* THP really in use before reclaim, anon and tmpfs: fails otherwise. */
static void check_filled(pid_t pid)
{
	long long ahp, shp;

	ahp = anon_huge_kb(pid);
	shp = meminfo_kb("ShmemHugePages:");
	note("%.1fs: filled: child AnonHugePages %lld kB, ShmemHugePages %lld kB",
	     elapsed(), ahp, shp);
	check_sums("before reclaim");
	/*
	 * Both must be huge: the test kernels have CONFIG_BASE_FULL
	 * (configs/qemu.config), without which XA_CHUNK_SHIFT is 4 and
	 * MAX_PAGECACHE_ORDER 7 < HPAGE_PMD_ORDER, so that tmpfs never gets
	 * a PMD-sized folio.
	 */
	if (ahp < (long long)(SIZE / 2) >> 10 || shp < (long long)(SIZE / 2) >> 10) {
		kill(pid, SIGKILL);
		test_fail("expected at least %lu kB each of AnonHugePages and ShmemHugePages, saw %lld and %lld kB",
			  SIZE / 2 >> 10, ahp, shp);
	}
}

/* Reclaim by the group's memory.max, or by global pressure. */
static void reclaim(pid_t pid, int memcg)
{
	long long cur, ahp1, shp1;

	if (memcg) {
		cur = cg_read(G_THP, "memory.current");
		cg_write_ll(G_THP, "memory.max", SIZE);
		note("%.1fs: memory.current %lld kB; memory.max set to %lu kB: now %lld kB, memory.events max %lld",
		     elapsed(), cur >> 10, SIZE >> 10,
		     cg_read(G_THP, "memory.current") >> 10,
		     cg_counter(G_THP, "memory.events", "max"));
	} else {
		double t = global_pressure(meminfo_kb("MemFree:") * 1024 + SIZE);

		note("%.1fs: global pressure took %.1fs", elapsed(), t);
	}
	ahp1 = anon_huge_kb(pid);
	shp1 = meminfo_kb("ShmemHugePages:");
	note("after reclaim: child AnonHugePages %lld kB, ShmemHugePages %lld kB",
	     ahp1, shp1);
	check_sums("after reclaim");
}

/* The child verifies its data; huge pages were split or swapped. */
static void finish_child(struct filler *f, const long long *before)
{
	long long delta[NR_COUNTERS];
	char c = 'r';		/* the byte the child sent */
	int status;
	size_t i;

	if (write(f->go, &c, 1) != 1)
		test_fail("cannot signal the child: %s", strerror(errno));
	if (waitpid(f->pid, &status, 0) != f->pid)
		test_fail("waitpid failed: %s", strerror(errno));
	close(f->go);
	close(f->ready);
	for (i = 0; i < NR_COUNTERS; i++) {
		delta[i] = vmstat(counters[i]) - before[i];
		note("%s +%lld", counters[i], delta[i]);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		test_fail("expected the child to find all its data intact (exit 0), saw %s %d",
			  WIFSIGNALED(status) ? "signal" : "exit status",
			  WIFSIGNALED(status) ? WTERMSIG(status) :
			  WEXITSTATUS(status));
	note("%.1fs: anon THP and huge tmpfs data intact", elapsed());
	/* counters: [2] thp_split_page, [4] thp_swpout, [6] pswpout */
	if (delta[2] + delta[4] <= 0)
		test_fail("expected huge pages split or swapped whole (thp_split_page + thp_swpout > 0), saw %lld",
			  delta[2] + delta[4]);
	if (delta[6] <= 0)
		test_fail("expected swap-out (pswpout > 0), saw %lld", delta[6]);
}

/* The tmpfs and the group away, the controller back from the children. */
static void cleanup(int memcg)
{
	int err;

	unlink(TFILE);
	if (umount(TMPFS))
		note("# warning: umount %s: %s", TMPFS, strerror(errno));
	if (memcg) {
		cg_remove(G_THP);
		err = try_write_file(CGROOT "/cgroup.subtree_control", "-memory");
		if (err)
			note("# warning: -memory in %s/cgroup.subtree_control: %s",
			     CGROOT, strerror(err));
	}
}

/* Compaction, then a fresh THP allocation: recorded, not asserted. */
static void fresh_thp(void)
{
	long long before[NR_COUNTERS], ahp, got;
	uint64_t *fresh;
	size_t i;

	write_file("/proc/sys/vm/compact_memory", "1");
	read_counters(before);
	ahp = anon_huge_kb(getpid());
	fresh = map_huge(SIZE);
	fill_pages(fresh, 1, SEED);
	for (i = 0; i < SIZE; i += page_size)
		((char *)fresh)[i] = 1;
	got = anon_huge_kb(getpid()) - ahp;
	note("%.1fs: after compact_memory, a fresh madvised %lu MiB region got %lld kB of AnonHugePages: THP success rate %lld%% (thp_fault_alloc +%lld, thp_fault_fallback +%lld)",
	     elapsed(), SIZE >> 20, got, got * 100 / (long long)(SIZE >> 10),
	     vmstat("thp_fault_alloc") - before[0],
	     vmstat("thp_fault_fallback") - before[1]);
	munmap(fresh, SIZE);
}

int main(void)
{
	long long before[NR_COUNTERS], kills0;
	int memcg;
	struct filler f;

	page_size = sysconf(_SC_PAGESIZE);
	elapsed();
	kills0 = vmstat("oom_kill");
	setup();
	memcg = memcg_group();
	note("THP enabled was '%s', now madvise; defrag was '%s', now always; A %lu MiB anon THP, T %lu MiB huge tmpfs; pressure by %s",
	     old_mode, old_defrag, SIZE >> 20, SIZE >> 20,
	     memcg ? "memory.max of the group" : "global allocation");
	read_counters(before);

	start_child(&f, memcg);
	check_filled(f.pid);
	reclaim(f.pid, memcg);
	finish_child(&f, before);
	cleanup(memcg);
	fresh_thp();

	write_file(THP_ENABLED, old_mode);
	write_file(THP_DEFRAG, old_defrag);
	if (vmstat("oom_kill") != kills0)
		test_fail("expected no OOM kill, saw oom_kill +%lld",
			  vmstat("oom_kill") - kills0);
	check_sums("at the end");
	note("%.1fs: ok: anon and tmpfs THP split and swapped under reclaim, counters add up, data intact",
	     elapsed());
	return KSFT_PASS;
}
