// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=240 topo=all order=40
 *
 * cgroup v1 memory soft limits steer global reclaim.  The memory
 * controller is bound to a v1 hierarchy on /mnt/v1 (possible while cgroup
 * v2 does not use it: this test runs before the v2 memcg tests, and takes
 * +memory away from the v2 root first if it is there).  Groups A and B
 * each read S = 192 MiB (MemTotal/16 on a small guest) of page cache (a
 * sparse file on the scratch disk: clean cache without disk I/O); A's
 * memory.soft_limit_in_bytes is S/8 and B's 3S/4, so A is 7S/8 over its
 * soft limit and B S/4.  B reads first, so plain
 * LRU order would take from B rather than A.  Then a child in the root
 * group touches MemFree + S/2 of anon: global reclaim (kswapd and direct)
 * runs soft limit reclaim on the group with the largest excess first.
 * Pass: A loses more than B, and at least S/8 (reclaim did reach the
 * groups).  Usage before and after of both is printed.  If the kernel
 * refuses the v1 mount the test skips and says why.  At the end the v1
 * hierarchy is emptied and unmounted so the controller returns to v2;
 * the runner checks the books after the test (tests/lib/books.sh).
 *
 * Swap is cycled around the v1 mount (tests/lib/memcg-v1.h says why).
 * The set also runs this test first (order=40), before any test that
 * swaps.
 *
 * Who ran soft limit reclaim, and for what unit (kernels with tracing;
 * without, e.g. the bench flavor, both checks say "... check not made:
 * <reason>" and only the comparison above decides).  For the pressure
 * phase only:
 *   - a hist trigger keyed on common_pid.execname counts the
 *     vmscan/mm_vmscan_memcg_softlimit_reclaim_begin events (one per
 *     victim group reclaimed, in mem_cgroup_shrink_node()); expected:
 *     more than 0 from kswapd* tasks; direct reclaim's are reported.
 *   - kprobe events nodelru/slr on mem_cgroup_soft_limit_reclaim
 *     (where=$arg1, the zone or pgdat it was asked for) and nodelru/sln
 *     on mem_cgroup_shrink_node (where=$arg4), with hist triggers keyed
 *     on task and pointer.  The distinct slr pointers from kswapdN (node
 *     N) are checked by the step of the series (the release and
 *     /lib/nodelru/series):
 *       before "mm, memcg: move memcg limit enforcement from zones to
 *       nodes" (the zone end and steps 1-12): kswapd calls it for each
 *         managed zone up to its reclaim index, so the kswapd of a node
 *         with 2+ managed zones (/proc/zoneinfo) shows 2+ pointers, and
 *         within a kswapd they differ by multiples of a common step (the
 *         gcd of their differences, printed: sizeof(struct zone) or a
 *         multiple), a multiple of 64 (struct zone is cacheline aligned)
 *         of at least 512 bytes, spanning fewer steps than the node has
 *         zones (node_zones[] is one array in the pgdat);
 *       from that patch on (the node end): once per node with the pgdat,
 *         so one pointer per kswapd and at most as many in all as online
 *         nodes.
 *     slr from direct reclaim and all sln pointers are reported only.
 *     Without kprobe events in the kernel (no CONFIG_KPROBE_EVENTS) the
 *     test says "kprobe check not made: <reason>" and passes on the rest;
 *     with them, a refused slr kprobe (the function renamed or gone)
 *     fails the test.
 *   The triggers and kprobe events are removed after the pressure phase,
 *   at exit when a check fails half-way, and any left by an earlier run
 *   before they are added.
 *
 * Faults: INJECT=soft-swap swaps the two soft limits; the comparison must
 * fail.  INJECT=softlimit-unit checks the slr pointers against the other
 * rule (per node before the patch, per zone from it on); the unit check
 * must fail at every step (no effect when the kprobe check is not made).
 */
#include <sys/utsname.h>

#include "lib/memcg-v1.h"

#define G_A		V1 "/nodelru-a"
#define SOFT_NODE_PATCH	"mm-memcg-move-memcg-limit-enforcement-from-zones-to-nodes.patch"
#define G_B		V1 "/nodelru-b"
#define SCRATCH		"/mnt/scratch"

static void fill_cache(const char *cg, const char *path, size_t size)
{
	int status;
	pid_t pid;

	pid = fork_or_fail();
	if (!pid) {
		cg_enter(cg);
		sparse_cache(path, size);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		test_fail("reading %zu MiB of %s from %s: expected exit 0, saw status 0x%x",
			  size >> 20, path, cg, status);
}

static pid_t main_pid;

/* Remove the files (the controller goes back to v2 after, at exit). */
static void cleanup(void)
{
	if (getpid() != main_pid)
		return;
	unlink(SCRATCH "/soft-a.dat");
	unlink(SCRATCH "/soft-b.dat");
}

/*
 * Tracing of soft limit reclaim during the pressure phase.
 * The tracepoint fires in mem_cgroup_shrink_node() (one victim group
 * reclaimed); a hist trigger keyed on the task counts its events without
 * the trace buffer (which can overflow).  Two kprobe events record the
 * unit of reclaim: the first argument of mem_cgroup_soft_limit_reclaim()
 * (slr) and the fourth of mem_cgroup_shrink_node() (sln), a zone or a
 * pgdat pointer; their hist triggers are keyed on task and pointer.
 */
#define TR		"/sys/kernel/tracing"
#define SL_EV		TR "/events/vmscan/mm_vmscan_memcg_softlimit_reclaim_begin"
#define SL_HIST		"hist:keys=common_pid.execname"
#define KP_EVENTS	TR "/kprobe_events"
#define KP_HIST		"hist:keys=common_pid.execname,where"

static const char * const kp_name[2] = { "slr", "sln" };
static const char * const kp_def[2] = {
	"p:nodelru/slr mem_cgroup_soft_limit_reclaim where=$arg1:x64",
	"p:nodelru/sln mem_cgroup_shrink_node where=$arg4:x64",
};
static int sl_hist_on, kp_on[2], kp_hist_on[2];

static void kp_path(char *buf, size_t size, int i, const char *file)
{
	snprintf(buf, size, TR "/events/nodelru/%s/%s", kp_name[i], file);
}

/* Remove the triggers and kprobe events (QUIET: also stale ones). */
static void trace_remove(int quiet)
{
	char path[128], cmd[64];
	int i, err;

	if (quiet || sl_hist_on) {
		err = try_write_file(SL_EV "/trigger", "!" SL_HIST);
		if (err && !quiet)
			note("# warning: removing the hist trigger of %s: %s",
			     SL_EV, strerror(err));
		sl_hist_on = 0;
	}
	for (i = 0; i < 2; i++) {
		if (quiet || kp_hist_on[i]) {
			kp_path(path, sizeof(path), i, "trigger");
			err = try_write_file(path, "!" KP_HIST);
			if (err && !quiet)
				note("# warning: removing the hist trigger of nodelru/%s: %s",
				     kp_name[i], strerror(err));
			kp_hist_on[i] = 0;
		}
		if (quiet || kp_on[i]) {
			snprintf(cmd, sizeof(cmd), "-:nodelru/%s", kp_name[i]);
			err = try_write_file(KP_EVENTS, cmd);
			if (err && !quiet)
				note("# warning: removing the kprobe event nodelru/%s: %s",
				     kp_name[i], strerror(err));
			kp_on[i] = 0;
		}
	}
}

static void trace_cleanup(void)
{
	if (getpid() == main_pid)
		trace_remove(0);
}

/* One line of a hist file: task name, pointer (if keyed on it), hits. */
struct hent {
	char comm[17];
	unsigned long long where;
	long long hits;
};

#define MAX_HENT	2048

/* The entries of a hist file whose first key is common_pid.execname. */
static int hist_read_file(const char *path, struct hent *e, int max)
{
	char line[512];
	const char *p;
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		test_fail("cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) && n < max) {
		if (sscanf(line, "{ common_pid: %16s", e[n].comm) != 1)
			continue;
		p = strstr(line, "where:");
		e[n].where = p ? strtoull(p + 6, NULL, 10) : 0;
		p = strstr(line, "hitcount:");
		e[n].hits = p ? strtoll(p + 9, NULL, 10) : 0;
		n++;
	}
	fclose(f);
	return n;
}

static int is_kswapd(const struct hent *e)
{
	return !strncmp(e->comm, "kswapd", 6);
}

/* Distinct pointers of E (kswapd's or the others'), into V; how many. */
static int distinct(const struct hent *e, int n, int kswapd, int node,
		    unsigned long long *v, int max)
{
	int i, j, k = 0;

	for (i = 0; i < n; i++) {
		if (is_kswapd(&e[i]) != kswapd ||
		    (node >= 0 && atoi(e[i].comm + 6) != node))
			continue;
		for (j = 0; j < k && v[j] != e[i].where; j++)
			;
		if (j == k && k < max)
			v[k++] = e[i].where;
	}
	return k;
}

static unsigned long long gcd(unsigned long long a, unsigned long long b)
{
	while (b) {
		unsigned long long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

#define MAX_NODES	64

/* From /proc/zoneinfo: online nodes, zones of a node, managed zones. */
static int zone_layout(int *zones, int *managed)
{
	char line[256], name[32];
	long long v;
	int node, cur = -1, nodes = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		test_fail("cannot read /proc/zoneinfo: %s", strerror(errno));
	memset(zones, 0, MAX_NODES * sizeof(*zones));
	memset(managed, 0, MAX_NODES * sizeof(*managed));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &node, name) == 2) {
			cur = node >= 0 && node < MAX_NODES ? node : -1;
			if (cur >= 0 && !zones[cur]++)
				nodes++;
		} else if (cur >= 0 && sscanf(line, " managed %lld", &v) == 1 &&
			   v > 0) {
			managed[cur]++;
		}
	}
	fclose(f);
	return nodes;
}

/* Start the tracing; returns 0 when there is no tracefs at all. */
static int trace_start(void)
{
	char path[128];
	int err, i;

	if (access(TR "/events", F_OK)) {
		note("softlimit tracepoint check not made: no %s/events (kernel without tracing, the bench flavor?)",
		     TR);
		note("kprobe check not made: no %s/events (kernel without tracing)",
		     TR);
		return 0;
	}
	trace_remove(1);	/* leftovers of an earlier run */
	if (access(SL_EV "/trigger", F_OK))
		test_fail("expected the tracepoint %s, it is missing", SL_EV);
	err = try_write_file(SL_EV "/trigger", SL_HIST);
	if (err)
		test_fail("expected '%s' to be accepted by %s/trigger (CONFIG_HIST_TRIGGERS), saw %s",
			  SL_HIST, SL_EV, strerror(err));
	sl_hist_on = 1;

	if (access(KP_EVENTS, F_OK)) {
		note("kprobe check not made: no %s (kernel without CONFIG_KPROBE_EVENTS)",
		     KP_EVENTS);
		return 1;
	}
	for (i = 0; i < 2; i++) {
		err = try_write_file(KP_EVENTS, kp_def[i]);
		if (err && !i)
			test_fail("expected the slr kprobe '%s' to be accepted by %s (the kernel has kprobe events), saw %s",
				  kp_def[i], KP_EVENTS, strerror(err));
		if (err) {
			note("kprobe for sln (reported only) not added: '%s' was refused by %s: %s",
			     kp_def[i], KP_EVENTS, strerror(err));
			continue;
		}
		kp_on[i] = 1;
		kp_path(path, sizeof(path), i, "trigger");
		err = try_write_file(path, KP_HIST);
		if (err)
			test_fail("expected '%s' to be accepted by %s, saw %s",
				  KP_HIST, path, strerror(err));
		kp_hist_on[i] = 1;
	}
	return 1;
}

static void print_values(const char *what, const unsigned long long *v, int n)
{
	char buf[1024];
	int i, len = 0;

	buf[0] = 0;
	for (i = 0; i < n && len < (int)sizeof(buf) - 24; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %#llx", v[i]);
	note("%s: %d distinct%s", what, n, buf);
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* Results of the tracing, read after the pressure phase. */
struct trace_result {
	int traced;			/* the tracepoint was counted */
	long long sl_kswapd, sl_direct;	/* softlimit_reclaim_begin events */
	int unit;			/* the unit check was made */
	char expect[8];			/* "zone", "node" or "" (step) */
	const char *unit_fail;		/* why the unit check failed */
	char unit_msg[512];
};

static char unit_fail_buf[768];

/*
 * The unit check on the slr pointers from kswapd.  kswapdN works for
 * node N, so its pointers are grouped by N.
 *   node rule: one pointer per kswapd (the pgdat), and no more distinct
 *     pointers in all than online nodes;
 *   zone rule: some kswapd of a node with 2+ managed zones shows 2+
 *     pointers; within each kswapd they differ by multiples of a common
 *     step (the gcd of the differences: sizeof(struct zone) or a multiple),
 *     which is a multiple of 64 (struct zone is cacheline aligned) of at
 *     least 512 bytes, and spans at most the node's zone count - 1 steps.
 */
static void unit_check(struct trace_result *r, const struct hent *e, int n)
{
	unsigned long long v[64], all[256], step = 0, spread;
	int zones[MAX_NODES], managed[MAX_NODES];
	int nodes, node, k, i, total, multi = 0, multi_seen = 0, worst = 0;
	char name[32];

	nodes = zone_layout(zones, managed);
	for (node = 0; node < MAX_NODES; node++)
		if (managed[node] >= 2)
			multi++;
	total = distinct(e, n, 1, -1, all, 256);
	qsort(all, total, sizeof(all[0]), cmp_ull);
	note("zoneinfo: %d online node(s), %d with 2+ managed zones", nodes,
	     multi);
	print_values("slr pointers from kswapd", all, total);
	for (node = 0; node < MAX_NODES; node++) {
		k = distinct(e, n, 1, node, v, 64);
		if (!k)
			continue;
		qsort(v, k, sizeof(v[0]), cmp_ull);
		snprintf(name, sizeof(name), "  kswapd%d (%d managed zones)",
			 node, managed[node]);
		print_values(name, v, k);
		if (k > worst)
			worst = k;
		if (k >= 2 && managed[node] >= 2)
			multi_seen = 1;
		for (i = 1; i < k; i++)
			step = gcd(step, v[i] - v[0]);
	}
	if (step)
		note("common step of the pointers within a kswapd: %llu bytes (%#llx)",
		     step, step);

	r->unit_fail = NULL;
	if (!strcmp(r->expect, "node")) {
		if (worst > 1) {
			snprintf(unit_fail_buf, sizeof(unit_fail_buf),
				 "expected one slr pointer (the pgdat) per kswapd, saw up to %d in one kswapd (%d distinct in all)",
				 worst, total);
			r->unit_fail = unit_fail_buf;
		} else if (total > nodes) {
			snprintf(unit_fail_buf, sizeof(unit_fail_buf),
				 "expected at most %d distinct slr pointers from kswapd (one per online node), saw %d",
				 nodes, total);
			r->unit_fail = unit_fail_buf;
		}
		snprintf(r->unit_msg, sizeof(r->unit_msg),
			 "per node: at most one slr pointer per kswapd, %d in all for %d node(s)",
			 total, nodes);
		return;
	}
	if (!multi) {
		snprintf(r->unit_msg, sizeof(r->unit_msg),
			 "per zone not shown: no node has 2+ managed zones (%d slr pointers from kswapd)",
			 total);
		return;
	}
	if (!multi_seen) {
		snprintf(unit_fail_buf, sizeof(unit_fail_buf),
			 "expected 2+ distinct slr pointers (one per zone) from the kswapd of a node with 2+ managed zones, saw at most %d per kswapd (%d distinct in all)",
			 worst, total);
		r->unit_fail = unit_fail_buf;
		return;
	}
	if (step % 64 || step < 512) {
		snprintf(unit_fail_buf, sizeof(unit_fail_buf),
			 "expected the pointers within a kswapd to differ by multiples of sizeof(struct zone) (a multiple of 64, at least 512), saw a common step of %llu bytes",
			 step);
		r->unit_fail = unit_fail_buf;
		return;
	}
	for (node = 0; node < MAX_NODES; node++) {
		k = distinct(e, n, 1, node, v, 64);
		if (k < 2)
			continue;
		qsort(v, k, sizeof(v[0]), cmp_ull);
		spread = (v[k - 1] - v[0]) / step;
		if (spread >= (unsigned long long)zones[node]) {
			snprintf(unit_fail_buf, sizeof(unit_fail_buf),
				 "expected kswapd%d's slr pointers to lie within its %d zones (%d steps of %llu bytes), saw them %llu steps apart",
				 node, zones[node], zones[node] - 1, step,
				 spread);
			r->unit_fail = unit_fail_buf;
			return;
		}
	}
	snprintf(r->unit_msg, sizeof(r->unit_msg),
		 "per zone: up to %d slr pointers per kswapd, %llu bytes apart (or a multiple)",
		 worst, step);
}

static void trace_finish(struct trace_result *r, int traced)
{
	static struct hent e[MAX_HENT];
	unsigned long long v[64];
	const char *rel_end;
	struct utsname u;
	char path[128];
	int n, i, k;

	memset(r, 0, sizeof(*r));
	if (!traced)
		return;
	n = hist_read_file(SL_EV "/hist", e, MAX_HENT);
	for (i = 0; i < n; i++) {
		if (is_kswapd(&e[i]))
			r->sl_kswapd += e[i].hits;
		else
			r->sl_direct += e[i].hits;
	}
	r->traced = 1;
	note("mm_vmscan_memcg_softlimit_reclaim_begin: %lld from kswapd, %lld from direct reclaim",
	     r->sl_kswapd, r->sl_direct);

	if (uname(&u))
		test_fail("uname: %s", strerror(errno));
	rel_end = patch_applied(SOFT_NODE_PATCH) ? "node" : "zone";
	if (injected("softlimit-unit"))
		rel_end = !strcmp(rel_end, "zone") ? "node" : "zone";
	snprintf(r->expect, sizeof(r->expect), "%s", rel_end);

	if (kp_hist_on[1]) {
		kp_path(path, sizeof(path), 1, "hist");
		n = hist_read_file(path, e, MAX_HENT);
		k = distinct(e, n, 1, -1, v, 64);
		qsort(v, k, sizeof(v[0]), cmp_ull);
		print_values("sln pointers from kswapd (reported only)", v, k);
		k = distinct(e, n, 0, -1, v, 64);
		qsort(v, k, sizeof(v[0]), cmp_ull);
		print_values("sln pointers from direct reclaim (reported only)",
			     v, k);
	}
	if (!kp_hist_on[0])
		return;
	kp_path(path, sizeof(path), 0, "hist");
	n = hist_read_file(path, e, MAX_HENT);
	k = distinct(e, n, 0, -1, v, 64);
	qsort(v, k, sizeof(v[0]), cmp_ull);
	print_values("slr pointers from direct reclaim (reported only)", v, k);
	note("kernel %s, step %d: %s", u.release, series_step(),
	     !strcmp(r->expect, "zone") ?
	     "expecting soft limit reclaim per zone" :
	     "expecting soft limit reclaim per node");
	r->unit = 1;
	unit_check(r, e, n);
}

int main(void)
{
	long long mem_kb = meminfo_kb("MemTotal:");
	long long swap_kb = meminfo_kb("SwapTotal:");
	static const char * const groups[] = { G_A, G_B, NULL };
	long long a0, b0, a1, b1, al, bl, soft_a, soft_b, kills0;
	size_t s, pressure;
	struct trace_result tr;
	double took;
	int traced;

	elapsed();
	kills0 = vmstat("oom_kill");
	if (access(SCRATCH "/lost+found", F_OK))
		test_skip("no scratch ext4 disk mounted on %s", SCRATCH);
	if (swap_kb < 256 * 1024)
		test_skip("needs 256 MiB of swap, SwapTotal is %lld kB", swap_kb);
	s = (size_t)mem_kb * 1024 / 16;
	if (s > 192 << 20)
		s = 192 << 20;
	s &= ~((size_t)(1 << 20) - 1);

	main_pid = getpid();
	v1_mount(groups, "memory.soft_limit_in_bytes");
	atexit(cleanup);	/* runs before v1_release() */

	soft_a = s / 8;
	soft_b = s * 3 / 4;
	if (injected("soft-swap")) {
		long long t = soft_a;

		soft_a = soft_b;
		soft_b = t;
	}
	cg_write_ll(G_A, "memory.soft_limit_in_bytes", soft_a);
	cg_write_ll(G_B, "memory.soft_limit_in_bytes", soft_b);
	note("S %zu MiB of page cache each; soft limits: A %lld MiB, B %lld MiB",
	     s >> 20, soft_a >> 20, soft_b >> 20);

	sparse_create(SCRATCH "/soft-b.dat", s);
	sparse_create(SCRATCH "/soft-a.dat", s);
	fill_cache(G_B, SCRATCH "/soft-b.dat", s);
	fill_cache(G_A, SCRATCH "/soft-a.dat", s);
	a0 = cg_read(G_A, "memory.usage_in_bytes");
	b0 = cg_read(G_B, "memory.usage_in_bytes");
	note("%.1fs: before: A %lld kB (%lld kB over its soft limit), B %lld kB (%lld kB over)",
	     elapsed(), a0 >> 10, (a0 - soft_a) >> 10, b0 >> 10,
	     (b0 - soft_b) >> 10);

	atexit(trace_cleanup);	/* runs before cleanup() */
	traced = trace_start();
	pressure = meminfo_kb("MemFree:") * 1024 + s / 2;
	took = global_pressure(pressure);
	a1 = cg_read(G_A, "memory.usage_in_bytes");
	b1 = cg_read(G_B, "memory.usage_in_bytes");
	al = a0 - a1;
	bl = b0 - b1;
	note("%.1fs: global pressure of %zu MiB took %.1fs", elapsed(),
	     pressure >> 20, took);
	note("after: A %lld kB (lost %lld kB), B %lld kB (lost %lld kB)",
	     a1 >> 10, al >> 10, b1 >> 10, bl >> 10);
	trace_finish(&tr, traced);
	trace_remove(0);
	cleanup();
	v1_release_or_fail();
	if (vmstat("oom_kill") != kills0)
		test_fail("expected no OOM kill, saw oom_kill +%lld",
			  vmstat("oom_kill") - kills0);
	if (al < (long long)s / 8)
		test_fail("expected global reclaim to take at least %zu kB from A, saw %lld kB",
			  s / 8 >> 10, al >> 10);
	if (al <= bl)
		test_fail("expected A (further over its soft limit) to lose more than B (%lld kB), saw %lld kB",
			  bl >> 10, al >> 10);
	if (tr.traced && tr.sl_kswapd <= 0)
		test_fail("expected soft limit reclaim from kswapd (mm_vmscan_memcg_softlimit_reclaim_begin events of kswapd* > 0), saw %lld (direct reclaim: %lld)",
			  tr.sl_kswapd, tr.sl_direct);
	if (tr.unit_fail)
		test_fail("soft limit reclaim per %s: %s", tr.expect,
			  tr.unit_fail);
	note("ok: the group further over its soft limit lost %lld kB, the other %lld kB",
	     al >> 10, bl >> 10);
	if (tr.traced)
		note("ok: soft limit reclaim from kswapd (%lld events; %lld from direct reclaim)",
		     tr.sl_kswapd, tr.sl_direct);
	else
		note("softlimit tracepoint check not made: no tracing in this kernel");
	if (tr.unit)
		note("ok: %s", tr.unit_msg);
	else if (tr.traced)
		note("kprobe check not made: the kernel has no kprobe events (see above)");
	else
		note("kprobe check not made: no tracing in this kernel");
	return KSFT_PASS;
}
