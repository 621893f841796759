// fmt's compiled part (Debian's libfmt-dev headers), built into stapx's own
// binaries instead of linked from libfmt.so: that library pulls in the
// shared libstdc++, whose symbol relocations alone cost each stapx process
// more start-up time than pass 1 spends reading its kernel's .config. With
// this and -static-libstdc++, a stapx binary needs libc and libdw only.
// The same instantiations the shared library exports for the types stapx
// formats (char; wchar_t for the declarations fmt's headers hold extern).
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template auto decimal_point_impl(locale_ref) -> char;
template auto decimal_point_impl(locale_ref) -> wchar_t;
template void buffer<char>::append(const char*, const char*);
template void buffer<wchar_t>::append(const wchar_t*, const wchar_t*);
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
