// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=300 topo=numa order=66
 *
 * Memory bound to one node is reclaimed on that node, and pages migrate
 * between nodes intact.
 *   (1) For node 0 (mbind MPOL_BIND on the region) and then node 1
 *       (set_mempolicy MPOL_BIND for the task): all but 448 MiB of the
 *       node's free memory is taken by mlocked huge pages, 256 MiB by
 *       clean page cache read under MPOL_BIND (a sparse file: no I/O, and
 *       reclaim drops it without I/O; swapping a whole node's worth of
 *       anon out and in takes many minutes under TCG); then 256 MiB of
 *       anon bound to the node is filled with a per-page pattern, so the
 *       bound node must reclaim (the other node's free memory may not
 *       be used).  Pass: reclaim shows on that node: pages scanned and reclaimed there, counted per node from
 *       the mm_vmscan_lru_shrink_inactive events by a hist trigger keyed
 *       by nid (6.1 has no per-node pgscan/pgsteal in nodeN/vmstat; its
 *       nr_vmscan_write and nr_file_pages are printed too);
 *       move_pages(2) with no target nodes (a status query) finds every
 *       resident page on the bound node and none elsewhere, after the
 *       fill and again after the check (stray pages are listed); every
 *       page's data intact (checked last page first).
 *   (2) 32 MiB of anon and a 32 MiB file mapping, filled on node 0, are
 *       moved to node 1 with move_pages(MPOL_MF_MOVE) and back.  Pass:
 *       every status is the target node, AnonPages and FilePages in
 *       nodeN/meminfo follow (each node's changes by at least 3/4 of the
 *       region, the right way), the contents are intact after each move.
 * The runner checks the books after the test (tests/lib/books.sh).
 *
 * Fault: INJECT=numa-wrongnode makes the status queries expect the other
 * node.
 */
#include "lib/nodelru.h"

#define SEED		0x6e756d6162696e64ULL
#define MPOL_MF_MOVE	(1 << 1)
#define HIST_DIR	"/sys/kernel/tracing/events/vmscan/mm_vmscan_lru_shrink_inactive"
#define HIST_SPEC	"hist:keys=nid:vals=hitcount,nr_scanned,nr_reclaimed"
#define FREE		(448UL << 20)
#define CACHE		(256UL << 20)
#define DATA		(192UL << 20)
#define EXTRA		(64UL << 20)
#define HPAGE		(2UL << 20)
#define MOVE_SIZE	(32UL << 20)
#define SCRATCH		"/mnt/scratch"

static size_t page_size;
static int wrongnode;

static long long node_vmstat(int nid, const char *key)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/vmstat",
		 nid);
	return file_counter(path, key);
}

static void fold(void)
{
	write_file("/proc/sys/vm/stat_refresh", "1");
}

/* Scanned and reclaimed pages per node from the hist trigger. */
struct scan {
	long long scanned[2], reclaimed[2];
};

static void hist_read(struct scan *s)
{
	char line[512];
	long long hc, sc, rc;
	int nid;
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen(HIST_DIR "/hist", "r");
	if (!f)
		test_fail("cannot read %s/hist: %s", HIST_DIR, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "{ nid: %d } hitcount: %lld nr_scanned: %lld nr_reclaimed: %lld",
			   &nid, &hc, &sc, &rc) == 4 && nid >= 0 && nid < 2) {
			s->scanned[nid] = sc;
			s->reclaimed[nid] = rc;
		}
	fclose(f);
}

static long set_policy(int mode, int nid)
{
	unsigned long mask = 1UL << nid;

	return syscall(SYS_set_mempolicy, mode,
		       mode == MPOL_DEFAULT ? NULL : &mask,
		       mode == MPOL_DEFAULT ? 0 : 64);
}

/*
 * Status query (no target nodes): count the pages per node; -ENOENT
 * (not present: swapped out) and other errors apart.
 */
static void query(void *base, size_t npages, int want, long long on[2],
		  long long *absent, long long *other)
{
	void **pages = malloc(npages * sizeof(void *));
	int *status = malloc(npages * sizeof(int));
	size_t i;

	if (!pages || !status)
		test_fail("malloc for move_pages failed");
	for (i = 0; i < npages; i++)
		pages[i] = (char *)base + i * page_size;
	if (syscall(SYS_move_pages, 0, npages, pages, NULL, status, 0))
		test_fail("move_pages status query failed: %s", strerror(errno));
	on[0] = on[1] = *absent = *other = 0;
	for (i = 0; i < npages; i++) {
		if ((status[i] == 0 || status[i] == 1) && status[i] != want &&
		    on[status[i]] < 5)
			note("page %zu of %zu is on node %d", i, npages,
			     status[i]);
		if (status[i] == 0 || status[i] == 1)
			on[status[i]]++;
		else if (status[i] == -ENOENT)
			(*absent)++;
		else
			(*other)++;
	}
	free(pages);
	free(status);
}

static void check_placement(const char *when, void *base, size_t npages,
			    int nid)
{
	long long on[2], absent, other;
	int want = wrongnode ? !nid : nid;

	query(base, npages, want, on, &absent, &other);
	note("node %d bind, %s: %lld pages on node 0, %lld on node 1, %lld not present (swapped), %lld other status",
	     nid, when, on[0], on[1], absent, other);
	if (on[!want] || other || on[want] < (long long)npages / 4)
		test_fail("node %d bind, %s: expected every resident page on node %d (and at least %zu of %zu there), saw %lld on node %d, %lld on node %d, %lld with an error status",
			  nid, when, want, npages / 4, npages, on[want], want,
			  on[!want], !want, other);
}

static void bind_phase(int nid)
{
	const char *cachefile = SCRATCH "/numa-bind-cache.dat";
	long long free_kb = node_meminfo_kb(nid, "MemFree:");
	size_t lock = free_kb * 1024 > (long long)(FREE + HPAGE) ?
		      ((size_t)free_kb * 1024 - FREE) & ~(HPAGE - 1) : 0;
	size_t size = DATA + EXTRA, npages = size / page_size;
	long long w0[2], w1[2], fp0, fp1;
	struct scan s0, s1;
	char *ballast = NULL;
	uint64_t *p;
	int i;

	note("node %d: MemTotal %lld kB, MemFree %lld kB: %zu MiB mlocked, %lu MiB of clean page cache, then %zu MiB of anon bound to it (%s)",
	     nid, node_meminfo_kb(nid, "MemTotal:"), free_kb, lock >> 20,
	     CACHE >> 20, size >> 20, nid ? "set_mempolicy" : "mbind");
	/*
	 * Swapping a node's worth of anon out and in takes many minutes
	 * under TCG.  So all but FREE of the node's free memory is taken by
	 * mlocked huge pages (cheap to fault, never reclaimed), CACHE of it
	 * by clean page cache (a sparse file read: no I/O, and reclaim drops
	 * it without I/O), and the bound anon (DATA + EXTRA) then needs
	 * EXTRA more than is left, plus the watermarks.
	 */
	if (set_policy(MPOL_BIND, nid))
		test_fail("set_mempolicy MPOL_BIND to node %d failed: %s", nid,
			  strerror(errno));
	if (lock) {
		ballast = mmap(NULL, lock + HPAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ballast == MAP_FAILED)
			test_fail("mmap of %zu MiB failed: %s", lock >> 20,
				  strerror(errno));
		madvise(ballast, lock + HPAGE, MADV_HUGEPAGE);
		if (mlock(ballast, lock))
			test_fail("mlock of %zu MiB on node %d failed: %s",
				  lock >> 20, nid, strerror(errno));
	}
	sparse_create(cachefile, CACHE);
	sparse_cache(cachefile, CACHE);
	if (nid == 0 && set_policy(MPOL_DEFAULT, 0))
		test_fail("set_mempolicy MPOL_DEFAULT failed: %s",
			  strerror(errno));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		test_fail("mmap of %zu MiB failed: %s", size >> 20,
			  strerror(errno));
	/* Base pages: a huge page fault on a full node over-reclaims. */
	madvise(p, size, MADV_NOHUGEPAGE);
	if (nid == 0) {
		unsigned long mask = 1UL << nid;

		if (syscall(SYS_mbind, p, size, MPOL_BIND, &mask, 64, 0))
			test_fail("mbind MPOL_BIND to node %d failed: %s", nid,
				  strerror(errno));
	}
	fold();
	for (i = 0; i < 2; i++)
		w0[i] = node_vmstat(i, "nr_vmscan_write");
	fp0 = node_vmstat(nid, "nr_file_pages");
	hist_read(&s0);
	note("node %d bind: %.1fs: cache read, node MemFree now %lld kB",
	     nid, elapsed(), node_meminfo_kb(nid, "MemFree:"));
	fill_pages(p, npages, SEED + nid);
	fold();
	for (i = 0; i < 2; i++)
		w1[i] = node_vmstat(i, "nr_vmscan_write") - w0[i];
	fp1 = node_vmstat(nid, "nr_file_pages");
	hist_read(&s1);
	note("node %d bind: %.1fs: anon filled; node%d nr_file_pages %lld -> %lld; nr_vmscan_write node0 +%lld node1 +%lld; lru_shrink_inactive scanned node0 +%lld node1 +%lld, reclaimed node0 +%lld node1 +%lld",
	     nid, elapsed(), nid, fp0, fp1, w1[0], w1[1],
	     s1.scanned[0] - s0.scanned[0], s1.scanned[1] - s0.scanned[1],
	     s1.reclaimed[0] - s0.reclaimed[0],
	     s1.reclaimed[1] - s0.reclaimed[1]);
	check_placement("after the fill", p, npages, nid);
	verify_pages("bound anon", p, npages, SEED + nid);
	note("node %d bind: %.1fs: all %zu pages verified", nid, elapsed(),
	     npages);
	check_placement("after the check", p, npages, nid);
	if (nid && set_policy(MPOL_DEFAULT, 0))
		test_fail("set_mempolicy MPOL_DEFAULT failed: %s",
			  strerror(errno));
	munmap(p, size);
	if (ballast)
		munmap(ballast, lock + HPAGE);
	unlink(cachefile);
	if (s1.scanned[nid] - s0.scanned[nid] <= 0 ||
	    s1.reclaimed[nid] - s0.reclaimed[nid] <= 0)
		test_fail("node %d bind: expected pages scanned and reclaimed on node %d, saw +%lld and +%lld",
			  nid, nid, s1.scanned[nid] - s0.scanned[nid],
			  s1.reclaimed[nid] - s0.reclaimed[nid]);
}

struct snap {
	long long anon[2], file[2];
};

static void take(struct snap *s)
{
	int i;

	fold();
	for (i = 0; i < 2; i++) {
		s->anon[i] = node_meminfo_kb(i, "AnonPages:");
		s->file[i] = node_meminfo_kb(i, "FilePages:");
	}
}

static void move_all(void *base, size_t npages, int to, const char *what)
{
	void **pages = malloc(npages * sizeof(void *));
	int *nodes = malloc(npages * sizeof(int));
	int *status = malloc(npages * sizeof(int));
	long ret;
	size_t i, bad = 0;

	if (!pages || !nodes || !status)
		test_fail("malloc for move_pages failed");
	for (i = 0; i < npages; i++) {
		pages[i] = (char *)base + i * page_size;
		nodes[i] = to;
	}
	ret = syscall(SYS_move_pages, 0, npages, pages, nodes, status,
		      MPOL_MF_MOVE);
	if (ret < 0)
		test_fail("move_pages of the %s to node %d failed: %s", what,
			  to, strerror(errno));
	for (i = 0; i < npages; i++)
		if (status[i] != to)
			bad++;
	if (ret > 0 || bad)
		test_fail("move_pages of the %s to node %d: expected every status %d, saw %zu pages elsewhere or failed (returned %ld, first status %d)",
			  what, to, to, bad, ret, status[0]);
	free(pages);
	free(nodes);
	free(status);
}

static void check_follow(const char *what, long long before[2],
			 long long after[2], int from, int to, long long kb)
{
	long long d_from = before[from] - after[from];
	long long d_to = after[to] - before[to];

	note("%s: node %d %lld -> %lld kB, node %d %lld -> %lld kB", what,
	     from, before[from], after[from], to, before[to], after[to]);
	if (d_from < kb * 3 / 4 || d_to < kb * 3 / 4)
		test_fail("%s: expected node %d to lose and node %d to gain at least %lld kB, saw -%lld and +%lld kB",
			  what, from, to, kb * 3 / 4, d_from, d_to);
}

static void move_phase(void)
{
	const char *path = SCRATCH "/numa-bind.dat";
	size_t npages = MOVE_SIZE / page_size, pg;
	struct snap a, b;
	uint64_t *anon, *file;
	volatile uint64_t sink = 0;
	int fd, step;

	if (set_policy(MPOL_BIND, 0))
		test_fail("set_mempolicy MPOL_BIND to node 0 failed: %s",
			  strerror(errno));
	anon = mmap(NULL, MOVE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		test_fail("mmap failed: %s", strerror(errno));
	madvise(anon, MOVE_SIZE, MADV_NOHUGEPAGE);
	fill_pages(anon, npages, SEED + 7);
	drop_caches();
	pattern_file_write(path, MOVE_SIZE, SEED + 8);
	/* The page cache is still in memory, on node 0. */
	fd = open(path, O_RDONLY);
	if (fd < 0)
		test_fail("cannot open %s: %s", path, strerror(errno));
	file = mmap(NULL, MOVE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (file == MAP_FAILED)
		test_fail("mmap of %s failed: %s", path, strerror(errno));
	for (pg = 0; pg < npages; pg++)
		sink += file[pg * (page_size / 8)];
	if (set_policy(MPOL_DEFAULT, 0))
		test_fail("set_mempolicy MPOL_DEFAULT failed: %s",
			  strerror(errno));
	note("move: %zu MiB of anon and %zu MiB of mapped file on node 0",
	     MOVE_SIZE >> 20, MOVE_SIZE >> 20);
	move_all(anon, npages, 0, "anon");
	move_all(file, npages, 0, "file mapping");
	for (step = 0; step < 2; step++) {
		int from = step ? 1 : 0, to = !from;

		take(&a);
		move_all(anon, npages, to, "anon");
		move_all(file, npages, to, "file mapping");
		take(&b);
		note("move: %.1fs: node %d -> node %d done", elapsed(), from, to);
		check_follow("AnonPages", a.anon, b.anon, from, to,
			     MOVE_SIZE >> 10);
		check_follow("FilePages", a.file, b.file, from, to,
			     MOVE_SIZE >> 10);
		verify_pages("moved anon", anon, npages, SEED + 7);
		verify_pages("moved file mapping", file, npages, SEED + 8);
		note("move: contents intact on node %d", to);
	}
	munmap(anon, MOVE_SIZE);
	munmap(file, MOVE_SIZE);
	close(fd);
	unlink(path);
}

int main(void)
{
	long long kills0 = vmstat("oom_kill");
	long long swap_kb = meminfo_kb("SwapTotal:");
	int err;

	page_size = sysconf(_SC_PAGESIZE);
	elapsed();
	if (access("/sys/devices/system/node/node1", F_OK) ||
	    !access("/sys/devices/system/node/node2", F_OK))
		test_skip("needs exactly two NUMA nodes (topology numa)");
	if (swap_kb < 512 * 1024)
		test_skip("needs 512 MiB of swap, SwapTotal is %lld kB", swap_kb);
	if (access(SCRATCH "/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on %s", SCRATCH);
	wrongnode = injected("numa-wrongnode");
	err = try_write_file(HIST_DIR "/trigger", HIST_SPEC);
	if (err)
		test_fail("expected '%s' to be accepted by %s/trigger (CONFIG_HIST_TRIGGERS, as the test kernels have), saw %s",
			  HIST_SPEC, HIST_DIR, strerror(err));

	drop_caches();
	bind_phase(0);
	bind_phase(1);
	move_phase();
	try_write_file(HIST_DIR "/trigger", "!" HIST_SPEC);
	if (vmstat("oom_kill") != kills0)
		test_fail("expected no OOM kill, saw oom_kill +%lld",
			  vmstat("oom_kill") - kills0);
	note("%.1fs: ok: bound memory was reclaimed and placed on its node, moved pages intact",
	     elapsed());
	return KSFT_PASS;
}
