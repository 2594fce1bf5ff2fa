// SPDX-License-Identifier: GPL-2.0
/*
 * nodelru_pagealloc: the page allocator microbenchmark of the 2016 cover
 * letter (mmtests' pagealloc-micro), as a module instead of a systemtap
 * script: time batches of alloc_pages() and __free_pages() in cycles
 * (get_cycles(), the TSC; under TCG an emulated one, so only the ratio
 * between two kernels on the same host means anything).
 *
 * /sys/kernel/debug/nodelru_pagealloc
 *   write "ORDER MAXBATCH LOOPS": for batch = 1, 2, 4, ... MAXBATCH,
 *         LOOPS times: allocate a batch of order-ORDER pages with
 *         GFP_KERNEL, then free them; record the cycles of each half.
 *   read: one line a batch size, "order batch alloc free total" in
 *         cycles per page, the minimum over the loops (mmtests reports
 *         the minimum too; it is the least disturbed by interrupts).
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define MAX_SIZES	20

static DEFINE_MUTEX(pa_lock);
static struct dentry *pa_file;
static char *pa_out;
static size_t pa_len;

static int pa_run(unsigned int order, unsigned long maxbatch,
		  unsigned long loops)
{
	struct page **pages = vmalloc(array_size(maxbatch, sizeof(*pages)));
	unsigned long batch, i, l;
	size_t cap = PAGE_SIZE * 4;
	int ret = 0;

	if (!pages)
		return -ENOMEM;
	kfree(pa_out);
	pa_out = kmalloc(cap, GFP_KERNEL);
	pa_len = 0;
	if (!pa_out) {
		vfree(pages);
		return -ENOMEM;
	}
	for (batch = 1; batch <= maxbatch; batch <<= 1) {
		cycles_t best_a = ~(cycles_t)0, best_f = ~(cycles_t)0;

		for (l = 0; l < loops; l++) {
			cycles_t t0, t1, t2;
			unsigned long got = 0;

			t0 = get_cycles();
			for (i = 0; i < batch; i++) {
				pages[i] = alloc_pages(GFP_KERNEL | __GFP_NOWARN,
						       order);
				if (!pages[i])
					break;
				got++;
			}
			t1 = get_cycles();
			for (i = 0; i < got; i++)
				__free_pages(pages[i], order);
			t2 = get_cycles();
			if (got < batch) {
				ret = -ENOMEM;
				goto out;
			}
			best_a = min(best_a, t1 - t0);
			best_f = min(best_f, t2 - t1);
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				goto out;
			}
			cond_resched();
		}
		pa_len += scnprintf(pa_out + pa_len, cap - pa_len,
				    "%u %lu %llu %llu %llu\n", order, batch,
				    (unsigned long long)best_a / batch,
				    (unsigned long long)best_f / batch,
				    (unsigned long long)(best_a + best_f) / batch);
	}
out:
	vfree(pages);
	return ret;
}

static ssize_t pa_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *ppos)
{
	unsigned long maxbatch, loops;
	unsigned int order;
	char buf[64];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %lu %lu", &order, &maxbatch, &loops) != 3 ||
	    order > 4 || !maxbatch || maxbatch > (1UL << MAX_SIZES) || !loops)
		return -EINVAL;
	mutex_lock(&pa_lock);
	ret = pa_run(order, maxbatch, loops);
	mutex_unlock(&pa_lock);
	return ret ? ret : len;
}

static ssize_t pa_read(struct file *file, char __user *ubuf, size_t len,
		       loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&pa_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, pa_out, pa_len);
	mutex_unlock(&pa_lock);
	return ret;
}

static const struct file_operations pa_fops = {
	.owner = THIS_MODULE,
	.read = pa_read,
	.write = pa_write,
	.llseek = default_llseek,
};

static int __init pa_init(void)
{
	pa_file = debugfs_create_file("nodelru_pagealloc", 0600, NULL, NULL,
				      &pa_fops);
	return 0;
}

static void __exit pa_exit(void)
{
	debugfs_remove(pa_file);
	kfree(pa_out);
}

module_init(pa_init);
module_exit(pa_exit);
MODULE_DESCRIPTION("node-lru benchmark: page allocator batch timings");
MODULE_LICENSE("GPL");
