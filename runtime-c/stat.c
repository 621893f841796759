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
	int64_t mean;		/* Welford's running mean and M2, values << shift */
	int64_t m2;
	int64_t hist[];		/* buckets, when the statistic has a histogram */
};

/*
 * A statistic's histogram, if a script prints one: @hist_log buckets are
 * ..., -2, -1, 0, 1, 2, 4, ... (bucket 2^k holds [2^k, 2^(k+1))); linear
 * buckets are "under", [lo, lo+step), ..., [hi, hi+step) ... "over".
 */
enum { STPX_HIST_NONE, STPX_HIST_LOG, STPX_HIST_LINEAR };
#define STPX_HIST_LOG_BUCKETS 128	/* 64 negative, zero, 63 positive */

struct _stpx_hist {
	int kind;
	int64_t lo, hi, step;	/* linear */
	u32 buckets;		/* 0 without a histogram */
	int variance;		/* the script reads @variance: keep Welford's state */
	int shift;		/* @variance(s, shift) scaling */
};

static inline size_t _stpx_stat_size(const struct _stpx_hist *h)
{
	/* The context's hist_scratch is sized by this (context.h). */
	BUILD_BUG_ON(sizeof(struct _stpx_stat) != STPX_STAT_WORDS * sizeof(int64_t));
	return sizeof(struct _stpx_stat) + (h ? h->buckets : 0) * sizeof(int64_t);
}

static inline u32 _stpx_hist_bucket(const struct _stpx_hist *h, int64_t v)
{
	if (h->kind == STPX_HIST_LOG) {
		if (v == 0)
			return 64;
		if (v > 0)
			return 65 + ilog2((u64)v);
		return 63 - ilog2(0 - (u64)v);
	}
	/* buckets - 2 steps from lo, the last one starting at hi (or below
	 * it when hi - lo is not a multiple of step): [hi, hi + step) is in
	 * range, as in stap. */
	if (v < h->lo)
		return 0;
	{
		u64 k = div64_u64((u64)v - (u64)h->lo, (u64)h->step);

		return k < h->buckets - 2 ? 1 + (u32)k : h->buckets - 1;
	}
}

/* nonempty: the caller knows s->count > 0 (a key found in a CPU's map:
 * those are only created by an add), and the first-value tests go. */
static __always_inline void _stpx_stat_add_to(struct _stpx_stat *s, int64_t v, const struct _stpx_hist *h,
					      bool nonempty)
{
	if ((!nonempty && s->count == 0) || v < s->min)
		s->min = v;
	if ((!nonempty && s->count == 0) || v > s->max)
		s->max = v;
	s->count++;
	s->sum += v;
	if (!h)
		return;
	if (h->buckets)
		s->hist[_stpx_hist_bucket(h, v)]++;
	if (h->variance) {
		/* Welford's online algorithm, in integers scaled by 2^shift. */
		int64_t x = (int64_t)((u64)v << h->shift), delta;

		if (s->count == 1) {
			s->mean = x;
			s->m2 = 0;
		} else {
			delta = x - s->mean;
			s->mean += div64_s64(delta, s->count);
			s->m2 += delta * (x - s->mean);
		}
	}
}

static inline void _stpx_stat_add(struct _stpx_stat *s, int64_t v, const struct _stpx_hist *h)
{
	_stpx_stat_add_to(s, v, h, false);
}

/*
 * @variance over every CPU's part: the parts' own variances combined with
 * the spread of their means around the overall mean (the total variance
 * formula), divided by N - 1, then scaled back by 2^(2*shift). Callers
 * make two passes over the parts: _stpx_var_mean, then _stpx_var_part.
 */
static int64_t _stpx_var_mean(int64_t count, int64_t sum, const struct _stpx_hist *h)
{
	return count ? div64_s64((int64_t)((u64)sum << h->shift), count) : 0;
}

static int64_t _stpx_var_part(const struct _stpx_stat *p, int64_t mean)
{
	int64_t d, total = 0;

	if (!p || !p->count)
		return 0;
	if (p->count > 1)
		total += (p->count - 1) * div64_s64(p->m2, p->count - 1);
	d = p->mean - mean;
	return total + p->count * d * d;
}

static int64_t _stpx_var_result(int64_t total, int64_t count, const struct _stpx_hist *h)
{
	return count < 2 ? 0 : div64_s64(total, count - 1) >> (2 * h->shift);
}

static void _stpx_stat_merge(struct _stpx_stat *into, const struct _stpx_stat *s,
			     const struct _stpx_hist *h)
{
	u32 i;

	if (!s->count)
		return;
	if (!into->count || s->min < into->min)
		into->min = s->min;
	if (!into->count || s->max > into->max)
		into->max = s->max;
	into->count += s->count;
	into->sum += s->sum;
	if (h)
		for (i = 0; i < h->buckets; i++)
			into->hist[i] += s->hist[i];
}

static int64_t _stpx_stat_variance(struct _stpx_stat __percpu *s, const struct _stpx_hist *h)
{
	int64_t count = 0, sum = 0, total = 0, mean;
	int cpu;

	for_each_possible_cpu(cpu) {
		count += per_cpu_ptr(s, cpu)->count;
		sum += per_cpu_ptr(s, cpu)->sum;
	}
	mean = _stpx_var_mean(count, sum, h);
	for_each_possible_cpu(cpu)
		total += _stpx_var_part(per_cpu_ptr(s, cpu), mean);
	return _stpx_var_result(total, count, h);
}

static struct _stpx_stat __percpu *_stpx_stat_alloc(const struct _stpx_hist *h)
{
	return (struct _stpx_stat __percpu *)__alloc_percpu(_stpx_stat_size(h), 8);
}

/* What _stpx_stat_alloc() will allocate. */
static u64 _stpx_stat_bytes(const struct _stpx_hist *h)
{
	return (u64)_stpx_stat_size(h) * num_possible_cpus();
}

static void _stpx_stat_free(struct _stpx_stat __percpu *s)
{
	free_percpu(s);
}

/* With h, agg must have room for the buckets (the context's scratch). */
static const struct _stpx_stat *_stpx_stat_read(struct _stpx_stat __percpu *s, struct _stpx_stat *agg,
						const struct _stpx_hist *h)
{
	int cpu;

	memset(agg, 0, _stpx_stat_size(h));
	for_each_possible_cpu(cpu)
		_stpx_stat_merge(agg, per_cpu_ptr(s, cpu), h);
	return agg;
}

static void _stpx_stat_clear(struct _stpx_stat __percpu *s, const struct _stpx_hist *h)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(s, cpu), 0, _stpx_stat_size(h));
}

/* Arrays of statistics: a map per possible CPU, and the merged view. */
struct _stpx_pmap {
	struct _stpx_map **cpu;	/* nr_cpu_ids of them (the generated module also
				 * keeps them in a per-CPU variable: _stpx_pmap_add_l1) */
	struct _stpx_map *agg;
	const struct _stpx_hist *hist;
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

/* What _stpx_pmap_alloc() will allocate: a map per possible CPU and the merged one. */
static u64 _stpx_pmap_bytes(u32 nkeys, const u8 *key_types, u32 max_entries, const struct _stpx_hist *h)
{
	return sizeof(struct _stpx_pmap) + (u64)nr_cpu_ids * sizeof(struct _stpx_map *) +
	       (u64)(num_possible_cpus() + 1) * _stpx_map_bytes(nkeys, key_types, max_entries, _stpx_stat_size(h));
}

static struct _stpx_pmap *_stpx_pmap_alloc(u32 nkeys, const u8 *key_types, u32 max_entries,
					   const struct _stpx_hist *h)
{
	struct _stpx_pmap *p = kzalloc(sizeof(*p), GFP_KERNEL);
	unsigned int cpu;

	if (!p)
		return NULL;
	p->hist = h;
	p->cpu = kcalloc(nr_cpu_ids, sizeof(*p->cpu), GFP_KERNEL);
	p->agg = _stpx_map_alloc_sized(nkeys, key_types, STPX_T_STAT, max_entries, _stpx_stat_size(h));
	if (!p->cpu || !p->agg)
		goto fail;
	for_each_possible_cpu(cpu) {
		p->cpu[cpu] = _stpx_map_alloc_sized(nkeys, key_types, STPX_T_STAT, max_entries,
						     _stpx_stat_size(h));
		if (!p->cpu[cpu])
			goto fail;
	}
	return p;
fail:
	_stpx_pmap_free(p);
	return NULL;
}

/* global a%: every CPU's map drops its oldest entry when full. */
static void _stpx_pmap_wrap(struct _stpx_pmap *p)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		p->cpu[cpu]->wrap = true;
	p->agg->wrap = true;
}

/* a[k] <<< v on this CPU; -ENOSPC when this CPU's map is full. */
static int _stpx_pmap_add(struct _stpx_pmap *p, const union _stpx_key *keys, int64_t v)
{
	struct _stpx_stat *s = _stpx_map_ref(p->cpu[smp_processor_id()], keys);

	if (!s)
		return -ENOSPC;
	_stpx_stat_add(s, v, p->hist);
	return 0;
}

/* The same for a one-key array, inlined, with its histogram descriptor h. */
/*
 * Arrays of one long or string key: m is this CPU's map, which the module
 * reads from a per-CPU variable of its own (one load, where p->cpu[cpu]
 * takes three).
 */
static __always_inline int _stpx_pmap_add_l1(struct _stpx_map *m, int64_t k, int64_t v,
					     const struct _stpx_hist *h)
{
	u32 hash = _stpx_hash_l(k, 0);
	struct _stpx_map_node *n = _stpx_map_find_l1(m, k, hash);
	struct _stpx_stat *s;

	if (likely(n)) {
		_stpx_stat_add_to(_stpx_node_val(n, STPX_VAL_OFF_L1), v, h, true);
		return 0;
	}
	s = _stpx_map_insert_l1(m, k);
	if (unlikely(!s))
		return -ENOSPC;
	_stpx_stat_add(s, v, h);
	return 0;
}

static __always_inline int _stpx_pmap_add_s1(struct _stpx_map *m, const char *k, int64_t v,
					     const struct _stpx_hist *h)
{
	u64 w0, w1;
	u32 len, hash = _stpx_hash_s(k, 0, &len, &w0, &w1);
	struct _stpx_map_node *n = _stpx_map_find_s1(m, k, hash, len, w0, w1);
	struct _stpx_stat *s;

	if (likely(n)) {
		_stpx_stat_add_to(_stpx_node_val(n, STPX_VAL_OFF_S1), v, h, true);
		return 0;
	}
	s = _stpx_map_insert_s1(m, k, hash);
	if (unlikely(!s))
		return -ENOSPC;
	_stpx_stat_add(s, v, h);
	return 0;
}

#ifdef __KERNEL__
/* m[execname()] <<< v (map.c's _stpx_map_ref_comm); tmp as there. */
static __always_inline int _stpx_pmap_add_comm(struct _stpx_map *m, char *tmp, int64_t v,
					       const struct _stpx_hist *h)
{
#ifdef STPX_COMM_WORDS
	u64 w0, w1;
	u32 hash;
	struct _stpx_map_node *n = _stpx_map_find_comm(m, tmp, &hash, &w0, &w1);
	struct _stpx_stat *s;

	if (likely(n)) {
		_stpx_stat_add_to(_stpx_node_val(n, STPX_VAL_OFF_S1), v, h, true);
		return 0;
	}
	s = _stpx_map_insert_s1(m, _stpx_comm_str(tmp, w0, w1), hash);
	if (unlikely(!s))
		return -ENOSPC;
	_stpx_stat_add(s, v, h);
	return 0;
#else
	_stpx_copy_comm(tmp, current);
	return _stpx_pmap_add_s1(m, tmp, v, h);
#endif
}
#endif

/* hist: merge the buckets too (agg then needs room for them), or NULL. */
static const struct _stpx_stat *_stpx_pmap_read(struct _stpx_pmap *p, const union _stpx_key *keys,
						struct _stpx_stat *agg, const struct _stpx_hist *hist)
{
	int cpu;

	memset(agg, 0, _stpx_stat_size(hist));
	for_each_possible_cpu(cpu) {
		const struct _stpx_stat *s = _stpx_map_get(p->cpu[cpu], keys);

		if (s)
			_stpx_stat_merge(agg, s, hist);
	}
	return agg;
}

static int64_t _stpx_pmap_variance(struct _stpx_pmap *p, const union _stpx_key *keys)
{
	int64_t count = 0, sum = 0, total = 0, mean;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct _stpx_stat *part = _stpx_map_get(p->cpu[cpu], keys);

		if (part) {
			count += part->count;
			sum += part->sum;
		}
	}
	mean = _stpx_var_mean(count, sum, p->hist);
	for_each_possible_cpu(cpu)
		total += _stpx_var_part(_stpx_map_get(p->cpu[cpu], keys), mean);
	return _stpx_var_result(total, count, p->hist);
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

/* The same with '*' keys (map.c's _stpx_map_match_some), on every CPU. */
static bool _stpx_pmap_exists_some(struct _stpx_pmap *p, const union _stpx_key *keys, u32 some)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (_stpx_map_exists_some(p->cpu[cpu], keys, some))
			return true;
	return false;
}

static void _stpx_pmap_delete_some(struct _stpx_pmap *p, const union _stpx_key *keys, u32 some)
{
	int cpu;

	for_each_possible_cpu(cpu)
		_stpx_map_delete_some(p->cpu[cpu], keys, some);
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
			_stpx_stat_merge(s, _stpx_map_value(m, n), p->hist);
		}
	}
	return p->agg;
}

/*
 * print(@hist_log(s)) / print(@hist_linear(s, lo, hi, step)), laid out as
 * stap does: a "value |---- count" header, one row per bucket from
 * HIST_ELISION buckets before the first non-empty one to as many after the
 * last (never below the 0 row of a log histogram without negative values),
 * runs of more than 2*HIST_ELISION empty buckets inside shown as their
 * first and last HIST_ELISION rows around a "~", bars of at most 50 '@'
 * (a count of c drawn as c / ceil(max/50) when max > 50), a blank line last.
 * sprint(@hist_log(s)) draws the same into a string, cut at MAXSTRINGLEN.
 */
#ifndef HIST_ELISION
#define HIST_ELISION 2
#endif
#define STPX_HIST_WIDTH 50

static void _stpx_hist_label(const struct _stpx_hist *h, u32 i, char *buf, size_t len)
{
	if (h->kind == STPX_HIST_LOG) {
		if (i == 64)
			snprintf(buf, len, "0");
		else if (i > 64)
			snprintf(buf, len, "%llu", 1ULL << (i - 65));
		else
			snprintf(buf, len, "-%llu", 1ULL << (63 - i));
	} else if (i == 0) {
		snprintf(buf, len, "<%lld", (long long)h->lo);
	} else if (i == h->buckets - 1) {
		snprintf(buf, len, ">%lld", (long long)h->hi);
	} else {
		snprintf(buf, len, "%lld", (long long)(h->lo + (int64_t)(i - 1) * h->step));
	}
}

/* Into the print buffer, or appended to the string `to` (sprint). */
#define _STPX_HIST_OUT(c, to, ...)                           \
	do {                                                 \
		if (to)                                      \
			_stpx_sprintf_cat(to, __VA_ARGS__);  \
		else                                         \
			_stpx_printf(c, __VA_ARGS__);        \
	} while (0)

static void _stpx_hist_row(struct _stpx_context *c, char *to, int width, int cwidth, const char *label,
			   int64_t count, int64_t divisor)
{
	char bar[STPX_HIST_WIDTH + 1];
	int64_t n = div64_s64(count, divisor);
	int i;

	for (i = 0; i < STPX_HIST_WIDTH; i++)
		bar[i] = i < n ? '@' : ' ';
	bar[STPX_HIST_WIDTH] = '\0';
	_STPX_HIST_OUT(c, to, "%*s |%s %*lld\n", width, label, bar, cwidth, (long long)count);
}

static void _stpx_hist_print(struct _stpx_context *c, char *to, const struct _stpx_stat *s,
			     const struct _stpx_hist *h)
{
	const int64_t *b = s->hist;
	int first = -1, last = -1, start, end, i, width = 5, cwidth = 1;
	int64_t max = 0, divisor = 1;
	char label[32];

	for (i = 0; i < (int)h->buckets; i++) {
		if (b[i]) {
			if (first < 0)
				first = i;
			last = i;
		}
	}
	if (first < 0)
		return;	/* nothing recorded: nothing to draw */
	start = max(first - HIST_ELISION, 0);
	end = min(last + HIST_ELISION, (int)h->buckets - 1);
	if (h->kind == STPX_HIST_LOG && first >= 64)
		start = max(start, 64);	/* no negative values: start at the 0 row */
	if (h->kind == STPX_HIST_LINEAR) {
		/* The out-of-range buckets show only when they hold something. */
		if (start == 0 && !b[0])
			start = 1;
		if (end == (int)h->buckets - 1 && !b[end])
			end--;
	}
	for (i = start; i <= end; i++) {
		_stpx_hist_label(h, i, label, sizeof(label));
		width = max(width, (int)strlen(label));
		if (b[i] > max)
			max = b[i];
	}
	snprintf(label, sizeof(label), "%lld", (long long)max);
	cwidth = strlen(label);
	if (max > STPX_HIST_WIDTH)
		divisor = div64_s64(max + STPX_HIST_WIDTH - 1, STPX_HIST_WIDTH);
	_STPX_HIST_OUT(c, to, "%*s |%s count\n", width, "value",
		     "--------------------------------------------------");
	for (i = start; i <= end; i++) {
		if (!b[i]) {
			int j = i;

			while (j <= end && !b[j])
				j++;
			if (HIST_ELISION >= 0 && j - i > 2 * HIST_ELISION && i > first && j <= last) {
				int k;

				for (k = i; k < i + HIST_ELISION; k++) {
					_stpx_hist_label(h, k, label, sizeof(label));
					_stpx_hist_row(c, to, width, cwidth, label, 0, divisor);
				}
				_STPX_HIST_OUT(c, to, "%*s~\n", width + 1, "");
				i = j - HIST_ELISION - 1;
				continue;
			}
		}
		_stpx_hist_label(h, i, label, sizeof(label));
		_stpx_hist_row(c, to, width, cwidth, label, b[i], divisor);
	}
	_STPX_HIST_OUT(c, to, "\n");
}
