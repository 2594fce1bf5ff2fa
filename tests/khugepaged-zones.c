// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=smoke,full timeout=240 topo=uma,movable order=75
 *
 * khugepaged's collapse_file() across zones (issue 30 point 7).  Where
 * the zones keep copies of the file counters (NR_ZONE_FILE_PAGES and
 * NR_ZONE_SHMEM, /proc/zoneinfo's nr_zone_file_pages and nr_zone_shmem:
 * the zone end, steps 0 to 13), a huge page that replaces small page
 * cache pages of another zone must take their zone counts with it, or
 * truncating the file leaves the small pages' zone up 512 pages per huge
 * page and the huge page's zone down as much (below zero if it had
 * fewer), while every node sum stays exact: the books cannot see it.
 *
 * Placement, all on node 0 (the test binds itself there), with
 * vm.watermark_boost_factor 0 for the test (a boost wakes kswapd, which
 * would reclaim the held zones back up to their high watermark):
 *   1. nodelru_hog holds DMA32 (__GFP_DMA32 pages) until it has no room
 *      for user pages left (free below low + lowmem protection), each
 *      request stopping short of low (no reclaim): at the zone end the
 *      fair zone policy would otherwise spread the next step over every
 *      zone;
 *   2. mlock-hog holds the room of the zones above DMA32 (Normal, and
 *      Movable on movable: their free pages above low + protection),
 *      less a page table per huge page and 256 pages, so that no kernel
 *      allocation finds every zone full; a filler file on the test's
 *      tmpfs takes what room is left but 64 pages (it stays to the end);
 *   3. nodelru_hog lets go: only DMA32 has room now;
 *   4. a 32 MiB file (16 PMD-aligned 2 MiB ranges, a per-page pattern)
 *      is written to a tmpfs of the test's own (huge=never, so its pages
 *      are small): they land in DMA32;
 *   5. mlock-hog lets go, and MADV_COLLAPSE (25) collapses each range
 *      (shmem_enabled is set to advise for the test, anything but deny
 *      lets MADV_COLLAPSE collapse shmem; the old value is restored): the
 *      huge pages come from Normal (or Movable) at the node end, and at
 *      the zone end from wherever the fair policy's batches point (about
 *      a third of them outside DMA32 on uma by the batch sizes).
 * /proc/self/pagemap and the zones' pfn ranges (start_pfn, spanned)
 * give every small page's zone before the collapse and every huge page's
 * after it.  Counters are read after vm.stat_refresh: before the file
 * (the baseline, once the counters are steady), after writing it, before
 * and after the collapse, and after truncate and unlink.
 * Checks:
 *   - MADV_COLLAPSE succeeds on every range; each range is then one
 *     compound THP head and its tail (pagemap, /proc/kpageflags), and
 *     ShmemHugePages and node 0's nr_shmem_hugepages grew by 16 huge
 *     pages;
 *   - the placement can show the bug: an unfixed kernel's skew, per zone
 *     the small pages there minus 512 per huge page there, is at least
 *     384 pages (three times the tolerance) in some zone; a placement
 *     that would prove nothing is dropped (file truncated) and made
 *     again, up to PLACEMENT_TRIES times, then the test fails, saying
 *     where the pages were;
 *   - the counters saw the same move: across MADV_COLLAPSE each zone's
 *     LRU pages (nr_zone_{in,}active_{anon,file}) move by 512 per huge
 *     page in it minus its small pages, within 128 pages;
 *   - every word of the file reads back through the collapsed mapping;
 *   - after truncate and unlink: every zone's nr_zone_file_pages and
 *     nr_zone_shmem (where the kernel has them; a zone-end kernel must,
 *     a node-end kernel must not, decided from the release as
 *     series_end does) are back within 128 pages of the baseline, and
 *     so are nr_file_pages and nr_shmem of every node (at every step);
 *     nr_shmem_hugepages and ShmemHugePages are back exactly.  A zone
 *     count gone negative reads 0 in /proc/zoneinfo (zone_page_state()
 *     clamps it), so it shows as a fall from the baseline, and the other
 *     zone's rise shows the same skew.
 * On numa, node 1 has one zone and node 0's lower zone is DMA (16 MiB,
 * about half of it lowmem protection, which the zone end's fair policy
 * fills to that line): no placement reliably puts small pages and their
 * huge page in different zones of one node, hence not in topo=.  Run
 * there by name, the test skips, saying so.
 * The broken kernel tests/broken/collapse-zone-counts.patch (the zone
 * end without the fix) must fail the truncate check.
 *
 * Injected faults:
 *   collapse-skew        the after-truncate figures get the unfixed
 *                        kernel's skew added (the figures above; a zone
 *                        copy below zero reads 0, as in /proc/zoneinfo);
 *                        where there are no zone copies, node 0's items
 *                        get the largest zone skew, as if the node kept
 *                        it;
 *   collapse-no-truncate the file is neither truncated nor unlinked
 *                        before the last reading.
 */
#include <sys/mount.h>
#include <sys/utsname.h>

#include "lib/nodelru.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

#define SEED		0x6b687567657a6f6eULL
#define TMPFS		"/mnt/khugepaged-zones"
#define TFILE		TMPFS "/data"
#define FILLER		TMPFS "/filler"
#define BOOST		"/proc/sys/vm/watermark_boost_factor"
#define SHMEM_ENABLED	"/sys/kernel/mm/transparent_hugepage/shmem_enabled"
#define HOG		"/sys/kernel/debug/nodelru_hog"
#define HOG_KO		"/lib/modules/nodelru/nodelru_hog.ko"
#define HPAGE		(2UL << 20)
#define HPAGE_NR	512
#define NRANGES		16
#define FSIZE		(NRANGES * HPAGE)
#define TOL		128
#define MIN_SKEW	(3 * TOL)
#define FILLER_MAX	4096
#define PLACEMENT_TRIES	3
#define MAX_ZONES	40
#define MAX_NODES	8
#define KPF_COMPOUND_HEAD	15
#define KPF_THP		22

/* Zone items: the zone copies first, then the LRU lists. */
enum { Z_FILE, Z_SHMEM, Z_IA, Z_AA, Z_IF, Z_AF, NR_ZITEMS };
static const char * const zitem[NR_ZITEMS] = {
	"nr_zone_file_pages", "nr_zone_shmem", "nr_zone_inactive_anon",
	"nr_zone_active_anon", "nr_zone_inactive_file", "nr_zone_active_file",
};

enum { N_FILE, N_SHMEM, N_SHMEM_THP, NR_NITEMS };
static const char * const nitem[NR_NITEMS] = {
	"nr_file_pages", "nr_shmem", "nr_shmem_hugepages",
};

struct zrow {
	int node;
	char name[16];
	long long free, low, prot, present, spanned, start;
	long long v[NR_ZITEMS];		/* -1: not in this kernel */
};

struct snap {
	int nz, nn;
	struct zrow z[MAX_ZONES];
	long long n[MAX_NODES][NR_NITEMS];
	long long shmem_huge_kb;
};

enum { S_BASE, S_WRITTEN, S_PRE, S_COLLAPSED, S_END, NR_SNAPS };
static const char * const snap_name[NR_SNAPS] = {
	"baseline", "written", "before collapse", "collapsed", "truncated",
};

static struct snap snaps[NR_SNAPS];
static size_t page_size;
static pid_t main_pid, hog_pid = -1;
static int module_ours, module_holds, mounted;
static char old_shmem[32], old_boost[32];
static uint64_t pfns[FSIZE / 4096];
static long long small_in[MAX_ZONES], huge_in[MAX_ZONES], skew[MAX_ZONES];
static char *area;
static int fd = -1;

/* As series_end in tests/lib/guest.sh: zone, node or step. */
static const char *series_end(char *release, size_t size)
{
	struct utsname u;

	if (uname(&u))
		test_fail("uname: %s", strerror(errno));
	snprintf(release, size, "%s", u.release);
	if (strstr(u.release, "-nodelru-zone-"))
		return "zone";
	if (strstr(u.release, "-nodelru-node-"))
		return "node";
	return "step";
}

/* The largest figure of "protection: (0, 2032, 3056, 3056)". */
static long long prot_max(const char *line)
{
	const char *p = strchr(line, '(');
	long long v, max = 0;
	char *end;

	while (p && *p && *p != ')') {
		v = strtoll(p + 1, &end, 10);
		if (end == p + 1)
			break;
		if (v > max)
			max = v;
		p = end;
	}
	return max;
}

static struct zrow *zone_new(struct snap *s, int node, const char *name)
{
	struct zrow *z;
	int i;

	if (s->nz == MAX_ZONES)
		test_fail("more than %d zones in /proc/zoneinfo", MAX_ZONES);
	z = &s->z[s->nz++];
	memset(z, 0, sizeof(*z));
	z->node = node;
	snprintf(z->name, sizeof(z->name), "%s", name);
	z->start = -1;
	for (i = 0; i < NR_ZITEMS; i++)
		z->v[i] = -1;
	return z;
}

static void zone_field(struct zrow *z, const char *key, long long v)
{
	int i;

	if (!strcmp(key, "low"))
		z->low = v;
	else if (!strcmp(key, "present"))
		z->present = v;
	else if (!strcmp(key, "spanned"))
		z->spanned = v;
	else if (!strcmp(key, "start_pfn:"))
		z->start = v;
	for (i = 0; i < NR_ZITEMS; i++)
		if (!strcmp(key, zitem[i]))
			z->v[i] = v;
}

static void zoneinfo_read(struct snap *s)
{
	char line[512], key[64], name[16];
	struct zrow *z = NULL;
	FILE *f = fopen("/proc/zoneinfo", "r");
	long long v;
	int node;

	if (!f)
		test_fail("cannot open /proc/zoneinfo: %s", strerror(errno));
	s->nz = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %15s", &node, name) == 2)
			z = zone_new(s, node, name);
		else if (!z)
			continue;
		else if (strstr(line, "protection: ("))
			z->prot = prot_max(line);
		else if (sscanf(line, " pages free %lld", &v) == 1)
			z->free = v;
		else if (sscanf(line, " %63s %lld", key, &v) == 2)
			zone_field(z, key, v);
	}
	fclose(f);
}

static void snap_read(struct snap *s)
{
	char path[64];
	int n, i;

	stat_refresh();
	zoneinfo_read(s);
	for (n = 0; n < MAX_NODES; n++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/vmstat", n);
		if (access(path, R_OK))
			break;
		for (i = 0; i < NR_NITEMS; i++) {
			s->n[n][i] = file_counter(path, nitem[i]);
			if (s->n[n][i] < 0)
				test_fail("expected %s in %s, the kernel has no such item",
					  nitem[i], path);
		}
	}
	s->nn = n;
	if (!n)
		test_fail("no /sys/devices/system/node/node0/vmstat");
	s->shmem_huge_kb = meminfo_kb("ShmemHugePages:");
	if (s->shmem_huge_kb < 0)
		test_fail("expected ShmemHugePages in /proc/meminfo, saw none");
}

/* The populated zone NAME of node 0, or -1. */
static int zone_index(const struct snap *s, const char *name)
{
	int i;

	for (i = 0; i < s->nz; i++)
		if (!s->z[i].node && s->z[i].present > 0 &&
		    !strcmp(s->z[i].name, name))
			return i;
	return -1;
}

/* Pages a user (movable) allocation may still take from zone Z. */
static long long user_room(const struct zrow *z)
{
	return z->free - z->low - z->prot;
}

static int zone_of_pfn(const struct snap *s, uint64_t pfn)
{
	int i;

	for (i = 0; i < s->nz; i++)
		if (s->z[i].present > 0 && s->z[i].start >= 0 &&
		    pfn >= (uint64_t)s->z[i].start &&
		    pfn < (uint64_t)(s->z[i].start + s->z[i].spanned))
			return i;
	return -1;
}

static long long lru_pages(const struct zrow *z)
{
	return z->v[Z_IA] + z->v[Z_AA] + z->v[Z_IF] + z->v[Z_AF];
}

/* The nodelru_hog module: load it, request, read its counts. */
static void module_load(void)
{
	int mfd = open(HOG_KO, O_RDONLY);

	if (mfd < 0)
		test_fail("cannot open %s: %s", HOG_KO, strerror(errno));
	if (!syscall(SYS_finit_module, mfd, "", 0))
		module_ours = 1;
	else if (errno != EEXIST)
		test_fail("loading %s failed: %s", HOG_KO, strerror(errno));
	close(mfd);
}

static void module_free(void)
{
	if (module_holds && !try_write_file(HOG, "free"))
		module_holds = 0;
}

static void mlock_hog_stop(void)
{
	int status;

	if (hog_pid <= 0)
		return;
	kill(hog_pid, SIGTERM);
	waitpid(hog_pid, &status, 0);
	hog_pid = -1;
}

/* On any exit of the test itself: everything it took back. */
static void cleanup(void)
{
	if (getpid() != main_pid)
		return;
	mlock_hog_stop();
	module_free();
	if (module_ours)
		syscall(SYS_delete_module, "nodelru_hog", O_NONBLOCK);
	if (area)
		munmap(area, FSIZE + HPAGE);
	if (fd >= 0)
		close(fd);
	unlink(TFILE);
	unlink(FILLER);
	if (mounted)
		umount(TMPFS);
	if (old_shmem[0])
		try_write_file(SHMEM_ENABLED, old_shmem);
	if (old_boost[0])
		try_write_file(BOOST, old_boost);
}

/* The bracketed word of "always within_size [advise] never deny force". */
static void shmem_mode(char *mode, size_t size)
{
	char line[128], *b;

	if (read_line(SHMEM_ENABLED, line, sizeof(line)))
		test_fail("expected %s (CONFIG_TRANSPARENT_HUGEPAGE is in configs/qemu.config), saw none",
			  SHMEM_ENABLED);
	b = strchr(line, '[');
	if (!b || sscanf(b + 1, "%31[^]]", mode) != 1 || strlen(mode) >= size)
		test_fail("cannot parse %s: '%s'", SHMEM_ENABLED, line);
}

/*
 * Step 1: hold DMA32 with __GFP_DMA32 pages until user pages have no
 * room there, each request stopping short of the low watermark (no
 * reclaim); at the zone end some of each request goes to DMA, so ask
 * again.
 */
static void hold_dma32(int l)
{
	struct snap s;
	char cmd[64], held[160];
	long long margin, want;
	int round;

	module_load();
	for (round = 0;; round++) {
		snap_read(&s);
		if (user_room(&s.z[l]) < 0)
			break;
		margin = s.z[l].prot / 4;
		if (margin < 32)
			margin = 32;
		if (margin > 256)
			margin = 256;
		want = s.z[l].free - s.z[l].low - margin;
		if (round == 12 || want <= 0)
			test_fail("expected DMA32 held below low + protection (%lld pages) for user pages, saw %lld free after %d requests",
				  s.z[l].low + s.z[l].prot, s.z[l].free, round);
		snprintf(cmd, sizeof(cmd), "dma32 %lld", want);
		module_holds = 1;
		write_file(HOG, cmd);
	}
	if (read_line(HOG, held, sizeof(held)))
		held[0] = 0;
	note("nodelru_hog holds DMA32 after %d request(s): %s (held DMA DMA32 Normal Movable total requested failed); DMA32 free %lld low %lld protection %lld",
	     round, held, s.z[l].free, s.z[l].low, s.z[l].prot);
}

/* Room for user pages in the zones of node 0 above zone L. */
static long long room_above(int l)
{
	long long room = 0;
	struct snap s;
	int i;

	snap_read(&s);
	for (i = 0; i < s.nz; i++)
		if (!s.z[i].node && s.z[i].present > 0 && i > l &&
		    user_room(&s.z[i]) > 0)
			room += user_room(&s.z[i]);
	return room;
}

/*
 * Step 2: mlock-hog (node 0) takes the room of the zones above DMA32,
 * less a page table a huge page and 256 pages: kernel allocations must
 * not find every zone full (the slow path would wake kswapd, which
 * would fight the holds).
 */
static void hold_higher(int l)
{
	char leave[32], buf[256];
	long long room = room_above(l), take, free_kb;
	size_t len = 0;
	ssize_t n;
	int fds[2];

	take = room - room / HPAGE_NR - 256;
	if (take < HPAGE_NR * 2) {
		note("the zones above DMA32 have %lld pages of room: no mlock-hog",
		     room);
		return;
	}
	free_kb = node_meminfo_kb(0, "MemFree:");
	snprintf(leave, sizeof(leave), "%lld",
		 (free_kb - take * (long long)(page_size >> 10) + 1023) / 1024);
	if (pipe(fds))
		test_fail("pipe: %s", strerror(errno));
	hog_pid = fork_or_fail();
	if (!hog_pid) {
		close(fds[0]);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execlp("mlock-hog", "mlock-hog", leave, "0", (char *)NULL);
		printf("FAIL: cannot run mlock-hog: %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while (len < sizeof(buf) - 1 && !memchr(buf, '\n', len)) {
		n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		len += n;
	}
	buf[len] = 0;
	close(fds[0]);
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = 0;
	if (strncmp(buf, "held ", 5)) {
		mlock_hog_stop();
		test_fail("expected 'mlock-hog %s 0' to hold memory, saw: %s",
			  leave, buf);
	}
	note("zones above DMA32: %lld pages of room; node 0 MemFree %lld kB; mlock-hog %s 0: %s",
	     room, free_kb, leave, buf);
}

/*
 * Step 2b: what room is left above DMA32 (the hog's margin and its 2 MiB
 * rounding), less 64 pages, goes to a filler file on the test's tmpfs,
 * which stays until the end (it is in the baseline).
 */
static void fill_room(int l)
{
	long long room = room_above(l), want = room - 64, done;
	static char buf[64 << 10];
	int ffd;

	if (want > FILLER_MAX)
		want = FILLER_MAX;
	if (want <= 0)
		return;
	memset(buf, 0x5a, sizeof(buf));
	ffd = open(FILLER, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (ffd < 0)
		test_fail("cannot create %s: %s", FILLER, strerror(errno));
	for (done = 0; done < want * (long long)page_size; done += sizeof(buf))
		if (write(ffd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			test_fail("short write to %s: %s", FILLER,
				  strerror(errno));
	close(ffd);
	note("filler: %lld KiB for the %lld pages of room left above DMA32",
	     done >> 10, room);
}

/* Until kswapd has scanned nothing for a second (at most 15 s). */
static void kswapd_quiet(void)
{
	long long a, b = vmstat("pgscan_kswapd");
	int i;

	for (i = 0; i < 15; i++) {
		a = b;
		sleep(1);
		b = vmstat("pgscan_kswapd");
		if (a == b)
			return;
	}
	note("# warning: kswapd still scanning after 15 s (pgscan_kswapd +%lld in the last second)",
	     b - a);
}

/*
 * The baseline once the counters are steady: two readings a second
 * apart whose zone copies and node items differ by at most 8 pages.
 */
static void read_steady(struct snap *s)
{
	static struct snap prev;
	long long d, worst = 0;
	int round, i, k;

	snap_read(&prev);
	for (round = 1; round <= 10; round++) {
		sleep(1);
		snap_read(s);
		worst = 0;
		for (i = 0; i < s->nz && i < prev.nz; i++)
			for (k = Z_FILE; k <= Z_SHMEM; k++) {
				d = llabs(s->z[i].v[k] - prev.z[i].v[k]);
				worst = d > worst ? d : worst;
			}
		for (i = 0; i < s->nn; i++)
			for (k = N_FILE; k <= N_SHMEM; k++) {
				d = llabs(s->n[i][k] - prev.n[i][k]);
				worst = d > worst ? d : worst;
			}
		if (worst <= 8)
			break;
		prev = *s;
	}
	note("baseline after %d second(s): file counters moved by at most %lld pages in the last one",
	     round > 10 ? 10 : round, worst);
}

/* Every page of the mapping present, and its pfn in pfns[]. */
static void pagemap_read(const char *p, const char *what)
{
	size_t npages = FSIZE / page_size, i;
	volatile char sink;
	int pm;

	for (i = 0; i < npages; i++)
		sink = p[i * page_size];
	(void)sink;
	pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0)
		test_fail("cannot open /proc/self/pagemap: %s", strerror(errno));
	if (pread(pm, pfns, npages * 8, (uintptr_t)p / page_size * 8) !=
	    (ssize_t)(npages * 8))
		test_fail("reading /proc/self/pagemap: %s", strerror(errno));
	close(pm);
	for (i = 0; i < npages; i++) {
		if (!(pfns[i] >> 63 & 1))
			test_fail("%s: expected every page of the file present, page %zu is not",
				  what, i);
		pfns[i] &= (1ULL << 55) - 1;
		if (!pfns[i])
			test_fail("%s: /proc/self/pagemap gives no pfns (not root?)",
				  what);
	}
}

static int pfn_zone(const struct snap *s, uint64_t pfn, const char *what,
		    size_t page)
{
	int z = zone_of_pfn(s, pfn);

	if (z < 0 || s->z[z].node)
		test_fail("%s: page %zu (pfn %#llx) is in %s, expected a zone of node 0",
			  what, page, (unsigned long long)pfn,
			  z < 0 ? "no zone of /proc/zoneinfo" : "another node");
	return z;
}

static void small_placement(const struct snap *s)
{
	size_t i;

	for (i = 0; i < FSIZE / page_size; i++)
		small_in[pfn_zone(s, pfns[i], "small pages", i)]++;
}

/* Each range one THP (contiguous pfns, head flags); its zone counted. */
static void huge_placement(const struct snap *s)
{
	size_t per = HPAGE / page_size, r, i;
	uint64_t flags, head;
	int kpf, z;

	kpf = open("/proc/kpageflags", O_RDONLY);
	if (kpf < 0)
		test_fail("cannot open /proc/kpageflags: %s", strerror(errno));
	for (r = 0; r < NRANGES; r++) {
		head = pfns[r * per];
		for (i = 0; i < per; i++)
			if (pfns[r * per + i] != head + i)
				break;
		if (head % per || i < per)
			test_fail("range %zu after MADV_COLLAPSE: expected one huge page (%zu contiguous pfns from a %zu-aligned head), saw head pfn %#llx, page %zu at pfn %#llx",
				  r, per, per, (unsigned long long)head, i,
				  (unsigned long long)pfns[r * per + (i < per ? i : 0)]);
		if (pread(kpf, &flags, 8, head * 8) != 8)
			test_fail("reading /proc/kpageflags: %s", strerror(errno));
		if (!(flags >> KPF_THP & 1) || !(flags >> KPF_COMPOUND_HEAD & 1))
			test_fail("range %zu: expected pfn %#llx to be a THP head (kpageflags bits %d and %d), saw flags %#llx",
				  r, (unsigned long long)head, KPF_THP,
				  KPF_COMPOUND_HEAD, (unsigned long long)flags);
		z = pfn_zone(s, head, "huge pages", r * per);
		huge_in[z]++;
	}
	close(kpf);
}

/* Step 4: the file, mapped at a 2 MiB boundary, and its small pages' zones. */
static char *write_and_map(void)
{
	char *p;

	pattern_file_write(TFILE, FSIZE, SEED);
	snap_read(&snaps[S_WRITTEN]);
	fd = open(TFILE, O_RDWR);
	if (fd < 0)
		test_fail("cannot open %s: %s", TFILE, strerror(errno));
	area = mmap(NULL, FSIZE + HPAGE, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		test_fail("mmap of %lu MiB: %s", (FSIZE + HPAGE) >> 20,
			  strerror(errno));
	p = (char *)(((uintptr_t)area + HPAGE - 1) & ~(HPAGE - 1));
	if (mmap(p, FSIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 0) != p)
		test_fail("mmap of %s at a 2 MiB boundary: %s", TFILE,
			  strerror(errno));
	pagemap_read(p, "before MADV_COLLAPSE");
	small_placement(&snaps[S_WRITTEN]);
	return p;
}

static void collapse(char *p)
{
	long long grew, thp;
	int r, tries;

	for (r = 0; r < NRANGES; r++)
		for (tries = 1; madvise(p + r * HPAGE, HPAGE, MADV_COLLAPSE); tries++) {
			if (errno != EAGAIN || tries == 20)
				test_fail("expected MADV_COLLAPSE of range %d (offset %lu MiB) to succeed, saw %s (try %d)",
					  r, r * (HPAGE >> 20), strerror(errno),
					  tries);
			usleep(100000);
		}
	snap_read(&snaps[S_COLLAPSED]);
	grew = snaps[S_COLLAPSED].shmem_huge_kb - snaps[S_PRE].shmem_huge_kb;
	thp = snaps[S_COLLAPSED].n[0][N_SHMEM_THP] -
	      snaps[S_PRE].n[0][N_SHMEM_THP];
	note("MADV_COLLAPSE of %d ranges: ShmemHugePages +%lld kB, node 0 nr_shmem_hugepages +%lld",
	     NRANGES, grew, thp);
	if (grew < (long long)(NRANGES * HPAGE >> 10) || thp < NRANGES)
		test_fail("expected ShmemHugePages +%lu kB and nr_shmem_hugepages +%d after collapsing %d ranges, saw +%lld kB and +%lld",
			  NRANGES * HPAGE >> 10, NRANGES, NRANGES, grew, thp);
	pagemap_read(p, "after MADV_COLLAPSE");
	huge_placement(&snaps[S_COLLAPSED]);
}

/*
 * The unfixed kernel's skew; -1 if the placement cannot show it (on the
 * last try, fail).
 */
static int placement_check(const struct snap *s, int last)
{
	char where[512];
	size_t len = 0;
	int i, worst = -1;

	for (i = 0; i < s->nz; i++) {
		skew[i] = small_in[i] - HPAGE_NR * huge_in[i];
		if (worst < 0 || llabs(skew[i]) > llabs(skew[worst]))
			worst = i;
		if (small_in[i] || huge_in[i])
			len += snprintf(where + len, sizeof(where) - len,
					"%s%s: %lld small, %lld huge",
					len ? "; " : "", s->z[i].name,
					small_in[i], huge_in[i]);
		if (len >= sizeof(where))
			len = sizeof(where) - 1;
	}
	note("placement (pagemap): %s; an unfixed kernel would leave %s %+lld pages after truncate",
	     where, s->z[worst].name, skew[worst]);
	if (llabs(skew[worst]) >= MIN_SKEW)
		return worst;
	if (last)
		test_fail("expected the small pages and the huge pages in different zones (an unfixed kernel's skew of at least %d pages in a zone) in one of %d tries, saw %s the last time: the test would prove nothing",
			  MIN_SKEW, PLACEMENT_TRIES, where);
	return -1;
}

/* Across MADV_COLLAPSE each zone's LRU moved by -skew (small out, huge in). */
static void lru_check(void)
{
	const struct snap *a = &snaps[S_PRE], *b = &snaps[S_COLLAPSED];
	long long d;
	int i;

	for (i = 0; i < b->nz; i++) {
		if (b->z[i].node || b->z[i].present <= 0)
			continue;
		d = lru_pages(&b->z[i]) - lru_pages(&a->z[i]);
		note("zone %s: LRU pages %+lld across MADV_COLLAPSE (pagemap: %lld huge pages in, %lld small pages out: %+lld)",
		     b->z[i].name, d, huge_in[i], small_in[i], -skew[i]);
		if (llabs(d + skew[i]) > TOL)
			test_fail("expected zone %s's LRU pages to move by %+lld (within %d) across MADV_COLLAPSE, saw %+lld",
				  b->z[i].name, -skew[i], TOL, d);
	}
}

/*
 * One line of figures: VAL(p) of every reading up to the collapse, or
 * (FINAL) the baseline, the last reading and the difference.
 */
static void print_row(const char *what, const long long *val, int final)
{
	char line[256];
	size_t len = 0;
	int p;

	for (p = S_BASE; p <= S_END && len < sizeof(line); p++)
		if (final ? p == S_BASE || p == S_END : p <= S_COLLAPSED)
			len += snprintf(line + len, sizeof(line) - len,
					" %s %lld", snap_name[p], val[p]);
	if (final && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, " (%+lld)",
			 val[S_END] - val[S_BASE]);
	note("%s:%s", what, line);
}

/* Per-zone and per-node figures (see print_row). */
static void print_figures(int final)
{
	const struct snap *s = snaps;
	long long val[NR_SNAPS];
	char what[96];
	int i, k, p;

	for (i = 0; i < s->nz; i++) {
		if (s->z[i].present <= 0)
			continue;
		for (k = Z_FILE; k <= Z_SHMEM; k++) {
			if (s->z[i].v[k] < 0)
				continue;
			for (p = 0; p < NR_SNAPS; p++)
				val[p] = snaps[p].z[i].v[k];
			snprintf(what, sizeof(what), "node %d zone %s %s",
				 s->z[i].node, s->z[i].name, zitem[k]);
			print_row(what, val, final);
		}
		for (p = 0; p < NR_SNAPS; p++)
			val[p] = lru_pages(&snaps[p].z[i]);
		snprintf(what, sizeof(what), "node %d zone %s LRU pages",
			 s->z[i].node, s->z[i].name);
		print_row(what, val, final);
		for (p = 0; p < NR_SNAPS; p++)
			val[p] = snaps[p].z[i].free;
		snprintf(what, sizeof(what), "node %d zone %s free pages",
			 s->z[i].node, s->z[i].name);
		print_row(what, val, final);
	}
	for (i = 0; i < s->nn; i++)
		for (k = 0; k < NR_NITEMS; k++) {
			for (p = 0; p < NR_SNAPS; p++)
				val[p] = snaps[p].n[i][k];
			snprintf(what, sizeof(what), "node %d %s", i, nitem[k]);
			print_row(what, val, final);
		}
}

/* Append one failed comparison to BAD. */
static void bad_add(char *bad, size_t size, const char *what, long long base,
		    long long now, long long tol)
{
	size_t len = strlen(bad);

	if (llabs(now - base) <= tol)
		return;
	snprintf(bad + len, size - len, "%s%s %lld, baseline %lld (%+lld%s)",
		 len ? "; " : "", what, now, base, now - base,
		 !now && base > tol ? ", a negative count reads 0" : "");
}

static void final_check(int copies, int worst)
{
	const struct snap *b = &snaps[S_BASE];
	struct snap *e = &snaps[S_END];
	char bad[2048] = "", what[96];
	int i, k;

	if (injected("collapse-skew")) {
		for (i = 0; i < e->nz; i++)
			for (k = Z_FILE; copies && k <= Z_SHMEM; k++) {
				e->z[i].v[k] += skew[i];
				if (e->z[i].v[k] < 0)
					e->z[i].v[k] = 0;	/* as zoneinfo shows it */
			}
		for (k = N_FILE; !copies && k <= N_SHMEM; k++)
			e->n[0][k] += skew[worst];
	}
	for (i = 0; copies && i < e->nz; i++)
		for (k = Z_FILE; e->z[i].present > 0 && k <= Z_SHMEM; k++) {
			snprintf(what, sizeof(what), "node %d zone %s %s",
				 e->z[i].node, e->z[i].name, zitem[k]);
			bad_add(bad, sizeof(bad), what, b->z[i].v[k],
				e->z[i].v[k], TOL);
		}
	for (i = 0; i < e->nn; i++)
		for (k = 0; k < NR_NITEMS; k++) {
			snprintf(what, sizeof(what), "node %d %s", i, nitem[k]);
			bad_add(bad, sizeof(bad), what, b->n[i][k], e->n[i][k],
				k == N_SHMEM_THP ? 0 : TOL);
		}
	bad_add(bad, sizeof(bad), "ShmemHugePages (kB)", b->shmem_huge_kb,
		e->shmem_huge_kb, 0);
	if (bad[0])
		test_fail("expected every %scounter back within %d pages (huge page counts exactly) of its baseline after truncate, saw %s",
			  copies ? "zone copy and node " : "node ", TOL, bad);
}

/* The zone copies: required at the zone end, absent at the node end. */
static int zone_copies(const struct snap *s, const char *end,
		       const char *release)
{
	int i, have = 0, lack = 0;

	for (i = 0; i < s->nz; i++) {
		if (s->z[i].present <= 0)
			continue;
		if (s->z[i].v[Z_FILE] >= 0 && s->z[i].v[Z_SHMEM] >= 0)
			have++;
		else
			lack++;
		if (s->z[i].v[Z_IA] < 0 || s->z[i].v[Z_AA] < 0 ||
		    s->z[i].v[Z_IF] < 0 || s->z[i].v[Z_AF] < 0)
			test_fail("expected the zone LRU items nr_zone_{in,}active_{anon,file} in every zone, zone %s lacks one",
				  s->z[i].name);
	}
	if (!strcmp(end, "zone") && lack)
		test_fail("zone end (%s): expected %s and %s in every populated zone, %d zone(s) lack them",
			  release, zitem[Z_FILE], zitem[Z_SHMEM], lack);
	if (!strcmp(end, "node") && have)
		test_fail("node end (%s): expected no %s or %s (the series moves them to the node), saw them in %d zone(s)",
			  release, zitem[Z_FILE], zitem[Z_SHMEM], have);
	note("kernel %s (%s): %s", release,
	     !strcmp(end, "step") ? "a step of the series" : end,
	     have ? "zone copies of the file counters present: checking them and the node items" :
	     "no zone copies of the file counters: checking the node items");
	return have && !lack;
}

static void setup(void)
{
	int err;

	shmem_mode(old_shmem, sizeof(old_shmem));
	err = read_line(BOOST, old_boost, sizeof(old_boost));
	if (err)
		test_fail("cannot read %s: %s", BOOST, strerror(err));
	atexit(cleanup);
	write_file(SHMEM_ENABLED, "advise");
	write_file(BOOST, "0");
	if (mkdir(TMPFS, 0755) && errno != EEXIST)
		test_fail("mkdir %s: %s", TMPFS, strerror(errno));
	if (mount("khugepaged-zones", TMPFS, "tmpfs", 0, "huge=never,size=96m"))
		test_fail("mount -t tmpfs -o huge=never %s: %s", TMPFS,
			  strerror(errno));
	mounted = 1;
	bind_to_node(0);
	drop_caches();
}

/* A placement that proves nothing: the file and the filler go. */
static void drop_file(void)
{
	munmap(area, FSIZE + HPAGE);
	area = NULL;
	close(fd);
	fd = -1;
	if (unlink(TFILE) || (unlink(FILLER) && errno != ENOENT))
		test_fail("unlink of %s or %s: %s", TFILE, FILLER,
			  strerror(errno));
	memset(small_in, 0, sizeof(small_in));
	memset(huge_in, 0, sizeof(huge_in));
}

int main(void)
{
	char release[128];
	const char *end;
	int l, copies, worst, try;
	char *p;

	page_size = sysconf(_SC_PAGESIZE);
	main_pid = getpid();
	elapsed();
	if (page_size != 4096)
		test_fail("expected 4 KiB pages, saw %zu", page_size);
	end = series_end(release, sizeof(release));
	setup();
	snap_read(&snaps[S_BASE]);
	copies = zone_copies(&snaps[S_BASE], end, release);
	l = zone_index(&snaps[S_BASE], "DMA32");
	if (l < 0 || (zone_index(&snaps[S_BASE], "Normal") < l &&
		      zone_index(&snaps[S_BASE], "Movable") < l))
		test_skip("needs DMA32 and a zone above it (Normal or Movable) on node 0, topology %s has not (node 1's single zone cannot hold both placements)",
			  getenv("NODELRU_TOPO") ? getenv("NODELRU_TOPO") : "?");

	for (try = 1;; try++) {
		kswapd_quiet();
		hold_dma32(l);
		hold_higher(l);
		fill_room(l);
		module_free();
		read_steady(&snaps[S_BASE]);
		note("%.1fs: holds in place, baseline taken", elapsed());
		p = write_and_map();
		mlock_hog_stop();
		snap_read(&snaps[S_PRE]);
		collapse(p);
		note("%.1fs: collapsed", elapsed());
		print_figures(0);
		worst = placement_check(&snaps[S_COLLAPSED],
					try == PLACEMENT_TRIES);
		if (worst >= 0)
			break;
		note("try %d: the placement would prove nothing; the file is dropped and placed again",
		     try);
		drop_file();
	}
	lru_check();
	verify_pages("collapsed tmpfs file", (uint64_t *)p, FSIZE / page_size,
		     SEED);
	note("%.1fs: every word of the file intact after MADV_COLLAPSE",
	     elapsed());
	munmap(area, FSIZE + HPAGE);
	area = NULL;
	if (!injected("collapse-no-truncate")) {
		if (ftruncate(fd, 0) || unlink(TFILE))
			test_fail("truncate and unlink of %s: %s", TFILE,
				  strerror(errno));
	}
	close(fd);
	fd = -1;
	snap_read(&snaps[S_END]);
	print_figures(1);
	final_check(copies, worst);
	note("%.1fs: ok: %s back within %d pages of the baseline after truncate",
	     elapsed(), copies ? "every zone copy and node item" :
	     "every node item", TOL);
	return KSFT_PASS;
}
