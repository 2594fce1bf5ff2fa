// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru_hog: allocate and hold order-0 pages from a chosen zone, on
 * request, so that a guest test can create zone-constrained pressure
 * (what only the kernel can do: user memory is always movable highmem).
 *
 * /sys/kernel/debug/nodelru_hog
 *   write "dma N", "dma32 N" or "normal N": allocate up to N pages with
 *         GFP_KERNEL plus __GFP_DMA or __GFP_DMA32 (none for normal), so
 *         the allocation may reclaim but only from zones up to that one;
 *         stops at the first failure.  __GFP_NOWARN keeps a failure off
 *         the console, __GFP_RETRY_MAYFAIL keeps the OOM killer out.
 *         "movable N" uses GFP_HIGHUSER_MOVABLE instead, so the pages may
 *         come from ZONE_MOVABLE (only for an injected fault: the module
 *         cannot migrate what it holds).
 *   write "free": release every held page; "free N": release the N
 *         pages taken last (fewer if fewer are held).
 *   read: "held DMA DMA32 Normal Movable total requested failed" counts of
 *         the pages held, by the zone they came from, the pages asked for
 *         by the last request and how many of them could not be had.
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

static LIST_HEAD(held);
static DEFINE_MUTEX(hog_lock);
static unsigned long nr_held[MAX_NR_ZONES];
static unsigned long last_requested, last_failed;
static struct dentry *hog_file;

/* Release up to NR held pages, the ones taken last first. */
static void hog_free(unsigned long nr)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &held, lru) {
		if (!nr--)
			break;
		list_del(&page->lru);
		nr_held[page_zonenum(page)]--;
		__free_page(page);
	}
}

static unsigned long hog_alloc(gfp_t gfp, unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++) {
		struct page *page = alloc_page(gfp);

		if (!page)
			break;
		list_add(&page->lru, &held);
		nr_held[page_zonenum(page)]++;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	return i;
}

static ssize_t hog_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	char buf[64], zone[16];
	unsigned long nr, got;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	mutex_lock(&hog_lock);
	if (!strncmp(buf, "free", 4)) {
		if (sscanf(buf + 4, "%lu", &nr) != 1)
			nr = ULONG_MAX;
		hog_free(nr);
		mutex_unlock(&hog_lock);
		return len;
	}
	if (sscanf(buf, "%15s %lu", zone, &nr) != 2) {
		mutex_unlock(&hog_lock);
		return -EINVAL;
	}
	if (!strcmp(zone, "dma"))
		gfp |= __GFP_DMA;
	else if (!strcmp(zone, "dma32"))
		gfp |= __GFP_DMA32;
	else if (!strcmp(zone, "movable"))
		gfp = GFP_HIGHUSER_MOVABLE | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	else if (strcmp(zone, "normal")) {
		mutex_unlock(&hog_lock);
		return -EINVAL;
	}
	got = hog_alloc(gfp, nr);
	last_requested = nr;
	last_failed = nr - got;
	mutex_unlock(&hog_lock);
	return len;
}

static ssize_t hog_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	unsigned long total = 0;
	char buf[160];
	int i, n;

	mutex_lock(&hog_lock);
	for (i = 0; i < MAX_NR_ZONES; i++)
		total += nr_held[i];
	n = scnprintf(buf, sizeof(buf), "held %lu %lu %lu %lu %lu %lu %lu\n",
#ifdef CONFIG_ZONE_DMA
		      nr_held[ZONE_DMA],
#else
		      0UL,
#endif
#ifdef CONFIG_ZONE_DMA32
		      nr_held[ZONE_DMA32],
#else
		      0UL,
#endif
		      nr_held[ZONE_NORMAL], nr_held[ZONE_MOVABLE], total,
		      last_requested, last_failed);
	mutex_unlock(&hog_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations hog_fops = {
	.owner = THIS_MODULE,
	.read = hog_read,
	.write = hog_write,
	.llseek = default_llseek,
};

static int __init hog_init(void)
{
	hog_file = debugfs_create_file("nodelru_hog", 0600, NULL, NULL,
				       &hog_fops);
	return 0;
}

static void __exit hog_exit(void)
{
	debugfs_remove(hog_file);
	mutex_lock(&hog_lock);
	hog_free(ULONG_MAX);
	mutex_unlock(&hog_lock);
}

module_init(hog_init);
module_exit(hog_exit);
MODULE_DESCRIPTION("node-lru test: hold pages of a chosen zone");
MODULE_LICENSE("GPL");
