/*
 * Just enough of the kernel's API, in user space, to compile the runtime's
 * data structures (runtime-c/map.c and stat.c) for unit tests. Per-CPU
 * data is an array of nr_cpu_ids copies; smp_processor_id() is whatever
 * CPU the test says it runs on (shim_cpu).
 */
#ifndef STAPX_KERNEL_SHIM_H
#define STAPX_KERNEL_SHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define GFP_KERNEL 0
#define __GFP_ZERO 1
#define __GFP_NOWARN 2
#define __percpu
#define notrace
#define __maybe_unused __attribute__((unused))
#ifndef noinline
#define noinline __attribute__((noinline))
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define NOKPROBE_SYMBOL(fn)
#define likely(x) (x)
#define unlikely(x) (x)
#define BUILD_BUG_ON(cond) ((void)sizeof(char[1 - 2 * !!(cond)]))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define ALIGN(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))

/* Every byte the allocators below hand out (runtime_shim.c), so that a
 * test can hold the runtime's size functions to what it allocates. */
extern size_t shim_alloc_bytes;
static inline void *kzalloc(size_t n, int f) { (void)f; shim_alloc_bytes += n; return calloc(1, n); }
static inline void *kcalloc(size_t k, size_t n, int f) { (void)f; shim_alloc_bytes += k * n; return calloc(k, n); }
static inline void kfree(const void *p) { free((void *)p); }
static inline void *vzalloc(size_t n) { shim_alloc_bytes += n; return calloc(1, n); }
static inline void *vmalloc(size_t n) { shim_alloc_bytes += n; return malloc(n); }
static inline void *__vmalloc(size_t n, int gfp)
{
	shim_alloc_bytes += n;
	return gfp & __GFP_ZERO ? calloc(1, n) : malloc(n);
}
static inline void vfree(const void *p) { free((void *)p); }
static inline size_t array_size(size_t a, size_t b) { return a * b; }
static inline u32 roundup_pow_of_two(u32 n) { u32 p = 1; while (p < n) p <<= 1; return p; }
static inline int ilog2(u64 v) { return 63 - __builtin_clzll(v); }
static inline int64_t div64_s64(int64_t a, int64_t b) { return a / b; }
static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline ssize_t strscpy(char *d, const char *s, size_t n)
{
	size_t len = strnlen(s, n);

	if (len == n) {
		memcpy(d, s, n - 1);
		d[n - 1] = '\0';
		return -E2BIG;
	}
	memcpy(d, s, len + 1);
	return len;
}

/* Hashing: any good function will do for the tests. */
static inline u32 jhash(const void *k, u32 len, u32 h)
{
	const unsigned char *p = (const unsigned char *)k;

	h ^= 2166136261u;
	while (len--)
		h = (h ^ *p++) * 16777619u;
	return h;
}
static inline u32 jhash_2words(u32 a, u32 b, u32 h) { u32 w[2] = { a, b }; return jhash(w, sizeof(w), h); }

/* Lists. */
struct list_head { struct list_head *next, *prev; };
struct hlist_node { struct hlist_node *next, **pprev; };
struct hlist_head { struct hlist_node *first; };
static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l->prev = l; }
static inline void __list_del(struct list_head *e) { e->prev->next = e->next; e->next->prev = e->prev; }
static inline void list_add_between(struct list_head *n, struct list_head *p, struct list_head *x)
{
	x->prev = n; n->next = x; n->prev = p; p->next = n;
}
static inline void list_add_tail(struct list_head *n, struct list_head *h) { list_add_between(n, h->prev, h); }
static inline void list_add(struct list_head *n, struct list_head *h) { list_add_between(n, h, h->next); }
static inline void list_move_tail(struct list_head *e, struct list_head *h) { __list_del(e); list_add_tail(e, h); }
static inline void list_move(struct list_head *e, struct list_head *h) { __list_del(e); list_add(e, h); }
static inline int list_empty(const struct list_head *h) { return h->next == h; }
#define list_entry(p, type, member) container_of(p, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_for_each_entry(pos, head, member)                                          \
	for (pos = list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head); \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)                                   \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),                     \
	    n = list_entry(pos->member.next, __typeof__(*pos), member);                      \
	     &pos->member != (head); pos = n, n = list_entry(n->member.next, __typeof__(*n), member))
static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	n->next = h->first;
	if (h->first)
		h->first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}
static inline void hlist_del(struct hlist_node *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
}
#define hlist_for_each_entry(pos, head, member)                                            \
	for (pos = (head)->first ? container_of((head)->first, __typeof__(*pos), member) : NULL; pos; \
	     pos = pos->member.next ? container_of(pos->member.next, __typeof__(*pos), member) : NULL)

typedef int (*cmp_r_func_t)(const void *, const void *, const void *);
/* sort_r: the kernel's comparison takes (a, b, priv), as glibc's qsort_r. */
static inline void sort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, const void *),
			  void *swap, const void *priv)
{
	(void)swap;
	qsort_r(base, n, size, (int (*)(const void *, const void *, void *))cmp, (void *)priv);
}

/* Per-CPU data: nr_cpu_ids copies, the stride stored before the first. */
extern unsigned int nr_cpu_ids;
extern int shim_cpu;
#define num_possible_cpus() nr_cpu_ids
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (unsigned int)(cpu) < nr_cpu_ids; (cpu)++)
#define smp_processor_id() (shim_cpu)
static inline void *__alloc_percpu(size_t size, size_t align)
{
	size_t *p = (size_t *)calloc(1, sizeof(size_t) * 2 + size * nr_cpu_ids);

	shim_alloc_bytes += size * nr_cpu_ids;

	(void)align;
	p[1] = size;
	return p + 2;
}
static inline void free_percpu(void *p) { if (p) free((size_t *)p - 2); }
#define per_cpu_ptr(p, cpu) ((__typeof__(p))((char *)(p) + (size_t)(cpu) * ((size_t *)(p))[-1]))
#define this_cpu_ptr(p) per_cpu_ptr(p, shim_cpu)
#define this_cpu_read(x) (*this_cpu_ptr(&(x)))

/* What stat.c's histogram printer needs of the probe context. */
#define STPX_STAT_WORDS 6
struct _stpx_context {
	size_t print_len;
	char print_buf[65536];
};
static inline void _stpx_printf(struct _stpx_context *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	c->print_len += vsnprintf(c->print_buf + c->print_len, sizeof(c->print_buf) - c->print_len, fmt, ap);
	va_end(ap);
}

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 128
#endif
/* print.c's: appends to a MAXSTRINGLEN string, cutting what does not fit. */
static inline void _stpx_sprintf_cat(char *dst, const char *fmt, ...)
{
	size_t len = strnlen(dst, MAXSTRINGLEN - 1);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst + len, MAXSTRINGLEN - len, fmt, ap);
	va_end(ap);
}
#include "stpx_types.h"

#endif
