// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=1800 topo=all order=61
 *
 * A file larger than RAM streamed through the page cache, every word
 * checked, with the workingset (refault) accounting and the file LRU
 * level after its removal.
 *
 *   1. A file of FILE_NUM/FILE_DEN of MemTotal is written to the scratch
 *      ext4 disk with the per-block pattern and fsynced.  Nothing is
 *      dropped by hand.
 *   2. Pass 1 reads it back and verifies it.  The file does not fit in
 *      RAM, so the start of it was evicted while the rest was written and
 *      almost all of it is read from disk again.  Every 1 MiB block is
 *      read twice in a row (a second pread() of the same block), so its
 *      pages are used twice and activated: the active file list fills
 *      with the part of the file read last, as it would with a working
 *      set that is used more than once.
 *   3. Pass 2 reads and verifies it once more, each block once.  The
 *      pages evicted during pass 1 left shadow entries, so reading them is
 *      a refault: workingset_refault_file must grow.  For a page evicted
 *      late in pass 1 the refault distance is shorter than the active
 *      file list, so the refault is activated at once:
 *      workingset_activate_file must grow too.  (A file read once per
 *      pass would not do: with every page used once the active list stays
 *      empty and a stream larger than memory is, correctly, never
 *      activated.)
 *   4. The file is removed, sync; after vm.stat_refresh the file LRU
 *      (nr_inactive_file + nr_active_file) must be back within MARGIN of
 *      its level before step 1.
 *
 * Pass: data intact in both passes; in pass 2 workingset_refault_file
 * (workingset_refault on kernels without the split) > 0 and
 * workingset_activate_file (workingset_activate) > 0; file LRU back within
 * max(2% of MemTotal, 16 MiB) of where it started.  The runner checks the
 * books after the test (tests/lib/books.sh).
 *
 * Injected fault: file-corrupt flips one bit of one word of one block in
 * the read buffer of pass 1; the verification must fail naming offset and
 * word.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "lib/nodelru.h"

#define SEED		0x66696c6573747265ULL
#define BLOCK		(1UL << 20)
#define WORDS		(BLOCK / 8)
#define FILE_NUM	5
#define FILE_DEN	4

static const char *path = "/mnt/scratch/file-stream.dat";

static const char * const names[] = {
	"pgpgin", "pgpgout", "pgscan_kswapd", "pgscan_direct",
	"pgsteal_kswapd", "pgsteal_direct", "workingset_refault_file",
	"workingset_activate_file", "workingset_restore_file",
	"workingset_refault", "workingset_activate", "workingset_nodereclaim",
	"pswpout", "oom_kill",
};
#define NR_NAMES	(sizeof(names) / sizeof(names[0]))

static long long file_lru_kb(void)
{
	long long in, act;

	stat_refresh();
	in = vmstat("nr_inactive_file");
	act = vmstat("nr_active_file");
	if (in < 0 || act < 0)
		test_fail("expected nr_inactive_file and nr_active_file in /proc/vmstat, saw %lld and %lld",
			  in, act);
	return (in + act) * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Read and verify the file; TWICE reads every block a second time. */
static void read_pass(uint64_t *buf, size_t nblocks, int pass, int twice,
		      int corrupt)
{
	size_t b;
	long w;
	int fd, r;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		test_fail("cannot open %s: %s", path, strerror(errno));
	for (b = 0; b < nblocks; b++) {
		for (r = 0; r <= twice; r++) {
			if (pread(fd, buf, BLOCK, b * BLOCK) != (ssize_t)BLOCK)
				test_fail("pass %d: short read of block %zu of %s",
					  pass, b, path);
		}
		if (corrupt && b == nblocks / 3)
			buf[4711] ^= 1ULL << 23;
		w = check_pattern(buf, WORDS, SEED, b);
		if (w >= 0)
			test_fail("file data lost in pass %d: expected %016llx at offset %zu (block %zu word %ld), saw %016llx",
				  pass, (unsigned long long)pattern(SEED, b, w),
				  b * BLOCK + w * 8, b, w,
				  (unsigned long long)buf[w]);
	}
	close(fd);
}

int main(void)
{
	long long mem_kb = meminfo_kb("MemTotal:");
	struct counters c0, c1, c2, c3;
	long long lru0, lru1, margin, refault, activate;
	size_t size, nblocks;
	struct statvfs sv;
	uint64_t *buf;
	int fd;

	if (mem_kb <= 0)
		test_fail("no MemTotal in /proc/meminfo");
	if (statvfs("/mnt/scratch", &sv) || access("/mnt/scratch/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on /mnt/scratch");
	size = (size_t)mem_kb * 1024 / FILE_DEN * FILE_NUM & ~(BLOCK - 1);
	nblocks = size / BLOCK;
	note("MemTotal %lld kB, scratch free %llu MiB: file of %zu MiB (%d/%d of RAM)",
	     mem_kb, (unsigned long long)sv.f_bavail * sv.f_frsize >> 20,
	     size >> 20, FILE_NUM, FILE_DEN);
	/* Keep an eighth of the file size of headroom on the scratch disk. */
	if ((unsigned long long)sv.f_bavail * sv.f_frsize < size + size / 8)
		test_skip("scratch disk has %llu MiB free, needs %zu MiB",
			  (unsigned long long)sv.f_bavail * sv.f_frsize >> 20,
			  (size + size / 8) >> 20);
	margin = mem_kb / 50 > 16384 ? mem_kb / 50 : 16384;
	note("pass: data intact in both read passes; pass 2 moves workingset_refault_file and workingset_activate_file; file LRU back within %lld kB after removal",
	     margin);
	buf = malloc(BLOCK);
	if (!buf)
		test_fail("malloc of the I/O buffer failed");

	lru0 = file_lru_kb();
	elapsed();
	counters_read(&c0, names, NR_NAMES);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		test_fail("cannot create %s: %s", path, strerror(errno));
	pattern_blocks_write(fd, path, buf, BLOCK, nblocks, SEED);
	if (fsync(fd) || close(fd))
		test_fail("fsync/close of %s failed: %s", path, strerror(errno));
	counters_read(&c1, names, NR_NAMES);
	note("%.1fs: written %zu MiB, pgpgout +%lld kB", elapsed(), size >> 20,
	     counter_delta(&c0, &c1, "pgpgout"));

	read_pass(buf, nblocks, 1, 1, injected("file-corrupt"));
	counters_read(&c2, names, NR_NAMES);
	note("%.1fs: pass 1 verified, pgpgin +%lld kB (%lld%% of the file from disk)",
	     elapsed(), counter_delta(&c1, &c2, "pgpgin"),
	     counter_delta(&c1, &c2, "pgpgin") * 100 / (long long)(size >> 10));

	read_pass(buf, nblocks, 2, 0, 0);
	counters_read(&c3, names, NR_NAMES);
	note("%.1fs: pass 2 verified, pgpgin +%lld kB", elapsed(),
	     counter_delta(&c2, &c3, "pgpgin"));
	note("pass 1:");
	counters_print(&c1, &c2);
	note("pass 2:");
	counters_print(&c2, &c3);

	refault = counter_delta(&c2, &c3, "workingset_refault_file");
	if (refault < 0)
		refault = counter_delta(&c2, &c3, "workingset_refault");
	activate = counter_delta(&c2, &c3, "workingset_activate_file");
	if (activate < 0)
		activate = counter_delta(&c2, &c3, "workingset_activate");

	if (unlink(path))
		test_fail("cannot remove %s: %s", path, strerror(errno));
	sync();
	lru1 = file_lru_kb();
	note("%.1fs: removed; file LRU %lld kB before, %lld kB after (margin %lld kB)",
	     elapsed(), lru0, lru1, margin);

	if (refault <= 0)
		test_fail("no refaults in pass 2: expected workingset_refault_file > 0, saw %lld",
			  refault);
	if (activate <= 0)
		test_fail("no refault activations in pass 2: expected workingset_activate_file > 0, saw %lld",
			  activate);
	if (lru1 > lru0 + margin)
		test_fail("file LRU did not drop back: expected at most %lld kB (%lld before + %lld), saw %lld kB",
			  lru0 + margin, lru0, margin, lru1);
	note("ok: %zu MiB verified twice, refaults %lld, refault activations %lld, file LRU %lld -> %lld kB",
	     size >> 20, refault, activate, lru0, lru1);
	return KSFT_PASS;
}
