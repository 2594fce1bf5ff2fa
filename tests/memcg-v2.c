// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=300 topo=all order=62
 *
 * cgroup v2 memory controller: limits, throttling, protection and the
 * per-node statistics of a memcg, with reclaim of anon (to swap) and page
 * cache done per memcg.  The groups are children of the root
 * (+memory in /sys/fs/cgroup/cgroup.subtree_control; taken away again at
 * the end, so that a later test can bind the controller to cgroup v1).
 * L is 64 MiB (less on a small guest).
 *   (a) memory.max = L; a child in the group writes a file of L/4 and
 *       fills L*5/4 of anon, then checks both.  Pass: every memory.current
 *       sampled while it ran is <= L plus the per-cpu charge batch
 *       (MEMCG_CHARGE_BATCH = 64 pages per CPU: try_charge precharges up
 *       to a batch into the per-cpu stock, so usage can stand a batch
 *       above what is in use, never above max; the slack only absorbs a
 *       forced charge of a dying task), memory.events "max" > 0, all data
 *       intact.
 *   (b) memory.high = L; a child fills 2L of anon.  Pass: memory.events
 *       "high" > 0 and, a second after the fill, memory.current is near
 *       L: between L/2 and L*5/4 (high is a throttle, reclaimed on the
 *       way back to user space, not a hard limit); data intact.
 *   (c) memory.low: siblings P (memory.low = 2S) and U (no protection)
 *       each read S = 2L of page cache (a sparse file: clean cache
 *       without disk I/O); then a child in the root group touches
 *       MemFree + S/2 of anon.  Pass: P keeps at least 3/4 of
 *       its usage, U loses more than P and at least S/4.
 *   (d) a group with L/2 anon and L/2 page cache, after a settle of 3 s
 *       (the memcg statistics are flushed every 2 s): the N<nid>= values
 *       of memory.numa_stat for anon and file add up to memory.stat, give
 *       or take 64 pages per CPU (one flush threshold; the two files are
 *       read one after the other), in one of 5 rounds.
 *   (e) as (a), with memory.max = L on a parent group and the data
 *       written in its child: the limit reclaims a memcg that has
 *       children (a zone pass reads the parent's subtree sizes, and its
 *       evictions age the parent's nonresident counter).  Same checks,
 *       on the parent's memory.current and memory.events.
 * The runner checks the books after the test (tests/lib/books.sh).
 * The OOM case is memcg-oom.c, so an OOM kill here is a failure.
 *
 * Faults: INJECT=memcg-corrupt flips a word of the anon data in (a) and (e);
 * INJECT=memcg-nolimit leaves memory.max unset in (a) and (e), so the
 * current <= max check must fail.
 */
#include <signal.h>

#include "lib/nodelru.h"

#define SEED		0x6d656d6367763231ULL
#define CGROOT		"/sys/fs/cgroup"
#define G_MAX		CGROOT "/nodelru-max"
#define G_NEST		CGROOT "/nodelru-nest"
#define G_NEST_LEAF	G_NEST "/leaf"
#define G_HIGH		CGROOT "/nodelru-high"
#define G_LOWP		CGROOT "/nodelru-low-p"
#define G_LOWU		CGROOT "/nodelru-low-u"
#define G_NUMA		CGROOT "/nodelru-numa"
#define SCRATCH		"/mnt/scratch"

static size_t page_size;
static long ncpus;

/* A child: enters CG, runs FN(ARG), exits with its status. */
struct child {
	pid_t pid;
	int to_child;		/* parent writes a byte: go on */
	int from_child;		/* child writes a byte: ready */
};

static void child_wait_go(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(3);
}

static void child_ready(int fd)
{
	char c = 'r';

	if (write(fd, &c, 1) != 1)
		_exit(3);
}

static struct child spawn(const char *cg, void (*fn)(int, int, void *),
			  void *arg)
{
	int down[2], up[2];
	struct child c;

	if (pipe(down) || pipe(up))
		test_fail("pipe failed: %s", strerror(errno));
	c.pid = fork_or_fail();
	if (!c.pid) {
		close(down[1]);
		close(up[0]);
		cg_enter(cg);
		fn(down[0], up[1], arg);
		fflush(stdout);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	c.to_child = down[1];
	c.from_child = up[0];
	return c;
}

static void parent_wait_ready(struct child *c)
{
	char ch;

	if (read(c->from_child, &ch, 1) != 1)
		test_fail("the child in its group died before it was ready");
}

static void parent_go(struct child *c)
{
	char ch = 'g';

	if (write(c->to_child, &ch, 1) != 1)
		test_fail("cannot signal the child: %s", strerror(errno));
}

static void reap(struct child *c, const char *what)
{
	int status;

	if (waitpid(c->pid, &status, 0) != c->pid)
		test_fail("waitpid failed: %s", strerror(errno));
	close(c->to_child);
	close(c->from_child);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		test_fail("%s: expected the child to exit 0, saw %s %d", what,
			  WIFSIGNALED(status) ? "signal" : "exit status",
			  WIFSIGNALED(status) ? WTERMSIG(status) :
			  WEXITSTATUS(status));
}

static uint64_t *map_anon(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		test_fail("mmap of %zu MiB failed: %s", size >> 20,
			  strerror(errno));
	/* Base pages only: THP charging is thp.c's business. */
	madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

/* (a) */
struct max_arg {
	size_t anon, file;
};

static void max_child(int go, int ready, void *v)
{
	struct max_arg *a = v;
	size_t npages = a->anon / page_size;
	uint64_t *p;

	(void)go;
	(void)ready;
	pattern_file_write(SCRATCH "/memcg-max.dat", a->file, SEED + 1);
	p = map_anon(a->anon);
	fill_pages(p, npages, SEED);
	if (injected("memcg-corrupt"))
		p[(npages / 3) * (page_size / 8) + 5] ^= 1;
	verify_pages("anon (memory.max group)", p, npages, SEED);
	pattern_file_verify(SCRATCH "/memcg-max.dat", a->file, SEED + 1);
	munmap(p, a->anon);
}

/*
 * (a) and (e): memory.max = LIMIT on LIMIT_CG; the child writes its data
 * in RUN_CG, which is LIMIT_CG itself or a child of it.
 */
static void test_max(const char *tag, const char *limit_cg, const char *run_cg,
		     long long limit, long long slack)
{
	int nested = strcmp(limit_cg, run_cg) != 0;
	struct max_arg a = { .anon = limit * 5 / 4, .file = limit / 4 };
	long long cur, peak = 0, events;
	struct child c;
	long samples = 0;
	int status;

	note("%s memory.max %lld MiB on %s: file %zu MiB + anon %zu MiB in %s",
	     tag, limit >> 20, limit_cg, a.file >> 20, a.anon >> 20, run_cg);
	if (mkdir(limit_cg, 0755) && errno != EEXIST)
		test_fail("mkdir %s: %s", limit_cg, strerror(errno));
	if (!injected("memcg-nolimit"))
		cg_write_ll(limit_cg, "memory.max", limit);
	if (nested) {
		cg_write(limit_cg, "cgroup.subtree_control", "+memory");
		if (mkdir(run_cg, 0755) && errno != EEXIST)
			test_fail("mkdir %s: %s", run_cg, strerror(errno));
	}
	c = spawn(run_cg, max_child, &a);
	for (;;) {
		pid_t r = waitpid(c.pid, &status, WNOHANG);

		cur = cg_read(limit_cg, "memory.current");
		samples++;
		if (cur > peak)
			peak = cur;
		if (r == c.pid)
			break;
		if (r < 0)
			test_fail("waitpid failed: %s", strerror(errno));
		usleep(2000);
	}
	close(c.to_child);
	close(c.from_child);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		test_fail("%s expected the child to fill and verify its data (exit 0), saw %s %d",
			  tag, WIFSIGNALED(status) ? "signal" : "exit status",
			  WIFSIGNALED(status) ? WTERMSIG(status) :
			  WEXITSTATUS(status));
	events = cg_counter(limit_cg, "memory.events", "max");
	note("%s %.1fs: peak memory.current %lld kB in %ld samples; limit %lld kB + slack %lld kB; memory.events max %lld; swap.current %lld kB",
	     tag, elapsed(), peak >> 10, samples, limit >> 10, slack >> 10, events,
	     cg_read(limit_cg, "memory.swap.current") >> 10);
	if (peak > limit + slack)
		test_fail("%s expected memory.current <= %lld kB (memory.max + charge batch slack), saw %lld kB",
			  tag, (limit + slack) >> 10, peak >> 10);
	if (events <= 0)
		test_fail("%s expected memory.events max > 0 (the limit was hit), saw %lld",
			  tag, events);
	unlink(SCRATCH "/memcg-max.dat");
	if (nested)
		cg_remove(run_cg);
	cg_remove(limit_cg);
	note("%s ok: usage held under memory.max, %zu MiB of anon and %zu MiB of file data intact",
	     tag, a.anon >> 20, a.file >> 20);
}

/* (b) */
static void high_child(int go, int ready, void *v)
{
	size_t size = *(size_t *)v, npages = size / page_size;
	uint64_t *p = map_anon(size);

	fill_pages(p, npages, SEED + 2);
	child_ready(ready);
	child_wait_go(go);
	verify_pages("anon (memory.high group)", p, npages, SEED + 2);
	munmap(p, size);
}

static void test_high(long long high)
{
	size_t size = high * 2;
	long long cur, events;
	struct child c;

	note("(b) memory.high %lld MiB: anon %zu MiB in the group",
	     high >> 20, size >> 20);
	if (mkdir(G_HIGH, 0755) && errno != EEXIST)
		test_fail("mkdir %s: %s", G_HIGH, strerror(errno));
	cg_write_ll(G_HIGH, "memory.high", high);
	c = spawn(G_HIGH, high_child, &size);
	parent_wait_ready(&c);
	sleep(1);
	cur = cg_read(G_HIGH, "memory.current");
	events = cg_counter(G_HIGH, "memory.events", "high");
	note("(b) %.1fs: memory.current %lld kB (high %lld kB), memory.events high %lld, swap.current %lld kB",
	     elapsed(), cur >> 10, high >> 10, events,
	     cg_read(G_HIGH, "memory.swap.current") >> 10);
	parent_go(&c);
	reap(&c, "(b) fill and verify under memory.high");
	if (events <= 0)
		test_fail("(b) expected memory.events high > 0, saw %lld", events);
	if (cur > high + high / 4 || cur < high / 2)
		test_fail("(b) expected memory.current to settle near memory.high (%lld..%lld kB), saw %lld kB",
			  (high / 2) >> 10, (high + high / 4) >> 10, cur >> 10);
	cg_remove(G_HIGH);
	note("(b) ok: throttled to memory.high, data intact");
}

/* (c) */
struct cache_arg {
	const char *path;
	size_t size;
};

static void cache_child(int go, int ready, void *v)
{
	struct cache_arg *a = v;

	(void)go;
	(void)ready;
	sparse_cache(a->path, a->size);
}

static void test_low(size_t s)
{
	struct cache_arg pa = { SCRATCH "/memcg-low-p.dat", s };
	struct cache_arg ua = { SCRATCH "/memcg-low-u.dat", s };
	long long p0, u0, p1, u1, pl, ul;
	size_t pressure;
	struct child c;
	double took;

	note("(c) memory.low: P (low %zu MiB) and U (no low) each read %zu MiB of page cache, then global pressure",
	     2 * s >> 20, s >> 20);
	if ((mkdir(G_LOWP, 0755) && errno != EEXIST) ||
	    (mkdir(G_LOWU, 0755) && errno != EEXIST))
		test_fail("mkdir of the memory.low groups failed: %s",
			  strerror(errno));
	cg_write_ll(G_LOWP, "memory.low", 2 * s);
	sparse_create(pa.path, s);
	sparse_create(ua.path, s);
	c = spawn(G_LOWU, cache_child, &ua);
	reap(&c, "(c) page cache of U");
	c = spawn(G_LOWP, cache_child, &pa);
	reap(&c, "(c) page cache of P");
	p0 = cg_read(G_LOWP, "memory.current");
	u0 = cg_read(G_LOWU, "memory.current");
	pressure = meminfo_kb("MemFree:") * 1024 + s / 2;
	took = global_pressure(pressure);
	p1 = cg_read(G_LOWP, "memory.current");
	u1 = cg_read(G_LOWU, "memory.current");
	pl = p0 - p1;
	ul = u0 - u1;
	note("(c) pressure %zu MiB in %.1fs; P (protected): %lld -> %lld kB (lost %lld kB), U: %lld -> %lld kB (lost %lld kB); P memory.events low %lld",
	     pressure >> 20, took, p0 >> 10, p1 >> 10, pl >> 10, u0 >> 10,
	     u1 >> 10, ul >> 10, cg_counter(G_LOWP, "memory.events", "low"));
	unlink(SCRATCH "/memcg-low-p.dat");
	unlink(SCRATCH "/memcg-low-u.dat");
	if (ul < (long long)s / 4)
		test_fail("(c) expected the pressure to reclaim at least %zu kB from U, saw %lld kB",
			  s / 4 >> 10, ul >> 10);
	if (p1 < p0 * 3 / 4)
		test_fail("(c) expected P to keep at least 3/4 of %lld kB (memory.low), saw %lld kB",
			  p0 >> 10, p1 >> 10);
	if (ul <= pl)
		test_fail("(c) expected U to lose more than P (%lld kB), saw %lld kB",
			  pl >> 10, ul >> 10);
	cg_remove(G_LOWP);
	cg_remove(G_LOWU);
	note("(c) ok: the protected sibling kept %lld%%, the other %lld%%",
	     p0 ? p1 * 100 / p0 : 0, u0 ? u1 * 100 / u0 : 0);
}

/* (d) */
static void numa_child(int go, int ready, void *v)
{
	size_t size = *(size_t *)v;
	char *p;

	sparse_cache(SCRATCH "/memcg-numa.dat", size);
	p = (char *)map_anon(size);
	memset(p, 0x3c, size);
	child_ready(ready);
	child_wait_go(go);
	munmap(p, size);
}

/* Sum of the N<nid>= values on the KEY line of memory.numa_stat. */
static long long numa_stat_sum(const char *cg, const char *key, char *show,
			       size_t showsize)
{
	char path[256], line[1024];
	long long sum = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.numa_stat", cg);
	f = fopen(path, "r");
	if (!f)
		test_fail("cannot open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(key);
		char *tok;

		if (strncmp(line, key, n) || line[n] != ' ')
			continue;
		snprintf(show, showsize, "%s", line + n + 1);
		show[strcspn(show, "\n")] = 0;
		sum = 0;
		for (tok = strtok(line + n, "\n "); tok;
		     tok = strtok(NULL, "\n ")) {
			char *eq = strchr(tok, '=');

			if (tok[0] == 'N' && eq)
				sum += strtoll(eq + 1, NULL, 10);
		}
		break;
	}
	fclose(f);
	return sum;
}

static void test_numa_stat(size_t size, long long tol)
{
	static const char * const keys[] = { "anon", "file" };
	long long st[2], ns[2];
	char show[2][256];
	struct child c;
	int round, i, bad = 0;

	note("(d) memory.numa_stat: %zu MiB anon + %zu MiB page cache in a group, tolerance %lld kB",
	     size >> 20, size >> 20, tol >> 10);
	if (mkdir(G_NUMA, 0755) && errno != EEXIST)
		test_fail("mkdir %s: %s", G_NUMA, strerror(errno));
	sparse_create(SCRATCH "/memcg-numa.dat", size);
	c = spawn(G_NUMA, numa_child, &size);
	parent_wait_ready(&c);
	sleep(3);
	for (round = 1; round <= 5; round++) {
		bad = 0;
		for (i = 0; i < 2; i++) {
			st[i] = cg_counter(G_NUMA, "memory.stat", keys[i]);
			ns[i] = numa_stat_sum(G_NUMA, keys[i], show[i],
					      sizeof(show[i]));
			note("(d) round %d: %s: memory.stat %lld kB, memory.numa_stat %s (sum %lld kB)",
			     round, keys[i], st[i] >> 10, show[i], ns[i] >> 10);
			if (st[i] < 0 || ns[i] < 0 || llabs(st[i] - ns[i]) > tol)
				bad = 1;
		}
		if (!bad)
			break;
		sleep(1);
	}
	parent_go(&c);
	reap(&c, "(d) the group's anon and page cache");
	unlink(SCRATCH "/memcg-numa.dat");
	if (bad)
		test_fail("(d) expected memory.numa_stat sums to equal memory.stat within %lld kB: anon %lld vs %lld kB, file %lld vs %lld kB (5 rounds)",
			  tol >> 10, ns[0] >> 10, st[0] >> 10, ns[1] >> 10,
			  st[1] >> 10);
	if (st[0] < (long long)size * 3 / 4 || st[1] < (long long)size * 3 / 4)
		test_fail("(d) expected at least %zu kB each of anon and file in memory.stat, saw %lld and %lld kB",
			  size * 3 / 4 >> 10, st[0] >> 10, st[1] >> 10);
	cg_remove(G_NUMA);
	note("(d) ok: per-node sums equal memory.stat");
}

int main(void)
{
	long long mem_kb = meminfo_kb("MemTotal:");
	long long swap_kb = meminfo_kb("SwapTotal:");
	long long avail_kb = meminfo_kb("MemAvailable:");
	long long limit, slack, before_oom = vmstat("oom_kill");

	page_size = sysconf(_SC_PAGESIZE);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	elapsed();
	if (swap_kb < 256 * 1024)
		test_skip("needs 256 MiB of swap, SwapTotal is %lld kB", swap_kb);
	if (access(SCRATCH "/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on %s", SCRATCH);
	memcg_v2_require(10);
	/* L = 64 MiB, or MemTotal / 32 on a small guest. */
	limit = mem_kb * 1024 / 32;
	if (limit > 64 << 20)
		limit = 64 << 20;
	limit &= ~((long long)(1 << 20) - 1);
	slack = 64LL * ncpus * page_size;
	note("MemTotal %lld kB, MemAvailable %lld kB, SwapTotal %lld kB, %ld CPUs: L %lld MiB, charge batch slack %lld kB",
	     mem_kb, avail_kb, swap_kb, ncpus, limit >> 20, slack >> 10);
	if (avail_kb * 1024 < 8 * limit)
		test_skip("needs MemAvailable of 8 L (%lld kB), saw %lld kB",
			  8 * limit >> 10, avail_kb);

	test_max("(a)", G_MAX, G_MAX, limit, slack);
	test_max("(e)", G_NEST, G_NEST_LEAF, limit, slack);
	test_high(limit);
	test_low(2 * limit);
	test_numa_stat(limit / 2, slack);

	memcg_v2_release();
	if (vmstat("oom_kill") != before_oom)
		test_fail("expected no OOM kill, saw oom_kill +%lld",
			  vmstat("oom_kill") - before_oom);
	note("%.1fs: all memcg v2 checks passed", elapsed());
	return KSFT_PASS;
}
