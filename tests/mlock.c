// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=900 topo=all order=62
 *
 * mlocked pages stay resident and unevictable under pressure.
 *
 * A region of an eighth of MemTotal is filled with the per-page pattern
 * and mlocked.  Mlocked: and Unevictable: in /proc/meminfo must grow by
 * its size.  A child then fills anon memory of MemTotal, more than what
 * is left, so reclaim swaps the child's pages (and would swap the region,
 * the oldest anon, were it evictable).  After the child is gone:
 *   - the region's VMA in /proc/self/smaps shows Swap: 0 kB and Locked:
 *     the region size, and mincore() finds every page resident;
 *   - Mlocked: and Unevictable: are still up by the region size;
 *   - every word of the region is intact.
 * Then the region is munlocked, and Mlocked: and Unevictable: must be
 * back where they started.  The runner checks the books after the test
 * (tests/lib/books.sh).
 *
 * "By the region size" means within 3% of it plus 1 MiB (per-cpu mlock
 * batches and other tasks); all counters are read after vm.stat_refresh.
 *
 * Pass: all of the above, and the pressure really swapped (pswpout grew).
 * Every check is made and every failure printed before the verdict.
 *
 * Injected fault: mlock-skip leaves the region unlocked; the Mlocked: and
 * Unevictable: growth, Locked: and (when reclaim picks the region) Swap:
 * checks must fail.
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/nodelru.h"

#define SEED	0x6d6c6f636b6564ULL
#define ALIGN	(2UL << 20)

static int failures;

static void __attribute__((format(printf, 1, 2))) check_fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures++;
}

/* Mlocked: and Unevictable: in kB, after folding the per-cpu counters. */
static void locked_kb(long long *mlocked, long long *unevictable)
{
	stat_refresh();
	*mlocked = meminfo_kb("Mlocked:");
	*unevictable = meminfo_kb("Unevictable:");
	if (*mlocked < 0 || *unevictable < 0)
		test_fail("expected Mlocked: and Unevictable: in /proc/meminfo, saw %lld and %lld",
			  *mlocked, *unevictable);
}

static void check_growth(const char *what, const char *name, long long before,
			 long long now, long long want, long long tol)
{
	long long grew = now - before;

	note("%s: %s %lld kB -> %lld kB (%+lld kB, expected %+lld kB +-%lld)",
	     what, name, before, now, grew, want, tol);
	if (grew < want - tol || grew > want + tol)
		check_fail("%s: expected %s to change by %+lld kB (+-%lld), saw %+lld kB",
			   what, name, want, tol, grew);
}

/* Swap: and Locked: of the VMA starting at ADDR, from /proc/self/smaps. */
static void vma_kb(void *addr, long long *swap, long long *locked)
{
	unsigned long start = (unsigned long)addr, s, e;
	char line[512], key[64];
	long long val;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	*swap = *locked = -1;
	if (!f)
		test_fail("cannot open /proc/self/smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = s == start;
			continue;
		}
		if (!in || sscanf(line, "%63s %lld", key, &val) != 2)
			continue;
		if (!strcmp(key, "Swap:"))
			*swap = val;
		else if (!strcmp(key, "Locked:"))
			*locked = val;
	}
	fclose(f);
	if (*swap < 0 || *locked < 0)
		test_fail("no VMA at %lx with Swap: and Locked: in /proc/self/smaps", start);
}

/* A child that writes SIZE bytes of anon memory, a word a page, and exits. */
static void pressure(size_t size, size_t page)
{
	pid_t pid = fork_or_fail();
	int status;

	if (!pid) {
		char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t off;

		if (p == MAP_FAILED)
			_exit(2);
		for (off = 0; off < size; off += page)
			*(size_t *)(p + off) = off;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		test_fail("waitpid failed: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		test_fail("pressure child: expected exit 0, saw status %#x", status);
}

int main(void)
{
	long long mem_kb = meminfo_kb("MemTotal:");
	long long swap_kb = meminfo_kb("SwapFree:");
	long long m0, u0, m1, u1, m2, u2, m3, u3, swap, locked, tol, want;
	long long out0, out;
	size_t page = sysconf(_SC_PAGESIZE), words = page / 8;
	size_t size, npages, p, bad = 0, resident = 0;
	unsigned char *vec;
	uint64_t *region;
	long w;

	if (mem_kb <= 0 || swap_kb < 0)
		test_fail("expected MemTotal and SwapFree in /proc/meminfo, saw %lld and %lld",
			  mem_kb, swap_kb);
	size = (size_t)mem_kb * 1024 / 8 & ~(ALIGN - 1);
	npages = size / page;
	want = size >> 10;
	tol = want * 3 / 100 + 1024;
	/* region + pressure = 9/8 RAM: what does not fit must go to swap */
	if (swap_kb < mem_kb / 2)
		test_skip("needs SwapFree of half of MemTotal (%lld kB), saw %lld kB",
			  mem_kb / 2, swap_kb);
	note("MemTotal %lld kB, SwapFree %lld kB: locked region %zu MiB, pressure %lld MiB",
	     mem_kb, swap_kb, size >> 20, mem_kb >> 10);
	note("pass: region never swapped (smaps Swap: 0, all resident), Mlocked/Unevictable +%lld kB +-%lld while locked and back after munlock, data intact",
	     want, tol);

	elapsed();
	locked_kb(&m0, &u0);
	region = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	vec = malloc(npages);
	if (region == MAP_FAILED || !vec)
		test_fail("mmap of %zu bytes failed: %s", size, strerror(errno));
	for (p = 0; p < npages; p++)
		fill_pattern(region + p * words, words, SEED, p);
	if (!injected("mlock-skip") && mlock(region, size))
		test_fail("mlock of %zu bytes failed: %s", size, strerror(errno));
	locked_kb(&m1, &u1);
	check_growth("locked", "Mlocked:", m0, m1, want, tol);
	check_growth("locked", "Unevictable:", u0, u1, want, tol);

	out0 = vmstat("pswpout");
	pressure((size_t)mem_kb * 1024, page);
	out = vmstat("pswpout") - out0;
	note("%.1fs: pressure done, pswpout +%lld", elapsed(), out);
	if (out <= 0)
		check_fail("the pressure did not swap: expected pswpout > 0, saw %lld", out);

	vma_kb(region, &swap, &locked);
	note("region VMA: Swap: %lld kB, Locked: %lld kB", swap, locked);
	if (swap)
		check_fail("mlocked region was swapped: expected Swap: 0 kB, saw %lld kB", swap);
	if (locked != want)
		check_fail("expected Locked: %lld kB for the region, saw %lld kB", want, locked);
	if (mincore(region, size, vec))
		test_fail("mincore failed: %s", strerror(errno));
	for (p = 0; p < npages; p++)
		resident += vec[p] & 1;
	if (resident != npages)
		check_fail("expected all %zu pages of the region resident (mincore), saw %zu",
			   npages, resident);
	locked_kb(&m2, &u2);
	check_growth("after pressure", "Mlocked:", m0, m2, want, tol);
	check_growth("after pressure", "Unevictable:", u0, u2, want, tol);

	for (p = 0; p < npages; p++) {
		w = check_pattern(region + p * words, words, SEED, p);
		if (w >= 0 && !bad++)
			check_fail("region data lost: page %zu word %ld: expected %016llx, saw %016llx",
				   p, w, (unsigned long long)pattern(SEED, p, w),
				   (unsigned long long)region[p * words + w]);
	}
	if (bad)
		check_fail("expected all %zu pages of the region intact, %zu are not", npages, bad);

	if (munlock(region, size))
		test_fail("munlock failed: %s", strerror(errno));
	locked_kb(&m3, &u3);
	check_growth("after munlock", "Mlocked:", m0, m3, 0, tol);
	check_growth("after munlock", "Unevictable:", u0, u3, 0, tol);
	munmap(region, size);
	note("%.1fs: done", elapsed());

	if (failures)
		test_fail("%d check(s) failed (above)", failures);
	note("ok: %zu MiB mlocked stayed resident and intact through pressure swapping %lld pages",
	     size >> 20, out);
	return KSFT_PASS;
}
