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
	u32 bucket_shift;	/* a hash's bucket: its top bits, hash >> bucket_shift */
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

/* The bytes of one node: its header, then each key's slot and the value's. */
static u32 _stpx_map_node_size(u32 nkeys, const u8 *key_types, u32 val_size)
{
	u32 i, off = ALIGN(sizeof(struct _stpx_map_node), 8);

	for (i = 0; i < nkeys && i < STPX_MAX_KEYS; i++)
		off += _stpx_slot_size(key_types[i]);
	return ALIGN(off + val_size, 8);
}

/* What _stpx_map_alloc_sized() will allocate for such a map. */
static u64 _stpx_map_bytes(u32 nkeys, const u8 *key_types, u32 max_entries, u32 val_size)
{
	if (!max_entries)
		return 0;
	return sizeof(struct _stpx_map) +
	       (u64)roundup_pow_of_two(max_entries) * sizeof(struct hlist_head) +
	       (u64)max_entries * _stpx_map_node_size(nkeys, key_types, val_size);
}

/* Zeroed, and quiet when it fails (the load-time check has said why). */
static void *_stpx_vzalloc(size_t size)
{
	return __vmalloc(size, GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
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
	m->node_size = _stpx_map_node_size(nkeys, key_types, val_size);
	nbuckets = roundup_pow_of_two(max_entries);
	m->bucket_shift = 32 - ilog2(nbuckets);
	m->buckets = _stpx_vzalloc(array_size(nbuckets, sizeof(struct hlist_head)));
	m->pool = _stpx_vzalloc(array_size(max_entries, m->node_size));
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

static inline struct hlist_head *_stpx_map_bucket(const struct _stpx_map *m, u32 hash)
{
	return &m->buckets[(u64)hash >> m->bucket_shift];
}

/*
 * Key hashing. A map's hash chains its keys' hashes, column by column, so
 * that a lookup with one long or one string key (the common case) can be
 * inlined at the call site (_stpx_map_ref_l1 ...) and still find what the
 * generic functions stored. Multiplicative: the top bits of the product
 * depend on every bit of the key, and buckets take the top bits.
 */
#define STPX_HASH_MUL 0x61c8864680b583ebull	/* 2^64 / golden ratio */

static __always_inline u32 _stpx_hash_l(int64_t v, u32 h)
{
	return (u32)((((u64)v + h) * STPX_HASH_MUL) >> 32);
}

/*
 * A string key's hash and length, over at most MAXSTRINGLEN - 1 bytes (a
 * longer key is stored truncated, and must hash as stored). Eight bytes at
 * a time, little-endian; where words cannot be read past a string's end
 * safely, the same words are assembled byte by byte.
 */
static __always_inline u64 _stpx_str_word(const char *s, u32 off, u32 *n)
{
#if defined(CONFIG_DCACHE_WORD_ACCESS) && defined(__LITTLE_ENDIAN)
	const struct word_at_a_time constants = WORD_AT_A_TIME_CONSTANTS;
	unsigned long a = load_unaligned_zeropad(s + off), data;

	*n = 8;
	if (has_zero(a, &data, &constants)) {
		data = prep_zero_mask(a, data, &constants);
		*n = find_zero(create_zero_mask(data));
	}
	return a;
#else
	u64 a = 0;
	u32 i;

	for (i = 0; i < 8 && s[off + i]; i++)
		a |= (u64)(unsigned char)s[off + i] << (8 * i);
	*n = i;
	return a;
#endif
}

/*
 * One word of a string key at s + *len: true if all 8 bytes belong to the
 * key; else *a keeps only the key's bytes (maybe none), and it was the last.
 */
static __always_inline bool _stpx_hash_step(const char *s, u32 *len, u64 *a)
{
	u32 n;

	*a = _stpx_str_word(s, *len, &n);
	if (unlikely(*len + 8 > MAXSTRINGLEN - 1) && n > MAXSTRINGLEN - 1 - *len)
		n = MAXSTRINGLEN - 1 - *len;
	if (n < 8) {
		*a &= n ? ~0ull >> (64 - 8 * n) : 0;
		*len += n;
		return false;
	}
	*len += 8;
	return true;
}

/*
 * A string's first 16 bytes, zero past its end, as two words: its hash
 * starts with these, so that a key known to sit NUL-padded in 16 bytes
 * (execname(): _stpx_map_ref_comm) hashes without looking for its end.
 */
static __always_inline u64 _stpx_hash_w2(u32 h, u64 w0, u64 w1)
{
	return ((((u64)h ^ w0) * STPX_HASH_MUL) ^ w1) * STPX_HASH_MUL;
}

/*
 * Also gives the key's first two words, zero past its end (w0, w1): what a
 * one-string-key map compares with its stored keys, which are zero-padded.
 * Keys of 16 bytes or more hash the rest of their words and their length
 * too (shorter ones need not: their two words tell them apart).
 */
static __always_inline u32 _stpx_hash_s(const char *s, u32 h, u32 *lenp, u64 *w0, u64 *w1)
{
	u64 acc, a;
	u32 len = 0;
	bool more = _stpx_hash_step(s, &len, &a);

	*w0 = a;
	*w1 = 0;
	if (more) {
		more = _stpx_hash_step(s, &len, &a);
		*w1 = a;
	}
	acc = _stpx_hash_w2(h, *w0, *w1);
	if (more) {
		while (_stpx_hash_step(s, &len, &a))
			acc = (acc ^ a) * STPX_HASH_MUL;
		acc = (((acc ^ a) * STPX_HASH_MUL) ^ len) * STPX_HASH_MUL;
	}
	*lenp = len;
	return (u32)(acc >> 32);
}

/* The key slot's string (NUL-terminated) equals the first len bytes of s. */
static __always_inline bool _stpx_str_eq(const char *slot, const char *s, u32 len)
{
	u32 off, n;
	u64 a, b, mask;

	if (slot[len])
		return false;
	for (off = 0; off < len; off += 8) {
		a = *(const u64 *)(slot + off);	/* slots are 8-aligned and padded */
		b = _stpx_str_word(s, off, &n);
		mask = len - off >= 8 ? ~0ull : ~0ull >> (64 - 8 * (len - off));
		if ((a ^ b) & mask)
			return false;
	}
	return true;
}

static u32 _stpx_map_hash(const struct _stpx_map *m, const union _stpx_key *keys)
{
	u32 i, h = 0, len;
	u64 w0, w1;

	for (i = 0; i < m->nkeys; i++) {
		if (m->key_types[i] == STPX_T_STRING)
			h = _stpx_hash_s(keys[i].s, h, &len, &w0, &w1);
		else
			h = _stpx_hash_l(keys[i].l, h);
	}
	return h;
}

/*
 * Whether node n has these keys. Only the keys whose bit is set in `some`
 * are compared ('*' keys: "delete a[*, k]", "[*, k] in a"); a lookup
 * compares all, and its constant mask folds away.
 */
static __always_inline bool _stpx_map_match_some(const struct _stpx_map *m, struct _stpx_map_node *n,
						 const union _stpx_key *keys, u32 some)
{
	u32 i;

	for (i = 0; i < m->nkeys; i++) {
		void *slot = _stpx_node_slot(m, n, m->key_off[i]);

		if (!(some & (1u << i)))
			continue;
		if (m->key_types[i] == STPX_T_STRING) {
			if (strncmp(slot, keys[i].s, MAXSTRINGLEN - 1) != 0)
				return false;
		} else if (*(int64_t *)slot != keys[i].l) {
			return false;
		}
	}
	return true;
}

static bool _stpx_map_match(const struct _stpx_map *m, struct _stpx_map_node *n,
			    const union _stpx_key *keys)
{
	return _stpx_map_match_some(m, n, keys, ~0u);
}

static struct _stpx_map_node *_stpx_map_lookup(const struct _stpx_map *m,
					       const union _stpx_key *keys, u32 hash)
{
	struct _stpx_map_node *n;

	hlist_for_each_entry(n, _stpx_map_bucket(m, hash), hnode)
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
 * list_move_tail() without CONFIG_DEBUG_LIST's two out-of-line checks
 * (Debian's kernels set it), a large part of an insert's cost in
 * bench/map-ops: the lists hold only the map's own pool, under the
 * global's lock.
 */
static __always_inline void _stpx_list_move_tail(struct list_head *e, struct list_head *head)
{
	struct list_head *prev = head->prev;

	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = head;
	e->prev = prev;
	prev->next = e;
	head->prev = e;
}

/*
 * An insert's two halves, around the copying of its keys: a node from the
 * free list (NULL when the map is full, unless it wraps: then the oldest
 * entry makes room), and then its value zeroed and the node in its bucket.
 */
static __always_inline struct _stpx_map_node *_stpx_map_new_node(struct _stpx_map *m, u32 hash)
{
	struct _stpx_map_node *n;

	if (list_empty(&m->free)) {
		if (!m->wrap || list_empty(&m->used))
			return NULL;
		_stpx_map_unlink(m, list_first_entry(&m->used, struct _stpx_map_node, lnode));
	}
	n = list_first_entry(&m->free, struct _stpx_map_node, lnode);
	_stpx_list_move_tail(&n->lnode, &m->used);
	n->hash = hash;
	return n;
}

static __always_inline void *_stpx_map_link(struct _stpx_map *m, struct _stpx_map_node *n, u32 hash)
{
	void *val = _stpx_node_slot(m, n, m->val_off);

	if (m->val_size == sizeof(int64_t))
		*(int64_t *)val = 0;
	else
		memset(val, 0, m->val_size);
	hlist_add_head(&n->hnode, _stpx_map_bucket(m, hash));
	m->count++;
	return val;
}

/* A new entry for keys (whose hash is hash), its value zeroed; NULL when full. */
static void *_stpx_map_insert(struct _stpx_map *m, const union _stpx_key *keys, u32 hash)
{
	struct _stpx_map_node *n = _stpx_map_new_node(m, hash);
	u32 i;

	if (!n)
		return NULL;
	for (i = 0; i < m->nkeys; i++) {
		void *slot = _stpx_node_slot(m, n, m->key_off[i]);

		/* Zero-padded: see _stpx_map_find_s1. */
		if (m->key_types[i] == STPX_T_STRING) {
			memset(slot, 0, ALIGN(MAXSTRINGLEN, 8));
			strscpy(slot, keys[i].s, MAXSTRINGLEN);
		} else {
			*(int64_t *)slot = keys[i].l;
		}
	}
	return _stpx_map_link(m, n, hash);
}

/* The value slot of keys, created (zeroed) when absent (see above). */
static void *_stpx_map_ref(struct _stpx_map *m, const union _stpx_key *keys)
{
	u32 hash = _stpx_map_hash(m, keys);
	struct _stpx_map_node *n = _stpx_map_lookup(m, keys, hash);

	if (n)
		return _stpx_node_slot(m, n, m->val_off);
	return _stpx_map_insert(m, keys, hash);
}

/*
 * Maps of one long or one string key: lookups inlined where the script
 * uses them, with the hash of the generic functions. The first key slot
 * sits right after the node header.
 */
#define STPX_KEY0_OFF ALIGN(sizeof(struct _stpx_map_node), 8)
#define STPX_VAL_OFF_L1 (STPX_KEY0_OFF + sizeof(int64_t))
#define STPX_VAL_OFF_S1 (STPX_KEY0_OFF + ALIGN(MAXSTRINGLEN, 8))

static __always_inline struct _stpx_map_node *_stpx_map_find_l1(const struct _stpx_map *m, int64_t k,
								 u32 hash)
{
	struct _stpx_map_node *n;

	/* (The key decides; its hash, a function of it, need not be compared.) */
	hlist_for_each_entry(n, _stpx_map_bucket(m, hash), hnode)
		if (*(int64_t *)((char *)n + STPX_KEY0_OFF) == k)
			return n;
	return NULL;
}

/*
 * Stored string keys are zero-padded, so the first 16 bytes compare as two
 * words with the key's w0, w1 (MAXSTRINGLEN <= 8: one); only longer keys
 * compare their hashes and then further.
 */
static __always_inline bool _stpx_key_eq_s1(const struct _stpx_map_node *n, const char *slot, const char *k,
					     u32 len, u32 hash, u64 w0, u64 w1)
{
	if (*(const u64 *)slot != w0)
		return false;
	if (MAXSTRINGLEN > 8 && *(const u64 *)(slot + 8) != w1)
		return false;
	if (likely(len < 16))	/* the two words decide */
		return true;
	return n->hash == hash && _stpx_str_eq(slot + 16, k + 16, len - 16);
}

static __always_inline struct _stpx_map_node *_stpx_map_find_s1(const struct _stpx_map *m, const char *k,
								 u32 hash, u32 len, u64 w0, u64 w1)
{
	struct _stpx_map_node *n;

	hlist_for_each_entry(n, _stpx_map_bucket(m, hash), hnode)
		if (_stpx_key_eq_s1(n, (char *)n + STPX_KEY0_OFF, k, len, hash, w0, w1))
			return n;
	return NULL;
}

/* Out of line, so that the inlined lookups keep no key array on the stack. */
static noinline void *_stpx_map_insert_l1(struct _stpx_map *m, int64_t k)
{
	/* (Hashed again here: the inlined lookup then keeps no copy of it.) */
	u32 hash = _stpx_hash_l(k, 0);
	struct _stpx_map_node *n = _stpx_map_new_node(m, hash);

	if (!n)
		return NULL;
	*(int64_t *)((char *)n + STPX_KEY0_OFF) = k;
	return _stpx_map_link(m, n, hash);
}

static noinline void *_stpx_map_insert_s1(struct _stpx_map *m, const char *k, u32 hash)
{
	union _stpx_key key = { .s = k };

	return _stpx_map_insert(m, &key, hash);
}

/* A found node's value slot: never NULL (which the compiler, told so,
 * need not test again where callers check for a full map). */
static __always_inline void *_stpx_node_val(struct _stpx_map_node *n, size_t off)
{
	void *v = (char *)n + off;

	if (!v)
		__builtin_unreachable();
	return v;
}

static __always_inline void *_stpx_map_ref_l1(struct _stpx_map *m, int64_t k)
{
	u32 hash = _stpx_hash_l(k, 0);
	struct _stpx_map_node *n = _stpx_map_find_l1(m, k, hash);

	if (likely(n))
		return _stpx_node_val(n, STPX_VAL_OFF_L1);
	return _stpx_map_insert_l1(m, k);
}

static __always_inline void *_stpx_map_ref_s1(struct _stpx_map *m, const char *k)
{
	u64 w0, w1;
	u32 len, hash = _stpx_hash_s(k, 0, &len, &w0, &w1);
	struct _stpx_map_node *n = _stpx_map_find_s1(m, k, hash, len, w0, w1);

	if (likely(n))
		return _stpx_node_val(n, STPX_VAL_OFF_S1);
	return _stpx_map_insert_s1(m, k, hash);
}

static __always_inline void *_stpx_map_get_l1(const struct _stpx_map *m, int64_t k)
{
	struct _stpx_map_node *n = _stpx_map_find_l1(m, k, _stpx_hash_l(k, 0));

	return n ? (char *)n + STPX_VAL_OFF_L1 : NULL;
}

static __always_inline void *_stpx_map_get_s1(const struct _stpx_map *m, const char *k)
{
	u64 w0, w1;
	u32 len, hash = _stpx_hash_s(k, 0, &len, &w0, &w1);
	struct _stpx_map_node *n = _stpx_map_find_s1(m, k, hash, len, w0, w1);

	return n ? (char *)n + STPX_VAL_OFF_S1 : NULL;
}

/*
 * m[execname()] (one string key): the current task's comm as two words,
 * without copying it as a string and looking for its end byte by byte.
 * The kernel keeps comm NUL-terminated within its 16 bytes, but the bytes
 * after the NUL need not be zero (a rename racing with this read, kernels
 * that do not pad): they are masked off, so that the words are those of
 * the string. tmp (MAXSTRINGLEN bytes) receives the string when the key is
 * new, or when the fast path does not apply.
 */
#ifdef __KERNEL__	/* (not in the unit tests' user-space build) */
#if defined(CONFIG_DCACHE_WORD_ACCESS) && defined(__LITTLE_ENDIAN) && MAXSTRINGLEN >= 16
#define STPX_COMM_WORDS 1

/* The comm's words and their hash, as _stpx_hash_s gives them. */
static __always_inline u32 _stpx_comm_key(u64 *w0p, u64 *w1p)
{
	const struct word_at_a_time constants = WORD_AT_A_TIME_CONSTANTS;
	const u64 *comm = (const u64 *)current->comm;
	u64 w0 = READ_ONCE(comm[0]), w1 = READ_ONCE(comm[1]) & (~0ull >> 8);
	unsigned long data;

	BUILD_BUG_ON(sizeof(current->comm) != 16);
	if (has_zero(w0, &data, &constants)) {
		w0 &= zero_bytemask(create_zero_mask(prep_zero_mask(w0, data, &constants)));
		w1 = 0;
	} else {
		has_zero(w1, &data, &constants);	/* true: byte 15 is 0 */
		w1 &= zero_bytemask(create_zero_mask(prep_zero_mask(w1, data, &constants)));
	}
	*w0p = w0;
	*w1p = w1;
	return (u32)(_stpx_hash_w2(0, w0, w1) >> 32);
}

/* The node of the comm's key, or NULL; *hash its hash, tmp unused. */
static __always_inline struct _stpx_map_node *_stpx_map_find_comm(const struct _stpx_map *m, const char *tmp,
								   u32 *hash, u64 *w0, u64 *w1)
{
	*hash = _stpx_comm_key(w0, w1);
	return _stpx_map_find_s1(m, tmp, *hash, 0, *w0, *w1);	/* len < 16: words only */
}

/* The comm as a string in tmp, from its words. */
static __always_inline const char *_stpx_comm_str(char *tmp, u64 w0, u64 w1)
{
	memcpy(tmp, &w0, 8);
	memcpy(tmp + 8, &w1, 8);
	return tmp;
}
#endif

static __always_inline void *_stpx_map_ref_comm(struct _stpx_map *m, char *tmp)
{
#ifdef STPX_COMM_WORDS
	u64 w0, w1;
	u32 hash;
	struct _stpx_map_node *n = _stpx_map_find_comm(m, tmp, &hash, &w0, &w1);

	if (likely(n))
		return _stpx_node_val(n, STPX_VAL_OFF_S1);
	return _stpx_map_insert_s1(m, _stpx_comm_str(tmp, w0, w1), hash);
#else
	_stpx_copy_comm(tmp, current);
	return _stpx_map_ref_s1(m, tmp);
#endif
}

/* m[execname()] read, and execname() in m: the value slot, or NULL. */
static __always_inline void *_stpx_map_get_comm(const struct _stpx_map *m, char *tmp)
{
#ifdef STPX_COMM_WORDS
	u64 w0, w1;
	u32 hash;
	struct _stpx_map_node *n = _stpx_map_find_comm(m, tmp, &hash, &w0, &w1);

	return n ? _stpx_node_val(n, STPX_VAL_OFF_S1) : NULL;
#else
	_stpx_copy_comm(tmp, current);
	return _stpx_map_get_s1(m, tmp);
#endif
}
#endif

static void _stpx_map_unlink(struct _stpx_map *m, struct _stpx_map_node *n)
{
	hlist_del(&n->hnode);
	_stpx_list_move_tail(&n->lnode, &m->free);
	m->count--;
}

static void _stpx_map_delete(struct _stpx_map *m, const union _stpx_key *keys)
{
	struct _stpx_map_node *n = _stpx_map_lookup(m, keys, _stpx_map_hash(m, keys));

	if (n)
		_stpx_map_unlink(m, n);
}

static bool _stpx_map_exists_some(const struct _stpx_map *m, const union _stpx_key *keys, u32 some)
{
	struct _stpx_map_node *n;

	list_for_each_entry(n, &m->used, lnode)
		if (_stpx_map_match_some(m, n, keys, some))
			return true;
	return false;
}

static void _stpx_map_delete_some(struct _stpx_map *m, const union _stpx_key *keys, u32 some)
{
	struct _stpx_map_node *n, *next;

	list_for_each_entry_safe(n, next, &m->used, lnode)
		if (_stpx_map_match_some(m, n, keys, some))
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

/*
 * The common orders without the general comparator's decisions: by the
 * one long key of a map (keys are unique, so there are no ties), and by a
 * long value (ties by the keys, as above).
 */
static int _stpx_cmp_key1_l(const void *pa, const void *pb, const void *priv)
{
	int64_t x = *(const int64_t *)((const char *)*(struct _stpx_map_node *const *)pa + STPX_KEY0_OFF);
	int64_t y = *(const int64_t *)((const char *)*(struct _stpx_map_node *const *)pb + STPX_KEY0_OFF);

	return x == y ? 0 : x < y ? -1 : 1;
}

static int _stpx_cmp_key1_l_desc(const void *pa, const void *pb, const void *priv)
{
	return _stpx_cmp_key1_l(pb, pa, priv);
}

static int _stpx_cmp_val_l(const void *pa, const void *pb, const void *priv)
{
	const struct _stpx_sort_spec *spec = priv;
	struct _stpx_map_node *a = *(struct _stpx_map_node *const *)pa;
	struct _stpx_map_node *b = *(struct _stpx_map_node *const *)pb;
	int64_t x = *(const int64_t *)_stpx_map_value(spec->map, a);
	int64_t y = *(const int64_t *)_stpx_map_value(spec->map, b);

	if (x != y)
		return (x < y) != !!spec->desc ? -1 : 1;
	return _stpx_cmp_nodes(pa, pb, priv);
}

/* column: 1..nkeys sorts by that key, 0 by the value (statistics: by agg). */
static void _stpx_map_sort(const struct _stpx_map *m, struct _stpx_map_node **buf, size_t n,
			   int column, int desc, int agg)
{
	struct _stpx_sort_spec spec = { m, column, desc, agg };
	cmp_r_func_t cmp = _stpx_cmp_nodes;

	if (column == 1 && m->nkeys == 1 && m->key_types[0] == STPX_T_LONG)
		cmp = desc ? _stpx_cmp_key1_l_desc : _stpx_cmp_key1_l;
	else if (column == 0 && m->val_type == STPX_T_LONG)
		cmp = _stpx_cmp_val_l;
	sort_r(buf, n, sizeof(*buf), cmp, NULL, &spec);
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
		struct _stpx_map_node **b = __vmalloc(array_size(m->max_entries, sizeof(*b)),
						      GFP_KERNEL | __GFP_NOWARN);

		if (!b)
			return -ENOMEM;
		*per_cpu_ptr(bufs, cpu) = b;
	}
	return 0;
}

/* What _stpx_foreach_bufs_alloc() will allocate for a map of max_entries. */
static u64 _stpx_foreach_bufs_bytes(u32 max_entries)
{
	return (u64)num_possible_cpus() * max_entries * sizeof(struct _stpx_map_node *);
}

static void _stpx_foreach_bufs_free(struct _stpx_map_node **__percpu *bufs)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		vfree(*per_cpu_ptr(bufs, cpu));
		*per_cpu_ptr(bufs, cpu) = NULL;
	}
}
