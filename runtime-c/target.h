/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading target variables: the probed context's registers by DWARF
 * number, and kernel memory through the nofault accessors, so that a bad
 * pointer ends the handler with a script error instead of an oops.
 * Generated code for $var->field chains is built from these.
 */
#ifndef _STPX_TARGET_H_
#define _STPX_TARGET_H_

#include "escape.h"

/* x86_64 DWARF register numbers (the psABI's table). */
/*
 * Link-time kernel addresses in target expressions (static variables, @var)
 * plus this give where they are in the running, KASLR-moved kernel; set at
 * module init (module.c).
 */
static unsigned long _stpx_kaslr_delta __maybe_unused;

static __always_inline uint64_t _stpx_dwreg(const struct _stpx_context *c, unsigned int n)
{
	const struct pt_regs *r = c->regs;

	if (unlikely(!r))
		return 0;
	switch (n) {
	case 0: return r->ax;
	case 1: return r->dx;
	case 2: return r->cx;
	case 3: return r->bx;
	case 4: return r->si;
	case 5: return r->di;
	case 6: return r->bp;
	case 7: return r->sp;
	case 8: return r->r8;
	case 9: return r->r9;
	case 10: return r->r10;
	case 11: return r->r11;
	case 12: return r->r12;
	case 13: return r->r13;
	case 14: return r->r14;
	case 15: return r->r15;
	case 16: return r->ip;
	}
	return 0;
}

/* Stores v into DWARF register n of the probed context ($var = v, guru). */
static __always_inline void _stpx_set_dwreg(struct _stpx_context *c, unsigned int n, uint64_t v)
{
	struct pt_regs *r = c->regs;

	if (unlikely(!r))
		return;
	switch (n) {
	case 0: r->ax = v; break;
	case 1: r->dx = v; break;
	case 2: r->cx = v; break;
	case 3: r->bx = v; break;
	case 4: r->si = v; break;
	case 5: r->di = v; break;
	case 6: r->bp = v; break;
	case 8: r->r8 = v; break;
	case 9: r->r9 = v; break;
	case 10: r->r10 = v; break;
	case 11: r->r11 = v; break;
	case 12: r->r12 = v; break;
	case 13: r->r13 = v; break;
	case 14: r->r14 = v; break;
	case 15: r->r15 = v; break;
	}
}

/* Bits [first, first + width) of v, sign-extended if is_signed. */
static __always_inline uint64_t _stpx_bits(uint64_t v, unsigned int first, unsigned int width, int is_signed)
{
	v >>= first;
	if (width >= 64)
		return v;
	v &= (1ULL << width) - 1;
	if (is_signed && (v & (1ULL << (width - 1))))
		v |= ~((1ULL << width) - 1);
	return v;
}

/*
 * Copies the NUL-terminated string at src into dst, at most n bytes before
 * the NUL; dst gets a NUL in any case (dst has room for n + 1 bytes).
 * -EFAULT if a byte cannot be read. (strncpy_from_kernel_nofault is not
 * exported to modules.)
 */
static notrace int _stpx_kread_str(char *dst, unsigned long src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char ch;

		if (copy_from_kernel_nofault(&ch, (const void *)(src + i), 1)) {
			dst[i] = '\0';
			return -EFAULT;
		}
		dst[i] = ch;
		if (!ch)
			return 0;
	}
	dst[n] = '\0';
	return 0;
}
NOKPROBE_SYMBOL(_stpx_kread_str);

/*
 * src escaped as a C string literal's contents into dst, a MAXSTRINGLEN
 * buffer: characters outside ASCII 32..126 as \n, \t, ... or three octal
 * digits, and '"', '\'' and '\\' behind a backslash. An escape is never
 * cut. For the strings of $var$ and $var$$, which stap shows quoted.
 */
static notrace const char *_stpx_escape(char *dst, const char *src)
{
	_stpx_text_strn(dst, src, 0, 0);	/* escape.h */
	return dst;
}
NOKPROBE_SYMBOL(_stpx_escape);

#ifdef STPX_SKIP_BADVARS
/* --skip-badvars: a read that faults gives 0 (or the string up to it). */
#define _STPX_READ_FAULT(c, a, loc) do { } while (0)
#else
#define _STPX_READ_FAULT(c, a, loc)                                            \
	do {                                                                   \
		snprintf((c)->error_buf, MAXSTRINGLEN,                         \
			 "kernel read fault at 0x%016lx", (unsigned long)(a)); \
		STPX_ERROR((c)->error_buf, loc);                               \
	} while (0)
#endif

/* *(T *)addr, or a script error naming `loc` if it cannot be read. */
#define _STPX_KREAD(c, T, addr, loc)                                           \
	({                                                                     \
		unsigned long _stpx_a = (unsigned long)(addr);                 \
		T _stpx_v;                                                     \
		if (unlikely(copy_from_kernel_nofault(&_stpx_v,                \
						      (const void *)_stpx_a,   \
						      sizeof(T)))) {           \
			memset(&_stpx_v, 0, sizeof(T));                        \
			_STPX_READ_FAULT(c, _stpx_a, loc);                     \
		}                                                              \
		_stpx_v;                                                       \
	})

/*
 * Stores size (1, 2, 4, 8) bytes from src at the kernel address dst, or
 * -EFAULT without an oops if it cannot (copy_to_kernel_nofault is not
 * exported to modules; this is what it does).
 */
static notrace int _stpx_kwrite(unsigned long dst, const void *src, size_t size)
{
	if (dst < TASK_SIZE_MAX)
		return -EFAULT;
	pagefault_disable();
	switch (size) {
	case 1: __put_kernel_nofault((u8 *)dst, src, u8, fault); break;
	case 2: __put_kernel_nofault((u16 *)dst, src, u16, fault); break;
	case 4: __put_kernel_nofault((u32 *)dst, src, u32, fault); break;
	case 8: __put_kernel_nofault((u64 *)dst, src, u64, fault); break;
	default: goto fault;
	}
	pagefault_enable();
	return 0;
fault:
	pagefault_enable();
	return -EFAULT;
}
NOKPROBE_SYMBOL(_stpx_kwrite);

/* *(T *)addr = v, or a script error naming `loc` if it cannot be written. */
#define _STPX_KWRITE(c, T, addr, v, loc)                                       \
	do {                                                                   \
		unsigned long _stpx_a = (unsigned long)(addr);                 \
		T _stpx_v = (T)(v);                                            \
		if (unlikely(_stpx_kwrite(_stpx_a, &_stpx_v, sizeof(T)))) {    \
			snprintf((c)->error_buf, MAXSTRINGLEN,                 \
				 "kernel write fault at 0x%016lx",             \
				 _stpx_a);                                     \
			STPX_ERROR((c)->error_buf, loc);                       \
		}                                                              \
	} while (0)

/*
 * The chars of a char[len] array at addr (len 0: unknown) into dst, a
 * MAXSTRINGLEN buffer, stopping at a NUL.
 */
#define _STPX_KREAD_STRING(c, dst, addr, len, loc)                             \
	({                                                                     \
		unsigned long _stpx_a = (unsigned long)(addr);                 \
		size_t _stpx_n = (len) ? min_t(size_t, (len), MAXSTRINGLEN - 1) \
				       : MAXSTRINGLEN - 1;                     \
		if (unlikely(_stpx_kread_str((dst), _stpx_a, _stpx_n)))       \
			_STPX_READ_FAULT(c, _stpx_a, loc);                     \
		(const char *)(dst);                                           \
	})

#endif /* _STPX_TARGET_H_ */
