/* Wrappers around runtime-c/map.c and stat.c built in user space. */
#ifndef STAPX_RUNTIME_SHIM_H
#define STAPX_RUNTIME_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef _STPX_TYPES_H_
union _stpx_key {
  int64_t l;
  const char *s;
};
#endif

struct _stpx_map;
struct shim_stat;
extern int shim_cpu;
extern unsigned int nr_cpu_ids;

struct _stpx_map *shim_map_alloc(unsigned nkeys, const unsigned char *types, unsigned char val, unsigned max);
/* Every byte kernel_shim.h's allocators handed out, and what the
 * runtime's size functions (the load-time check's, runtime-c/module.c)
 * say each object takes. */
extern size_t shim_alloc_bytes;
uint64_t shim_map_bytes(unsigned nkeys, const unsigned char *types, unsigned char val, unsigned max);
void *shim_pmap_alloc(unsigned nkeys, const unsigned char *types, unsigned max);
void shim_pmap_free(void *p);
uint64_t shim_pmap_bytes(unsigned nkeys, const unsigned char *types, unsigned max);
/* Each makes one and frees it: *allocated is what that took. */
uint64_t shim_stat_bytes(size_t *allocated);
uint64_t shim_foreach_bufs_bytes(struct _stpx_map *m, size_t *allocated);
void shim_map_free(struct _stpx_map *m);
void shim_map_wrap(struct _stpx_map *m);
int64_t *shim_map_ref_l(struct _stpx_map *m, const union _stpx_key *k);
char *shim_map_ref_s(struct _stpx_map *m, const union _stpx_key *k);
int64_t shim_map_get_l(struct _stpx_map *m, const union _stpx_key *k);
const char *shim_map_get_s(struct _stpx_map *m, const union _stpx_key *k);
int shim_map_exists(struct _stpx_map *m, const union _stpx_key *k);
void shim_map_delete(struct _stpx_map *m, const union _stpx_key *k);
// '*' keys: only the keys whose bit is set in `some` are compared.
int shim_map_exists_some(struct _stpx_map *m, const union _stpx_key *k, unsigned some);
void shim_map_delete_some(struct _stpx_map *m, const union _stpx_key *k, unsigned some);
void shim_map_clear(struct _stpx_map *m);
unsigned shim_map_count(struct _stpx_map *m);
/* One-key maps through the inlined functions (same hashing as the above). */
int64_t *shim_map_ref_l1(struct _stpx_map *m, int64_t k);
int64_t *shim_map_ref_s1(struct _stpx_map *m, const char *k);
int64_t *shim_map_get_l1(struct _stpx_map *m, int64_t k);
int64_t *shim_map_get_s1(struct _stpx_map *m, const char *k);
/* column < 0: insertion order; else as _stpx_map_sort. Returns the count. */
size_t shim_map_sorted_keys(struct _stpx_map *m, int column, int desc, int agg, int64_t *out, size_t max);

/* kind: 0 none, 1 log, 2 linear. */
struct shim_stat *shim_stat_new(int kind, int64_t lo, int64_t hi, int64_t step, int variance, int shift);
void shim_stat_free(struct shim_stat *s);
void shim_stat_add(struct shim_stat *s, int cpu, int64_t v);
void shim_stat_read(struct shim_stat *s, int64_t *count, int64_t *sum, int64_t *min, int64_t *max);
int64_t shim_stat_bucket(struct shim_stat *s, unsigned i);
unsigned shim_stat_bucket_of(struct shim_stat *s, int64_t v);
int64_t shim_stat_variance(struct shim_stat *s);
size_t shim_stat_print(struct shim_stat *s, char *out, size_t len);
void shim_stat_sprint(struct shim_stat *s, char *out); /* out: MAXSTRINGLEN (128) bytes */

/* runtime-c/regex.c over a DFA's tables (struct _stpx_dfa). */
int64_t shim_regex_match(const unsigned char *classes, const uint16_t *trans, const unsigned char *flags,
			 unsigned nclasses, const char *s);
/* runtime-c/regex.c's Pike VM over a sub-match program (op, arg, x, y per
 * instruction; 32 bytes per set): 1 and the slots (offsets into str, the
 * text of the whole match) if s matches, else 0. */
int shim_regex_submatch(const uint16_t *insts, unsigned ninsts, const unsigned char *sets, unsigned nslots,
			const char *s, int *slots, char *str);

#ifdef __cplusplus
}
#endif

#endif
