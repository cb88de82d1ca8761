// Who may talk to `kbx serve`: loopback by default; a bearer token for anything else.
#pragma once

#include <string>

namespace kbx::serve {

/// True for addresses only this machine can reach: 127.0.0.0/8, ::1 and "localhost".
bool is_loopback(const std::string& host);

/// True when `authorization` (the header's value) is "Bearer <token>" with exactly `token`.
/// Compares in time independent of where the strings first differ. An empty `token` (none
/// configured) accepts every request.
bool bearer_matches(const std::string& authorization, const std::string& token);

}  // namespace kbx::serve
