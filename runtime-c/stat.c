/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics aggregates (x <<< v). Every CPU accumulates into its own
 * struct _stpx_stat; readers (@count, @sum, ...) merge all CPUs. A
 * statistic's global lock is taken shared by writers (each touches only
 * its own CPU's accumulator) and exclusively by readers, so a read sees
 * every completed <<< and no half-updated one.
 *
 * Scalars: one per-CPU struct. Arrays: one map per CPU whose values are
 * struct _stpx_stat, plus one map that reads merge into (foreach).
 */

struct _stpx_stat {
	int64_t count;
	int64_t sum;
	int64_t min;
	int64_t max;
};

static inline void _stpx_stat_add(struct _stpx_stat *s, int64_t v)
{
	if (s->count == 0 || v < s->min)
		s->min = v;
	if (s->count == 0 || v > s->max)
		s->max = v;
	s->count++;
	s->sum += v;
}

static void _stpx_stat_merge(struct _stpx_stat *into, const struct _stpx_stat *s)
{
	if (!s->count)
		return;
	if (!into->count || s->min < into->min)
		into->min = s->min;
	if (!into->count || s->max > into->max)
		into->max = s->max;
	into->count += s->count;
	into->sum += s->sum;
}

/* Scalars. */
static struct _stpx_stat __percpu *_stpx_stat_alloc(void)
{
	return alloc_percpu(struct _stpx_stat);
}

static void _stpx_stat_free(struct _stpx_stat __percpu *s)
{
	free_percpu(s);
}

static const struct _stpx_stat *_stpx_stat_read(struct _stpx_stat __percpu *s, struct _stpx_stat *agg)
{
	int cpu;

	memset(agg, 0, sizeof(*agg));
	for_each_possible_cpu(cpu)
		_stpx_stat_merge(agg, per_cpu_ptr(s, cpu));
	return agg;
}

static void _stpx_stat_clear(struct _stpx_stat __percpu *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(s, cpu), 0, sizeof(struct _stpx_stat));
}

/* Arrays of statistics: a map per possible CPU, and the merged view. */
struct _stpx_pmap {
	struct _stpx_map **cpu;	/* nr_cpu_ids of them */
	struct _stpx_map *agg;
};

static void _stpx_pmap_free(struct _stpx_pmap *p)
{
	unsigned int cpu;

	if (!p)
		return;
	if (p->cpu)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			_stpx_map_free(p->cpu[cpu]);
	kfree(p->cpu);
	_stpx_map_free(p->agg);
	kfree(p);
}

static struct _stpx_pmap *_stpx_pmap_alloc(u32 nkeys, const u8 *key_types, u32 max_entries)
{
	struct _stpx_pmap *p = kzalloc(sizeof(*p), GFP_KERNEL);
	unsigned int cpu;

	if (!p)
		return NULL;
	p->cpu = kcalloc(nr_cpu_ids, sizeof(*p->cpu), GFP_KERNEL);
	p->agg = _stpx_map_alloc(nkeys, key_types, STPX_T_STAT, max_entries);
	if (!p->cpu || !p->agg)
		goto fail;
	for_each_possible_cpu(cpu) {
		p->cpu[cpu] = _stpx_map_alloc(nkeys, key_types, STPX_T_STAT, max_entries);
		if (!p->cpu[cpu])
			goto fail;
	}
	return p;
fail:
	_stpx_pmap_free(p);
	return NULL;
}

/* a[k] <<< v on this CPU; -ENOSPC when this CPU's map is full. */
static int _stpx_pmap_add(struct _stpx_pmap *p, const union _stpx_key *keys, int64_t v)
{
	struct _stpx_stat *s = _stpx_map_ref(p->cpu[smp_processor_id()], keys);

	if (!s)
		return -ENOSPC;
	_stpx_stat_add(s, v);
	return 0;
}

static const struct _stpx_stat *_stpx_pmap_read(struct _stpx_pmap *p, const union _stpx_key *keys,
						struct _stpx_stat *agg)
{
	int cpu;

	memset(agg, 0, sizeof(*agg));
	for_each_possible_cpu(cpu) {
		const struct _stpx_stat *s = _stpx_map_get(p->cpu[cpu], keys);

		if (s)
			_stpx_stat_merge(agg, s);
	}
	return agg;
}

static bool _stpx_pmap_exists(struct _stpx_pmap *p, const union _stpx_key *keys)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (_stpx_map_get(p->cpu[cpu], keys))
			return true;
	return false;
}

static void _stpx_pmap_delete(struct _stpx_pmap *p, const union _stpx_key *keys)
{
	int cpu;

	for_each_possible_cpu(cpu)
		_stpx_map_delete(p->cpu[cpu], keys);
}

static void _stpx_pmap_clear(struct _stpx_pmap *p)
{
	int cpu;

	for_each_possible_cpu(cpu)
		_stpx_map_clear(p->cpu[cpu]);
}

/*
 * Merge every CPU's map into p->agg and return it (for foreach). Keys are
 * copied from the nodes themselves. -ENOSPC if the merged view is full.
 */
static struct _stpx_map *_stpx_pmap_merge(struct _stpx_pmap *p, int *err)
{
	union _stpx_key keys[STPX_MAX_KEYS];
	struct _stpx_map_node *n;
	int cpu;
	u32 i;

	*err = 0;
	_stpx_map_clear(p->agg);
	for_each_possible_cpu(cpu) {
		struct _stpx_map *m = p->cpu[cpu];

		list_for_each_entry(n, &m->used, lnode) {
			struct _stpx_stat *s;

			for (i = 0; i < m->nkeys; i++) {
				void *slot = _stpx_map_key(m, n, i);

				if (m->key_types[i] == STPX_T_STRING)
					keys[i].s = slot;
				else
					keys[i].l = *(int64_t *)slot;
			}
			s = _stpx_map_ref(p->agg, keys);
			if (!s) {
				*err = -ENOSPC;
				return p->agg;
			}
			_stpx_stat_merge(s, _stpx_map_value(m, n));
		}
	}
	return p->agg;
}
