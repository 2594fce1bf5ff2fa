// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=smoke timeout=900 topo=all
 *
 * A short anon + file pressure run under swap, with every byte checked.
 *
 *   pressure-smoke [heavy]
 *
 * A file of a thirty-second of RAM is written to the scratch ext4 disk.
 * Then all but 256 MiB of what is free is taken by an mlocked region in
 * huge pages (cheap to fault under TCG, never reclaimed or swapped; base
 * pages if THP is off), and an anon region of what is then free plus
 * all page cache and reclaimable slab plus a thirty-second of RAM is
 * filled with a per-page pattern.  That cannot fit even with all page
 * cache and slab dropped, so reclaim must drop page cache and swap anon
 * pages.  The anon region is then verified (swapped pages come back in),
 * and the file is read back and verified.  Pass: all data intact, and
 * reclaim really ran (pages were scanned and swapped out), so the test
 * cannot pass without exercising what it claims to.
 *
 * Sizes: the smoke set runs this on four boots of a first verdict, so it
 * does the least that still makes reclaim drop page cache and swap.  The
 * earlier sizes (a sixteenth of RAM for file and overshoot, 448 MiB left
 * free) took 60 to 73 s a boot on the 3 GiB guest, some 800 MiB swapped
 * out and most of it read back by the verify pass; "heavy" keeps them for
 * callers that want more direct reclaim out of it (direct-zones uses it
 * as its load).
 *
 * Injected fault: pressure-corrupt flips one bit of an anon page after
 * the fill, so the verify pass must fail.
 */
#include <fcntl.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/nodelru.h"

#define SEED		0x6e6f64656c7275ULL
#define MIB		(1UL << 20)

static const char * const counters[] = {
	"pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct",
	"pswpout", "pswpin", "allocstall_dma32", "allocstall_normal",
	"workingset_refault_file", "oom_kill",
};
#define NR_COUNTERS	(sizeof(counters) / sizeof(counters[0]))

int main(int argc, char **argv)
{
	const char *path = "/mnt/scratch/pressure-smoke.dat";
	long long before[NR_COUNTERS], delta[NR_COUNTERS];
	long long mem_kb = meminfo_kb("MemTotal:");
	long long swap_kb = meminfo_kb("SwapTotal:");
	long long avail_kb = meminfo_kb("MemAvailable:");
	size_t page = sysconf(_SC_PAGESIZE);
	size_t anon_size, file_size, npages, hog_size, hp = 2UL << 20;
	uint64_t *anon;
	char *hog, *hog_map;
	long long free_b;
	long long leave_mib = 256, div = 32;
	unsigned int i;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "heavy")))
		test_fail("usage: pressure-smoke [heavy]");
	if (argc == 2) {
		leave_mib = 448;
		div = 16;
	}
	if (mem_kb <= 0)
		test_fail("no MemTotal in /proc/meminfo");
	if (swap_kb < mem_kb / 2)
		test_skip("needs swap of at least half of RAM (MemTotal %lld kB, SwapTotal %lld kB)",
			  mem_kb, swap_kb);
	if (access("/mnt/scratch/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on /mnt/scratch");

	file_size = ((size_t)mem_kb * 1024 / div) & ~(MIB - 1);
	note("MemTotal %lld kB, MemAvailable %lld kB, SwapTotal %lld kB: file %zu MiB (MemTotal/%lld), %lld MiB left free",
	     mem_kb, avail_kb, swap_kb, file_size >> 20, div, leave_mib);

	for (i = 0; i < NR_COUNTERS; i++)
		before[i] = vmstat(counters[i]);

	elapsed();
	pattern_file_write(path, file_size, SEED + 1);
	note("%.1fs: file written", elapsed());

	free_b = meminfo_kb("MemFree:") * 1024 - leave_mib * (long long)MIB;
	hog_size = free_b > 0 ? (size_t)free_b & ~(hp - 1) : 0;
	hog_map = mmap(NULL, hog_size + hp, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hog_map == MAP_FAILED)
		test_fail("mmap of the %zu MiB hog failed: %s", hog_size >> 20,
			  strerror(errno));
	hog = (char *)(((uintptr_t)hog_map + hp - 1) & ~(hp - 1));
	madvise(hog, hog_size, MADV_HUGEPAGE);
	if (hog_size && mlock(hog, hog_size))
		test_fail("mlock of the %zu MiB hog failed: %s", hog_size >> 20,
			  strerror(errno));
	note("%.1fs: %zu MiB mlocked (MemFree now %lld kB, AnonHugePages %lld kB)",
	     elapsed(), hog_size >> 20, meminfo_kb("MemFree:"),
	     meminfo_kb("AnonHugePages:"));
	/*
	 * More than all that reclaim could free without swap: what is free,
	 * all page cache and reclaimable slab, plus MemTotal/div.
	 */
	anon_size = (size_t)(meminfo_kb("MemFree:") + meminfo_kb("Cached:") +
			     meminfo_kb("SReclaimable:") + mem_kb / div) * 1024 &
		    ~(MIB - 1);
	npages = anon_size / page;
	note("anon %zu MiB: MemFree + Cached + SReclaimable + MemTotal/%lld",
	     anon_size >> 20, div);

	anon = mmap(NULL, anon_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		test_fail("mmap of %zu bytes failed: %s", anon_size, strerror(errno));
	fill_pages(anon, npages, SEED);
	note("%.1fs: anon filled", elapsed());
	/* Early pages are the ones swapped out by the time the fill ends. */
	if (injected("pressure-corrupt"))
		anon[npages / 4 * (page / sizeof(*anon)) + 5] ^= 1ULL << 33;
	verify_pages("anon", anon, npages, SEED);
	munmap(anon, anon_size);
	munmap(hog_map, hog_size + hp);
	note("%.1fs: anon verified", elapsed());

	pattern_file_verify(path, file_size, SEED + 1);
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
