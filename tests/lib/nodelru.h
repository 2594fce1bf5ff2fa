/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the node-lru guest tests: counters from procfs and sysfs,
 * verdicts in the runner's convention (exit 0 pass, 1 fail, 4 skip) with
 * what was expected and what was seen.
 */
#ifndef NODELRU_H
#define NODELRU_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef O_NOATIME
#define O_NOATIME	01000000	/* <fcntl.h> has it with _GNU_SOURCE */
#endif

#define MPOL_DEFAULT	0	/* <numaif.h> (libnuma) is not in the image */
#define MPOL_BIND	2

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

static inline void __attribute__((format(printf, 1, 2), noreturn))
test_fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(KSFT_FAIL);
}

static inline void __attribute__((format(printf, 1, 2), noreturn))
test_skip(const char *fmt, ...)
{
	va_list ap;

	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(KSFT_SKIP);
}

/*
 * A helper tool that holds memory for a test must not outlive it: the
 * runner kills a test that runs out of time with SIGKILL, and the test's
 * traps do not run then.  The kernel sends SIGKILL to the caller when its
 * parent dies; a parent already gone (re-parented before the prctl) ends
 * it at once.
 */
static inline void die_with_parent(void)
{
	pid_t parent = getppid();

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(KSFT_FAIL);
}

static inline void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/*
 * fork(), with stdout flushed first so that the child does not print the
 * parent's buffered output again; a failed fork is a failed test.
 */
static inline pid_t fork_or_fail(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		test_fail("fork failed: %s", strerror(errno));
	return pid;
}

/*
 * Value of "name value" in a file such as /proc/vmstat or smaps_rollup
 * (lines that do not have this shape are passed over); -1 if absent.
 */
static inline long long file_counter(const char *path, const char *name)
{
	char line[512], key[128];
	long long val, ret = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		test_fail("cannot open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld", key, &val) == 2 &&
		    !strcmp(key, name)) {
			ret = val;
			break;
		}
	}
	fclose(f);
	return ret;
}

static inline long long vmstat(const char *name)
{
	return file_counter("/proc/vmstat", name);
}

/* A /proc/meminfo field in kB ("MemTotal:" style key, colon included). */
static inline long long meminfo_kb(const char *name)
{
	return file_counter("/proc/meminfo", name);
}

/*
 * A field of node NID's meminfo in kB ("Node N KEY VALUE kB" lines, KEY
 * with its colon: "MemFree:"); fails the test if it is missing.
 */
static inline long long node_meminfo_kb(int nid, const char *key)
{
	char path[128], k[64];
	long long val, ret = -1;
	int n;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 nid);
	f = fopen(path, "r");
	if (!f)
		test_fail("cannot open %s: %s", path, strerror(errno));
	while (fscanf(f, "Node %d %63s %lld%*[^\n]\n", &n, k, &val) == 3)
		if (!strcmp(k, key)) {
			ret = val;
			break;
		}
	fclose(f);
	if (ret < 0)
		test_fail("no %s in %s", key, path);
	return ret;
}

/* Bind the task's future memory to node NID (set_mempolicy MPOL_BIND). */
static inline void bind_to_node(int nid)
{
	unsigned long mask;

	if (nid < 0 || nid >= 64)
		test_fail("expected a node number under 64, saw %d", nid);
	mask = 1UL << nid;
	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 64))
		test_fail("set_mempolicy MPOL_BIND to node %d failed: %s", nid,
			  strerror(errno));
}

static inline void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		test_fail("cannot write '%s' to %s: %s", val, path,
			  strerror(errno));
}

/*
 * Is the fault WHAT asked for on the kernel command line
 * (nodelru.inject=a,b; the runner exports it as NODELRU_INJECT)?  Tests use
 * it to show that their checks fail on broken data or accounting.
 */
static inline int injected(const char *what)
{
	const char *list = getenv("NODELRU_INJECT");
	size_t n = strlen(what);

	while (list && *list) {
		if (!strncmp(list, what, n) && (list[n] == ',' || !list[n])) {
			printf("# injecting fault '%s'\n", what);
			return 1;
		}
		list = strchr(list, ',');
		if (list)
			list++;
	}
	return 0;
}

/*
 * With NAME, the line of /lib/nodelru/series that names it (the test
 * fails when none does); without, the number of patches in the series.
 */
static inline int series_lines(const char *name)
{
	FILE *f = fopen("/lib/nodelru/series", "r");
	char line[256];
	int n = 0, at = 0;

	if (!f)
		test_fail("cannot read /lib/nodelru/series: %s",
			  strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\n")] = 0;
		n++;
		if (name && !strcmp(line, name) && !at)
			at = n;
	}
	fclose(f);
	if (name && !at)
		test_fail("%s is not a patch of the series (/lib/nodelru/series)",
			  name);
	return name ? at : n;
}

/*
 * The step of the series this kernel is, from its release, as
 * tests/lib/guest.sh's series_end reads it: *-nodelru-zone-* is step 0,
 * *-nodelru-node-* the whole series, *-nodelru-stepN-* step N.  Anything
 * else fails the test.
 */
static inline int series_step(void)
{
	static int step = -1;
	char rel[256], *p;
	FILE *f;

	if (step >= 0)
		return step;
	f = fopen("/proc/sys/kernel/osrelease", "r");
	if (!f || !fgets(rel, sizeof(rel), f))
		test_fail("cannot read /proc/sys/kernel/osrelease");
	fclose(f);
	rel[strcspn(rel, "\n")] = 0;
	p = strstr(rel, "-nodelru-");
	if (p)
		p += strlen("-nodelru-");
	if (p && !strncmp(p, "zone-", 5))
		step = 0;
	else if (p && !strncmp(p, "node-", 5))
		step = series_lines(NULL);
	else if (p && !strncmp(p, "step", 4) && p[4] >= '0' && p[4] <= '9')
		step = atoi(p + 4);
	else
		test_fail("expected a release *-nodelru-{zone,node,stepN}-*, saw %s",
			  rel);
	return step;
}

/* Has this kernel the patch NAME (a file name as in the series file)? */
static inline int patch_applied(const char *name)
{
	return series_lines(name) <= series_step();
}

/* The per-page pattern: a different 64-bit value for every word. */
static inline uint64_t pattern(uint64_t seed, uint64_t page, uint64_t word)
{
	uint64_t x = seed ^ (page * 0x9e3779b97f4a7c15ULL) ^ (word << 32 | word);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return x;
}

/* Fill WORDS words of BUF with the pattern of block (page) BLOCK. */
static inline void fill_pattern(uint64_t *buf, size_t words, uint64_t seed,
				uint64_t block)
{
	size_t i;

	for (i = 0; i < words; i++)
		buf[i] = pattern(seed, block, i);
}

/* Index of the first word of BUF that differs from the pattern, or -1. */
static inline long check_pattern(const uint64_t *buf, size_t words,
				 uint64_t seed, uint64_t block)
{
	size_t i;

	for (i = 0; i < words; i++)
		if (buf[i] != pattern(seed, block, i))
			return i;
	return -1;
}

/*
 * Write NBLOCKS blocks of BYTES bytes each to FD (PATH names it in the
 * messages), block B filled with the pattern of block B.  BUF holds one
 * block.
 */
static inline void pattern_blocks_write(int fd, const char *path, uint64_t *buf,
					size_t bytes, size_t nblocks,
					uint64_t seed)
{
	size_t b;

	for (b = 0; b < nblocks; b++) {
		fill_pattern(buf, bytes / 8, seed, b);
		if (write(fd, buf, bytes) != (ssize_t)bytes)
			test_fail("short write of block %zu of %s: %s", b, path,
				  strerror(errno));
	}
}

/* Seconds since the first call. */
static inline double elapsed(void)
{
	static struct timespec t0;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!t0.tv_sec && !t0.tv_nsec)
		t0 = t;
	return (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9;
}

/* Write VAL to PATH; 0 or the errno of the failure (no verdict). */
static inline int try_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t len = strlen(val);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* The first line of PATH into BUF (newline dropped); 0 or an errno. */
static inline int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return errno;
	if (!fgets(buf, size, f))
		buf[0] = 0;
	fclose(f);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

/* A single number in a file, such as memory.current ("max" is -2). */
static inline long long read_ll(const char *path)
{
	char buf[64];
	int err = read_line(path, buf, sizeof(buf));

	if (err)
		test_fail("cannot read %s: %s", path, strerror(err));
	if (!strcmp(buf, "max"))
		return -2;
	return strtoll(buf, NULL, 10);
}

/* "key value" counter of FILE in a cgroup directory; -1 if absent. */
static inline long long cg_counter(const char *cg, const char *file,
				   const char *key)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return file_counter(path, key);
}

static inline long long cg_read(const char *cg, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return read_ll(path);
}

static inline void cg_write(const char *cg, const char *file, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	write_file(path, val);
}

static inline void cg_write_ll(const char *cg, const char *file, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	cg_write(cg, file, buf);
}

/* Move the calling process into the cgroup directory CG (v1 or v2). */
static inline void cg_enter(const char *cg)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", (int)getpid());
	cg_write(cg, "cgroup.procs", buf);
}

/* Remove a cgroup directory, retrying while its last tasks exit. */
static inline void cg_remove(const char *cg)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (!rmdir(cg) || errno == ENOENT)
			return;
		usleep(100000);
	}
	note("# warning: cannot remove %s: %s", cg, strerror(errno));
}

/*
 * Is the memory controller usable on the v2 hierarchy?  After a v1
 * hierarchy that held it is unmounted, it comes back to v2 only once that
 * hierarchy is released, so wait up to WAIT seconds.
 */
static inline int memcg_on_v2(int wait)
{
	char buf[256];
	int i;

	for (i = 0; i <= wait * 10; i++) {
		if (!read_line("/sys/fs/cgroup/cgroup.controllers", buf,
			       sizeof(buf)) && strstr(buf, "memory"))
			return 1;
		usleep(100000);
	}
	return 0;
}

/*
 * A cgroup v2 test's start: skip when the memory controller is not on the
 * v2 root within WAIT seconds, fail when +memory cannot be delegated to
 * the root's children.  memcg_v2_release() takes it back at the end; a
 * failure there is only a warning, the test's verdict is already made.
 */
static inline void memcg_v2_require(int wait)
{
	int err;

	if (!memcg_on_v2(wait))
		test_skip("the memory controller is not in /sys/fs/cgroup/cgroup.controllers (bound to a cgroup v1 hierarchy?)");
	err = try_write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	if (err)
		test_fail("expected +memory in /sys/fs/cgroup/cgroup.subtree_control to succeed, saw %s",
			  strerror(err));
}

static inline void memcg_v2_release(void)
{
	int err = try_write_file("/sys/fs/cgroup/cgroup.subtree_control", "-memory");

	if (err)
		note("# warning: -memory in /sys/fs/cgroup/cgroup.subtree_control: %s",
		     strerror(err));
}

static inline void drop_caches(void)
{
	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
}

/*
 * Global pressure: a child in the caller's cgroup takes BYTES of anon
 * memory and exits.  Returns the seconds it took.  Under TCG a base page
 * fault of a debug kernel costs some 35 us and swap I/O is slow, so all
 * but the last 448 MiB of what is free is taken in mlocked huge pages
 * (cheap to fault, never reclaimed or swapped); the rest, which makes
 * reclaim run, in base pages, one write a page, so that reclaim is driven
 * by order-0 allocations (a huge page fault under pressure compacts and
 * reclaims far more than it needs).
 */
static inline double global_pressure(size_t bytes)
{
	double t0 = elapsed();
	size_t page = sysconf(_SC_PAGESIZE), hp = 2UL << 20;
	long long free_b = meminfo_kb("MemFree:") * 1024 - (448LL << 20);
	size_t huge = free_b > 0 ? (size_t)free_b & ~(hp - 1) : 0;
	int status;
	pid_t pid;

	if (huge > bytes)
		huge = bytes & ~(hp - 1);
	pid = fork_or_fail();
	if (!pid) {
		char *p = mmap(NULL, bytes + hp, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t off;

		if (p == MAP_FAILED)
			_exit(2);
		p = (char *)(((uintptr_t)p + hp - 1) & ~(hp - 1));
		madvise(p, huge, MADV_HUGEPAGE);
		madvise(p + huge, bytes - huge, MADV_NOHUGEPAGE);
		if (huge && mlock(p, huge))
			_exit(3);
		for (off = huge; off < bytes; off += page)
			p[off] = 1;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		test_fail("waitpid failed: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		test_fail("the pressure child (%zu MiB) failed: expected exit 0, saw status 0x%x",
			  bytes >> 20, status);
	return elapsed() - t0;
}

/*
 * Clean page cache without disk I/O (slow under TCG): sparse_create()
 * makes a sparse file of SIZE bytes on ext4, sparse_cache() reads it
 * through; holes read as zeroed pages.  Create the file from the root
 * cgroup: the ext4 metadata pages its creation brings in are charged to
 * the creator and can pin a removed memcg for a long time.
 */
static inline void sparse_create(const char *path, size_t size)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	if (fd < 0 || ftruncate(fd, size) || fsync(fd) || close(fd))
		test_fail("cannot make the sparse file %s: %s", path,
			  strerror(errno));
}

static inline void sparse_cache(const char *path, size_t size)
{
	size_t chunk = 1 << 20, off;
	char *buf = malloc(chunk);
	int fd = open(path, O_RDONLY | O_NOATIME);

	if (fd < 0 || !buf)
		test_fail("cannot read %s: %s", path, strerror(errno));
	for (off = 0; off < size; off += chunk)
		if (read(fd, buf, chunk) != (ssize_t)chunk)
			test_fail("short read of %s at %zu", path, off);
	close(fd);
	free(buf);
}

/* Fill or check NPAGES pages at P with the per-page pattern. */
static inline void fill_pages(uint64_t *p, size_t npages, uint64_t seed)
{
	size_t words = sysconf(_SC_PAGESIZE) / 8, pg, w;

	for (pg = 0; pg < npages; pg++)
		for (w = 0; w < words; w++)
			p[pg * words + w] = pattern(seed, pg, w);
}

/* Last page first: what was swapped out first comes back last. */
static inline void verify_pages(const char *what, uint64_t *p, size_t npages,
				uint64_t seed)
{
	size_t words = sysconf(_SC_PAGESIZE) / 8, pg, w;

	for (pg = npages; pg-- > 0;)
		for (w = 0; w < words; w++) {
			uint64_t want = pattern(seed, pg, w);

			if (p[pg * words + w] != want)
				test_fail("%s data lost: page %zu word %zu: expected %016llx, saw %016llx",
					  what, pg, w, (unsigned long long)want,
					  (unsigned long long)p[pg * words + w]);
		}
}

/* Write a file of SIZE bytes (a multiple of the page size), pattern-filled. */
static inline void pattern_file_write(const char *path, size_t size,
				      uint64_t seed)
{
	size_t page = sysconf(_SC_PAGESIZE), chunk = 256 * page, off;
	uint64_t *buf = malloc(chunk);
	int fd;

	if (!buf)
		test_fail("malloc of the I/O buffer failed");
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		test_fail("cannot create %s: %s", path, strerror(errno));
	for (off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		size_t pg, w;

		for (pg = 0; pg < n / page; pg++)
			for (w = 0; w < page / 8; w++)
				buf[pg * (page / 8) + w] =
					pattern(seed, off / page + pg, w);
		if (write(fd, buf, n) != (ssize_t)n)
			test_fail("short write at offset %zu of %s: %s", off,
				  path, strerror(errno));
	}
	if (fsync(fd) || close(fd))
		test_fail("fsync/close of %s failed: %s", path, strerror(errno));
	free(buf);
}

static inline void pattern_file_verify(const char *path, size_t size,
				       uint64_t seed)
{
	size_t page = sysconf(_SC_PAGESIZE), chunk = 256 * page, off;
	uint64_t *buf = malloc(chunk);
	int fd;

	if (!buf)
		test_fail("malloc of the I/O buffer failed");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		test_fail("cannot open %s: %s", path, strerror(errno));
	for (off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		size_t pg, w;

		if (read(fd, buf, n) != (ssize_t)n)
			test_fail("short read at offset %zu of %s", off, path);
		for (pg = 0; pg < n / page; pg++)
			for (w = 0; w < page / 8; w++) {
				uint64_t want = pattern(seed, off / page + pg, w);
				uint64_t saw = buf[pg * (page / 8) + w];

				if (saw != want)
					test_fail("file data lost: %s offset %zu: expected %016llx, saw %016llx",
						  path, off + pg * page + w * 8,
						  (unsigned long long)want,
						  (unsigned long long)saw);
			}
	}
	close(fd);
	free(buf);
}

/* Fold the per-cpu vmstat differentials (vm.stat_refresh); must succeed. */
static inline void stat_refresh(void)
{
	write_file("/proc/sys/vm/stat_refresh", "1\n");
}

/* Counters before and after a phase; a counter absent here reads -1. */
struct counters {
	unsigned int n;
	const char * const *names;
	long long val[32];
};

static inline void counters_read(struct counters *c, const char * const *names,
				 unsigned int n)
{
	unsigned int i;

	if (n > 32)
		test_fail("counters_read: %u counters, at most 32", n);
	c->n = n;
	c->names = names;
	for (i = 0; i < n; i++)
		c->val[i] = vmstat(names[i]);
}

/* AFTER - BEFORE of counter NAME; -1 when the kernel does not have it. */
static inline long long counter_delta(const struct counters *before,
				      const struct counters *after,
				      const char *name)
{
	unsigned int i;

	for (i = 0; i < before->n; i++) {
		if (strcmp(before->names[i], name))
			continue;
		if (before->val[i] < 0 || after->val[i] < 0)
			return -1;
		return after->val[i] - before->val[i];
	}
	test_fail("counter_delta: %s was not recorded", name);
}

static inline void counters_print(const struct counters *before,
				  const struct counters *after)
{
	unsigned int i;

	for (i = 0; i < before->n; i++) {
		if (before->val[i] < 0 || after->val[i] < 0)
			note("%s: not in /proc/vmstat", before->names[i]);
		else
			note("%s +%lld", before->names[i],
			     after->val[i] - before->val[i]);
	}
}

#endif
