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

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

static inline void __attribute__((format(printf, 1, 2), noreturn))
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

static inline void __attribute__((format(printf, 1, 2), noreturn))
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

#endif
