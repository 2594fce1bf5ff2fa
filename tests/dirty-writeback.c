// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=900 topo=all order=63
 *
 * Dirty page throttling holds dirty + writeback pages to the dirty limit,
 * globally and per node.
 *
 * vm.dirty_ratio is set to 5 and vm.dirty_background_ratio to 2 (both are
 * restored at exit, also on failure), then a file of half of MemTotal is
 * written with buffered writes to the scratch ext4 disk, every block with
 * the per-block pattern.  A child samples every 50 ms, during the whole
 * write: nr_dirty + nr_writeback and nr_dirty_threshold from /proc/vmstat
 * (one read), and nr_dirty + nr_writeback from every node's vmstat.
 *
 * The bound: balance_dirty_pages() keeps nr_dirty + nr_writeback around
 * the setpoint between the background and the dirty threshold, and above
 * the threshold tasks are paused.  It can be overshot by the tasks'
 * ratelimit batches (ratelimit_pages per CPU, a 32nd of the threshold in
 * all) and by writeback pages the flusher adds after the check, and the
 * global domain's hard limit follows a lowered threshold down only by
 * 1/32 every 200 ms (a writer earlier in the boot, with the default
 * ratio, may leave it high).  The documented slack is therefore
 *	bound = 3/2 * nr_dirty_threshold + 1024 pages,
 * with nr_dirty_threshold of the same sample.  (Seen on zone-debug, 1 GiB,
 * after file-stream had written with the default ratio: at most 1.00
 * times the threshold.)  Every node's nr_dirty +
 * nr_writeback must stay within the same bound (a node can never hold
 * more than the system), and the largest ratio seen is printed.
 *
 * Then the file is fsynced, the caches dropped (drop_caches 3) and the
 * file read back from disk and verified; the file is removed.
 *
 * Pass: every sample within the bound (global and per node), at least 10
 * samples taken, dirty pages seen at all (the sampler saw the write) and
 * at least 0.30 of the threshold reached at some sample (no writeback
 * starts below the background threshold, 0.40 of it: a write that never
 * got near the limit tests no bound), data intact.  The runner checks the books after the test (tests/lib/books.sh).
 *
 * Injected fault: dirty-limit uses an eighth of the threshold as the
 * bound, which a throttled writer exceeds; the check must fail.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/nodelru.h"

#define SEED		0x6469727479ULL
#define BLOCK		(1UL << 20)
#define WORDS		(BLOCK / 8)
#define MAX_NODES	8

static const char *path = "/mnt/scratch/dirty-writeback.dat";

/* What the sampler child reports, in shared memory. */
struct samples {
	volatile int stop;
	long samples;
	long over;			/* readings (global or a node's) beyond the bound */
	long long max_global;		/* most dirty + writeback pages seen */
	long long thresh_at_max;
	long long max_node[MAX_NODES];
	long long thresh_at_node_max[MAX_NODES];
	double max_ratio;		/* of dirty + writeback to threshold */
	char first_over[256];
};

static const char * const sysctls[] = {
	"/proc/sys/vm/dirty_ratio", "/proc/sys/vm/dirty_background_ratio",
	"/proc/sys/vm/dirty_bytes", "/proc/sys/vm/dirty_background_bytes",
};
static char saved[4][32];
static int nr_nodes, saved_ok;

static void read_sysctl(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "r");

	if (!f || !fgets(buf, len, f))
		test_fail("cannot read %s: %s", file, strerror(errno));
	fclose(f);
}

/* Put back the ratios, or the byte limits when those were in use. */
static void restore(void)
{
	int i;

	if (!saved_ok)
		return;
	saved_ok = 0;
	for (i = 0; i < 2; i++) {
		if (atoll(saved[i + 2]))
			write_file(sysctls[i + 2], saved[i + 2]);
		else
			write_file(sysctls[i], saved[i]);
	}
	note("restored dirty_ratio %.*s, dirty_background_ratio %.*s, dirty_bytes %.*s, dirty_background_bytes %.*s",
	     (int)strcspn(saved[0], "\n"), saved[0], (int)strcspn(saved[1], "\n"), saved[1],
	     (int)strcspn(saved[2], "\n"), saved[2], (int)strcspn(saved[3], "\n"), saved[3]);
}

static long long bound_of(long long thresh, int tight)
{
	return tight ? thresh / 8 : thresh + thresh / 2 + 1024;
}

/* nr_dirty + nr_writeback and nr_dirty_threshold of one read of PATH. */
static void dirty_of(const char *file, long long *dirty, long long *thresh)
{
	char key[64];
	long long val, d = -1, w = -1;
	FILE *f = fopen(file, "r");

	*thresh = -1;
	if (!f)
		_exit(2);
	while (fscanf(f, "%63s %lld%*[^\n]", key, &val) == 2) {
		if (!strcmp(key, "nr_dirty"))
			d = val;
		else if (!strcmp(key, "nr_writeback"))
			w = val;
		else if (!strcmp(key, "nr_dirty_threshold"))
			*thresh = val;
	}
	fclose(f);
	*dirty = d < 0 || w < 0 ? -1 : d + w;
}

static void sampler(struct samples *s, int tight)
{
	long long dirty, thresh, nd, unused;
	char file[64];
	int n;

	while (!s->stop) {
		dirty_of("/proc/vmstat", &dirty, &thresh);
		if (dirty < 0 || thresh <= 0)
			_exit(3);
		s->samples++;
		if ((double)dirty / thresh > s->max_ratio)
			s->max_ratio = (double)dirty / thresh;
		if (dirty > s->max_global) {
			s->max_global = dirty;
			s->thresh_at_max = thresh;
		}
		if (dirty > bound_of(thresh, tight) && !s->over++)
			snprintf(s->first_over, sizeof(s->first_over),
				 "/proc/vmstat: nr_dirty + nr_writeback %lld pages, bound %lld (nr_dirty_threshold %lld)",
				 dirty, bound_of(thresh, tight), thresh);
		for (n = 0; n < nr_nodes; n++) {
			snprintf(file, sizeof(file),
				 "/sys/devices/system/node/node%d/vmstat", n);
			dirty_of(file, &nd, &unused);
			if (nd < 0)
				_exit(4);
			if (nd > s->max_node[n]) {
				s->max_node[n] = nd;
				s->thresh_at_node_max[n] = thresh;
			}
			if (nd > bound_of(thresh, tight) && !s->over++)
				snprintf(s->first_over, sizeof(s->first_over),
					 "node%d: nr_dirty + nr_writeback %lld pages, bound %lld (nr_dirty_threshold %lld)",
					 n, nd, bound_of(thresh, tight), thresh);
		}
		usleep(50000);
	}
	_exit(0);
}

/* Skip without the scratch disk or room on it; the size of the file. */
static size_t file_size(long long mem_kb)
{
	struct statvfs sv;
	size_t size;

	if (mem_kb <= 0)
		test_fail("no MemTotal in /proc/meminfo");
	if (statvfs("/mnt/scratch", &sv) || access("/mnt/scratch/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on /mnt/scratch");
	size = (size_t)mem_kb * 1024 / 2 & ~(BLOCK - 1);
	if ((unsigned long long)sv.f_bavail * sv.f_frsize < size + size / 8)
		test_skip("scratch disk has %llu MiB free, needs %zu MiB",
			  (unsigned long long)sv.f_bavail * sv.f_frsize >> 20,
			  (size + size / 8) >> 20);
	return size;
}

static void count_nodes(void)
{
	for (nr_nodes = 0; nr_nodes < MAX_NODES; nr_nodes++) {
		char file[64];

		snprintf(file, sizeof(file), "/sys/devices/system/node/node%d/vmstat",
			 nr_nodes);
		if (access(file, R_OK))
			break;
	}
	if (!nr_nodes)
		test_fail("expected /sys/devices/system/node/node0/vmstat, it is missing");
}

/* Save the four sysctls (restore() puts them back), set ratios 5 and 2. */
static void set_ratios(void)
{
	int n;

	for (n = 0; n < 4; n++)
		read_sysctl(sysctls[n], saved[n], sizeof(saved[n]));
	saved_ok = 1;
	atexit(restore);
	write_file("/proc/sys/vm/dirty_background_ratio", "2\n");
	write_file("/proc/sys/vm/dirty_ratio", "5\n");
}

/* The sample area shared with the sampler, and the I/O buffer. */
static void allocate(struct samples **s, uint64_t **buf)
{
	*s = mmap(NULL, sizeof(**s), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	*buf = malloc(BLOCK);
	if (*s == MAP_FAILED || !*buf)
		test_fail("cannot allocate the sample area or the I/O buffer");
	memset(*s, 0, sizeof(**s));
}

/* Write the file while the sampler watches; fsync it, sysctls back. */
static void write_sampled(struct samples *s, uint64_t *buf, size_t nblocks,
			  int tight)
{
	int fd, n, status;
	pid_t pid;

	elapsed();
	pid = fork_or_fail();
	if (!pid)
		sampler(s, tight);

	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		test_fail("cannot create %s: %s", path, strerror(errno));
	pattern_blocks_write(fd, path, buf, BLOCK, nblocks, SEED);
	s->stop = 1;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		test_fail("sampler: expected exit 0, saw status %#x", status);
	note("%.1fs: written; %ld samples, max nr_dirty + nr_writeback %lld pages at nr_dirty_threshold %lld (largest ratio %.2f)",
	     elapsed(), s->samples, s->max_global, s->thresh_at_max, s->max_ratio);
	for (n = 0; n < nr_nodes; n++)
		note("node%d: max nr_dirty + nr_writeback %lld pages at nr_dirty_threshold %lld",
		     n, s->max_node[n], s->thresh_at_node_max[n]);
	if (fsync(fd) || close(fd))
		test_fail("fsync/close of %s failed: %s", path, strerror(errno));
	restore();
}

/* Drop the caches, read the file back from disk and verify it; remove it. */
static void read_back(uint64_t *buf, size_t nblocks)
{
	size_t b;
	long w;
	int fd;

	sync();
	write_file("/proc/sys/vm/drop_caches", "3\n");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		test_fail("cannot open %s: %s", path, strerror(errno));
	for (b = 0; b < nblocks; b++) {
		if (read(fd, buf, BLOCK) != (ssize_t)BLOCK)
			test_fail("short read of block %zu of %s", b, path);
		w = check_pattern(buf, WORDS, SEED, b);
		if (w >= 0)
			test_fail("file data lost: expected %016llx at offset %zu (block %zu word %ld), saw %016llx",
				  (unsigned long long)pattern(SEED, b, w),
				  b * BLOCK + w * 8, b, w,
				  (unsigned long long)buf[w]);
	}
	close(fd);
	if (unlink(path))
		test_fail("cannot remove %s: %s", path, strerror(errno));
	note("%.1fs: read back after drop_caches and verified", elapsed());
}

/* Enough samples, dirty pages seen, every reading within the bound. */
static void check_samples(const struct samples *s)
{
	if (s->samples < 10)
		test_fail("too few samples: expected at least 10, saw %ld", s->samples);
	if (s->max_global <= 0)
		test_fail("the sampler never saw dirty pages: expected nr_dirty + nr_writeback > 0, saw %lld",
			  s->max_global);
	/*
	 * Nothing is written back before the background threshold (2/5 of
	 * the dirty threshold here; periodic writeback waits for 30 s old
	 * pages), so the write must bring dirty + writeback to at least
	 * 3/10 of the threshold: else the bound was never tested.
	 */
	if (s->max_ratio < 0.3)
		test_fail("expected the write to bring nr_dirty + nr_writeback to at least 0.30 of nr_dirty_threshold (the background threshold is 0.40), saw at most %.2f",
			  s->max_ratio);
	if (s->over)
		test_fail("dirty limit exceeded in %ld of %ld readings (%ld samples of /proc/vmstat and %d node(s)); first: %s",
			  s->over, s->samples * (1 + nr_nodes), s->samples,
			  nr_nodes, s->first_over);
}

int main(void)
{
	long long mem_kb = meminfo_kb("MemTotal:");
	int tight = injected("dirty-limit");
	size_t size, nblocks;
	struct samples *s;
	uint64_t *buf;

	size = file_size(mem_kb);
	nblocks = size / BLOCK;
	count_nodes();
	set_ratios();
	note("MemTotal %lld kB, %d node(s): writing %zu MiB with dirty_ratio 5, dirty_background_ratio 2; nr_dirty_threshold now %lld pages",
	     mem_kb, nr_nodes, size >> 20, vmstat("nr_dirty_threshold"));
	note("pass: nr_dirty + nr_writeback (global and per node) <= %s every 50 ms, data intact after drop_caches",
	     tight ? "nr_dirty_threshold / 8 (injected dirty-limit)" :
	     "3/2 * nr_dirty_threshold + 1024 pages");

	allocate(&s, &buf);
	write_sampled(s, buf, nblocks, tight);
	read_back(buf, nblocks);
	check_samples(s);
	note("ok: %zu MiB written within the dirty bound (largest ratio to the threshold %.2f), verified",
	     size >> 20, s->max_ratio);
	return KSFT_PASS;
}
