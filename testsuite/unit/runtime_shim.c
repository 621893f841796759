/*
 * runtime-c/map.c, stat.c and regex.c compiled in user space over kernel_shim.h,
 * with a few exported wrappers (runtime_shim.h) for the GoogleTest cases
 * in runtime_test.cpp.
 */
#include "kernel_shim.h"

unsigned int nr_cpu_ids = 2;
int shim_cpu;
size_t shim_alloc_bytes;

#pragma GCC diagnostic ignored "-Wunused-function"
/* Room for any sub-match program the compiler accepts (kMaxSubmatchCells). */
#define STPX_RE_SUBMATCH 1
#define STPX_RE_MAX_INSTS 8192
#define STPX_RE_MAX_SLOTS 8192
#define STPX_RE_MAX_CELLS 16384
#include "map.c"
#include "stat.c"
#include "regex.c"

#include "runtime_shim.h"

struct _stpx_map *shim_map_alloc(unsigned nkeys, const unsigned char *types, unsigned char val, unsigned max)
{
	return _stpx_map_alloc(nkeys, types, val, max);
}
uint64_t shim_map_bytes(unsigned nkeys, const unsigned char *types, unsigned char val, unsigned max)
{
	return _stpx_map_bytes(nkeys, types, max, _stpx_slot_size(val));
}
/* An array of statistics (no histogram) and what the runtime says it takes. */
void *shim_pmap_alloc(unsigned nkeys, const unsigned char *types, unsigned max)
{
	return _stpx_pmap_alloc(nkeys, types, max, NULL);
}
void shim_pmap_free(void *p)
{
	_stpx_pmap_free(p);
}
uint64_t shim_pmap_bytes(unsigned nkeys, const unsigned char *types, unsigned max)
{
	return _stpx_pmap_bytes(nkeys, types, max, NULL);
}
/* A scalar statistic, and the buffers of a sorted foreach over a map:
 * each made and freed; *allocated is what that took. */
uint64_t shim_stat_bytes(size_t *allocated)
{
	size_t before = shim_alloc_bytes;
	void *s = _stpx_stat_alloc(NULL);

	*allocated = shim_alloc_bytes - before;
	free_percpu(s);
	return _stpx_stat_bytes(NULL);
}
uint64_t shim_foreach_bufs_bytes(struct _stpx_map *m, size_t *allocated)
{
	struct _stpx_map_node **__percpu *bufs = __alloc_percpu(sizeof(*bufs), 8);
	size_t before = shim_alloc_bytes;

	_stpx_foreach_bufs_alloc(bufs, m);
	*allocated = shim_alloc_bytes - before;
	_stpx_foreach_bufs_free(bufs);
	free_percpu(bufs);
	return _stpx_foreach_bufs_bytes(m->max_entries);
}
int64_t shim_regex_match(const unsigned char *classes, const uint16_t *trans, const unsigned char *flags,
			 unsigned nclasses, const char *s)
{
	struct _stpx_dfa re = { .classes = classes, .trans = trans, .flags = flags, .nclasses = nclasses };

	return _stpx_regex_match(&re, s);
}
int shim_regex_submatch(const uint16_t *insts, unsigned ninsts, const unsigned char *sets, unsigned nslots,
			const char *s, int *slots, char *str)
{
	static struct _stpx_re_inst code[STPX_RE_MAX_INSTS];
	static struct _stpx_re_scratch w;
	static struct _stpx_re_last last;
	struct _stpx_re_prog re = { .insts = code, .sets = (const u8 (*)[32])sets, .ninsts = ninsts,
				    .nslots = nslots };
	unsigned int i;

	for (i = 0; i < ninsts; i++)
		code[i] = (struct _stpx_re_inst){ insts[4 * i], insts[4 * i + 1], insts[4 * i + 2], insts[4 * i + 3] };
	if (!_stpx_regex_submatch(&re, s, &w, &last))
		return 0;
	memcpy(slots, last.slots, nslots * sizeof(int));
	strcpy(str, last.str);
	return 1;
}
void shim_map_free(struct _stpx_map *m) { _stpx_map_free(m); }
void shim_map_wrap(struct _stpx_map *m) { m->wrap = true; }
int64_t *shim_map_ref_l(struct _stpx_map *m, const union _stpx_key *k) { return _stpx_map_ref(m, k); }
char *shim_map_ref_s(struct _stpx_map *m, const union _stpx_key *k) { return _stpx_map_ref(m, k); }
int64_t shim_map_get_l(struct _stpx_map *m, const union _stpx_key *k) { return _stpx_map_get_l(m, k); }
const char *shim_map_get_s(struct _stpx_map *m, const union _stpx_key *k) { return _stpx_map_get_s(m, k); }
int shim_map_exists(struct _stpx_map *m, const union _stpx_key *k) { return _stpx_map_get(m, k) != NULL; }
void shim_map_delete(struct _stpx_map *m, const union _stpx_key *k) { _stpx_map_delete(m, k); }
int shim_map_exists_some(struct _stpx_map *m, const union _stpx_key *k, unsigned some)
{
	return _stpx_map_exists_some(m, k, some);
}
void shim_map_delete_some(struct _stpx_map *m, const union _stpx_key *k, unsigned some)
{
	_stpx_map_delete_some(m, k, some);
}
void shim_map_clear(struct _stpx_map *m) { _stpx_map_clear(m); }
unsigned shim_map_count(struct _stpx_map *m) { return m->count; }
int64_t *shim_map_ref_l1(struct _stpx_map *m, int64_t k) { return _stpx_map_ref_l1(m, k); }
int64_t *shim_map_ref_s1(struct _stpx_map *m, const char *k) { return _stpx_map_ref_s1(m, k); }
int64_t *shim_map_get_l1(struct _stpx_map *m, int64_t k) { return _stpx_map_get_l1(m, k); }
int64_t *shim_map_get_s1(struct _stpx_map *m, const char *k) { return _stpx_map_get_s1(m, k); }

size_t shim_map_sorted_keys(struct _stpx_map *m, int column, int desc, int agg, int64_t *out, size_t max)
{
	struct _stpx_map_node **buf = (struct _stpx_map_node **)calloc(m->max_entries, sizeof(*buf));
	size_t n = _stpx_map_snapshot(m, buf), i;

	if (column >= 0)
		_stpx_map_sort(m, buf, n, column, desc, agg);
	for (i = 0; i < n && i < max; i++)
		out[i] = *(int64_t *)_stpx_map_key(m, buf[i], 0);
	free(buf);
	return n;
}

struct shim_stat {
	const struct _stpx_hist *h;
	struct _stpx_stat *pcpu;
	int64_t scratch[STPX_STAT_WORDS + 1100];
};

struct shim_stat *shim_stat_new(int kind, int64_t lo, int64_t hi, int64_t step, int variance, int shift)
{
	struct shim_stat *s = (struct shim_stat *)calloc(1, sizeof(*s));
	struct _stpx_hist *h = (struct _stpx_hist *)calloc(1, sizeof(*h));

	h->kind = kind == 1 ? STPX_HIST_LOG : kind == 2 ? STPX_HIST_LINEAR : STPX_HIST_NONE;
	h->lo = lo;
	h->hi = hi;
	h->step = step;
	h->buckets = kind == 1 ? STPX_HIST_LOG_BUCKETS : kind == 2 ? (u32)((hi - lo) / step + 3) : 0;
	h->variance = variance;
	h->shift = shift;
	s->h = h;
	s->pcpu = _stpx_stat_alloc(h);
	return s;
}

void shim_stat_free(struct shim_stat *s)
{
	_stpx_stat_free(s->pcpu);
	free((void *)s->h);
	free(s);
}

void shim_stat_add(struct shim_stat *s, int cpu, int64_t v) { _stpx_stat_add(per_cpu_ptr(s->pcpu, cpu), v, s->h); }

void shim_stat_read(struct shim_stat *s, int64_t *count, int64_t *sum, int64_t *min, int64_t *max)
{
	struct _stpx_stat *agg = (struct _stpx_stat *)s->scratch;

	_stpx_stat_read(s->pcpu, agg, s->h);
	*count = agg->count;
	*sum = agg->sum;
	*min = agg->min;
	*max = agg->max;
}

int64_t shim_stat_bucket(struct shim_stat *s, unsigned i)
{
	struct _stpx_stat *agg = (struct _stpx_stat *)s->scratch;

	_stpx_stat_read(s->pcpu, agg, s->h);
	return agg->hist[i];
}

unsigned shim_stat_bucket_of(struct shim_stat *s, int64_t v) { return _stpx_hist_bucket(s->h, v); }
int64_t shim_stat_variance(struct shim_stat *s) { return _stpx_stat_variance(s->pcpu, s->h); }

size_t shim_stat_print(struct shim_stat *s, char *out, size_t len)
{
	static struct _stpx_context c;
	struct _stpx_stat *agg = (struct _stpx_stat *)s->scratch;

	c.print_len = 0;
	c.print_buf[0] = '\0';
	_stpx_stat_read(s->pcpu, agg, s->h);
	_stpx_hist_print(&c, NULL, agg, s->h);
	snprintf(out, len, "%s", c.print_buf);
	return c.print_len;
}

/* sprint(@hist_*(s)): the same drawing, into a MAXSTRINGLEN string. */
void shim_stat_sprint(struct shim_stat *s, char *out)
{
	static struct _stpx_context c;
	struct _stpx_stat *agg = (struct _stpx_stat *)s->scratch;

	out[0] = '\0';
	_stpx_stat_read(s->pcpu, agg, s->h);
	_stpx_hist_print(&c, out, agg, s->h);
}
