// SPDX-License-Identifier: GPL-2.0
/*
 * The "physical limit" for bench/map-ops: the work of its stapx script
 * done by a hash table written for the job. At load it inserts n integer
 * keys (i * 2654435761 mod 2^32, so neither inserted nor hashed in key
 * order), looks each one up, adds 1 to each, then visits them all in key
 * order (pointers sorted by key), timing each phase with local_clock() as
 * the script does, and prints one line in the script's format. Its
 * memory is freed before init returns; rmmod it after.
 *
 * The table is what a kernel programmer would write for a fixed-size
 * map: nodes from one vmalloc'ed pool, 2^k hlist buckets for at least n
 * nodes, hash_64() of the key; one spinlock held around each phase, as
 * stapx holds a global's lock over a handler.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

static unsigned int n = 1000000;
module_param(n, uint, 0444);
MODULE_PARM_DESC(n, "keys");

struct node {
	struct hlist_node link;
	u64 key;
	s64 val;
};

static struct hlist_head *buckets;
static unsigned int bits;
static struct node *pool;
static struct node **order;
static DEFINE_SPINLOCK(lock);

static u64 key_of(u64 i)
{
	return (i * 2654435761ULL) & 0xffffffffULL;
}

static struct node *find(u64 key)
{
	struct node *p;

	hlist_for_each_entry(p, &buckets[hash_64(key, bits)], link)
		if (p->key == key)
			return p;
	return NULL;
}

static int by_key(const void *a, const void *b)
{
	u64 x = (*(struct node *const *)a)->key, y = (*(struct node *const *)b)->key;

	return x < y ? -1 : x > y;
}

static int __init hand_map_init(void)
{
	u64 t0, t1, t2, t3, t4, i, sum = 0, last = 0, bad = 0, used = 0;
	struct node *p;

	bits = max(1, ilog2(roundup_pow_of_two(n)));
	buckets = vzalloc(sizeof(*buckets) << bits);
	pool = vzalloc(sizeof(*pool) * n);
	order = vzalloc(sizeof(*order) * n);
	if (!buckets || !pool || !order)
		goto nomem;

	spin_lock(&lock);
	t0 = local_clock();
	for (i = 0; i < n; i++) {
		u64 key = key_of(i);

		p = find(key);
		if (!p) {
			p = &pool[used++];
			p->key = key;
			hlist_add_head(&p->link, &buckets[hash_64(key, bits)]);
		}
		p->val = i;
	}
	t1 = local_clock();
	for (i = 0; i < n; i++) {
		p = find(key_of(i));
		sum += p ? p->val : 0;
	}
	t2 = local_clock();
	for (i = 0; i < n; i++) {
		p = find(key_of(i));
		if (p)
			p->val += 1;
	}
	t3 = local_clock();
	spin_unlock(&lock);

	/* The visit in key order, as the script's foreach in its end probe. */
	spin_lock(&lock);
	for (i = 0; i < used; i++)
		order[i] = &pool[i];
	sort(order, used, sizeof(*order), by_key, NULL);
	for (i = 0; i < used; i++) {
		if (order[i]->key < last)
			bad++;
		last = order[i]->key;
		sum += order[i]->val;
	}
	t4 = local_clock();
	spin_unlock(&lock);

	pr_info("hand n %u insert %llu lookup %llu update %llu sorted %llu sum %llu bad %llu\n",
		n, t1 - t0, t2 - t1, t3 - t2, t4 - t3, sum, bad);
	vfree(order);
	vfree(pool);
	vfree(buckets);
	return 0;

nomem:
	vfree(order);
	vfree(pool);
	vfree(buckets);
	return -ENOMEM;
}
module_init(hand_map_init);

/* The work is done at load; removing it frees nothing more. */
static void __exit hand_map_exit(void)
{
}
module_exit(hand_map_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bench/map-ops: a hand-written hash table doing the script's work");
