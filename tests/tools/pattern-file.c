// SPDX-License-Identifier: GPL-2.0
/*
 * pattern-file write|verify PATH MIB SEED
 *
 * write: create PATH with MIB MiB of the per-page pattern of tests/lib
 * (pattern(SEED, page, word) in every 64-bit word), fsync it.
 * verify: read PATH through the page cache and check every word; on the
 * first wrong word print "FAIL: file data lost: ..." and exit 1.
 * For shell tests that need a large file with known contents: a shell
 * loop with md5sum is far too slow under TCG.
 */
#include "lib/nodelru.h"

int main(int argc, char **argv)
{
	size_t size;
	uint64_t seed;

	if (argc != 5 || (strcmp(argv[1], "write") && strcmp(argv[1], "verify"))) {
		fprintf(stderr, "usage: pattern-file write|verify PATH MIB SEED\n");
		return 2;
	}
	size = (size_t)strtoull(argv[3], NULL, 0) << 20;
	seed = strtoull(argv[4], NULL, 0);
	if (!size)
		test_fail("pattern-file: size %s MiB", argv[3]);
	if (!strcmp(argv[1], "write"))
		pattern_file_write(argv[2], size, seed);
	else
		pattern_file_verify(argv[2], size, seed);
	return 0;
}
