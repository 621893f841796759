/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the current task's user memory from probe context: never sleeps,
 * never faults pages in (copy_from_user_nofault), so memory that is not
 * present right now reads as a fault.
 */
#ifndef _STPX_UACCESS_H_
#define _STPX_UACCESS_H_

/*
 * Like _stpx_kread_str (target.h), from user memory of the current task. Reads in
 * chunks that never cross a page boundary, so a string that ends just
 * before an unmapped page is still read whole. Never sleeps: a page not
 * present now is a fault (-EFAULT).
 */
static notrace int _stpx_uread_str(char *dst, unsigned long src, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t chunk = min_t(size_t, n - i, PAGE_SIZE - ((src + i) & (PAGE_SIZE - 1)));
		size_t j;

		if (copy_from_user_nofault(dst + i, (const void __user *)(src + i), chunk)) {
			dst[i] = '\0';
			return -EFAULT;
		}
		for (j = 0; j < chunk; j++)
			if (!dst[i + j])
				return 0;
		i += chunk;
	}
	dst[n] = '\0';
	return 0;
}
NOKPROBE_SYMBOL(_stpx_uread_str);

#define _STPX_UFAULT(c, a, what, loc)                                          \
	do {                                                                   \
		snprintf((c)->error_buf, MAXSTRINGLEN,                         \
			 "user " what " fault at 0x%016lx", (unsigned long)(a)); \
		STPX_ERROR((c)->error_buf, loc);                               \
	} while (0)

#ifdef STPX_SKIP_BADVARS
/* --skip-badvars: a read that faults gives 0 (or the string up to it). */
#define _STPX_UREAD_FAULT(c, a, loc) do { } while (0)
#else
#define _STPX_UREAD_FAULT(c, a, loc) _STPX_UFAULT(c, a, "read", loc)
#endif

/*
 * *(T *)addr in the current task's user memory, or a script error naming
 * `loc` if it cannot be read now (a type from a user-space header).
 */
#define _STPX_UREAD(c, T, addr, loc)                                           \
	({                                                                     \
		unsigned long _stpx_a = (unsigned long)(addr);                 \
		T _stpx_v;                                                     \
		if (unlikely(copy_from_user_nofault(&_stpx_v,                  \
				(const void __user *)_stpx_a, sizeof(T)))) {   \
			memset(&_stpx_v, 0, sizeof(T));                        \
			_STPX_UREAD_FAULT(c, _stpx_a, loc);                    \
		}                                                              \
		_stpx_v;                                                       \
	})

/* *(T *)addr = v in the current task's user memory (guru mode). */
#define _STPX_UWRITE(c, T, addr, v, loc)                                       \
	do {                                                                   \
		unsigned long _stpx_a = (unsigned long)(addr);                 \
		T _stpx_v = (T)(v);                                            \
		if (unlikely(copy_to_user_nofault((void __user *)_stpx_a,      \
						  &_stpx_v, sizeof(T))))       \
			_STPX_UFAULT(c, _stpx_a, "write", loc);                \
	} while (0)

/* As _STPX_KREAD_STRING (target.h), from user memory. */
#define _STPX_UREAD_STRING(c, dst, addr, len, loc)                             \
	({                                                                     \
		unsigned long _stpx_a = (unsigned long)(addr);                 \
		size_t _stpx_n = (len) ? min_t(size_t, (len), MAXSTRINGLEN - 1) \
				       : MAXSTRINGLEN - 1;                     \
		if (unlikely(_stpx_uread_str((dst), _stpx_a, _stpx_n)))       \
			_STPX_UREAD_FAULT(c, _stpx_a, loc);                    \
		(const char *)(dst);                                           \
	})

/* n bytes at src, of the kernel or (user) of the current task: 0 or -EFAULT. */
static __maybe_unused notrace int _stpx_mem_read(void *dst, unsigned long src, size_t n, bool user)
{
	if (user)
		return copy_from_user_nofault(dst, (const void __user *)src, n) ? -EFAULT : 0;
	return copy_from_kernel_nofault(dst, (const void *)src, n) ? -EFAULT : 0;
}
NOKPROBE_SYMBOL(_stpx_mem_read);

/*
 * The NUL-terminated UTF-16 (unit 2) or UTF-32 (unit 4) string at src, in
 * native byte order, as UTF-8 into dst (MAXSTRINGLEN), cut before the
 * first character that does not fit. 0, -EFAULT if memory could not be
 * read, or -EILSEQ for a lone surrogate or a code point past U+10FFFF;
 * dst then holds what was converted before.
 */
static __maybe_unused notrace int _stpx_read_utf(char *dst, unsigned long src, int unit, bool user)
{
	size_t out = 0;
	int rc = 0;

	for (;;) {
		u32 cp;

		if (unit == 2) {
			u16 hi, lo;

			if (_stpx_mem_read(&hi, src, 2, user))
				goto fault;
			src += 2;
			cp = hi;
			if (hi >= 0xdc00 && hi <= 0xdfff)
				goto bad;
			if (hi >= 0xd800 && hi <= 0xdbff) {
				if (_stpx_mem_read(&lo, src, 2, user))
					goto fault;
				if (lo < 0xdc00 || lo > 0xdfff)
					goto bad;
				src += 2;
				cp = 0x10000 + ((u32)(hi - 0xd800) << 10) + (lo - 0xdc00);
			}
		} else {
			if (_stpx_mem_read(&cp, src, 4, user))
				goto fault;
			src += 4;
			if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
				goto bad;
		}
		if (!cp)
			break;
		if (cp < 0x80) {
			if (out + 1 > MAXSTRINGLEN - 1)
				break;
			dst[out++] = cp;
		} else if (cp < 0x800) {
			if (out + 2 > MAXSTRINGLEN - 1)
				break;
			dst[out++] = 0xc0 | (cp >> 6);
			dst[out++] = 0x80 | (cp & 0x3f);
		} else if (cp < 0x10000) {
			if (out + 3 > MAXSTRINGLEN - 1)
				break;
			dst[out++] = 0xe0 | (cp >> 12);
			dst[out++] = 0x80 | ((cp >> 6) & 0x3f);
			dst[out++] = 0x80 | (cp & 0x3f);
		} else {
			if (out + 4 > MAXSTRINGLEN - 1)
				break;
			dst[out++] = 0xf0 | (cp >> 18);
			dst[out++] = 0x80 | ((cp >> 12) & 0x3f);
			dst[out++] = 0x80 | ((cp >> 6) & 0x3f);
			dst[out++] = 0x80 | (cp & 0x3f);
		}
	}
	goto out;
fault:
	rc = -EFAULT;
	goto out;
bad:
	rc = -EILSEQ;
out:
	dst[out] = '\0';
	return rc;
}
NOKPROBE_SYMBOL(_stpx_read_utf);

/*
 * Up to inlen bytes of the string at src (kernel or user) into dst
 * (MAXSTRINGLEN), for the _quoted functions: 0 with *more set when the
 * string goes on past what was read, or -EFAULT.
 */
static __maybe_unused notrace int _stpx_read_str_more(char *dst, unsigned long src, long inlen,
						       bool user, bool *more)
{
	size_t n = inlen < 0 ? 0 : min_t(size_t, inlen, MAXSTRINGLEN - 2);
	int rc;

	/* One byte past inlen tells whether the string ends there. */
	if (user)
		rc = _stpx_uread_str(dst, src, n + 1);
	else
		rc = _stpx_kread_str(dst, src, n + 1);
	if (rc)
		return rc;
	*more = strlen(dst) > n;
	dst[n] = '\0';
	return 0;
}
NOKPROBE_SYMBOL(_stpx_read_str_more);

/*
 * The UTF-16 or UTF-32 (unit 2 or 4) string at addr, in kernel or user
 * memory, as UTF-8 into r; false with the error in c->error_buf (stap's
 * texts) if it cannot be read or converted.
 */
static __maybe_unused bool _stpx_utf_string(struct _stpx_context *c, char *r, unsigned long addr,
					     int unit, bool user)
{
	int rc = _stpx_read_utf(r, addr, unit, user);

	if (rc == -EFAULT)
		snprintf(c->error_buf, MAXSTRINGLEN, "%s string copy fault at 0x%lx [man error::fault]",
			 user ? "user" : "kernel", addr);
	else if (rc)
		snprintf(c->error_buf, MAXSTRINGLEN, "invalid UTF-%d string at 0x%lx",
			 unit * 8, addr);
	return rc == 0;
}

/*
 * kernel_buffer_quoted and user_buffer_quoted: inlen bytes at addr
 * (NULs too), escaped and quoted, at most outlen characters (0: as many
 * as fit), "..." when cut. -EFAULT if the bytes cannot be read.
 */
static __maybe_unused int _stpx_buffer_quoted(struct _stpx_context *c, char *r, unsigned long addr,
					      long inlen, long outlen, bool user)
{
	/* More than MAXSTRINGLEN bytes never fit escaped: they only add "...". */
	size_t n = inlen < 0 ? 0 : min_t(size_t, inlen, MAXSTRINGLEN);
	char *raw = c->error_buf;

	if (n && _stpx_mem_read(raw, addr, n, user))
		return -EFAULT;
	_stpx_text_mem(r, raw, n, outlen, 1, (long)n < inlen);
	return 0;
}

#endif /* _STPX_UACCESS_H_ */
