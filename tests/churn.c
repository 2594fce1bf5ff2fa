// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=900 topo=all order=64
 *
 * Reclaim under churn: forks, truncation, madvise, memcgs coming and
 * going and cache drops, all racing with reclaim, for CHURN_SECONDS; then
 * the data that was meant to survive is intact.
 *
 * The test keeps an anon region and a file (each a sixteenth of MemTotal,
 * per-page pattern) that must survive.  For CHURN_SECONDS it runs, each
 * in its own process:
 *   anon pressure  an anon set of 3/4 of MemTotal, written over and over
 *                  (each round checks every page's count of the rounds
 *                  before it); with the rest it exceeds RAM, so reclaim
 *                  swaps;
 *   file pressure  a file of a quarter of MemTotal rewritten and read
 *                  over and over;
 *   forker         forks four children at a time that dirty (COW) a
 *                  region of the parent, fault in memory of their own,
 *                  verify and exit;
 *   truncator      writes 8 MiB, maps it, shrinks it to 3 MiB while it is
 *                  mapped, verifies the rest through the mapping, truncates
 *                  it to 0;
 *   madviser       16 MiB of anon pages: MADV_PAGEOUT (swapped out on
 *                  the spot) then verified, MADV_FREE (each page then
 *                  either intact or zero), MADV_DONTNEED (zero);
 *   memcg          enables +memory in the root cgroup.subtree_control,
 *                  and in a loop makes a child cgroup with memory.high of
 *                  16 MiB, moves a child process into it that charges
 *                  24 MiB of anon (memcg reclaim swaps it) and 4 MiB of
 *                  page cache, exits; the cgroup is removed;
 *   dropper        drop_caches 3 every 5 s.
 * Every worker verifies its own data and counts its rounds.  Afterwards
 * the surviving region and file are verified and the caches dropped;
 * the runner checks the books after the test (tests/lib/books.sh).
 *
 * Pass: no worker failed, every worker did at least one round, the
 * surviving data is intact, pswpout grew.
 *
 * Injected fault: churn-corrupt flips a bit of one word of the surviving
 * region before the churn; the final verification must fail.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/nodelru.h"

#define SEED		0x636875726e2121ULL
#define CHURN_SECONDS	45
#define MIB		(1UL << 20)
#define CG		"/sys/fs/cgroup"
#define KEEP		"/mnt/scratch/churn-keep.dat"

enum { ANON, FILEP, FORKER, TRUNC, MADV, MEMCG, DROP, NR_WORKERS };
static const char * const worker_name[NR_WORKERS] = {
	"anon pressure", "file pressure", "forker", "truncator", "madviser",
	"memcg", "dropper",
};

static struct shared {
	long rounds[NR_WORKERS];
	double deadline;
} *sh;

static size_t page_size, words;

static int time_left(void)
{
	return elapsed() < sh->deadline;
}

/* Worker failure: say what and exit with the worker's status. */
static void __attribute__((format(printf, 2, 3), noreturn))
worker_fail(int who, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: %s: ", worker_name[who]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(1);
}

static void *map_anon(int who, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		worker_fail(who, "mmap of %zu bytes failed: %s", size, strerror(errno));
	return p;
}

/* First bad page of P, or -1; its word in *WORD. */
static long check_pages(const uint64_t *p, size_t npages, uint64_t seed,
			long *word)
{
	size_t i;

	for (i = 0; i < npages; i++) {
		*word = check_pattern(p + i * words, words, seed, i);
		if (*word >= 0)
			return i;
	}
	return -1;
}

/*
 * Each round adds one to the first byte of every page, after checking
 * that it holds the number of rounds before it (mod 256): a page lost to
 * swap, or swapped in from the wrong slot, fails.  A round cut short by
 * the deadline is the last.
 */
static void anon_pressure(size_t size)
{
	unsigned char *p = map_anon(ANON, size);
	unsigned char want = 0;
	size_t off;

	while (time_left()) {
		for (off = 0; off < size && time_left(); off += page_size) {
			if (p[off] != want)
				worker_fail(ANON, "page %zu: expected %u (the rounds before this one), saw %u",
					    off / page_size, want, p[off]);
			p[off]++;
		}
		sh->rounds[ANON]++;
		want++;
	}
}

static void write_blocks(int who, int fd, size_t size, uint64_t seed, uint64_t *buf)
{
	size_t b;

	for (b = 0; b < size / MIB; b++) {
		fill_pattern(buf, MIB / 8, seed, b);
		if (pwrite(fd, buf, MIB, b * MIB) != (ssize_t)MIB)
			worker_fail(who, "short write of block %zu: %s", b, strerror(errno));
	}
}

static void read_blocks(int who, int fd, size_t size, uint64_t seed, uint64_t *buf)
{
	size_t b;
	long w;

	for (b = 0; b < size / MIB; b++) {
		if (pread(fd, buf, MIB, b * MIB) != (ssize_t)MIB)
			worker_fail(who, "short read of block %zu", b);
		w = check_pattern(buf, MIB / 8, seed, b);
		if (w >= 0)
			worker_fail(who, "data lost at block %zu word %ld: expected %016llx, saw %016llx",
				    b, w, (unsigned long long)pattern(seed, b, w),
				    (unsigned long long)buf[w]);
	}
}

static void file_pressure(size_t size)
{
	const char *path = "/mnt/scratch/churn-pressure.dat";
	uint64_t *buf = map_anon(FILEP, MIB);
	uint64_t seed = SEED + 1;
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	size_t n;

	if (fd < 0)
		worker_fail(FILEP, "cannot create %s: %s", path, strerror(errno));
	while (time_left()) {
		/* a round stops early at the deadline, verifying what it wrote */
		for (n = 0; n < size / MIB && time_left(); n++) {
			fill_pattern(buf, MIB / 8, seed, n);
			if (pwrite(fd, buf, MIB, n * MIB) != (ssize_t)MIB)
				worker_fail(FILEP, "short write of block %zu: %s", n,
					    strerror(errno));
		}
		read_blocks(FILEP, fd, n * MIB, seed, buf);
		sh->rounds[FILEP]++;
		seed++;
	}
	close(fd);
	unlink(path);
}

static void forker(void)
{
	size_t npages = 256;
	uint64_t *shared = map_anon(FORKER, npages * page_size);
	pid_t pids[4];
	int i, status;
	long w;

	fill_pages(shared, npages, SEED + 2);
	while (time_left()) {
		for (i = 0; i < 4; i++) {
			pids[i] = fork();
			if (pids[i] < 0)
				worker_fail(FORKER, "fork failed: %s", strerror(errno));
			if (!pids[i]) {
				uint64_t *own = map_anon(FORKER, 4 * MIB);

				/* dirty every other page of the parent's region (COW) */
				if (check_pages(shared, npages, SEED + 2, &w) >= 0)
					_exit(2);
				fill_pages(own, 4 * MIB / page_size, SEED + 3 + i);
				fill_pages(shared, npages / 2, SEED + 7 + i);
				if (check_pages(own, 4 * MIB / page_size, SEED + 3 + i, &w) >= 0 ||
				    check_pages(shared, npages / 2, SEED + 7 + i, &w) >= 0)
					_exit(3);
				_exit(0);
			}
		}
		for (i = 0; i < 4; i++) {
			if (waitpid(pids[i], &status, 0) != pids[i])
				worker_fail(FORKER, "waitpid failed: %s", strerror(errno));
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				worker_fail(FORKER, "child %d: expected exit 0, saw status %#x (2: the parent's data, 3: its own, lost)",
					    i, status);
		}
		if (check_pages(shared, npages, SEED + 2, &w) >= 0)
			worker_fail(FORKER, "the parent's region changed under its children's COW writes");
		sh->rounds[FORKER] += 4;
	}
}

static void truncator(void)
{
	const char *path = "/mnt/scratch/churn-trunc.dat";
	uint64_t *buf = map_anon(TRUNC, MIB);
	uint64_t seed = SEED + 20;
	size_t b, size = 8 * MIB;
	uint64_t *map;
	long w;
	int fd;

	while (time_left()) {
		fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
		if (fd < 0)
			worker_fail(TRUNC, "cannot create %s: %s", path, strerror(errno));
		write_blocks(TRUNC, fd, size, seed, buf);
		map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			worker_fail(TRUNC, "mmap of %s failed: %s", path, strerror(errno));
		if (ftruncate(fd, 3 * MIB))
			worker_fail(TRUNC, "ftruncate to 3 MiB failed: %s", strerror(errno));
		for (b = 0; b < 3; b++) {
			w = check_pattern(map + b * MIB / 8, MIB / 8, seed, b);
			if (w >= 0)
				worker_fail(TRUNC, "after truncation, block %zu word %ld: expected %016llx, saw %016llx",
					    b, w, (unsigned long long)pattern(seed, b, w),
					    (unsigned long long)map[b * MIB / 8 + w]);
		}
		if (ftruncate(fd, 0))
			worker_fail(TRUNC, "ftruncate to 0 failed: %s", strerror(errno));
		munmap(map, size);
		close(fd);
		if (sh->rounds[TRUNC] % 4 == 3)
			unlink(path);
		sh->rounds[TRUNC]++;
		seed++;
	}
	unlink(path);
}

static void madviser(void)
{
	size_t npages = 16 * MIB / page_size, i, j, half = npages / 2;
	uint64_t *p = map_anon(MADV, 16 * MIB);
	uint64_t seed = SEED + 40;
	long bad, w;

	while (time_left()) {
		fill_pages(p, npages, seed);
		if (madvise(p, 16 * MIB, MADV_PAGEOUT) && errno != EINVAL)
			worker_fail(MADV, "MADV_PAGEOUT failed: %s", strerror(errno));
		bad = check_pages(p, npages, seed, &w);
		if (bad >= 0)
			worker_fail(MADV, "after MADV_PAGEOUT page %ld word %ld lost", bad, w);
		if (madvise(p + half * words, half * page_size, MADV_FREE))
			worker_fail(MADV, "MADV_FREE failed: %s", strerror(errno));
		for (i = half; i < npages; i++) {
			uint64_t *pg = p + i * words;

			if (check_pattern(pg, words, seed, i) < 0)
				continue;
			for (j = 0; j < words; j++)
				if (pg[j])
					worker_fail(MADV, "after MADV_FREE page %zu is neither intact nor zero (word %zu = %016llx)",
						    i, j, (unsigned long long)pg[j]);
		}
		if (madvise(p, half * page_size, MADV_DONTNEED))
			worker_fail(MADV, "MADV_DONTNEED failed: %s", strerror(errno));
		for (i = 0; i < half * words; i++)
			if (p[i])
				worker_fail(MADV, "after MADV_DONTNEED word %zu is %016llx, expected 0",
					    i, (unsigned long long)p[i]);
		sh->rounds[MADV]++;
		seed++;
	}
}

static void memcg_child(const char *dir)
{
	char procs[128], pid[32];
	uint64_t *anon, *buf;
	char path[64];
	long w;
	int fd;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	write_file(procs, pid);
	anon = map_anon(MEMCG, 24 * MIB);
	buf = map_anon(MEMCG, MIB);
	fill_pages(anon, 24 * MIB / page_size, SEED + 60);
	snprintf(path, sizeof(path), "/mnt/scratch/churn-memcg-%d.dat", getpid());
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (fd < 0)
		worker_fail(MEMCG, "cannot create %s: %s", path, strerror(errno));
	write_blocks(MEMCG, fd, 4 * MIB, SEED + 61, buf);
	read_blocks(MEMCG, fd, 4 * MIB, SEED + 61, buf);
	close(fd);
	unlink(path);
	if (check_pages(anon, 24 * MIB / page_size, SEED + 60, &w) >= 0)
		_exit(3);
	_exit(0);
}

static void memcg(void)
{
	char dir[64], file[96];
	int status, try;
	pid_t pid;

	write_file(CG "/cgroup.subtree_control", "+memory\n");
	while (time_left()) {
		snprintf(dir, sizeof(dir), CG "/churn-%ld", sh->rounds[MEMCG]);
		if (mkdir(dir, 0755))
			worker_fail(MEMCG, "mkdir %s failed: %s", dir, strerror(errno));
		snprintf(file, sizeof(file), "%s/memory.high", dir);
		write_file(file, "16M\n");
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			worker_fail(MEMCG, "fork failed: %s", strerror(errno));
		if (!pid)
			memcg_child(dir);
		if (waitpid(pid, &status, 0) != pid)
			worker_fail(MEMCG, "waitpid failed: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			worker_fail(MEMCG, "child in %s: expected exit 0, saw status %#x",
				    dir, status);
		/* The exited child may take a moment to leave the cgroup. */
		for (try = 0; rmdir(dir); try++) {
			if (errno != EBUSY || try == 50)
				worker_fail(MEMCG, "rmdir %s failed: %s", dir, strerror(errno));
			usleep(100000);
		}
		sh->rounds[MEMCG]++;
	}
}

static int subtree_has_memory(void)
{
	char line[256] = "";
	FILE *f = fopen(CG "/cgroup.subtree_control", "r");

	if (!f)
		test_fail("cannot read " CG "/cgroup.subtree_control: %s", strerror(errno));
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return strstr(line, "memory") != NULL;
}

static void dropper(void)
{
	while (time_left()) {
		write_file("/proc/sys/vm/drop_caches", "3\n");
		sh->rounds[DROP]++;
		sleep(5);
	}
}

/* The anon region and the file that must survive the churn. */
struct keep {
	size_t size, npages;
	uint64_t *region;	/* per-page pattern SEED */
	int fd;			/* KEEP, per-block pattern SEED + 100 */
	uint64_t *buf;		/* a MiB for its I/O */
};

/* Fail without the meminfo fields; skip without scratch, cgroup2, swap. */
static void require(long long mem_kb, long long swap_kb)
{
	if (mem_kb <= 0 || swap_kb < 0)
		test_fail("expected MemTotal and SwapFree in /proc/meminfo, saw %lld and %lld",
			  mem_kb, swap_kb);
	if (access("/mnt/scratch/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on /mnt/scratch");
	if (access(CG "/cgroup.subtree_control", W_OK))
		test_skip("no cgroup2 on " CG);
	if (swap_kb < mem_kb / 2)
		test_skip("needs SwapFree of half of MemTotal (%lld kB), saw %lld kB",
			  mem_kb / 2, swap_kb);
}

/* The shared area, the region and the I/O buffer. */
static void allocate(struct keep *k)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	k->region = mmap(NULL, k->size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	k->buf = malloc(MIB);
	if (sh == MAP_FAILED || k->region == MAP_FAILED || !k->buf)
		test_fail("cannot allocate the shared area, the region or the I/O buffer");
	memset(sh, 0, sizeof(*sh));
}

static void keep_write(struct keep *k)
{
	fill_pages(k->region, k->npages, SEED);
	k->fd = open(KEEP, O_CREAT | O_TRUNC | O_RDWR, 0600);
	if (k->fd < 0)
		test_fail("cannot create %s: %s", KEEP, strerror(errno));
	pattern_blocks_write(k->fd, KEEP, k->buf, MIB, k->size / MIB, SEED + 100);
	if (fsync(k->fd))
		test_fail("fsync of %s failed: %s", KEEP, strerror(errno));
	if (injected("churn-corrupt"))
		k->region[k->npages / 2 * words + 5] ^= 1ULL << 3;
}

/* Worker I, in its own process. */
static void run_worker(int i, long long mem_kb)
{
	switch (i) {
	case ANON:
		anon_pressure((size_t)mem_kb * 1024 / 4 * 3);
		break;
	case FILEP:
		file_pressure((size_t)mem_kb * 1024 / 4 & ~(MIB - 1));
		break;
	case FORKER:
		forker();
		break;
	case TRUNC:
		truncator();
		break;
	case MADV:
		madviser();
		break;
	case MEMCG:
		memcg();
		break;
	case DROP:
		dropper();
		break;
	}
}

static void start_workers(pid_t *pids, long long mem_kb)
{
	int i;

	fflush(stdout);
	for (i = 0; i < NR_WORKERS; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			test_fail("fork of worker %s failed: %s", worker_name[i], strerror(errno));
		if (pids[i])
			continue;
		run_worker(i, mem_kb);
		_exit(0);
	}
}

/* How many workers failed (each one is reported). */
static size_t wait_workers(const pid_t *pids)
{
	size_t nfailed = 0;
	int i, status;

	for (i = 0; i < NR_WORKERS; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i])
			test_fail("waitpid failed: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			note("worker %s: expected exit 0, saw status %#x", worker_name[i], status);
			nfailed++;
		}
	}
	return nfailed;
}

static void keep_verify(struct keep *k)
{
	long bad, w;
	size_t b;

	bad = check_pages(k->region, k->npages, SEED, &w);
	if (bad >= 0)
		test_fail("surviving region lost data: page %ld word %ld: expected %016llx, saw %016llx",
			  bad, w, (unsigned long long)pattern(SEED, bad, w),
			  (unsigned long long)k->region[bad * words + w]);
	for (b = 0; b < k->size / MIB; b++) {
		if (pread(k->fd, k->buf, MIB, b * MIB) != (ssize_t)MIB)
			test_fail("short read of block %zu of %s", b, KEEP);
		w = check_pattern(k->buf, MIB / 8, SEED + 100, b);
		if (w >= 0)
			test_fail("surviving file lost data: block %zu word %ld: expected %016llx, saw %016llx",
				  b, w, (unsigned long long)pattern(SEED + 100, b, w),
				  (unsigned long long)k->buf[w]);
	}
	close(k->fd);
	unlink(KEEP);
	note("%.1fs: surviving region and file verified", elapsed());
}

/* Every worker exited 0 after a round at least, and reclaim swapped. */
static void check_workers(size_t nfailed, long long out)
{
	int i;

	if (nfailed)
		test_fail("%zu worker(s) failed (above): expected all to exit 0", nfailed);
	for (i = 0; i < NR_WORKERS; i++)
		if (!sh->rounds[i])
			test_fail("worker %s did no round in %d s: expected at least one",
				  worker_name[i], CHURN_SECONDS);
	if (out <= 0)
		test_fail("nothing was swapped: expected pswpout > 0, saw %lld", out);
}

int main(void)
{
	long long mem_kb = meminfo_kb("MemTotal:");
	long long swap_kb = meminfo_kb("SwapFree:");
	long long out0, out;
	pid_t pids[NR_WORKERS];
	int i, memcg_was_on;
	struct keep k;
	size_t nfailed;

	page_size = sysconf(_SC_PAGESIZE);
	words = page_size / 8;
	require(mem_kb, swap_kb);
	k.size = (size_t)mem_kb * 1024 / 16 & ~(MIB - 1);
	k.npages = k.size / page_size;
	note("MemTotal %lld kB, SwapFree %lld kB: surviving region and file %zu MiB each, anon pressure %lld MiB, file pressure %lld MiB, %d s of churn",
	     mem_kb, swap_kb, k.size >> 20, mem_kb * 3 / 4 >> 10, mem_kb / 4 >> 10,
	     CHURN_SECONDS);
	note("pass: no worker fails, every worker does a round, surviving data intact, pswpout > 0");
	allocate(&k);
	memcg_was_on = subtree_has_memory();

	elapsed();
	keep_write(&k);
	out0 = vmstat("pswpout");
	sh->deadline = elapsed() + CHURN_SECONDS;
	note("%.1fs: surviving data written; churn for %d s", elapsed(), CHURN_SECONDS);
	start_workers(pids, mem_kb);
	nfailed = wait_workers(pids);
	out = vmstat("pswpout") - out0;
	note("%.1fs: churn over, pswpout +%lld", elapsed(), out);
	for (i = 0; i < NR_WORKERS; i++)
		note("%s: %ld rounds", worker_name[i], sh->rounds[i]);
	/* Leave the root cgroup as it was. */
	if (!memcg_was_on)
		write_file(CG "/cgroup.subtree_control", "-memory\n");

	keep_verify(&k);
	check_workers(nfailed, out);
	write_file("/proc/sys/vm/drop_caches", "3\n");
	note("ok: churn survived, data intact");
	return KSFT_PASS;
}
