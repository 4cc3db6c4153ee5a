#include "tests/fuzz/frame_fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return kw::fuzz::check_splits([](std::size_t max) { return kw::codec::make_length_prefixed_frame_decoder(max); }, data, size);
}
