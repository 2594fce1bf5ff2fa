// SPDX-License-Identifier: GPL-2.0
/*
 * anon-twice: an anon working set larger than RAM, touched twice, every
 * word checked.
 *
 *   anon-twice MIB
 *
 * Pass 1 fills MIB MiB of anon memory (base pages, no THP) with the
 * per-page pattern, first page to last: what does not fit goes to swap.
 * /proc/self/pagemap then says how many pages are resident and how many
 * swapped out (a direct count, the same on every kernel).  Pass 2 reads
 * and checks every word, last page first (what pass 1 swapped out first
 * comes back last), and drops each checked 2 MiB (MADV_DONTNEED) so that
 * swapping in the rest does not push unchecked pages out again: pass 2
 * swaps in what pass 1 left in swap and no more, which keeps the swap
 * traffic (slow under TCG) to about twice what did not fit.
 *
 * Prints (bench-report.py reads these):
 *   bench: anon pages N
 *   bench: anon pass1_swapped_pages S   pagemap, after the fill
 *   bench: anon pass1_resident_pages R
 *   bench: anon pass2_majflt J          this process's major faults
 *   bench: anon passK_s T               seconds (TCG time)
 *   bench: anon passK_COUNTER D         vmstat deltas (lib/bench.h)
 *   bench: anon pages_verified N        every word of every page checked
 * Exit 1 with "FAIL: ..." naming page and word when a word is wrong, or
 * when a page is neither resident nor in swap after the fill.
 *
 * Injected fault: anon-twice-corrupt flips one bit of one word of one
 * page after the fill; the check must fail naming page and word.
 */
#include "lib/bench.h"

#define SEED	0x74776963656f6e61ULL
#define DROP	(2UL << 20)

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE), words = page / 8, size, npages;
	size_t present, swapped, pg, w, per_drop = DROP / page;
	struct counters before, after;
	long long majflt;
	uint64_t *anon;
	double t0;

	if (argc != 2) {
		fprintf(stderr, "usage: anon-twice MIB\n");
		return 2;
	}
	size = ((size_t)strtoull(argv[1], NULL, 0) << 20) & ~(DROP - 1);
	if (!size)
		test_fail("anon-twice: size %s MiB", argv[1]);
	npages = size / page;
	bench_ll("anon", "pages", npages);
	anon = bench_anon(size);

	bench_vm_read(&before);
	t0 = elapsed();
	fill_pages(anon, npages, SEED);
	bench_dbl("anon", "pass1_s", elapsed() - t0);
	bench_vm_read(&after);
	bench_vm_print("anon", "pass1", &before, &after);
	bench_pagemap(anon, npages, &present, &swapped);
	bench_ll("anon", "pass1_resident_pages", present);
	bench_ll("anon", "pass1_swapped_pages", swapped);
	note("anon pass 1: %zu pages filled, %zu resident, %zu in swap",
	     npages, present, swapped);
	if (present + swapped != npages)
		test_fail("after the fill, expected each of %zu pages resident or in swap, saw %zu resident and %zu in swap",
			  npages, present, swapped);
	if (injected("anon-twice-corrupt"))
		anon[(npages / 3) * words + 5] ^= 1ULL << 17;

	bench_vm_read(&before);
	majflt = bench_majflt();
	t0 = elapsed();
	for (pg = npages; pg-- > 0;) {
		for (w = 0; w < words; w++) {
			uint64_t want = pattern(SEED, pg, w);

			if (anon[pg * words + w] != want)
				test_fail("anon data lost: page %zu word %zu: expected %016llx, saw %016llx",
					  pg, w, (unsigned long long)want,
					  (unsigned long long)anon[pg * words + w]);
		}
		if (pg % per_drop == 0)
			madvise(anon + pg * words, DROP, MADV_DONTNEED);
	}
	bench_dbl("anon", "pass2_s", elapsed() - t0);
	bench_ll("anon", "pass2_majflt", bench_majflt() - majflt);
	bench_vm_read(&after);
	bench_vm_print("anon", "pass2", &before, &after);
	bench_ll("anon", "pages_verified", npages);
	note("anon pass 2: all %zu pages intact", npages);
	munmap(anon, size);
	return 0;
}
