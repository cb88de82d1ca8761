// Frame encoding/decoding and blocking socket I/O for the worker protocol.
#include "kbx/sandbox/protocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kbx/common/strings.h"

namespace kbx::sandbox {
namespace {

constexpr std::size_t prefix_bytes = 12;

std::atomic<const std::atomic<bool>*> cancel_flag{nullptr};

void put_le(std::vector<std::uint8_t>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
}

std::uint64_t get_le(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v |= std::uint64_t{p[i]} << (8 * i);
  }
  return v;
}

/// A value of an untrusted reply for a message: its JSON text, cut to 200 bytes.
std::string excerpt(const Json& j) { return printable(j.dump(), 200); }

bool send_all(int fd, const std::uint8_t* data, std::size_t size, int pass_fd) {
  std::size_t sent = 0;
  while (sent < size) {
    ssize_t n = 0;
    if (pass_fd >= 0 && sent == 0) {
      msghdr msg{};
      iovec iov{const_cast<std::uint8_t*>(data), size};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
      msg.msg_control = control;
      msg.msg_controllen = sizeof(control);
      cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
      cmsg->cmsg_level = SOL_SOCKET;
      cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN(sizeof(int));
      std::memcpy(CMSG_DATA(cmsg), &pass_fd, sizeof(int));
      n = sendmsg(fd, &msg, MSG_NOSIGNAL);
    } else {
      n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
    }
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        pollfd p{fd, POLLOUT, 0};
        poll(&p, 1, 1000);
        continue;
      }
      return false;
    }
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void set_cancel_flag(const std::atomic<bool>* flag) { cancel_flag.store(flag); }

std::string encode_frame_head(const Frame& frame, std::uint64_t payload_bytes) {
  std::string header = frame.header.dump();
  std::vector<std::uint8_t> lengths;
  put_le(lengths, header.size(), 4);
  put_le(lengths, payload_bytes, 8);
  return std::string(lengths.begin(), lengths.end()) + header;
}

std::vector<std::uint8_t> encode_frame(const Frame& frame) {
  std::string head = encode_frame_head(frame, frame.payload.size());
  std::vector<std::uint8_t> out;
  out.reserve(head.size() + frame.payload.size());
  out.insert(out.end(), head.begin(), head.end());
  out.insert(out.end(), frame.payload.begin(), frame.payload.end());
  return out;
}

void FrameReader::feed(const std::uint8_t* data, std::size_t size) {
  if (consumed_ > 0 && consumed_ == buffer_.size()) {
    buffer_.clear();
    consumed_ = 0;
  }
  buffer_.insert(buffer_.end(), data, data + size);
  // Once a frame's prefix is in, make room for the whole frame at once: a large frame (a task's
  // outputs, hundreds of MB) then lands in one allocation instead of a chain of doublings, each
  // copied into freshly faulted pages. Only up to reserve_ahead_bytes, since the lengths come
  // from an untrusted worker that may announce 4 GiB and send nothing: past that the buffer grows
  // as the bytes arrive. A length over the limit is left for next() to refuse.
  std::size_t avail = buffer_.size() - consumed_;
  if (avail >= prefix_bytes) {
    const std::uint8_t* p = buffer_.data() + consumed_;
    std::uint64_t frame_bytes = prefix_bytes + get_le(p, 4) + get_le(p + 4, 8);
    std::uint64_t wanted = consumed_ + std::min(frame_bytes, reserve_ahead_bytes);
    if (frame_bytes <= max_frame_bytes && wanted > buffer_.capacity()) {
      buffer_.reserve(wanted);
    }
  }
}

std::optional<Result<Frame>> FrameReader::next() {
  std::size_t avail = buffer_.size() - consumed_;
  if (avail < prefix_bytes) {
    return std::nullopt;
  }
  const std::uint8_t* p = buffer_.data() + consumed_;
  std::uint64_t header_len = get_le(p, 4);
  std::uint64_t payload_len = get_le(p + 4, 8);
  if (payload_len > max_frame_bytes || header_len + payload_len > max_frame_bytes) {
    return Result<Frame>(Error(ErrorKind::protocol,
                               "frame of {} header and {} payload bytes exceeds the 4 GiB limit",
                               header_len, payload_len));
  }
  if (avail < prefix_bytes + header_len + payload_len) {
    return std::nullopt;
  }
  Frame frame;
  std::string_view header(reinterpret_cast<const char*>(p + prefix_bytes), header_len);
  auto parsed = parse_untrusted_json(header);
  if (!parsed) {
    return Result<Frame>(
        Error(ErrorKind::protocol, "frame header is not JSON: {}", parsed.error().what()));
  }
  frame.header = std::move(parsed).value();
  if (!frame.header.is_object() || !frame.header.contains("op") ||
      !frame.header["op"].is_string()) {
    return Result<Frame>(Error(ErrorKind::protocol, "frame header is not an object with an 'op'"));
  }
  std::size_t body_offset = prefix_bytes + header_len;
  if (consumed_ == 0 && buffer_.size() == body_offset + payload_len) {
    // The buffer holds exactly this frame: its allocation becomes the payload (the body moved to
    // the front in place) instead of a copy into fresh memory.
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(body_offset));
    frame.payload = std::move(buffer_);
    buffer_ = {};
    return Result<Frame>(std::move(frame));
  }
  const std::uint8_t* body = p + body_offset;
  frame.payload.assign(body, body + payload_len);
  consumed_ += prefix_bytes + header_len + payload_len;
  if (consumed_ > (1U << 20) && consumed_ * 2 > buffer_.size()) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(consumed_));
    consumed_ = 0;
  }
  return Result<Frame>(std::move(frame));
}

bool write_frame(int fd, const Frame& frame, int pass_fd) {
  auto bytes = encode_frame(frame);
  return send_all(fd, bytes.data(), bytes.size(), pass_fd);
}

std::optional<Frame> read_frame(int fd, FrameReader& reader,
                                std::chrono::steady_clock::time_point deadline,
                                ReadFailure& failure, std::string& error, bool cancellable) {
  std::vector<std::uint8_t> chunk(1 << 16);
  while (true) {
    if (auto ready = reader.next()) {
      if (!ready->ok()) {
        failure = ReadFailure::protocol;
        error = ready->error().what();
        return std::nullopt;
      }
      return std::move(*ready).value();
    }
    if (const auto* flag = cancel_flag.load(); cancellable && flag != nullptr && flag->load()) {
      failure = ReadFailure::cancelled;
      return std::nullopt;
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      failure = ReadFailure::timeout;
      return std::nullopt;
    }
    auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd p{fd, POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(std::min<long long>(wait_ms + 1, 1000)));
    if (rc < 0 && errno != EINTR) {
      failure = ReadFailure::closed;
      error = std::strerror(errno);
      return std::nullopt;
    }
    if (rc <= 0) {
      continue;
    }
    ssize_t n = recv(fd, chunk.data(), chunk.size(), 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
      failure = ReadFailure::closed;
      return std::nullopt;
    }
    if (n > 0) {
      reader.feed(chunk.data(), static_cast<std::size_t>(n));
    }
  }
}

Result<TensorBlob> decode_tensor(const Json& desc, const std::vector<std::uint8_t>& payload) {
  try {
    TensorBlob t;
    auto dtype = parse_dtype(desc.at("dtype").get<std::string>());
    if (!dtype) {
      return Error(ErrorKind::protocol, "unknown dtype {}", excerpt(desc.at("dtype")));
    }
    t.dtype = *dtype;
    t.device = desc.value("device", "");
    if (desc.contains("requires_grad")) {
      if (!desc["requires_grad"].is_boolean()) {
        return Error(ErrorKind::protocol, "bad tensor descriptor {}: requires_grad must be true "
                     "or false", excerpt(desc));
      }
      t.requires_grad = desc["requires_grad"].get<bool>();
    }
    // json_integer, not get<T>(): a float or out-of-range number would be cast unchecked.
    auto offset = json_integer<std::uint64_t>(desc.at("offset"));
    auto nbytes = json_integer<std::uint64_t>(desc.at("nbytes"));
    if (!offset || !nbytes || !desc.at("shape").is_array()) {
      return Error(ErrorKind::protocol,
                   "bad tensor descriptor {}: it needs a shape list and integers offset and nbytes",
                   excerpt(desc));
    }
    std::uint64_t expected_nbytes = element_size(t.dtype);
    bool overflow = false;
    for (const auto& entry : desc["shape"]) {
      auto d = json_integer<std::int64_t>(entry);
      if (!d || *d < 0) {
        return Error(ErrorKind::protocol, "{} dimension in {}", d ? "negative" : "non-integer",
                     excerpt(desc));
      }
      t.shape.push_back(*d);
      overflow = overflow || __builtin_mul_overflow(expected_nbytes, static_cast<std::uint64_t>(*d),
                                                    &expected_nbytes);
    }
    // Written so that no sum or product can wrap around: the worker is not trusted.
    if (overflow || *nbytes != expected_nbytes || *offset > payload.size() ||
        *nbytes > payload.size() - *offset) {
      return Error(ErrorKind::protocol, "tensor {} does not fit its payload of {} bytes",
                   excerpt(desc), payload.size());
    }
    t.data.assign(payload.begin() + static_cast<std::ptrdiff_t>(*offset),
                  payload.begin() + static_cast<std::ptrdiff_t>(*offset + *nbytes));
    return t;
  } catch (const Json::exception& e) {
    return Error(ErrorKind::protocol, "bad tensor descriptor {}: {}", excerpt(desc), e.what());
  }
}

Result<std::vector<OutputLeaf>> decode_leaves(const Json& outputs,
                                              const std::vector<std::uint8_t>& payload) {
  if (!outputs.is_array()) {
    return Error(ErrorKind::protocol, "'outputs' is not an array");
  }
  std::vector<OutputLeaf> leaves;
  for (const auto& o : outputs) {
    OutputLeaf leaf;
    if (!o.is_object() || !o.contains("path") || !o.contains("kind") || !o["path"].is_string() ||
        !o["kind"].is_string()) {
      return Error(ErrorKind::protocol, "bad output leaf {}", excerpt(o));
    }
    leaf.path = o["path"].get<std::string>();
    auto kind = parse_leaf_kind(o["kind"].get<std::string>());
    if (!kind) {
      return Error(ErrorKind::protocol, "unknown leaf kind in {}", excerpt(o));
    }
    leaf.kind = *kind;
    if (leaf.kind == LeafKind::tensor) {
      auto t = decode_tensor(o.value("tensor", Json::object()), payload);
      if (!t) {
        return t.error();
      }
      leaf.tensor = std::move(t).value();
    } else if (leaf.kind == LeafKind::scalar) {
      Json dtype = o.value("dtype", Json("float64"));
      if (!dtype.is_string()) {
        return Error(ErrorKind::protocol, "bad scalar dtype in {}", excerpt(o));
      }
      leaf.value = Json{{"dtype", dtype}, {"value", o.value("value", Json())}};
    } else if (leaf.kind != LeafKind::none) {
      leaf.value = o.value("value", Json(""));
    }
    leaves.push_back(std::move(leaf));
  }
  return leaves;
}

Json describe_leaves(const std::vector<OutputLeaf>& leaves, std::uint64_t& offset) {
  Json out = Json::array();
  for (const auto& leaf : leaves) {
    Json o{{"path", leaf.path}, {"kind", std::string(to_string(leaf.kind))}};
    if (leaf.kind == LeafKind::tensor) {
      o["tensor"] = Json{{"dtype", std::string(to_string(leaf.tensor.dtype))},
                         {"shape", leaf.tensor.shape},
                         {"device", leaf.tensor.device},
                         {"offset", offset},
                         {"nbytes", leaf.tensor.data.size()}};
      if (leaf.tensor.requires_grad) {
        o["tensor"]["requires_grad"] = true;
      }
      offset += leaf.tensor.data.size();
    } else if (leaf.kind == LeafKind::scalar) {
      o["dtype"] = leaf.value.value("dtype", "float64");
      o["value"] = leaf.value.value("value", Json());
    } else if (leaf.kind != LeafKind::none) {
      o["value"] = leaf.value;
    }
    out.push_back(std::move(o));
  }
  return out;
}

Json encode_leaves(const std::vector<OutputLeaf>& leaves, std::vector<std::uint8_t>& payload) {
  std::uint64_t offset = payload.size();
  Json out = describe_leaves(leaves, offset);
  for (const auto& leaf : leaves) {
    if (leaf.kind == LeafKind::tensor) {
      payload.insert(payload.end(), leaf.tensor.data.begin(), leaf.tensor.data.end());
    }
  }
  return out;
}

}  // namespace kbx::sandbox
