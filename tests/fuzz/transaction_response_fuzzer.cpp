// libFuzzer target: arbitrary bytes into the transaction answers' decoders
// (transaction_commands.hpp), which must be total: whatever arrives, an answer with a Status, never
// a crash or undefined behaviour.
//
// Input: [mode byte][bytes]. Mode bit 0 clear: the bytes are a stream of frames, cut into reads of
// (mode >> 1) + 1 bytes, decoded by FrameDecoder, every frame's command handed to
// decodeTxnResponse(). Bit 0 set: the bytes are one response body, parsed leniently (required
// fields may be missing) as the answer type (mode >> 1) % 6 picks, which reaches the decoders
// with what the frame decoder would refuse.
//
// Besides "no crash, no sanitizer report", it aborts when one of these breaks:
//   - decodeTxnResponse() answers exactly for the transaction response types;
//   - a failed answer has an error code and a text that starts with the command it answers;
//   - a successful NEW_TXN_RESPONSE carries a transaction id;
//   - a frame's answer is the same after the command is encoded and decoded again.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/transaction_commands.hpp"

namespace {

using namespace reconsume::detail::protocol;
namespace proto = reconsume::proto;
using Type = proto::BaseCommand;

constexpr std::uint32_t kMaxFrameSize = 1 << 20;

void check(bool condition) {
  if (!condition) std::abort();
}

std::string summary(const TxnResponse& response) {
  std::string text = std::to_string(response.type) + "|" + std::to_string(response.requestId) +
                     "|" + std::to_string(response.status.code.value()) + "|" +
                     response.status.message;
  if (response.txn) text += "|" + response.txn->toString();
  return text;
}

void checkAnswer(const TxnResponse& response) {
  if (response.ok()) {
    if (response.type == Type::NEW_TXN_RESPONSE) check(response.txn.has_value());
    return;
  }
  check(static_cast<bool>(response.status.code));
  std::string name = Type::Type_Name(response.type);
  if (name.ends_with("_RESPONSE")) name.resize(name.size() - 9);
  check(response.status.message.starts_with(name));
}

void decodeCommand(const proto::BaseCommand& command) {
  const auto response = decodeTxnResponse(command);
  check(response.has_value() == (command.has_type() && isTxnResponse(command.type())));
  if (!response) return;
  check(response->type == command.type());
  checkAnswer(*response);

  // The same command written out and read back answers the same: nothing the decoder looks at
  // (unknown error values included) is lost on the way.
  FrameDecoder decoder(FrameDecoderOptions{.maxFrameSize = UINT32_MAX});
  decoder.feed(encodeFrame(command));
  auto again = decoder.next();
  check(again.hasFrame());
  const auto second = decodeTxnResponse(again.frame().command);
  check(second.has_value() && summary(*second) == summary(*response));
}

template <typename Body>
void decodeBody(std::string_view bytes) {
  Body body;
  if (!body.ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) return;
  const TxnResponse response = decodeTxnResponse(body);
  checkAnswer(response);
  check(summary(decodeTxnResponse(body)) == summary(response));
}

void decodeOneBody(int which, std::string_view bytes) {
  switch (which % 6) {
    case 0:
      return decodeBody<proto::CommandTcClientConnectResponse>(bytes);
    case 1:
      return decodeBody<proto::CommandNewTxnResponse>(bytes);
    case 2:
      return decodeBody<proto::CommandAddPartitionToTxnResponse>(bytes);
    case 3:
      return decodeBody<proto::CommandAddSubscriptionToTxnResponse>(bytes);
    case 4:
      return decodeBody<proto::CommandEndTxnResponse>(bytes);
    default:
      return decodeBody<proto::CommandAckResponse>(bytes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode & 1) {
    decodeOneBody(mode >> 1, input);
    return 0;
  }
  FrameDecoder decoder(FrameDecoderOptions{.maxFrameSize = kMaxFrameSize});
  const std::size_t step = (mode >> 1) + 1;
  for (std::size_t at = 0; at < input.size() && !decoder.failed(); at += step) {
    decoder.feed(input.substr(at, step));
    for (auto result = decoder.next(); !result.needsMore(); result = decoder.next()) {
      if (result.hasFrame()) {
        decodeCommand(result.frame().command);
      } else if (!result.error().resumable) {
        break;
      }
    }
  }
  return 0;
}
