// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=240 topo=all order=41
 *
 * Memcg charge moving keeps the books.  With the memory controller on a
 * cgroup v1 hierarchy (tests/lib/memcg-v1.h), a child in group A maps
 * M = 16 MiB (MemTotal/64 on a small guest) each of
 *   - a file on the scratch disk, written with a pattern by the test (in
 *     the root group) and dropped from the cache, then faulted in by the
 *     child, so its pages are charged to A while the file system's
 *     metadata pages stay charged to the root (a metadata page charged to
 *     A would keep the removed group alive, and the controller on v1,
 *     until the journal lets it go),
 *   - the same file's first M/4 written again through the mapping and
 *     left dirty (dirty page cache; the periodic flusher may clean some),
 *   - a memfd (shmem, mapped),
 *   - private anonymous memory,
 * all filled with a per-page pattern.  B has memory.move_charge_at_immigrate
 * = 3 (anon and file); the child is then moved to B, which makes
 * mem_cgroup_move_account() move every page it maps from A to B: the
 * memcg's mapped, file, shmem, dirty and anon statistics and, on the
 * zone-LRU kernel, its per-zone LRU sizes (the pages are isolated and put
 * back on B's lists).
 * Expected:
 *   - B's rss rises by at least 7/8 of M and its mapped_file by at least
 *     7/8 of 2M (file and memfd), A's fall by as much (memory.stat,
 *     printed before and after);
 *   - the books balance (tests/lib/books.sh) while the moved pages are
 *     still mapped, and again after the child has exited;
 *   - the child, told to check its memory after the move, finds every
 *     page of the pattern in the file, the memfd and the anon memory.
 *   - the controller returns to cgroup v2 at the end (the memcg tests
 *     after this one need it there).
 * The runner checks the books after the test as after every test.
 *
 * Fault: INJECT=move-off leaves B's move_charge_at_immigrate at 0, so
 * nothing is moved; the rss check must fail.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>

#include "lib/memcg-v1.h"

#define G_A		V1 "/move-a"
#define G_B		V1 "/move-b"
#define SCRATCH		"/mnt/scratch"
#define FILE_PATH	SCRATCH "/memcg-move.dat"
#define SEED_FILE	0x6d6f76652d66ULL
#define SEED_DIRTY	0x6d6f76652d64ULL
#define SEED_SHMEM	0x6d6f76652d73ULL
#define SEED_ANON	0x6d6f76652d61ULL

struct mstat {
	long long rss, mapped_file, cache, shmem, dirty, usage;
};

static void mstat_read(const char *cg, struct mstat *m)
{
	m->rss = cg_counter(cg, "memory.stat", "rss");
	m->mapped_file = cg_counter(cg, "memory.stat", "mapped_file");
	m->cache = cg_counter(cg, "memory.stat", "cache");
	m->shmem = cg_counter(cg, "memory.stat", "shmem");
	m->dirty = cg_counter(cg, "memory.stat", "dirty");
	m->usage = cg_read(cg, "memory.usage_in_bytes");
}

static void mstat_print(const char *when, const char *name,
			const struct mstat *m)
{
	note("%s: %s usage %lld kB: rss %lld kB, mapped_file %lld kB, cache %lld kB, shmem %lld kB, dirty %lld kB",
	     when, name, m->usage >> 10, m->rss >> 10, m->mapped_file >> 10,
	     m->cache >> 10, m->shmem >> 10, m->dirty >> 10);
}

/* The books, by tests/lib/books.sh: 0 when they balance. */
static int books(const char *when)
{
	int status;

	note("books %s:", when);
	fflush(stdout);
	status = system(". /lib/nodelru/books.sh && books_at_rest 10");
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static pid_t child_pid, parent_pid;

static void kill_child(void)
{
	if (child_pid > 0) {
		kill(child_pid, SIGKILL);
		waitpid(child_pid, NULL, 0);
		child_pid = 0;
	}
}

static void cleanup(void)
{
	if (getpid() != parent_pid)
		return;
	kill_child();
	unlink(FILE_PATH);
}

/*
 * Check pages FIRST .. FIRST + N - 1 of the mapping at P against SEED's
 * pattern, with page numbers counted from the start of the mapping (the
 * numbering of fill_pages() and pattern_file_write()).
 */
static void check(const char *what, const uint64_t *p, size_t first,
		  size_t n, uint64_t seed)
{
	size_t words = sysconf(_SC_PAGESIZE) / 8, pg, w;

	for (pg = first; pg < first + n; pg++)
		for (w = 0; w < words; w++) {
			uint64_t want = pattern(seed, pg, w);

			if (p[pg * words + w] != want)
				test_fail("%s data lost: page %zu word %zu: expected %016llx, saw %016llx",
					  what, pg, w, (unsigned long long)want,
					  (unsigned long long)p[pg * words + w]);
		}
}

/*
 * The child: in group A, map the file (FD, opened by the test, so that
 * the child reads no metadata) and a memfd and anon memory, fill them,
 * say so on READY, wait for a byte on GO, verify everything and exit 0
 * (1 on a bad page, with the reason printed).
 */
static void child(size_t m, int fd, int ready, int go)
{
	size_t np = m / sysconf(_SC_PAGESIZE), dirty_np = np / 4;
	uint64_t *file, *shmem, *anon;
	int mfd;
	char c = 1;

	cg_enter(G_A);
	file = mmap(NULL, m, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	mfd = memfd_create("memcg-move", 0);
	if (mfd < 0 || ftruncate(mfd, m))
		test_fail("memfd of %zu MiB: %s", m >> 20, strerror(errno));
	shmem = mmap(NULL, m, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	anon = mmap(NULL, m, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (file == MAP_FAILED || shmem == MAP_FAILED || anon == MAP_FAILED)
		test_fail("mmap: %s", strerror(errno));
	check("the file through its mapping", file, 0, np, SEED_FILE);
	fill_pages(file, dirty_np, SEED_DIRTY);
	fill_pages(shmem, np, SEED_SHMEM);
	fill_pages(anon, np, SEED_ANON);
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		test_fail("child: pipe to the test: %s", strerror(errno));
	check("the dirty part of the file", file, 0, dirty_np, SEED_DIRTY);
	check("the clean part of the file", file, dirty_np, np - dirty_np,
	      SEED_FILE);
	check("the memfd", shmem, 0, np, SEED_SHMEM);
	check("the anon memory", anon, 0, np, SEED_ANON);
	note("child: all %zu pages of file, memfd and anon memory verified after the move",
	     3 * np);
	_exit(KSFT_PASS);
}

static void move_child(int inject)
{
	char buf[32];

	if (!inject)
		cg_write(G_B, "memory.move_charge_at_immigrate", "3");
	else
		note("INJECT=move-off: move_charge_at_immigrate of B left at 0");
	snprintf(buf, sizeof(buf), "%d", (int)child_pid);
	cg_write(G_B, "cgroup.procs", buf);
}

int main(void)
{
	static const char * const groups[] = { G_A, G_B, NULL };
	long long mem_kb = meminfo_kb("MemTotal:");
	struct mstat a0, b0, a1, b1;
	int ready[2], go[2], fd, status = 0, bad = 0;
	long long want_rss, want_mapped;
	size_t m;
	char c = 1;

	if (access(SCRATCH "/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on %s", SCRATCH);
	m = (size_t)mem_kb * 1024 / 64;
	if (m > 16 << 20)
		m = 16 << 20;
	m &= ~((size_t)(1 << 20) - 1);
	want_rss = m / 8 * 7;
	want_mapped = 2 * m / 8 * 7;

	v1_mount(groups, "memory.move_charge_at_immigrate");
	atexit(cleanup);	/* runs before v1_release() */

	/*
	 * The file is written here, in the root group, and only its own pages
	 * are dropped from the cache: the metadata pages its creation read
	 * stay, charged to the root.
	 */
	parent_pid = getpid();
	pattern_file_write(FILE_PATH, m, SEED_FILE);
	fd = open(FILE_PATH, O_RDWR);
	if (fd < 0)
		test_fail("open %s: %s", FILE_PATH, strerror(errno));
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (errno)
		test_fail("posix_fadvise(DONTNEED) of %s: %s", FILE_PATH,
			  strerror(errno));
	if (pipe(ready) || pipe(go))
		test_fail("pipe: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);	/* a dead child is seen at waitpid() */
	child_pid = fork_or_fail();
	if (!child_pid) {
		close(ready[0]);
		close(go[1]);
		child(m, fd, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	close(fd);
	if (read(ready[0], &c, 1) != 1) {
		waitpid(child_pid, &status, 0);
		child_pid = 0;
		test_fail("the child died before it was ready (status 0x%x)",
			  status);
	}

	stat_refresh();
	mstat_read(G_A, &a0);
	mstat_read(G_B, &b0);
	mstat_print("before the move", "A", &a0);
	mstat_print("before the move", "B", &b0);
	move_child(injected("move-off"));
	stat_refresh();
	mstat_read(G_A, &a1);
	mstat_read(G_B, &b1);
	mstat_print("after the move", "A", &a1);
	mstat_print("after the move", "B", &b1);
	bad |= books("with the moved pages still mapped");

	if (write(go[1], &c, 1) != 1)
		test_fail("pipe to the child: %s", strerror(errno));
	if (waitpid(child_pid, &status, 0) != child_pid)
		test_fail("waitpid: %s", strerror(errno));
	child_pid = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		test_fail("expected the child to verify its memory and exit 0, saw status 0x%x",
			  status);
	bad |= books("after the child exited");
	cleanup();
	v1_release_or_fail();

	if (b1.rss - b0.rss < want_rss || a0.rss - a1.rss < want_rss)
		test_fail("expected B's rss to rise and A's to fall by at least %lld kB, saw B %+lld kB, A %+lld kB",
			  want_rss >> 10, (b1.rss - b0.rss) >> 10,
			  (a1.rss - a0.rss) >> 10);
	if (b1.mapped_file - b0.mapped_file < want_mapped ||
	    a0.mapped_file - a1.mapped_file < want_mapped)
		test_fail("expected B's mapped_file to rise and A's to fall by at least %lld kB, saw B %+lld kB, A %+lld kB",
			  want_mapped >> 10,
			  (b1.mapped_file - b0.mapped_file) >> 10,
			  (a1.mapped_file - a0.mapped_file) >> 10);
	if (bad)
		test_fail("the books did not balance after the charge move (above)");
	note("ok: rss moved %lld kB and mapped_file %lld kB from A to B (expected at least %lld and %lld); books balanced",
	     (b1.rss - b0.rss) >> 10, (b1.mapped_file - b0.mapped_file) >> 10,
	     want_rss >> 10, want_mapped >> 10);
	return KSFT_PASS;
}
