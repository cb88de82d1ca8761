// Frames on the kbx <-> kbx_worker sockets (docs/worker-protocol.md): length-prefixed JSON + payload.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/common/output_leaf.h"
#include "kbx/common/result.h"

namespace kbx::sandbox {

/// One message: a JSON header (an object with "op") and raw payload bytes.
struct Frame {
  Json header = Json::object();
  std::vector<std::uint8_t> payload;

  [[nodiscard]] std::string op() const { return header.value("op", ""); }
};

/// The protocol version kbx speaks; the worker's hello must name the same (kbx_worker.PROTOCOL_VERSION).
constexpr int protocol_version = 1;

/// Upper bound on a frame (header + payload); larger frames are protocol errors.
constexpr std::uint64_t max_frame_bytes = std::uint64_t{4} << 30;
/// FrameReader reserves a frame's announced length ahead of its bytes up to this much.
constexpr std::uint64_t reserve_ahead_bytes = std::uint64_t{256} << 20;

/// Serialises a frame: u32 header_len LE, u64 payload_len LE, header, payload.
std::vector<std::uint8_t> encode_frame(const Frame& frame);
/// What encode_frame puts before a payload of `payload_bytes` (the two lengths and the header;
/// frame.payload itself is not read): a large payload can then be written after it without being
/// copied into one buffer.
std::string encode_frame_head(const Frame& frame, std::uint64_t payload_bytes);

/// Incremental decoder: feed() bytes as they arrive, next() yields complete frames.
class FrameReader {
 public:
  void feed(const std::uint8_t* data, std::size_t size);
  /// The next complete frame, nullopt if more bytes are needed, or an Error(protocol) for a
  /// malformed frame (after which the stream is unusable).
  std::optional<Result<Frame>> next();
  /// Bytes the reader holds room for (frames in progress): bounded by what arrived and
  /// reserve_ahead_bytes, whatever length a worker announces.
  [[nodiscard]] std::size_t reserved() const { return buffer_.capacity(); }

 private:
  std::vector<std::uint8_t> buffer_;
  std::size_t consumed_ = 0;
};

/// How a blocking read ended when it produced no frame.
enum class ReadFailure { timeout, closed, protocol, cancelled };

/// Blocking reads poll this flag about once a second and give up with ReadFailure::cancelled once
/// it is set (Ctrl-C). Null (the default) disables cancellation.
void set_cancel_flag(const std::atomic<bool>* flag);

/// Writes the whole frame to a socket fd, optionally passing `pass_fd` as SCM_RIGHTS on the first
/// byte. Returns false if the peer is gone (EPIPE, ECONNRESET).
bool write_frame(int fd, const Frame& frame, int pass_fd = -1);

/// Reads from `fd` into `reader` until a frame is complete or `deadline` passes.
/// On failure returns the failure kind; `error` receives the protocol error text.
std::optional<Frame> read_frame(int fd, FrameReader& reader,
                                std::chrono::steady_clock::time_point deadline,
                                ReadFailure& failure, std::string& error, bool cancellable = true);

/// Decodes a tensor descriptor ({dtype, shape, device, offset, nbytes}) against a payload.
Result<TensorBlob> decode_tensor(const Json& desc, const std::vector<std::uint8_t>& payload);

/// Decodes the "outputs" array of a case result into leaves (docs/worker-protocol.md).
Result<std::vector<OutputLeaf>> decode_leaves(const Json& outputs,
                                              const std::vector<std::uint8_t>& payload);

/// Encodes leaves back into a frame's header array + payload (used by the reference cache).
Json encode_leaves(const std::vector<OutputLeaf>& leaves, std::vector<std::uint8_t>& payload);
/// encode_leaves' header array alone, for tensor data laid out from `offset` on in leaf order
/// (advanced past it): the payload can then be written leaf by leaf, without a joined copy.
Json describe_leaves(const std::vector<OutputLeaf>& leaves, std::uint64_t& offset);

}  // namespace kbx::sandbox
