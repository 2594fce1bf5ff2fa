// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru: sets=full timeout=120 topo=all order=64 oom=expected
 *
 * A memcg OOM kill hits the task that caused it and nothing else.  A
 * group gets memory.max = 32 MiB and memory.swap.max = 0, so anon cannot
 * be reclaimed; a child of the test in that group touches 64 MiB of anon.
 * Reclaim in the group cannot make room and the memcg OOM killer must
 * choose a victim from that group, where the child is the only task.
 * Pass: the child died of SIGKILL before it touched all 64 MiB, the
 * group's memory.events shows oom_kill 1 (and oom >= 1), /proc/vmstat
 * oom_kill grew by exactly 1 (no task outside the group was killed), the
 * kernel log names the child's pid as the killed process, and the group
 * is empty afterwards.  The runner checks the books after the test
 * (tests/lib/books.sh).
 *
 * Fault: INJECT=oom-swapok leaves memory.swap.max at max, so the group
 * can swap and no OOM kill happens: the test must fail.
 */
#include <signal.h>

#include "lib/nodelru.h"

#define CGROOT		"/sys/fs/cgroup"
#define G_OOM		CGROOT "/nodelru-oom"

/* Does the kernel log, from FD on, say that PID was killed? */
static int kmsg_killed(int fd, pid_t pid)
{
	char rec[2048], want[64];
	int found = 0;
	ssize_t n;

	snprintf(want, sizeof(want), "Killed process %d ", (int)pid);
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EPIPE)
				continue;	/* overwritten records */
			break;			/* EAGAIN: the end */
		}
		rec[n] = 0;
		rec[strcspn(rec, "\n")] = 0;
		if (strstr(rec, want)) {
			found = 1;
			note("kernel log: %s", strchr(rec, ';') ?
			     strchr(rec, ';') + 1 : rec);
		}
	}
	return found;
}

int main(void)
{
	size_t max = 32 << 20, size = 64 << 20, page = sysconf(_SC_PAGESIZE);
	long long kills0 = vmstat("oom_kill"), kills, ev_kill, ev_oom;
	int kfd, status, p[2], swapok;
	size_t touched = 0;
	pid_t pid;

	elapsed();
	if (meminfo_kb("MemAvailable:") < 4 * (long long)size / 1024)
		test_skip("needs MemAvailable of %zu MiB", 4 * size >> 20);
	memcg_v2_require(10);
	if (mkdir(G_OOM, 0755) && errno != EEXIST)
		test_fail("mkdir %s: %s", G_OOM, strerror(errno));
	cg_write_ll(G_OOM, "memory.max", max);
	swapok = injected("oom-swapok");
	if (!swapok)
		cg_write(G_OOM, "memory.swap.max", "0");
	note("group: memory.max %zu MiB, memory.swap.max %s; the child touches %zu MiB of anon",
	     max >> 20, swapok ? "max" : "0", size >> 20);

	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd < 0)
		test_fail("cannot open /dev/kmsg: %s", strerror(errno));
	lseek(kfd, 0, SEEK_END);
	if (pipe(p))
		test_fail("pipe failed: %s", strerror(errno));
	pid = fork_or_fail();
	if (!pid) {
		char *m;
		size_t off;

		close(p[0]);
		cg_enter(G_OOM);
		m = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			_exit(2);
		madvise(m, size, MADV_NOHUGEPAGE);
		for (off = 0; off < size; off += page) {
			m[off] = 1;
			/* Progress for the parent, a MiB at a time. */
			if (!((off + page) & ((1 << 20) - 1)) &&
			    write(p[1], &off, sizeof(off)) != sizeof(off))
				_exit(3);
		}
		_exit(0);
	}
	close(p[1]);
	while (read(p[0], &touched, sizeof(touched)) == sizeof(touched))
		;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		test_fail("waitpid failed: %s", strerror(errno));
	kills = vmstat("oom_kill") - kills0;
	ev_kill = cg_counter(G_OOM, "memory.events", "oom_kill");
	ev_oom = cg_counter(G_OOM, "memory.events", "oom");
	note("%.1fs: child %d %s %d after about %zu MiB; memory.events oom %lld oom_kill %lld; /proc/vmstat oom_kill +%lld",
	     elapsed(), (int)pid, WIFSIGNALED(status) ? "killed by signal" :
	     "exited with", WIFSIGNALED(status) ? WTERMSIG(status) :
	     WEXITSTATUS(status), (touched + page) >> 20, ev_oom, ev_kill,
	     kills);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		test_fail("expected the child in the group to be killed by SIGKILL, saw %s %d",
			  WIFSIGNALED(status) ? "signal" : "exit status",
			  WIFSIGNALED(status) ? WTERMSIG(status) :
			  WEXITSTATUS(status));
	if (ev_kill != 1 || ev_oom < 1)
		test_fail("expected memory.events oom >= 1 and oom_kill 1 in the group, saw oom %lld oom_kill %lld",
			  ev_oom, ev_kill);
	if (kills != 1)
		test_fail("expected /proc/vmstat oom_kill +1 (only the child), saw +%lld",
			  kills);
	if (!kmsg_killed(kfd, pid))
		test_fail("expected the kernel log to say 'Killed process %d', it does not",
			  (int)pid);
	close(kfd);
	if (cg_counter(G_OOM, "cgroup.events", "populated") != 0)
		test_fail("expected the group to be empty after the kill, cgroup.events says populated");
	cg_remove(G_OOM);
	memcg_v2_release();
	note("ok: the memcg OOM killer killed the test's child %d in its group and nothing else",
	     (int)pid);
	return KSFT_PASS;
}
