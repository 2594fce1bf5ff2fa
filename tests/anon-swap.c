// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=1200 topo=all order=60
 *
 * Anon working set of 1.5 times RAM through swap, every word checked.
 *
 * An anon region of 3/2 of MemTotal is filled page by page with the
 * per-page pattern.  Half a RAM of it cannot be resident, so reclaim must
 * swap anon pages out (kswapd, and direct reclaim when kswapd falls
 * behind).  The region is then verified from its end to its start: the
 * last pages written are the ones still resident, the first ones come back
 * from swap, and every verified 2 MiB is dropped (MADV_DONTNEED) so that
 * swapping them in does not push pages still to be checked out again.
 *
 * The reclaim figures are printed: pgscan/pgsteal of kswapd and direct
 * reclaim, pswpin/pswpout, allocstall_* and kswapd efficiency
 * (pgsteal_kswapd / pgscan_kswapd).
 *
 * Pass: every word of every page intact and pswpout > 0 (the region
 * really went through swap); the runner checks the books after the test (tests/lib/books.sh).
 *
 * Injected fault: anon-corrupt flips one bit of one word of one page
 * after the fill; the verification must fail naming page and word.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "lib/nodelru.h"

#define SEED	0x616e6f6e73776170ULL
#define CHUNK	(2UL << 20)

static const char * const names[] = {
	"pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct",
	"pswpin", "pswpout", "allocstall_dma", "allocstall_dma32",
	"allocstall_normal", "allocstall_movable", "oom_kill",
};
#define NR_NAMES	(sizeof(names) / sizeof(names[0]))

static double ratio(long long a, long long b)
{
	return b > 0 ? (double)a / b : 0.0;
}

int main(void)
{
	long long mem_kb = meminfo_kb("MemTotal:");
	long long avail_kb = meminfo_kb("MemAvailable:");
	long long swap_kb = meminfo_kb("SwapFree:");
	size_t page = sysconf(_SC_PAGESIZE), words = page / 8;
	struct counters before, after;
	size_t size, npages, p, bad = 0, first_page = 0;
	long first_word = -1, w;
	long long scan_k, scan_d, steal_k, steal_d, out;
	uint64_t *anon;
	char *end;

	if (mem_kb <= 0 || avail_kb <= 0 || swap_kb < 0)
		test_fail("expected MemTotal, MemAvailable and SwapFree in /proc/meminfo, saw %lld, %lld, %lld",
			  mem_kb, avail_kb, swap_kb);
	size = (size_t)mem_kb * 1024 / 2 * 3;
	size &= ~(CHUNK - 1);
	npages = size / page;
	note("MemTotal %lld kB, MemAvailable %lld kB, SwapFree %lld kB: anon region %zu MiB (3/2 of RAM)",
	     mem_kb, avail_kb, swap_kb, size >> 20);
	/* What does not fit in available memory must fit in swap, with 1/4 spare. */
	if ((long long)(size >> 10) - avail_kb > swap_kb * 3 / 4)
		test_skip("needs %lld kB of swap for %zu MiB of anon, SwapFree is %lld kB",
			  ((long long)(size >> 10) - avail_kb) * 4 / 3,
			  size >> 20, swap_kb);
	note("pass: all %zu pages intact after swap-out/in, and pswpout > 0",
	     npages);

	elapsed();
	counters_read(&before, names, NR_NAMES);
	anon = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		test_fail("mmap of %zu bytes failed: %s", size, strerror(errno));
	for (p = 0; p < npages; p++)
		fill_pattern(anon + p * words, words, SEED, p);
	note("%.1fs: %zu pages filled; SwapFree now %lld kB", elapsed(), npages,
	     meminfo_kb("SwapFree:"));
	if (injected("anon-corrupt"))
		anon[npages / 3 * words + 17] ^= 1ULL << 40;

	/* Verify backwards, dropping every verified chunk. */
	end = (char *)anon + size;
	for (p = npages; p-- > 0; ) {
		w = check_pattern(anon + p * words, words, SEED, p);
		if (w >= 0) {
			if (!bad++) {
				first_page = p;
				first_word = w;
			}
			note("page %zu word %ld: expected %016llx, saw %016llx",
			     p, w,
			     (unsigned long long)pattern(SEED, p, w),
			     (unsigned long long)anon[p * words + w]);
		}
		if ((p * page) % CHUNK == 0) {
			madvise((char *)anon + p * page, end - ((char *)anon + p * page),
				MADV_DONTNEED);
			end = (char *)anon + p * page;
		}
	}
	munmap(anon, size);
	counters_read(&after, names, NR_NAMES);
	note("%.1fs: verified", elapsed());

	counters_print(&before, &after);
	scan_k = counter_delta(&before, &after, "pgscan_kswapd");
	scan_d = counter_delta(&before, &after, "pgscan_direct");
	steal_k = counter_delta(&before, &after, "pgsteal_kswapd");
	steal_d = counter_delta(&before, &after, "pgsteal_direct");
	out = counter_delta(&before, &after, "pswpout");
	note("kswapd: scanned %lld stole %lld, efficiency %.1f%%; direct: scanned %lld stole %lld, efficiency %.1f%%",
	     scan_k, steal_k, 100 * ratio(steal_k, scan_k),
	     scan_d, steal_d, 100 * ratio(steal_d, scan_d));
	note("swapped out %lld MiB, in %lld MiB",
	     out * (long long)page >> 20,
	     counter_delta(&before, &after, "pswpin") * (long long)page >> 20);

	if (bad)
		test_fail("anon data lost: expected all %zu pages intact, saw %zu bad pages, first page %zu word %ld",
			  npages, bad, first_page, first_word);
	if (out <= 0)
		test_fail("nothing was swapped: expected pswpout > 0, saw %lld", out);
	note("ok: %zu pages (%zu MiB) intact through swap, pswpout +%lld",
	     npages, size >> 20, out);
	return KSFT_PASS;
}
