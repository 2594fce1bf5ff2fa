/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the node-lru guest tests: counters from procfs and sysfs,
 * verdicts in the runner's convention (exit 0 pass, 1 fail, 4 skip) with
 * what was expected and what was seen.
 */
#ifndef NODELRU_H
#define NODELRU_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

static void __attribute__((format(printf, 1, 2), noreturn))
test_fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(KSFT_FAIL);
}

static void __attribute__((format(printf, 1, 2), noreturn))
test_skip(const char *fmt, ...)
{
	va_list ap;

	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(KSFT_SKIP);
}

static inline void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Value of "name value" in a file such as /proc/vmstat; -1 if absent. */
static inline long long file_counter(const char *path, const char *name)
{
	char key[128];
	long long val;
	FILE *f = fopen(path, "r");
	long long ret = -1;

	if (!f)
		test_fail("cannot open %s: %s", path, strerror(errno));
	while (fscanf(f, "%127s %lld%*[^\n]", key, &val) == 2) {
		if (!strcmp(key, name)) {
			ret = val;
			break;
		}
	}
	fclose(f);
	return ret;
}

static inline long long vmstat(const char *name)
{
	return file_counter("/proc/vmstat", name);
}

/* A /proc/meminfo field in kB ("MemTotal:" style key, colon included). */
static inline long long meminfo_kb(const char *name)
{
	return file_counter("/proc/meminfo", name);
}

static inline void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		test_fail("cannot write '%s' to %s: %s", val, path,
			  strerror(errno));
}

/*
 * Is the fault WHAT asked for on the kernel command line
 * (nodelru.inject=a,b; the runner exports it as NODELRU_INJECT)?  Tests use
 * it to show that their checks fail on broken data or accounting.
 */
static inline int injected(const char *what)
{
	const char *list = getenv("NODELRU_INJECT");
	size_t n = strlen(what);

	while (list && *list) {
		if (!strncmp(list, what, n) && (list[n] == ',' || !list[n])) {
			printf("# injecting fault '%s'\n", what);
			return 1;
		}
		list = strchr(list, ',');
		if (list)
			list++;
	}
	return 0;
}

/* The per-page pattern: a different 64-bit value for every word. */
static inline uint64_t pattern(uint64_t seed, uint64_t page, uint64_t word)
{
	uint64_t x = seed ^ (page * 0x9e3779b97f4a7c15ULL) ^ (word << 32 | word);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return x;
}

/* Fill WORDS words of BUF with the pattern of block (page) BLOCK. */
static inline void fill_pattern(uint64_t *buf, size_t words, uint64_t seed,
				uint64_t block)
{
	size_t i;

	for (i = 0; i < words; i++)
		buf[i] = pattern(seed, block, i);
}

/* Index of the first word of BUF that differs from the pattern, or -1. */
static inline long check_pattern(const uint64_t *buf, size_t words,
				 uint64_t seed, uint64_t block)
{
	size_t i;

	for (i = 0; i < words; i++)
		if (buf[i] != pattern(seed, block, i))
			return i;
	return -1;
}

/* Seconds since the first call. */
static inline double elapsed(void)
{
	static struct timespec t0;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!t0.tv_sec && !t0.tv_nsec)
		t0 = t;
	return (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9;
}

/* Fold the per-cpu vmstat differentials (vm.stat_refresh); must succeed. */
static inline void stat_refresh(void)
{
	write_file("/proc/sys/vm/stat_refresh", "1\n");
}

/* Counters before and after a phase; a counter absent here reads -1. */
struct counters {
	unsigned int n;
	const char * const *names;
	long long val[32];
};

static inline void counters_read(struct counters *c, const char * const *names,
				 unsigned int n)
{
	unsigned int i;

	if (n > 32)
		test_fail("counters_read: %u counters, at most 32", n);
	c->n = n;
	c->names = names;
	for (i = 0; i < n; i++)
		c->val[i] = vmstat(names[i]);
}

/* AFTER - BEFORE of counter NAME; -1 when the kernel does not have it. */
static inline long long counter_delta(const struct counters *before,
				      const struct counters *after,
				      const char *name)
{
	unsigned int i;

	for (i = 0; i < before->n; i++) {
		if (strcmp(before->names[i], name))
			continue;
		if (before->val[i] < 0 || after->val[i] < 0)
			return -1;
		return after->val[i] - before->val[i];
	}
	test_fail("counter_delta: %s was not recorded", name);
}

static inline void counters_print(const struct counters *before,
				  const struct counters *after)
{
	unsigned int i;

	for (i = 0; i < before->n; i++) {
		if (before->val[i] < 0 || after->val[i] < 0)
			note("%s: not in /proc/vmstat", before->names[i]);
		else
			note("%s +%lld", before->names[i],
			     after->val[i] - before->val[i]);
	}
}

/*
 * The accounting checks every stress test ends with (LRU accounting at
 * rest): vm.stat_refresh can be written, and nr_isolated_anon and
 * nr_isolated_file are 0, in /proc/vmstat and in every node's vmstat.
 * kswapd or a late direct reclaimer may be mid-isolation, so up to 10
 * tries 200 ms apart; a leaked isolation count is permanent and fails
 * every try.
 */
static inline void check_accounting(void)
{
	char path[64], where[96];
	long long a = 0, f = 0;
	int try, node;

	for (try = 1; try <= 10; try++) {
		stat_refresh();
		a = vmstat("nr_isolated_anon");
		f = vmstat("nr_isolated_file");
		snprintf(where, sizeof(where), "/proc/vmstat");
		for (node = 0; !a && !f && node < 64; node++) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/node/node%d/vmstat", node);
			if (access(path, R_OK))
				continue;
			a = file_counter(path, "nr_isolated_anon");
			f = file_counter(path, "nr_isolated_file");
			snprintf(where, sizeof(where), "%s", path);
		}
		if (!a && !f) {
			note("accounting: stat_refresh ok, nr_isolated_anon 0, nr_isolated_file 0 (try %d)",
			     try);
			return;
		}
		note("accounting try %d: %s nr_isolated_anon %lld nr_isolated_file %lld",
		     try, where, a, f);
		usleep(200000);
	}
	test_fail("accounting: expected nr_isolated_anon 0 and nr_isolated_file 0 after stat_refresh, saw %lld and %lld in %s (10 tries over 2 s)",
		  a, f, where);
}

#endif
