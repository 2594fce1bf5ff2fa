/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the benchmark tools (tests/tools/reread.c, anon-twice.c,
 * hot-cold.c): figures in the format scripts/bench-report.py reads
 * ("bench: WORKLOAD METRIC VALUE"), vmstat deltas per phase, and direct
 * counts of what is resident: mincore() for page cache, /proc/self/pagemap
 * for anon memory.  The direct counts matter because the kernels compared
 * do not count the same way: the multi-gen LRU of 6.1 never counts
 * workingset_activate_*, counts a refault only while the shadow entry's
 * generation is still the oldest one, and counts in pgscan_* only the
 * pages it isolates.  A page found or not found in memory is the same
 * thing on every kernel.
 */
#ifndef NODELRU_BENCH_H
#define NODELRU_BENCH_H

#include <sys/resource.h>

#include "lib/nodelru.h"

/* "bench: WORKLOAD METRIC VALUE" (an integer figure). */
static inline void bench_ll(const char *workload, const char *metric,
			    long long val)
{
	printf("bench: %s %s %lld\n", workload, metric, val);
}

/* "bench: WORKLOAD METRIC VALUE" (a fractional figure). */
static inline void bench_dbl(const char *workload, const char *metric,
			     double val)
{
	printf("bench: %s %s %.3f\n", workload, metric, val);
}

/*
 * The vmstat counters one phase reports, after the per-cpu differentials
 * are folded (vm.stat_refresh), so that node counters such as
 * workingset_refault_file are exact.
 */
static const char * const bench_vm_names[] = {
	"pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct",
	"pgrefill", "pswpin", "pswpout",
	"workingset_refault_anon", "workingset_refault_file",
	"workingset_activate_anon", "workingset_activate_file",
	"workingset_restore_anon", "workingset_restore_file",
	"pgmajfault", "oom_kill",
};

#define BENCH_VM_N	(sizeof(bench_vm_names) / sizeof(bench_vm_names[0]))

static inline void bench_vm_read(struct counters *c)
{
	stat_refresh();
	counters_read(c, bench_vm_names, BENCH_VM_N);
}

/*
 * "bench: WORKLOAD PHASE_COUNTER DELTA" for every counter of
 * bench_vm_names the kernel has.
 */
static inline void bench_vm_print(const char *workload, const char *phase,
				  const struct counters *before,
				  const struct counters *after)
{
	char metric[128];
	unsigned int i;
	long long d;

	for (i = 0; i < BENCH_VM_N; i++) {
		d = counter_delta(before, after, bench_vm_names[i]);
		if (d < 0)
			continue;
		snprintf(metric, sizeof(metric), "%s_%s", phase,
			 bench_vm_names[i]);
		bench_ll(workload, metric, d);
	}
}

/* This process's major faults so far (getrusage). */
static inline long long bench_majflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		test_fail("getrusage: %s", strerror(errno));
	return ru.ru_majflt;
}

/*
 * Pages of the file mapping MAP (NPAGES long, never touched) that are in
 * the page cache, by mincore(); VEC holds NPAGES bytes.
 */
static inline size_t bench_resident(void *map, size_t npages,
				    unsigned char *vec)
{
	size_t i, n = 0;

	if (mincore(map, npages * sysconf(_SC_PAGESIZE), vec))
		test_fail("mincore failed: %s", strerror(errno));
	for (i = 0; i < npages; i++)
		n += vec[i] & 1;
	return n;
}

#define PM_SWAP_BIT	(1ULL << 62)
#define PM_PRESENT_BIT	(1ULL << 63)

/* The populated zones of /proc/zoneinfo: "nodeN/ZONE", first pfn, pages. */
#define BENCH_MAX_ZONES	16
struct bench_zones {
	int n;
	char name[BENCH_MAX_ZONES][32];
	unsigned long long start[BENCH_MAX_ZONES], spanned[BENCH_MAX_ZONES];
};

static inline void bench_zones_read(struct bench_zones *z)
{
	char line[256], zone[24];
	unsigned long long v;
	int node, cur = -1;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		test_fail("cannot open /proc/zoneinfo: %s", strerror(errno));
	z->n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %23s", &node, zone) == 2) {
			cur = -1;
			if (z->n == BENCH_MAX_ZONES)
				continue;
			cur = z->n++;
			snprintf(z->name[cur], sizeof(z->name[cur]), "node%d/%s",
				 node, zone);
			z->start[cur] = z->spanned[cur] = 0;
		} else if (cur >= 0 && sscanf(line, " spanned %llu", &v) == 1) {
			z->spanned[cur] = v;
		} else if (cur >= 0 && sscanf(line, " start_pfn: %llu", &v) == 1) {
			z->start[cur] = v;
		}
	}
	fclose(f);
}

/* The zone (index into Z) of a page frame, or -1. */
static inline int bench_zone_of(const struct bench_zones *z,
				unsigned long long pfn)
{
	int i;

	for (i = 0; i < z->n; i++)
		if (z->spanned[i] && pfn >= z->start[i] &&
		    pfn < z->start[i] + z->spanned[i])
			return i;
	return -1;
}

/*
 * Of the NPAGES anon pages at ADDR, by /proc/self/pagemap: how many are
 * present and how many swapped out (their page table entry is a swap
 * entry), into PRESENT and SWAPPED; and, when ZONES is given, the zone of
 * each present page's frame into ZONE_OF (-1: not present; root only: the
 * frame numbers read as zero otherwise).  A page that is neither present
 * nor swapped was never touched or was lost; the caller decides.
 */
static inline void bench_pagemap_zones(void *addr, size_t npages,
				       size_t *present, size_t *swapped,
				       const struct bench_zones *zones,
				       signed char *zone_of)
{
	static uint64_t ent[4096];
	size_t page = sysconf(_SC_PAGESIZE), done = 0, n, i;
	off_t off = (uintptr_t)addr / page * sizeof(uint64_t);
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		test_fail("cannot open /proc/self/pagemap: %s", strerror(errno));
	*present = 0;
	*swapped = 0;
	while (done < npages) {
		n = npages - done < 4096 ? npages - done : 4096;
		if (pread(fd, ent, n * sizeof(uint64_t),
			  off + done * sizeof(uint64_t)) !=
		    (ssize_t)(n * sizeof(uint64_t)))
			test_fail("short read of /proc/self/pagemap: %s",
				  strerror(errno));
		for (i = 0; i < n; i++) {
			if (ent[i] & PM_PRESENT_BIT)
				(*present)++;
			else if (ent[i] & PM_SWAP_BIT)
				(*swapped)++;
			if (zones)
				zone_of[done + i] = ent[i] & PM_PRESENT_BIT ?
					bench_zone_of(zones,
						      ent[i] & ((1ULL << 55) - 1)) : -1;
		}
		done += n;
	}
	close(fd);
}

static inline void bench_pagemap(void *addr, size_t npages, size_t *present,
				 size_t *swapped)
{
	bench_pagemap_zones(addr, npages, present, swapped, NULL, NULL);
}

/* An anon region of SIZE bytes in base pages (no THP), or a failed test. */
static inline uint64_t *bench_anon(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		test_fail("mmap of %zu MiB of anon memory: %s", size >> 20,
			  strerror(errno));
	madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

/* An untouched read-only shared mapping of SIZE bytes of PATH, for mincore. */
static inline void *bench_map_file(const char *path, size_t size)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		test_fail("cannot open %s: %s", path, strerror(errno));
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		test_fail("mmap of %s: %s", path, strerror(errno));
	close(fd);
	return p;
}

#endif
