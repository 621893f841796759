/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Associative arrays: one generic hash map with up to 9 long/string keys and
 * a long or string value. Every node comes from a pool allocated at module
 * init (max_entries of them), so probe context never allocates; a full pool
 * makes an insert fail, which the script reports as an array overflow.
 * Callers hold the global's lock; the map itself does no locking.
 */

#define STPX_MAX_KEYS 9

struct _stpx_map_node {
	struct hlist_node hnode;
	struct list_head lnode;	/* in map->used (insertion order) or map->free */
	u32 hash;
	/* keys, then the value, at the offsets recorded in the map */
};

struct _stpx_map {
	u32 nkeys;
	u32 max_entries;
	u32 count;
	u32 bucket_mask;
	u8 key_types[STPX_MAX_KEYS];
	u8 val_type;
	bool wrap;		/* global a%: a full map drops its oldest entry */
	u32 key_off[STPX_MAX_KEYS];
	u32 val_off;
	u32 val_size;
	u32 node_size;
	struct hlist_head *buckets;
	struct list_head used;
	struct list_head free;
	char *pool;
};

static u32 _stpx_slot_size(u8 type)
{
	if (type == STPX_T_STAT)
		return 4 * sizeof(int64_t);	/* struct _stpx_stat (stat.c) */
	return type == STPX_T_STRING ? ALIGN(MAXSTRINGLEN, 8) : sizeof(int64_t);
}

/* val_size: bytes of each value (statistics with histograms are larger). */
static struct _stpx_map *_stpx_map_alloc_sized(u32 nkeys, const u8 *key_types, u8 val_type,
					       u32 max_entries, u32 val_size)
{
	struct _stpx_map *m;
	u32 i, off, nbuckets;

	if (nkeys == 0 || nkeys > STPX_MAX_KEYS || max_entries == 0)
		return NULL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	m->nkeys = nkeys;
	m->max_entries = max_entries;
	m->val_type = val_type;
	off = ALIGN(sizeof(struct _stpx_map_node), 8);
	for (i = 0; i < nkeys; i++) {
		m->key_types[i] = key_types[i];
		m->key_off[i] = off;
		off += _stpx_slot_size(key_types[i]);
	}
	m->val_off = off;
	m->val_size = val_size;
	m->node_size = ALIGN(off + val_size, 8);
	nbuckets = roundup_pow_of_two(max_entries);
	m->bucket_mask = nbuckets - 1;
	m->buckets = vzalloc(array_size(nbuckets, sizeof(struct hlist_head)));
	m->pool = vzalloc(array_size(max_entries, m->node_size));
	if (!m->buckets || !m->pool) {
		vfree(m->buckets);
		vfree(m->pool);
		kfree(m);
		return NULL;
	}
	INIT_LIST_HEAD(&m->used);
	INIT_LIST_HEAD(&m->free);
	for (i = 0; i < max_entries; i++) {
		struct _stpx_map_node *n = (void *)(m->pool + (size_t)i * m->node_size);

		list_add_tail(&n->lnode, &m->free);
	}
	return m;
}

static struct _stpx_map *_stpx_map_alloc(u32 nkeys, const u8 *key_types, u8 val_type, u32 max_entries)
{
	return _stpx_map_alloc_sized(nkeys, key_types, val_type, max_entries, _stpx_slot_size(val_type));
}

static void _stpx_map_free(struct _stpx_map *m)
{
	if (!m)
		return;
	vfree(m->buckets);
	vfree(m->pool);
	kfree(m);
}

static inline void *_stpx_node_slot(const struct _stpx_map *m, struct _stpx_map_node *n, u32 off)
{
	return (char *)n + off;
}

static u32 _stpx_map_hash(const struct _stpx_map *m, const union _stpx_key *keys)
{
	u32 i, h = 0;

	for (i = 0; i < m->nkeys; i++) {
		if (m->key_types[i] == STPX_T_STRING)
			h = jhash(keys[i].s, strnlen(keys[i].s, MAXSTRINGLEN - 1), h);
		else
			h = jhash_2words((u32)keys[i].l, (u32)((u64)keys[i].l >> 32), h);
	}
	return h;
}

static bool _stpx_map_match(const struct _stpx_map *m, struct _stpx_map_node *n,
			    const union _stpx_key *keys)
{
	u32 i;

	for (i = 0; i < m->nkeys; i++) {
		void *slot = _stpx_node_slot(m, n, m->key_off[i]);

		if (m->key_types[i] == STPX_T_STRING) {
			if (strncmp(slot, keys[i].s, MAXSTRINGLEN - 1) != 0)
				return false;
		} else if (*(int64_t *)slot != keys[i].l) {
			return false;
		}
	}
	return true;
}

static struct _stpx_map_node *_stpx_map_lookup(const struct _stpx_map *m,
					       const union _stpx_key *keys, u32 hash)
{
	struct _stpx_map_node *n;

	hlist_for_each_entry(n, &m->buckets[hash & m->bucket_mask], hnode)
		if (n->hash == hash && _stpx_map_match(m, n, keys))
			return n;
	return NULL;
}

/* The value slot of keys, or NULL when absent. */
static void *_stpx_map_get(const struct _stpx_map *m, const union _stpx_key *keys)
{
	struct _stpx_map_node *n = _stpx_map_lookup(m, keys, _stpx_map_hash(m, keys));

	return n ? _stpx_node_slot(m, n, m->val_off) : NULL;
}

static void _stpx_map_unlink(struct _stpx_map *m, struct _stpx_map_node *n);

/*
 * The value slot of keys, created (zeroed) when absent; NULL when full,
 * unless the map wraps: then the oldest entry makes room.
 */
static void *_stpx_map_ref(struct _stpx_map *m, const union _stpx_key *keys)
{
	u32 i, hash = _stpx_map_hash(m, keys);
	struct _stpx_map_node *n = _stpx_map_lookup(m, keys, hash);

	if (n)
		return _stpx_node_slot(m, n, m->val_off);
	if (list_empty(&m->free)) {
		if (!m->wrap || list_empty(&m->used))
			return NULL;
		_stpx_map_unlink(m, list_first_entry(&m->used, struct _stpx_map_node, lnode));
	}
	n = list_first_entry(&m->free, struct _stpx_map_node, lnode);
	list_move_tail(&n->lnode, &m->used);
	n->hash = hash;
	for (i = 0; i < m->nkeys; i++) {
		void *slot = _stpx_node_slot(m, n, m->key_off[i]);

		if (m->key_types[i] == STPX_T_STRING)
			strscpy(slot, keys[i].s, MAXSTRINGLEN);
		else
			*(int64_t *)slot = keys[i].l;
	}
	memset(_stpx_node_slot(m, n, m->val_off), 0, m->val_size);
	hlist_add_head(&n->hnode, &m->buckets[hash & m->bucket_mask]);
	m->count++;
	return _stpx_node_slot(m, n, m->val_off);
}

static void _stpx_map_unlink(struct _stpx_map *m, struct _stpx_map_node *n)
{
	hlist_del(&n->hnode);
	list_move(&n->lnode, &m->free);
	m->count--;
}

static void _stpx_map_delete(struct _stpx_map *m, const union _stpx_key *keys)
{
	struct _stpx_map_node *n = _stpx_map_lookup(m, keys, _stpx_map_hash(m, keys));

	if (n)
		_stpx_map_unlink(m, n);
}

static void _stpx_map_clear(struct _stpx_map *m)
{
	while (!list_empty(&m->used))
		_stpx_map_unlink(m, list_first_entry(&m->used, struct _stpx_map_node, lnode));
}

/* Typed reads: absent entries read as 0 and "". */
static inline int64_t _stpx_map_get_l(const struct _stpx_map *m, const union _stpx_key *keys)
{
	int64_t *v = _stpx_map_get(m, keys);

	return v ? *v : 0;
}

static inline const char *_stpx_map_get_s(const struct _stpx_map *m, const union _stpx_key *keys)
{
	const char *v = _stpx_map_get(m, keys);

	return v ? v : "";
}

/*
 * foreach support: a snapshot of the map's nodes (insertion order) in a
 * caller's buffer of max_entries pointers, optionally sorted by one key
 * column or by the value. The body of a foreach may not modify the map
 * (the translator rejects that), so the snapshot stays valid.
 */
static inline void *_stpx_map_key(const struct _stpx_map *m, struct _stpx_map_node *n, unsigned int i)
{
	return (char *)n + m->key_off[i];
}

static inline void *_stpx_map_value(const struct _stpx_map *m, struct _stpx_map_node *n)
{
	return (char *)n + m->val_off;
}

static size_t _stpx_map_snapshot(const struct _stpx_map *m, struct _stpx_map_node **buf)
{
	struct _stpx_map_node *n;
	size_t count = 0;

	list_for_each_entry(n, &m->used, lnode)
		buf[count++] = n;
	return count;
}

struct _stpx_sort_spec {
	const struct _stpx_map *map;
	int column;	/* 1..nkeys: that key; 0: the value */
	int desc;
	int agg;	/* statistics values: sort by this aggregate */
};

enum { STPX_AGG_COUNT, STPX_AGG_SUM, STPX_AGG_MIN, STPX_AGG_MAX, STPX_AGG_AVG };

static int64_t _stpx_stat_field(const int64_t *s, int agg)
{
	/* s: count, sum, min, max */
	switch (agg) {
	case STPX_AGG_SUM: return s[1];
	case STPX_AGG_MIN: return s[2];
	case STPX_AGG_MAX: return s[3];
	case STPX_AGG_AVG: return s[0] ? div64_s64(s[1], s[0]) : 0;
	default: return s[0];
	}
}

static int _stpx_cmp_slot(u8 type, const void *a, const void *b)
{
	if (type == STPX_T_STRING)
		return strncmp(a, b, MAXSTRINGLEN);
	if (*(const int64_t *)a != *(const int64_t *)b)
		return *(const int64_t *)a < *(const int64_t *)b ? -1 : 1;
	return 0;
}

static int _stpx_cmp_nodes(const void *pa, const void *pb, const void *priv)
{
	const struct _stpx_sort_spec *spec = priv;
	const struct _stpx_map *m = spec->map;
	struct _stpx_map_node *a = *(struct _stpx_map_node *const *)pa;
	struct _stpx_map_node *b = *(struct _stpx_map_node *const *)pb;
	unsigned int i;
	int c;

	if (spec->column == 0 && m->val_type == STPX_T_STAT) {
		int64_t x = _stpx_stat_field(_stpx_map_value(m, a), spec->agg);
		int64_t y = _stpx_stat_field(_stpx_map_value(m, b), spec->agg);

		c = x == y ? 0 : x < y ? -1 : 1;
	} else if (spec->column == 0) {
		c = _stpx_cmp_slot(m->val_type, _stpx_map_value(m, a), _stpx_map_value(m, b));
	} else {
		c = _stpx_cmp_slot(m->key_types[spec->column - 1],
				   _stpx_map_key(m, a, spec->column - 1),
				   _stpx_map_key(m, b, spec->column - 1));
	}
	if (spec->desc)
		c = -c;
	/* Ties: by all keys in order, so that the order never depends on hashing. */
	for (i = 0; !c && i < m->nkeys; i++)
		c = _stpx_cmp_slot(m->key_types[i], _stpx_map_key(m, a, i), _stpx_map_key(m, b, i));
	return c;
}

/* column: 1..nkeys sorts by that key, 0 by the value (statistics: by agg). */
static void _stpx_map_sort(const struct _stpx_map *m, struct _stpx_map_node **buf, size_t n,
			   int column, int desc, int agg)
{
	struct _stpx_sort_spec spec = { m, column, desc, agg };

	sort_r(buf, n, sizeof(*buf), _stpx_cmp_nodes, NULL, &spec);
}

/*
 * Each foreach in a script has one snapshot buffer per CPU (handlers never
 * nest on a CPU). A recursive function that re-enters the same foreach
 * before the outer one finishes would share it: the translator reports
 * foreach in recursive functions as unsupported.
 */
static int _stpx_foreach_bufs_alloc(struct _stpx_map_node **__percpu *bufs, const struct _stpx_map *m)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct _stpx_map_node **b = vmalloc(array_size(m->max_entries, sizeof(*b)));

		if (!b)
			return -ENOMEM;
		*per_cpu_ptr(bufs, cpu) = b;
	}
	return 0;
}

static void _stpx_foreach_bufs_free(struct _stpx_map_node **__percpu *bufs)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		vfree(*per_cpu_ptr(bufs, cpu));
		*per_cpu_ptr(bufs, cpu) = NULL;
	}
}
