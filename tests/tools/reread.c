// SPDX-License-Identifier: GPL-2.0
/*
 * reread: a file larger than RAM read several times, its page cache hits
 * and misses counted directly.
 *
 *   reread PATH MIB PASSES
 *
 * PATH is made a sparse file of MIB MiB on the scratch ext4.  Its holes
 * read as zeroed pages without disk I/O, yet each is an ordinary clean
 * file page on the LRU: evicting it leaves a shadow entry, and reading it
 * again is a refault, as with written data (tests/workingset-zone.sh
 * writes its file; here the disk would only add TCG time).  The file is
 * read sequentially PASSES times in 1 MiB read()s, nothing dropped by
 * hand.  Right before each read(), mincore() on an untouched mapping of
 * the file counts how many of its pages are still in the page cache: a
 * page that is not is a miss of that pass, read in again.  Readahead is
 * off (POSIX_FADV_RANDOM: each read() brings in just its own pages), or
 * it would have put the next pages in before they are counted; with holes
 * it saves no I/O anyway.  Every page read must begin and end with a zero
 * word.
 *
 * Prints, per pass N (bench-report.py reads these):
 *   bench: reread passN_hit_pages H     pages found in the page cache
 *   bench: reread passN_miss_pages M    pages read in again
 *   bench: reread passN_hit_pct P       100 * H / (H + M)
 *   bench: reread passN_s S             seconds (TCG time)
 *   bench: reread passN_COUNTER D       vmstat deltas (lib/bench.h)
 * and "bench: reread pages N".  Exit 1 with "FAIL: ..." on a non-zero
 * word or a short read.
 */
#include "lib/bench.h"

#define CHUNK		(1UL << 20)

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE), size, npages, off, hits, misses;
	size_t words = page / 8, pg, chunk_pages = CHUNK / page;
	struct counters before, after;
	unsigned char *vec;
	uint64_t *buf;
	char phase[32], metric[64];
	int passes, pass, fd;
	char *map;
	double t0;

	if (argc != 4) {
		fprintf(stderr, "usage: reread PATH MIB PASSES\n");
		return 2;
	}
	size = (size_t)strtoull(argv[2], NULL, 0) << 20;
	passes = atoi(argv[3]);
	if (!size || passes < 1)
		test_fail("reread: size %s MiB, passes %s", argv[2], argv[3]);
	npages = size / page;
	sparse_create(argv[1], size);
	map = bench_map_file(argv[1], size);
	vec = malloc(chunk_pages);
	buf = malloc(CHUNK);
	if (!vec || !buf)
		test_fail("malloc failed");
	bench_ll("reread", "pages", npages);
	for (pass = 1; pass <= passes; pass++) {
		fd = open(argv[1], O_RDONLY | O_NOATIME);
		if (fd < 0)
			test_fail("cannot open %s: %s", argv[1], strerror(errno));
		errno = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		if (errno)
			test_fail("posix_fadvise(POSIX_FADV_RANDOM): %s",
				  strerror(errno));
		hits = 0;
		misses = 0;
		bench_vm_read(&before);
		t0 = elapsed();
		for (off = 0; off < size; off += CHUNK) {
			hits += bench_resident(map + off, chunk_pages, vec);
			if (read(fd, buf, CHUNK) != (ssize_t)CHUNK)
				test_fail("short read of %s at %zu", argv[1],
					  off);
			for (pg = 0; pg < CHUNK / page; pg++)
				if (buf[pg * words] || buf[pg * words + words - 1])
					test_fail("%s offset %zu: a hole read back non-zero",
						  argv[1], off + pg * page);
		}
		misses = npages - hits;
		close(fd);
		bench_vm_read(&after);
		snprintf(phase, sizeof(phase), "pass%d", pass);
		snprintf(metric, sizeof(metric), "%s_hit_pages", phase);
		bench_ll("reread", metric, hits);
		snprintf(metric, sizeof(metric), "%s_miss_pages", phase);
		bench_ll("reread", metric, misses);
		snprintf(metric, sizeof(metric), "%s_hit_pct", phase);
		bench_dbl("reread", metric, 100.0 * hits / npages);
		snprintf(metric, sizeof(metric), "%s_s", phase);
		bench_dbl("reread", metric, elapsed() - t0);
		bench_vm_print("reread", phase, &before, &after);
		note("reread pass %d: %zu of %zu pages found in the page cache",
		     pass, hits, npages);
	}
	munmap(map, size);
	if (unlink(argv[1]))
		test_fail("cannot remove %s: %s", argv[1], strerror(errno));
	return 0;
}
