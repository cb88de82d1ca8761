// serve_http() over cpp-httplib; without it (KBX_HAVE_HTTPLIB unset) a stub that says so.
#include "kbx/serve/http_server.h"

#include <chrono>
#include <thread>

#include "kbx/common/error.h"
#include "kbx/serve/auth.h"

#ifdef KBX_HAVE_HTTPLIB
// A header-only build (.device/httplib) takes the backlog from here; Debian's library has 5
// compiled in, which widen_backlog() raises after the bind.
#define CPPHTTPLIB_LISTEN_BACKLOG 1024
#include <arpa/inet.h>
#include <httplib.h>
#include <sys/socket.h>

#include <filesystem>

namespace kbx::serve {
namespace {

/// cpp-httplib listens with a backlog of 5, so a burst of clients (50 connecting at once) can
/// overflow the accept queue. Linux lets listen() be called again on a listening socket to change
/// it: find ours among this process's descriptors (the listening TCP socket on `port`).
void widen_backlog(int port) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    int listening = 0;
    socklen_t len = sizeof(listening);
    sockaddr_storage addr{};
    socklen_t addr_len = sizeof(addr);
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening == 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addr_len) != 0) {
      continue;
    }
    int bound = addr.ss_family == AF_INET
                    ? ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port)
                    : addr.ss_family == AF_INET6
                          ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                          : -1;
    if (bound == port) {
      ::listen(fd, 1024);
    }
  }
}

void send(httplib::Response& res, const Answer& a) {
  res.status = a.status;
  if (a.retry_after_s) {
    res.set_header("Retry-After", std::to_string(*a.retry_after_s));
  }
  // A candidate's output (log_tail, details) may hold any bytes: invalid UTF-8 becomes U+FFFD.
  res.set_content(a.body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

RequestInfo info_of(const httplib::Request& req) {
  return RequestInfo{req.remote_addr, req.method, req.path};
}

void add_routes(httplib::Server& svr, EvaluationService& service) {
  svr.Post("/v1/evaluate", [&service](const httplib::Request& req, httplib::Response& res) {
    send(res, service.evaluate(req.body, info_of(req)));
  });
  svr.Get("/v1/tasks", [&service](const httplib::Request& req, httplib::Response& res) {
    service.record(info_of(req), 200, "");
    send(res, service.tasks());
  });
  svr.Get(R"(/v1/tasks/(.+))", [&service](const httplib::Request& req, httplib::Response& res) {
    Answer a = service.task(req.matches[1]);
    service.record(info_of(req), a.status, a.body.value("error", ""));
    send(res, a);
  });
  svr.Get("/v1/health", [&service](const httplib::Request& req, httplib::Response& res) {
    service.record(info_of(req), 200, "");
    send(res, service.health());
  });
}

}  // namespace

bool http_available() { return true; }

void serve_http(EvaluationService& service, const HttpOptions& options,
                const std::atomic<bool>& stop, const std::function<void(int)>& on_listening) {
  httplib::Server svr;
  const int threads = std::max(4, options.threads);
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr.set_payload_max_length(16U << 20);  // the service refuses above its own, smaller limit
  svr.set_read_timeout(60, 0);   // a loaded machine may take seconds to schedule a reader
  svr.set_write_timeout(60, 0);
  svr.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    if (bearer_matches(req.get_header_value("Authorization"), options.token)) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    std::string why = "this kbx serve needs the header 'Authorization: Bearer <token>' (the "
                      "token is in the environment variable named by --token-env)";
    service.record(info_of(req), 401, why);
    res.set_header("WWW-Authenticate", "Bearer");
    send(res, Answer{401, Json{{"error", why}}, std::nullopt});
    return httplib::Server::HandlerResponse::Handled;
  });
  svr.set_error_handler([&](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) {
      return;  // an answer of ours
    }
    std::string why = res.status == 404
                          ? "no such endpoint: POST /v1/evaluate, GET /v1/tasks, GET "
                            "/v1/tasks/{key}, GET /v1/health"
                          : "the request could not be handled (HTTP " +
                                std::to_string(res.status) + ")";
    service.record(info_of(req), res.status, why);
    res.set_content(Json{{"error", why}}.dump(), "application/json");
  });
  add_routes(svr, service);
  int port = options.port;
  if (port == 0) {
    port = svr.bind_to_any_port(options.host);
  } else if (!svr.bind_to_port(options.host, port)) {
    port = -1;
  }
  if (port <= 0) {
    throw Error(ErrorKind::usage, "cannot listen on {}:{} (in use, or not an address of this "
                "machine); choose another with --listen HOST:PORT", options.host, options.port);
  }
  widen_backlog(port);
  std::atomic<bool> ended{false};
  std::thread watcher([&] {
    while (!stop.load() && !ended.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    service.shut_down();  // queued evaluations answer 503, so no handler waits on them
    svr.stop();
  });
  on_listening(port);
  svr.listen_after_bind();
  ended.store(true);
  watcher.join();
}

}  // namespace kbx::serve

#else  // KBX_HAVE_HTTPLIB

namespace kbx::serve {

bool http_available() { return false; }

void serve_http(EvaluationService& /*service*/, const HttpOptions& /*options*/,
                const std::atomic<bool>& /*stop*/,
                const std::function<void(int)>& /*on_listening*/) {
  throw Error(ErrorKind::usage, "this kbx was built without cpp-httplib, so it has no `kbx serve`; "
              "install libcpp-httplib-dev (tools/setup.sh does) or carry .device/httplib "
              "(tools/device_bundle.sh) and rebuild");
}

}  // namespace kbx::serve

#endif  // KBX_HAVE_HTTPLIB
