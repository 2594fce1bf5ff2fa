// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=smoke timeout=900 topo=all
 *
 * A short anon + file pressure run under swap, with every byte checked.
 *
 * A file of a sixth of RAM is written to the scratch ext4 disk, then an
 * anon region of MemTotal plus a thirty-second of it is filled with a
 * per-page pattern.  That cannot fit even with all page cache dropped
 * (the kernel's own memory and the watermark reserves come out of
 * MemTotal too), so reclaim must drop page cache and swap anon pages.  The
 * anon region is then verified (swapped pages come back in), and the file
 * is read back and verified.  Pass: all data intact, and reclaim really
 * ran (pages were scanned and swapped out), so the test cannot pass
 * without exercising what it claims to.
 */
#include <fcntl.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/nodelru.h"

#define SEED		0x6e6f64656c7275ULL
#define BUF_SIZE	(1UL << 20)

static const char * const counters[] = {
	"pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct",
	"pswpout", "pswpin", "allocstall_dma32", "allocstall_normal",
	"workingset_refault_file", "oom_kill",
};
#define NR_COUNTERS	(sizeof(counters) / sizeof(counters[0]))

static void fill(uint64_t *buf, size_t words, uint64_t block)
{
	size_t i;

	for (i = 0; i < words; i++)
		buf[i] = pattern(SEED, block, i);
}

static void write_pattern_file(const char *path, size_t size)
{
	uint64_t *buf = malloc(BUF_SIZE);
	size_t off;
	int fd;

	if (!buf)
		test_fail("malloc of the I/O buffer failed");
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		test_fail("cannot create %s: %s", path, strerror(errno));
	for (off = 0; off < size; off += BUF_SIZE) {
		fill(buf, BUF_SIZE / 8, off / BUF_SIZE);
		if (write(fd, buf, BUF_SIZE) != (ssize_t)BUF_SIZE)
			test_fail("short write at offset %zu of %s", off, path);
	}
	if (fsync(fd) || close(fd))
		test_fail("fsync/close of %s failed: %s", path, strerror(errno));
	free(buf);
}

static void verify_pattern_file(const char *path, size_t size)
{
	uint64_t *buf = malloc(BUF_SIZE);
	size_t off, i;
	int fd;

	if (!buf)
		test_fail("malloc of the I/O buffer failed");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		test_fail("cannot open %s: %s", path, strerror(errno));
	for (off = 0; off < size; off += BUF_SIZE) {
		if (read(fd, buf, BUF_SIZE) != (ssize_t)BUF_SIZE)
			test_fail("short read at offset %zu of %s", off, path);
		for (i = 0; i < BUF_SIZE / 8; i++) {
			uint64_t want = pattern(SEED, off / BUF_SIZE, i);

			if (buf[i] != want)
				test_fail("file data lost: %s offset %zu: expected %016llx, saw %016llx",
					  path, off + i * 8,
					  (unsigned long long)want,
					  (unsigned long long)buf[i]);
		}
	}
	close(fd);
	free(buf);
}

int main(void)
{
	const char *path = "/mnt/scratch/pressure-smoke.dat";
	long long before[NR_COUNTERS], delta[NR_COUNTERS];
	long long mem_kb = meminfo_kb("MemTotal:");
	long long swap_kb = meminfo_kb("SwapTotal:");
	long long avail_kb = meminfo_kb("MemAvailable:");
	size_t page = sysconf(_SC_PAGESIZE);
	size_t anon_size, file_size, npages, p, w;
	uint64_t *anon;
	unsigned int i;

	if (mem_kb <= 0)
		test_fail("no MemTotal in /proc/meminfo");
	if (swap_kb < mem_kb / 2)
		test_skip("needs swap of at least half of RAM (MemTotal %lld kB, SwapTotal %lld kB)",
			  mem_kb, swap_kb);
	if (access("/mnt/scratch/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on /mnt/scratch");

	anon_size = (size_t)(mem_kb + mem_kb / 32) * 1024;
	file_size = ((size_t)mem_kb * 1024 / 6) & ~(BUF_SIZE - 1);
	npages = anon_size / page;
	note("MemTotal %lld kB, MemAvailable %lld kB, SwapTotal %lld kB: file %zu MiB, anon %zu MiB",
	     mem_kb, avail_kb, swap_kb, file_size >> 20, anon_size >> 20);

	for (i = 0; i < NR_COUNTERS; i++)
		before[i] = vmstat(counters[i]);

	elapsed();
	write_pattern_file(path, file_size);
	note("%.1fs: file written", elapsed());

	anon = mmap(NULL, anon_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		test_fail("mmap of %zu bytes failed: %s", anon_size, strerror(errno));
	for (p = 0; p < npages; p++) {
		uint64_t *pg = anon + p * (page / 8);

		for (w = 0; w < page / 8; w++)
			pg[w] = pattern(SEED, p, w);
	}
	note("%.1fs: anon filled", elapsed());
	for (p = 0; p < npages; p++) {
		uint64_t *pg = anon + p * (page / 8);

		for (w = 0; w < page / 8; w++) {
			if (pg[w] != pattern(SEED, p, w))
				test_fail("anon data lost: page %zu word %zu: expected %016llx, saw %016llx",
					  p, w,
					  (unsigned long long)pattern(SEED, p, w),
					  (unsigned long long)pg[w]);
		}
	}
	munmap(anon, anon_size);
	note("%.1fs: anon verified", elapsed());

	verify_pattern_file(path, file_size);
	note("%.1fs: file verified", elapsed());
	if (unlink(path))
		test_fail("cannot remove %s: %s", path, strerror(errno));

	for (i = 0; i < NR_COUNTERS; i++) {
		delta[i] = vmstat(counters[i]);
		delta[i] = delta[i] < 0 ? -1 : delta[i] - before[i];
		note("%s +%lld", counters[i], delta[i]);
	}
	/* counters[0..1] are the scans, [4] the swap-outs. */
	if (delta[0] + delta[1] <= 0)
		test_fail("reclaim never ran: expected pgscan_kswapd + pgscan_direct > 0, saw %lld",
			  delta[0] + delta[1]);
	if (delta[4] <= 0)
		test_fail("nothing was swapped: expected pswpout > 0, saw %lld",
			  delta[4]);
	note("all %zu anon pages and %zu MiB of file data verified",
	     npages, file_size >> 20);
	return KSFT_PASS;
}
