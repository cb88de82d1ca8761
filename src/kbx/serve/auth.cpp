// is_loopback() and bearer_matches().
#include "kbx/serve/auth.h"

#include <arpa/inet.h>

namespace kbx::serve {

bool is_loopback(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") {
    return true;
  }
  in_addr addr{};
  if (inet_pton(AF_INET, host.c_str(), &addr) != 1) {
    return false;
  }
  return (ntohl(addr.s_addr) >> 24) == 127;
}

bool bearer_matches(const std::string& authorization, const std::string& token) {
  if (token.empty()) {
    return true;
  }
  const std::string prefix = "Bearer ";
  if (authorization.size() != prefix.size() + token.size() ||
      authorization.compare(0, prefix.size(), prefix) != 0) {
    return false;
  }
  unsigned char diff = 0;
  for (std::size_t i = 0; i < token.size(); ++i) {
    diff |= static_cast<unsigned char>(authorization[prefix.size() + i] ^ token[i]);
  }
  return diff == 0;
}

}  // namespace kbx::serve
