// CurlTransport: one POST per libcurl easy handle, headers and body collected in memory.
#include "kbx/llm/curl_transport.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

#ifdef KBX_HAVE_CURL
#include <curl/curl.h>

namespace kbx::llm {
namespace {

/// Answers larger than this are cut off (a model's reply is kilobytes).
constexpr std::size_t max_body_bytes = std::size_t{64} << 20;

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  std::size_t n = size * count;
  if (body->size() + n > max_body_bytes) {
    return 0;  // makes curl fail with CURLE_WRITE_ERROR
  }
  body->append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * count);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    auto first = value.find_first_not_of(" \t");
    auto last = value.find_last_not_of(" \t\r\n");
    (*headers)[name] = first == std::string::npos ? "" : value.substr(first, last - first + 1);
  }
  return size * count;
}

int on_progress(void* user, curl_off_t /*dltotal*/, curl_off_t /*dlnow*/, curl_off_t /*ultotal*/,
                curl_off_t /*ulnow*/) {
  const auto* cancel = static_cast<const std::atomic<bool>*>(user);
  return cancel != nullptr && cancel->load() ? 1 : 0;  // non-zero aborts the transfer
}

}  // namespace

bool CurlTransport::available() { return true; }

CurlTransport::CurlTransport(const std::atomic<bool>* cancel) : cancel_(cancel) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

HttpResponse CurlTransport::send(const HttpRequest& request) {
  HttpResponse out;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    out.error = "curl_easy_init failed";
    return out;
  }
  curl_slist* list = nullptr;
  for (const auto& [name, value] : request.headers) {
    list = curl_slist_append(list, (name + ": " + value).c_str());
  }
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(list, curl_slist_free_all);
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_ms));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &out.body);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &out.headers);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, cancel_);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  CURLcode rc = curl_easy_perform(h);
  if (rc != CURLE_OK) {
    out.error = curl_easy_strerror(rc);
    out.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    out.status = 0;
    return out;
  }
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  out.status = static_cast<int>(status);
  return out;
}

}  // namespace kbx::llm

#else  // built without libcurl

namespace kbx::llm {

CurlTransport::CurlTransport(const std::atomic<bool>* cancel) : cancel_(cancel) {}

bool CurlTransport::available() { return false; }

HttpResponse CurlTransport::send(const HttpRequest& /*request*/) {
  HttpResponse out;
  out.error = "this kbx was built without libcurl (install libcurl4-openssl-dev and rebuild)";
  return out;
}

}  // namespace kbx::llm

#endif
