// Content hashes: SHA-256 for identities that must not collide, FNV-1a for seeds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kbx {

/// Lower-case hex SHA-256 of bytes: sha256_hex("abc") -> "ba7816bf...".
std::string sha256_hex(std::string_view bytes);

/// 64-bit FNV-1a of bytes; stable across platforms and releases (seeds depend on it).
std::uint64_t fnv1a64(std::string_view bytes);

}  // namespace kbx
