#pragma once
// Shared body of the frame decoder fuzz targets: the input fed whole and fed in chunks
// (sizes taken from the first byte) must give the same frames and the same outcome.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/codec/frame.hpp"

namespace kw::fuzz {

struct Outcome {
  std::vector<std::string> frames;
  bool ok = true;
};

template <class Make>
Outcome run_decoder(Make make, std::string_view input, std::size_t chunk) {
  constexpr std::size_t k_max_frame = 4096;
  auto decoder = make(k_max_frame);
  Outcome out;
  auto drain = [&] {
    while (auto frame = decoder->next()) {
      if (frame->size() > k_max_frame) std::abort();
      out.frames.push_back(std::move(*frame));
    }
  };
  for (std::size_t i = 0; i < input.size(); i += chunk) {
    auto fed = decoder->feed(input.substr(i, chunk));
    drain();
    if (!fed) {
      if (fed.error().message.empty()) std::abort();
      out.ok = false;
      return out;
    }
  }
  auto done = decoder->finish();
  drain();
  out.ok = done.has_value();
  return out;
}

template <class Make>
int check_splits(Make make, const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::size_t chunk = data[0] % 16 + 1;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  Outcome whole = run_decoder(make, input, input.size() + 1);
  Outcome split = run_decoder(make, input, chunk);
  if (whole.ok != split.ok) std::abort();
  // On error, frames before the failure point may differ by how far each run got; compare
  // the common prefix.
  std::size_t n = std::min(whole.frames.size(), split.frames.size());
  for (std::size_t i = 0; i < n; ++i)
    if (whole.frames[i] != split.frames[i]) std::abort();
  if (whole.ok && whole.frames.size() != split.frames.size()) std::abort();
  return 0;
}

}  // namespace kw::fuzz
