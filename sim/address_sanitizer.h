// Whether this build runs under AddressSanitizer: GCC defines __SANITIZE_ADDRESS__, clang
// answers __has_feature(address_sanitizer). The places that must know ask here: the
// queue rings' poisoned guards (models/system/zero_pages.cc, their death test) and the fuzz
// replay driver, which caps the address space only without ASan's shadow.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define NVMESIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NVMESIM_ASAN 1
#endif
#endif

namespace nvmesim::sim {

#ifdef NVMESIM_ASAN
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace nvmesim::sim
