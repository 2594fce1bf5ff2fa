// SPDX-License-Identifier: GPL-2.0
/*
 * stutter: the 2016 cover letter's "stutter" load, with its data checked.
 *
 *   stutter -t SECONDS -a HOG_KB -f FILE_KB -p PROBE_KB -d DIR [-r RAWFILE]
 *
 * Three things run at once for SECONDS:
 *   - an anon hog (child): HOG_KB of anonymous memory filled with a
 *     per-page pattern, then read back and verified over and over, so its
 *     pages are reclaimed and faulted in again (every page at least once,
 *     even when filling took all the time);
 *   - a file copier (child): copies DIR/stutter.src (FILE_KB, written with
 *     a pattern first) to DIR/stutter.dst again and again, and verifies
 *     every copy it completes;
 *   - the probe (this process): mmap PROBE_KB of fresh anonymous memory,
 *     touch every page, munmap; each round's latency is one sample.
 * Prints "stutter-samples N", the latency summary in microseconds
 * ("stutter-lat min p25 p50 p75 p90 p93 p95 p99 max mean") and what the
 * children verified; with -r, every sample (us) to RAWFILE, one a line.
 * Exit status: 0 when both children verified all their data and the
 * probe took at least 10 samples, 1 otherwise, saying what went wrong.
 * With NODELRU_INJECT=stutter-corrupt the hog corrupts one word of its
 * memory after filling it, and must then report the mismatch.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/nodelru.h"

#define PAGE		4096UL
#define WORDS		(PAGE / sizeof(uint64_t))
#define HOG_SEED	0x73747574746572ULL
#define FILE_SEED	0x66696c65636f7079ULL
#define CHUNK		(1UL << 20)
#define MAX_SAMPLES	(1 << 20)
#define MIN_CHECK	4096	/* stutter-corrupt lands in the first MIN_CHECK pages */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void fill_page(uint64_t *p, uint64_t seed, uint64_t page)
{
	size_t w;

	for (w = 0; w < WORDS; w++)
		p[w] = pattern(seed, page, w);
}

/* Index of the first bad word of a page, or -1. */
static long check_page(const uint64_t *p, uint64_t seed, uint64_t page)
{
	size_t w;

	for (w = 0; w < WORDS; w++)
		if (p[w] != pattern(seed, page, w))
			return w;
	return -1;
}

static int run_hog(size_t kb, double end)
{
	size_t pages = kb / 4, i, passes = 0, verified = 0;
	uint64_t *mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long bad;

	if (mem == MAP_FAILED) {
		printf("anon hog: mmap of %zu KiB failed\n", kb);
		return 1;
	}
	for (i = 0; i < pages; i++)
		fill_page(mem + i * WORDS, HOG_SEED, i);
	if (injected("stutter-corrupt"))
		mem[(pages < MIN_CHECK ? pages / 2 : MIN_CHECK / 2) * WORDS + 7] ^= 1;
	/*
	 * Verify until the time is up, but always one full pass: every page
	 * written is checked at least once, even when filling took all the
	 * time (the probe stops at the deadline regardless).
	 */
	for (i = 0; now() < end || verified < pages; i++) {
		if (i == pages) {
			i = 0;
			passes++;
		}
		bad = check_page(mem + i * WORDS, HOG_SEED, i);
		if (bad >= 0) {
			printf("anon hog: page %zu word %ld: expected %#llx, saw %#llx (pass %zu)\n",
			       i, bad,
			       (unsigned long long)pattern(HOG_SEED, i, bad),
			       (unsigned long long)mem[i * WORDS + bad],
			       passes);
			return 1;
		}
		verified++;
	}
	printf("stutter-hog %zu KiB: %zu page checks (%zu full passes)\n",
	       kb, verified, passes);
	return verified ? 0 : 1;
}

static int write_source(const char *path, size_t kb)
{
	uint64_t *buf = malloc(CHUNK);
	size_t pages = kb / 4, i;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || !buf)
		return -1;
	for (i = 0; i < pages; i++) {
		size_t in = i % (CHUNK / PAGE);

		fill_page(buf + in * WORDS, FILE_SEED, i);
		if (in == CHUNK / PAGE - 1 || i == pages - 1)
			if (write(fd, buf, (in + 1) * PAGE) != (ssize_t)((in + 1) * PAGE))
				return -1;
	}
	free(buf);
	return close(fd);
}

/*
 * Copy src to dst until done or the time is up, then verify what was
 * copied (from page cache or, where evicted, from the disk).  Returns -1
 * on an I/O error, 1 on a mismatch, 0 when good; *copied gets the bytes.
 */
static int copy_file(const char *src, const char *dst, double end,
		     size_t *copied)
{
	uint64_t *buf = malloc(CHUNK);
	int in = open(src, O_RDONLY);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t done = 0, p;
	ssize_t n;

	if (in < 0 || out < 0 || !buf)
		return -1;
	while (now() < end && (n = read(in, buf, CHUNK)) > 0) {
		if (write(out, buf, n) != n)
			return -1;
		done += n;
	}
	close(in);
	close(out);
	*copied = done;
	in = open(dst, O_RDONLY);
	done = 0;
	while (done < *copied && (n = read(in, buf, CHUNK)) > 0) {
		for (p = 0; p < (size_t)n / PAGE; p++) {
			long bad = check_page(buf + p * WORDS, FILE_SEED,
					      done / PAGE + p);

			if (bad >= 0) {
				printf("file copier: %s page %zu word %ld differs from the source pattern\n",
				       dst, done / PAGE + p, bad);
				return 1;
			}
		}
		done += n;
	}
	close(in);
	free(buf);
	return done == *copied ? 0 : -1;
}

static int run_copier(const char *dir, size_t kb, double end)
{
	char src[256], dst[256];
	size_t copies = 0, copied, total = 0;

	snprintf(src, sizeof(src), "%s/stutter.src", dir);
	snprintf(dst, sizeof(dst), "%s/stutter.dst", dir);
	do {
		if (copy_file(src, dst, end, &copied)) {
			printf("file copier: copy %zu failed or differs\n", copies);
			return 1;
		}
		total += copied;
		if (copied == kb * 1024)
			copies++;
	} while (now() < end);
	unlink(dst);
	printf("stutter-copies %zu KiB copied and verified (%zu whole copies of %zu KiB)\n",
	       total / 1024, copies, kb);
	return total ? 0 : 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t hog_kb = 0, file_kb = 0, probe_kb = 4096, n = 0, i;
	const char *dir = "/mnt/scratch", *raw = NULL;
	double secs = 30, end, t, sum = 0, *lat;
	pid_t hog_pid, copy_pid;
	int opt, status, ret = 0;
	char src[256];

	while ((opt = getopt(argc, argv, "t:a:f:p:d:r:")) != -1) {
		switch (opt) {
		case 't':
			secs = atof(optarg);
			break;
		case 'a':
			hog_kb = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			file_kb = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			probe_kb = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dir = optarg;
			break;
		case 'r':
			raw = optarg;
			break;
		default:
			fprintf(stderr, "usage: stutter -t S -a HOG_KB -f FILE_KB -p PROBE_KB -d DIR [-r RAW]\n");
			return 2;
		}
	}
	lat = malloc(MAX_SAMPLES * sizeof(*lat));
	snprintf(src, sizeof(src), "%s/stutter.src", dir);
	if (!lat || write_source(src, file_kb))
		test_fail("cannot write the %zu KiB source file %s", file_kb, src);
	setvbuf(stdout, NULL, _IOLBF, 0);
	end = now() + secs;
	hog_pid = fork();
	if (!hog_pid)
		exit(run_hog(hog_kb, end));
	copy_pid = fork();
	if (!copy_pid)
		exit(run_copier(dir, file_kb, end));

	while (now() < end && n < MAX_SAMPLES) {
		char *p;
		size_t off;

		t = now();
		p = mmap(NULL, probe_kb * 1024, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			test_fail("probe: mmap of %zu KiB failed", probe_kb);
		for (off = 0; off < probe_kb * 1024; off += PAGE)
			p[off] = 1;
		munmap(p, probe_kb * 1024);
		lat[n++] = (now() - t) * 1e6;
	}
	if (waitpid(hog_pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		printf("FAIL: the anon hog did not verify its memory (status %#x)\n", status);
		ret = 1;
	}
	if (waitpid(copy_pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		printf("FAIL: the file copier did not verify its copies (status %#x)\n", status);
		ret = 1;
	}
	unlink(src);
	if (raw) {
		FILE *f = fopen(raw, "w");

		for (i = 0; f && i < n; i++)
			fprintf(f, "%.1f\n", lat[i]);
		if (f)
			fclose(f);
	}
	printf("stutter-samples %zu\n", n);
	if (n < 10) {
		printf("FAIL: expected at least 10 probe samples in %.0f s, saw %zu\n", secs, n);
		return 1;
	}
	for (i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, n, sizeof(*lat), cmp_double);
#define PCT(q)	lat[(size_t)((n - 1) * (q))]
	printf("stutter-lat min p25 p50 p75 p90 p93 p95 p99 max mean (us)\n");
	printf("stutter-lat %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n",
	       lat[0], PCT(0.25), PCT(0.50), PCT(0.75), PCT(0.90), PCT(0.93),
	       PCT(0.95), PCT(0.99), lat[n - 1], sum / n);
	return ret;
}
