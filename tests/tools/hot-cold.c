// SPDX-License-Identifier: GPL-2.0
/*
 * hot-cold: a hot set of anon memory and page cache, smaller than RAM,
 * used over and over while a cold file larger than RAM streams past once;
 * how much of the hot set survives, counted page by page.
 *
 *   hot-cold DIR HOT_ANON_MIB HOT_FILE_MIB COLD_MIB ROUNDS [NAME]
 *
 * Set-up: DIR/hot-cold.hot, HOT_FILE_MIB MiB of the per-page pattern,
 * written and fsynced; DIR/hot-cold.cold, a sparse file of COLD_MIB MiB
 * (holes: read as zeroed clean page cache, no disk I/O); HOT_ANON_MIB MiB
 * of anon memory (base pages) filled with the pattern.  The hot set is
 * used twice (every anon page read, the hot file read through), then
 * ROUNDS times:
 *   1. the next COLD_MIB/ROUNDS MiB of the cold file are read (1 MiB
 *      read()s, normal readahead): the stream, each page used once;
 *   2. what of the hot set is still in memory, at that instant: the hot
 *      file's pages in the page cache (mincore() on an untouched mapping)
 *      and the anon pages resident or in swap (/proc/self/pagemap);
 *   3. the hot set is used again: each anon page's first word checked
 *      (this process's major faults counted: swap-ins), the hot file read
 *      in 1 MiB pread()s with each page's first word checked, mincore()
 *      right before each read counting the pages it has to read in again
 *      (readahead off on the hot file, POSIX_FADV_RANDOM, so that no page
 *      is brought in before it is counted).
 * At the end every word of the hot set is checked.  These counts are the
 * same thing on every kernel, whatever its LRU counts in /proc/vmstat.
 *
 * NAME (default hotcold) names the workload in every line printed, so
 * that one boot can run several sizes (bench-hotcold.sh: hotcold and
 * hotcold-tight).
 * Prints (bench-report.py reads these; "hotcold" is NAME):
 *   bench: hotcold hot_anon_pages M, hot_file_pages N, cold_mib, rounds
 *   bench: hotcold hot_file_missing_pages F   sum over rounds of step 2
 *   bench: hotcold hot_anon_swapped_pages S   sum over rounds of step 2
 *   bench: hotcold hot_file_reread_pages E    sum of the re-reads of step 3
 *   bench: hotcold hot_anon_majflt J          major faults in step 3
 *   bench: hotcold hot_survival_pct P         100 * (1 - (F + S) /
 *                                              (ROUNDS * (M + N)))
 *   bench: hotcold hot_file_survival_pct, hot_anon_survival_pct
 *   bench: hotcold worst_round_survival_pct   the lowest round
 *   bench: hotcold rounds_s T                 seconds (TCG time)
 *   bench: hotcold rounds_COUNTER D           vmstat deltas (lib/bench.h)
 *   bench: hotcold pages_verified N           hot pages checked at the end
 * and a line per round, before its use of the hot set:
 *   bench-round: hotcold ROUND FILE_MISSING FILE_PAGES ANON_SWAPPED ANON_PAGES
 * and per round and zone, of the hot anon pages that were in that zone
 * at their last use (page frame from /proc/self/pagemap, zone from the
 * pfn ranges of /proc/zoneinfo), how many were still resident and how
 * many swapped out when the round's stream had passed:
 *   bench-zround: hotcold ROUND nodeN/ZONE KEPT LOST
 * and over all rounds, for every zone that held hot anon pages:
 *   bench: hotcold hot_anon_survival_pct_nodeN/ZONE P
 * Exit 1 with "FAIL: ..." when a word is wrong or
 * an anon page is neither resident nor in swap.
 *
 * Injected fault: hot-cold-corrupt flips one bit of one word of one anon
 * page after the fill; the check at the end must fail naming page and
 * word.
 */
#include "lib/bench.h"

#define SEED_ANON	0x686f74616e6f6e31ULL
#define SEED_FILE	0x686f7466696c6532ULL
#define CHUNK		(1UL << 20)

static size_t page_size, words;

struct hot {
	uint64_t *anon;
	size_t anon_pages;
	int fd;
	char *map;
	size_t file_pages;
	unsigned char *vec;	/* a chunk's pages */
	unsigned char *all;	/* the whole hot file's pages */
	uint64_t *buf;
};

/* Use the anon set once: the first word of each page; major faults. */
static long long touch_anon(struct hot *h)
{
	long long majflt = bench_majflt();
	size_t pg;

	for (pg = 0; pg < h->anon_pages; pg++)
		if (h->anon[pg * words] != pattern(SEED_ANON, pg, 0))
			test_fail("hot anon data lost: page %zu word 0", pg);
	return bench_majflt() - majflt;
}

/* Read the hot file once; returns the pages it had to read in again. */
static size_t touch_file(struct hot *h)
{
	size_t per = CHUNK / page_size, off, pg, miss = 0;

	for (off = 0; off < h->file_pages * page_size; off += CHUNK) {
		miss += per - bench_resident(h->map + off, per, h->vec);
		if (pread(h->fd, h->buf, CHUNK, off) != (ssize_t)CHUNK)
			test_fail("short read of the hot file at %zu", off);
		for (pg = 0; pg < per; pg++)
			if (h->buf[pg * words] !=
			    pattern(SEED_FILE, off / page_size + pg, 0))
				test_fail("hot file data lost: offset %zu",
					  off + pg * page_size);
	}
	return miss;
}

/* Read MIB MiB of the cold file from where it stands; holes are zero. */
static void stream_cold(int fd, uint64_t *buf, size_t mib)
{
	size_t i, pg;

	for (i = 0; i < mib; i++) {
		if (read(fd, buf, CHUNK) != (ssize_t)CHUNK)
			test_fail("short read of the cold file");
		for (pg = 0; pg < CHUNK / page_size; pg++)
			if (buf[pg * words])
				test_fail("a hole of the cold file read back non-zero");
	}
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 100.0;
}

int main(int argc, char **argv)
{
	size_t anon_mib, file_mib, cold_mib, per_round, present, swapped;
	size_t miss_file = 0, swapped_anon = 0, reread = 0, fmiss, r, rounds;
	double worst = 100.0, t0, s;
	struct counters before, after;
	char hot_path[512], cold_path[512];
	long long majflt = 0;
	const char *name;
	struct hot h;
	int cold;
	struct bench_zones zones;
	signed char *zone_of;
	size_t kept[BENCH_MAX_ZONES] = { 0 }, lost[BENCH_MAX_ZONES] = { 0 };
	size_t rkept[BENCH_MAX_ZONES], rlost[BENCH_MAX_ZONES], pg;
	signed char *now;
	char metric[64];
	int zi;

	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: hot-cold DIR HOT_ANON_MIB HOT_FILE_MIB COLD_MIB ROUNDS [NAME]\n");
		return 2;
	}
	name = argc == 7 ? argv[6] : "hotcold";
	page_size = sysconf(_SC_PAGESIZE);
	words = page_size / 8;
	anon_mib = strtoull(argv[2], NULL, 0);
	file_mib = strtoull(argv[3], NULL, 0);
	cold_mib = strtoull(argv[4], NULL, 0);
	rounds = strtoull(argv[5], NULL, 0);
	if (!anon_mib || !file_mib || !rounds || cold_mib < rounds)
		test_fail("hot-cold: sizes %s %s %s MiB, %s rounds", argv[2],
			  argv[3], argv[4], argv[5]);
	per_round = cold_mib / rounds;
	snprintf(hot_path, sizeof(hot_path), "%s/hot-cold.hot", argv[1]);
	snprintf(cold_path, sizeof(cold_path), "%s/hot-cold.cold", argv[1]);

	memset(&h, 0, sizeof(h));
	h.anon_pages = (anon_mib << 20) / page_size;
	h.file_pages = (file_mib << 20) / page_size;
	h.vec = malloc(CHUNK / page_size);
	h.all = malloc(h.file_pages);
	h.buf = malloc(CHUNK);
	if (!h.vec || !h.all || !h.buf)
		test_fail("malloc failed");
	pattern_file_write(hot_path, file_mib << 20, SEED_FILE);
	sparse_create(cold_path, (per_round * rounds) << 20);
	h.anon = bench_anon(anon_mib << 20);
	fill_pages(h.anon, h.anon_pages, SEED_ANON);
	bench_zones_read(&zones);
	zone_of = malloc(h.anon_pages);
	now = malloc(h.anon_pages);
	if (!zone_of || !now)
		test_fail("malloc failed");
	if (injected("hot-cold-corrupt"))
		h.anon[(h.anon_pages / 2) * words + 3] ^= 1ULL << 9;
	h.fd = open(hot_path, O_RDONLY | O_NOATIME);
	if (h.fd < 0)
		test_fail("cannot open %s: %s", hot_path, strerror(errno));
	errno = posix_fadvise(h.fd, 0, 0, POSIX_FADV_RANDOM);
	if (errno)
		test_fail("posix_fadvise(POSIX_FADV_RANDOM): %s", strerror(errno));
	h.map = bench_map_file(hot_path, file_mib << 20);
	cold = open(cold_path, O_RDONLY | O_NOATIME);
	if (cold < 0)
		test_fail("cannot open %s: %s", cold_path, strerror(errno));
	bench_ll(name, "hot_anon_pages", h.anon_pages);
	bench_ll(name, "hot_file_pages", h.file_pages);
	bench_ll(name, "cold_mib", per_round * rounds);
	bench_ll(name, "rounds", rounds);
	note("hot set: %zu MiB anon + %zu MiB file; cold stream %zu MiB in %zu rounds",
	     anon_mib, file_mib, per_round * rounds, rounds);

	/* The hot set is used twice before the stream starts. */
	touch_anon(&h);
	touch_file(&h);
	touch_anon(&h);
	touch_file(&h);
	bench_pagemap_zones(h.anon, h.anon_pages, &present, &swapped, &zones,
			    zone_of);

	bench_vm_read(&before);
	t0 = elapsed();
	for (r = 1; r <= rounds; r++) {
		stream_cold(cold, h.buf, per_round);
		fmiss = h.file_pages - bench_resident(h.map, h.file_pages,
						      h.all);
		bench_pagemap_zones(h.anon, h.anon_pages, &present, &swapped,
				    &zones, now);
		if (present + swapped != h.anon_pages)
			test_fail("round %zu: expected each of %zu hot anon pages resident or in swap, saw %zu resident and %zu in swap",
				  r, h.anon_pages, present, swapped);
		/* Of the pages each zone held at their last use: still there? */
		memset(rkept, 0, sizeof(rkept));
		memset(rlost, 0, sizeof(rlost));
		for (pg = 0; pg < h.anon_pages; pg++) {
			if (zone_of[pg] < 0)
				continue;
			if (now[pg] >= 0)
				rkept[(int)zone_of[pg]]++;
			else
				rlost[(int)zone_of[pg]]++;
		}
		for (zi = 0; zi < zones.n; zi++) {
			if (!rkept[zi] && !rlost[zi])
				continue;
			printf("bench-zround: %s %zu %s %zu %zu\n", name, r,
			       zones.name[zi], rkept[zi], rlost[zi]);
			kept[zi] += rkept[zi];
			lost[zi] += rlost[zi];
		}
		miss_file += fmiss;
		swapped_anon += swapped;
		s = pct(h.anon_pages + h.file_pages - fmiss - swapped,
			h.anon_pages + h.file_pages);
		if (s < worst)
			worst = s;
		majflt += touch_anon(&h);
		reread += touch_file(&h);
		bench_pagemap_zones(h.anon, h.anon_pages, &present, &swapped,
				    &zones, zone_of);
		printf("bench-round: %s %zu %zu %zu %zu %zu\n", name, r, fmiss,
		       h.file_pages, swapped, h.anon_pages);
	}
	bench_dbl(name, "rounds_s", elapsed() - t0);
	bench_vm_read(&after);
	bench_vm_print(name, "rounds", &before, &after);
	bench_ll(name, "hot_file_missing_pages", miss_file);
	bench_ll(name, "hot_anon_swapped_pages", swapped_anon);
	bench_ll(name, "hot_file_reread_pages", reread);
	bench_ll(name, "hot_anon_majflt", majflt);
	bench_dbl(name, "hot_survival_pct",
		  100.0 - pct(miss_file + swapped_anon,
			      (double)rounds * (h.anon_pages + h.file_pages)));
	bench_dbl(name, "hot_file_survival_pct",
		  100.0 - pct(miss_file, (double)rounds * h.file_pages));
	bench_dbl(name, "hot_anon_survival_pct",
		  100.0 - pct(swapped_anon, (double)rounds * h.anon_pages));
	bench_dbl(name, "worst_round_survival_pct", worst);
	for (zi = 0; zi < zones.n; zi++) {
		if (!kept[zi] && !lost[zi])
			continue;
		snprintf(metric, sizeof(metric), "hot_anon_survival_pct_%s",
			 zones.name[zi]);
		bench_dbl(name, metric, 100.0 - pct(lost[zi], kept[zi] + lost[zi]));
	}

	verify_pages("hot anon", h.anon, h.anon_pages, SEED_ANON);
	pattern_file_verify(hot_path, file_mib << 20, SEED_FILE);
	bench_ll(name, "pages_verified", h.anon_pages + h.file_pages);
	note("hot set intact: %zu anon and %zu file pages", h.anon_pages,
	     h.file_pages);
	close(cold);
	close(h.fd);
	munmap(h.map, file_mib << 20);
	munmap(h.anon, anon_mib << 20);
	if (unlink(hot_path) || unlink(cold_path))
		test_fail("cannot remove the hot-cold files: %s", strerror(errno));
	return 0;
}
