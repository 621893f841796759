/* The program tapset_user_string2.stp probes: f() gets a C string, a
 * string with characters to escape, UTF-16 and UTF-32 strings (valid and
 * not) and a pointer to nothing. */
#include <stdint.h>

static const uint16_t u16[] = { 'h', 0xe9, 0xd83d, 0xde00, 0 };	/* "hé😀" */
static const uint16_t bad16[] = { 'a', 0xdc00, 0 };		/* lone low surrogate */
static const uint32_t u32[] = { 'A', 0x20ac, 0x1f600, 0 };	/* "A€😀" */
static const uint32_t bad32[] = { 0x110000, 0 };		/* past U+10FFFF */

__attribute__((noinline)) int f(const char *s, const char *esc, const uint16_t *a16,
				const uint16_t *b16, const uint32_t *a32, const uint32_t *b32,
				const char *bad)
{
	__asm__ volatile("" ::: "memory");
	return s[0] + esc[0] + a16[0] + b16[0] + a32[0] + b32[0] + (bad != 0);
}

int main(void)
{
	return f("hello, world", "tab\there\n", u16, bad16, u32, bad32, (const char *)16) == 0;
}
