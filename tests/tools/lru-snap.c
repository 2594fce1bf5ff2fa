// SPDX-License-Identifier: GPL-2.0
/*
 * lru-snap: fold the per-cpu vmstat differentials and read the counter
 * files right after, without touching the LRU in between.
 *
 *   lru-snap FILE...
 *
 * All memory is locked and every buffer touched before the fold, so the
 * reads themselves neither fault pages in nor move any between LRU
 * lists; what the files then show differs only by what other tasks did
 * in the few microseconds of the reads.  Each file is printed after a
 * "==> FILE <==" line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_FILES	16
#define BUF_SIZE	(256 * 1024)

static char bufs[MAX_FILES][BUF_SIZE];
static ssize_t lens[MAX_FILES];

static ssize_t read_file(const char *path, char *buf)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (len < BUF_SIZE - 1 &&
	       (n = read(fd, buf + len, BUF_SIZE - 1 - len)) > 0)
		len += n;
	close(fd);
	return len;
}

int main(int argc, char **argv)
{
	int i, fd;

	if (argc < 2 || argc - 1 > MAX_FILES) {
		fprintf(stderr, "usage: lru-snap FILE... (at most %d)\n", MAX_FILES);
		return 2;
	}
	memset(bufs, 0, sizeof(bufs));
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("lru-snap: mlockall");
		return 2;
	}
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	if (fd < 0 || write(fd, "1\n", 2) != 2) {
		perror("lru-snap: /proc/sys/vm/stat_refresh");
		return 2;
	}
	close(fd);
	for (i = 1; i < argc; i++)
		lens[i - 1] = read_file(argv[i], bufs[i - 1]);
	for (i = 1; i < argc; i++) {
		if (lens[i - 1] < 0) {
			fprintf(stderr, "lru-snap: cannot read %s\n", argv[i]);
			return 2;
		}
		printf("==> %s <==\n", argv[i]);
		fwrite(bufs[i - 1], 1, lens[i - 1], stdout);
	}
	return 0;
}
