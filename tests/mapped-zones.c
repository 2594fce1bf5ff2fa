// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=smoke,full timeout=300 topo=all order=85
 *
 * The mapped page counters say what the pages really are, per zone.
 *
 * A file of 16 MiB is written (a per-page pattern) and fsynced, so its
 * pages sit in the page cache; then the file is mapped shared and read
 * through the mapping, and 16 MiB of anonymous memory is mapped and
 * written.  /proc/self/pagemap gives every page's frame, and the zones'
 * pfn ranges in /proc/zoneinfo (start_pfn, spanned) give its zone.
 * After vm.stat_refresh, for every zone:
 *   - before "mm: move page mapped accounting to the node" (the zone
 *     end and the steps before it; the step comes from the release and
 *     /lib/nodelru/series), the zones keep their own copies
 *     (nr_zone_mapped, nr_zone_anon_pages), which must be there, and
 *     from it on must not be; where they are, the rise of each
 *     copy from before the mapping equals the number of the test's
 *     pages of that kind in that zone, within 32 pages (the shell and
 *     kernel threads may map or unmap a few pages meanwhile);
 *   - at every step: the node items nr_mapped and nr_anon_pages of each
 *     node rise by the test's pages on that node, within the same slack.
 * Every page must be present and every word of both regions intact.
 * After munmap the counters must be back within the slack of where they
 * started.
 *
 * Injected faults: mapped-zone-shift books every page to the next zone
 * of its node when computing what the counters should say, so the per
 * zone comparison must fail (at the node end, the per-node one cannot,
 * and the test says so); mapped-node-half expects only every other page
 * of the anon region, so the per-node comparison (and, where there are
 * copies, the per-zone one) must fail at every step.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/nodelru.h"

#define SEED_FILE	0x6d617070656446ULL
#define SEED_ANON	0x6d617070656441ULL
#define REGION		(16UL << 20)
#define SLACK		32
#define MAX_ZONES	32
#define MAPPED_PATCH	"mm-move-page-mapped-accounting-to-the-node.patch"

struct zone_info {
	int node;
	char name[16];
	unsigned long long start, spanned;
	long long mapped, anon;		/* the zone copies; -1 if absent */
	long long want_mapped, want_anon;
};

static struct zone_info zones[MAX_ZONES];
static int nr_zones;
static int failures;

static void zoneinfo_read(struct zone_info *z, int *n)
{
	char line[256], key[64], name[16];
	long long val;
	int node, i = -1;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		test_fail("cannot open /proc/zoneinfo: %s", strerror(errno));
	memset(z, 0, MAX_ZONES * sizeof(*z));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %15s", &node, name) == 2) {
			if (++i >= MAX_ZONES)
				test_fail("more than %d zones", MAX_ZONES);
			z[i].node = node;
			snprintf(z[i].name, sizeof(z[i].name), "%s", name);
			z[i].mapped = z[i].anon = -1;
			continue;
		}
		if (i < 0 || sscanf(line, " %63s %lld", key, &val) != 2)
			continue;
		if (!strcmp(key, "spanned"))
			z[i].spanned = val;
		else if (!strcmp(key, "start_pfn:"))
			z[i].start = val;
		else if (!strcmp(key, "nr_zone_mapped"))
			z[i].mapped = val;
		else if (!strcmp(key, "nr_zone_anon_pages"))
			z[i].anon = val;
	}
	fclose(f);
	*n = i + 1;
}

static long long node_item(int node, const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/vmstat",
		 node);
	if (access(path, R_OK))
		return -1;
	return file_counter(path, name);
}

static int zone_of(unsigned long long pfn)
{
	int i;

	for (i = 0; i < nr_zones; i++)
		if (zones[i].spanned && pfn >= zones[i].start &&
		    pfn < zones[i].start + zones[i].spanned)
			return i;
	return -1;
}

/* Count the region's pages per zone into want_mapped or want_anon. */
static void locate(int pagemap, const char *what, const char *p,
		   size_t len, int anon, int shift, int half)
{
	size_t page = sysconf(_SC_PAGESIZE), i;
	uint64_t ent;
	int z;

	for (i = 0; i < len / page; i++) {
		off_t off = ((uintptr_t)p / page + i) * sizeof(ent);

		if (pread(pagemap, &ent, sizeof(ent), off) != sizeof(ent))
			test_fail("reading /proc/self/pagemap: %s",
				  strerror(errno));
		if (!(ent >> 63 & 1))
			test_fail("%s page %zu is not present after it was touched",
				  what, i);
		z = zone_of(ent & ((1ULL << 55) - 1));
		if (z < 0)
			test_fail("%s page %zu: pfn %llu is in no zone of /proc/zoneinfo",
				  what, i,
				  (unsigned long long)(ent & ((1ULL << 55) - 1)));
		if (shift && z + 1 < nr_zones &&
		    zones[z + 1].node == zones[z].node)
			z++;
		if (half && anon && (i & 1))
			continue;
		if (anon)
			zones[z].want_anon++;
		else
			zones[z].want_mapped++;
	}
}

static void expect(const char *where, const char *item, long long before,
		   long long after, long long want)
{
	long long rise = after - before;
	int ok = rise >= want - SLACK && rise <= want + SLACK;

	note("%s %s: rose by %lld, expected %lld (+-%d)%s", where, item, rise,
	     want, SLACK, ok ? "" : "  <-- wrong");
	failures += !ok;
}

/* Each zone's copies rose by the test's pages found in it. */
static void check_zones(const struct zone_info *before,
			const struct zone_info *after, int copies)
{
	int i;

	for (i = 0; i < nr_zones; i++) {
		char where[48];

		snprintf(where, sizeof(where), "node %d zone %s", zones[i].node,
			 zones[i].name);
		note("%s: %lld file and %lld anon pages of the test", where,
		     zones[i].want_mapped, zones[i].want_anon);
		if (!copies)
			continue;
		expect(where, "nr_zone_mapped", before[i].mapped,
		       after[i].mapped, zones[i].want_mapped);
		expect(where, "nr_zone_anon_pages", before[i].anon,
		       after[i].anon, zones[i].want_anon);
	}
}

/* Each node's items rose by the test's pages in its zones. */
static void check_nodes(const long long *nmapped, const long long *nanon)
{
	int i, node;

	for (node = 0; node < 64; node++) {
		long long wm = 0, wa = 0;
		char where[16];

		if (nmapped[node] < 0)
			continue;
		for (i = 0; i < nr_zones; i++)
			if (zones[i].node == node) {
				wm += zones[i].want_mapped;
				wa += zones[i].want_anon;
			}
		snprintf(where, sizeof(where), "node %d", node);
		expect(where, "nr_mapped", nmapped[node],
		       node_item(node, "nr_mapped"), wm);
		expect(where, "nr_anon_pages", nanon[node],
		       node_item(node, "nr_anon_pages"), wa);
	}
}

/* After munmap every zone's copies are back where they started. */
static void check_unmapped(const struct zone_info *before, int copies)
{
	struct zone_info after[MAX_ZONES];
	int i, n;

	stat_refresh();
	zoneinfo_read(after, &n);
	for (i = 0; copies && i < nr_zones; i++) {
		char where[64];

		snprintf(where, sizeof(where), "after munmap: node %d zone %s",
			 zones[i].node, zones[i].name);
		expect(where, "nr_zone_mapped", before[i].mapped,
		       after[i].mapped, 0);
		expect(where, "nr_zone_anon_pages", before[i].anon,
		       after[i].anon, 0);
	}
}

int main(void)
{
	struct zone_info before[MAX_ZONES], after[MAX_ZONES];
	long long nmapped[64], nanon[64];
	size_t page = sysconf(_SC_PAGESIZE);
	const char *path = "/mnt/scratch/mapped-zones.data";
	int shift = injected("mapped-zone-shift");
	int half = injected("mapped-node-half");
	int fd, pagemap, n, node, copies;
	char *file, *anon;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access("/mnt/scratch", W_OK))
		path = "/tmp/mapped-zones.data";
	pattern_file_write(path, REGION, SEED_FILE);
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (pagemap < 0)
		test_skip("no /proc/self/pagemap (CONFIG_PROC_PAGE_MONITOR off)");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		test_fail("open %s: %s", path, strerror(errno));

	stat_refresh();
	zoneinfo_read(before, &nr_zones);
	memcpy(zones, before, sizeof(zones));
	copies = !patch_applied(MAPPED_PATCH);
	note("step %d: zone copies of the mapped counters in /proc/zoneinfo: %s, expected %s",
	     series_step(), zones[0].mapped >= 0 ? "yes" : "no",
	     copies ? "yes (before " MAPPED_PATCH ")" : "no (it is applied)");
	if ((zones[0].mapped >= 0) != copies)
		test_fail("step %d: expected the zone copies nr_zone_mapped and nr_zone_anon_pages %s /proc/zoneinfo, saw %s",
			  series_step(), copies ? "in" : "gone from",
			  copies ? "none" : "them");
	for (node = 0; node < 64; node++) {
		nmapped[node] = node_item(node, "nr_mapped");
		nanon[node] = node_item(node, "nr_anon_pages");
	}

	file = mmap(NULL, REGION, PROT_READ, MAP_SHARED, fd, 0);
	anon = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (file == MAP_FAILED || anon == MAP_FAILED)
		test_fail("mmap: %s", strerror(errno));
	verify_pages("mapped file", (uint64_t *)file, REGION / page, SEED_FILE);
	fill_pages((uint64_t *)anon, REGION / page, SEED_ANON);

	stat_refresh();
	zoneinfo_read(after, &n);
	if (n != nr_zones)
		test_fail("/proc/zoneinfo had %d zones, now %d", nr_zones, n);
	locate(pagemap, "file", file, REGION, 0, shift, half);
	locate(pagemap, "anon", anon, REGION, 1, shift, half);

	check_zones(before, after, copies);
	check_nodes(nmapped, nanon);
	if (shift && !copies)
		note("mapped-zone-shift: no zone copies at this step, the per-zone comparison it breaks is not made");

	verify_pages("anon", (uint64_t *)anon, REGION / page, SEED_ANON);
	munmap(file, REGION);
	munmap(anon, REGION);
	check_unmapped(before, copies);
	close(fd);
	close(pagemap);
	unlink(path);
	if (failures)
		test_fail("%d counter(s) do not say what the pages are", failures);
	note("the mapped counters match the pages");
	return KSFT_PASS;
}
