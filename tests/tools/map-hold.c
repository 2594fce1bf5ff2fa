// SPDX-License-Identifier: GPL-2.0
/*
 * map-hold: keep a file's pages mapped, and say afterwards how many of
 * them stayed in the page cache.
 *
 *   map-hold FILE MIB [NODE]
 *
 * With NODE, the task first binds its memory to that node
 * (set_mempolicy MPOL_BIND), so the page cache it writes is placed there.
 * A new (empty) FILE is written with MIB MiB of a per-page pattern and
 * fsynced; an existing FILE of exactly MIB MiB is used as it is.  FILE is
 * then mapped MAP_SHARED PROT_READ and every page touched (its first
 * word checked), and the tool prints
 *   mapped N pages: R resident, K on node NODE
 * (mincore() for R, a move_pages() status query for K; NODE is 0 when
 * not given) and waits for SIGUSR1.  On it, before touching anything, it
 * counts again, then verifies every word of every page and prints
 *   resident R of N pages, K on node NODE; data ok
 * and exits 0; on wrong data it prints "FAIL: ..." and exits 1.  With no
 * SIGUSR1 within an hour it fails too, so a test that died cannot leave
 * it holding memory for good.
 *
 * The pages are deliberately not locked (no mlock): they are ordinary
 * mapped page cache, which reclaim may take if it may unmap.
 */
#include <signal.h>

#include "lib/nodelru.h"

#define SEED		0x6d6170686f6c64ULL
#define WAIT_SECONDS	3600

static size_t page_size;

/* Pages of MEM (NPAGES long) in the page cache, by mincore(). */
static long resident(void *mem, size_t npages, unsigned char *vec)
{
	size_t i;
	long n = 0;

	if (mincore(mem, npages * page_size, vec))
		test_fail("mincore failed: %s", strerror(errno));
	for (i = 0; i < npages; i++)
		n += vec[i] & 1;
	return n;
}

/*
 * Pages of MEM mapped from node NID, by a move_pages() status query (no
 * target nodes, nothing moves); -1 if the query itself fails.  A page
 * that is not mapped at the time gets a negative status and is not
 * counted.
 */
static long on_node(void *mem, size_t npages, int nid, void **addrs,
		    int *status)
{
	size_t i;
	long n = 0;

	for (i = 0; i < npages; i++)
		addrs[i] = (char *)mem + i * page_size;
	if (syscall(SYS_move_pages, 0, npages, addrs, NULL, status, 0))
		return -1;
	for (i = 0; i < npages; i++)
		n += status[i] == nid;
	return n;
}

int main(int argc, char **argv)
{
	size_t npages, words, i, bytes;
	unsigned char *vec;
	uint64_t *mem, *buf;
	struct timespec limit = { .tv_sec = WAIT_SECONDS };
	struct stat st;
	sigset_t set;
	long res, node, mib;
	int fd, nid = 0, *status;
	void **addrs;

	die_with_parent();
	mib = argc >= 3 ? atol(argv[2]) : 0;
	if (argc < 3 || argc > 4 || mib <= 0) {
		fprintf(stderr, "usage: map-hold FILE MIB [NODE]\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	words = page_size / sizeof(uint64_t);
	bytes = (size_t)mib << 20;
	npages = bytes / page_size;
	if (argc == 4) {
		nid = atoi(argv[3]);
		bind_to_node(nid);
	}
	vec = malloc(npages);
	addrs = malloc(npages * sizeof(*addrs));
	status = malloc(npages * sizeof(*status));
	buf = malloc(page_size);
	if (!vec || !addrs || !status || !buf)
		test_fail("cannot allocate the buffers for %zu pages", npages);

	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0 || fstat(fd, &st))
		test_fail("cannot open %s: %s", argv[1], strerror(errno));
	if (!st.st_size) {
		pattern_blocks_write(fd, argv[1], buf, page_size, npages, SEED);
		if (fsync(fd))
			test_fail("fsync of %s failed: %s", argv[1],
				  strerror(errno));
	} else if ((size_t)st.st_size != bytes) {
		test_fail("expected %s to be empty or %zu bytes, saw %lld bytes",
			  argv[1], bytes, (long long)st.st_size);
	}
	mem = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		test_fail("mmap of %zu MiB of %s failed: %s", bytes >> 20,
			  argv[1], strerror(errno));
	close(fd);
	for (i = 0; i < npages; i++) {
		if (mem[i * words] != pattern(SEED, i, 0))
			test_fail("page %zu of %s: expected %#llx in word 0, saw %#llx",
				  i, argv[1],
				  (unsigned long long)pattern(SEED, i, 0),
				  (unsigned long long)mem[i * words]);
	}

	/* Blocked before the line the caller waits for: no signal is lost. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		test_fail("sigprocmask failed: %s", strerror(errno));
	note("mapped %zu pages: %ld resident, %ld on node %d", npages,
	     resident(mem, npages, vec),
	     on_node(mem, npages, nid, addrs, status), nid);
	while (sigtimedwait(&set, NULL, &limit) < 0)
		if (errno != EINTR)
			test_fail("expected SIGUSR1 within %d s, saw %s",
				  WAIT_SECONDS, strerror(errno));

	/* Count first: verifying faults back in whatever was reclaimed. */
	res = resident(mem, npages, vec);
	node = on_node(mem, npages, nid, addrs, status);
	for (i = 0; i < npages; i++) {
		long w = check_pattern(mem + i * words, words, SEED, i);

		if (w >= 0)
			test_fail("page %zu of %s word %ld: expected %#llx, saw %#llx",
				  i, argv[1], w,
				  (unsigned long long)pattern(SEED, i, w),
				  (unsigned long long)mem[i * words + w]);
	}
	note("resident %ld of %zu pages, %ld on node %d; data ok", res, npages,
	     node, nid);
	return 0;
}
