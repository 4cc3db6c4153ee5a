// Codec micro-benchmarks on one typical Pod and its watch frame: JSON, protobuf, YAML,
// framing and incremental frame decoding. Bytes/s count the bytes of the input each
// operation reads (or, for encoders, the bytes it writes).
//
// `codec_bench --write-samples=DIR` writes the sample as DIR/pod.json (compact JSON) and
// DIR/pod.pb (the bare Pod message) for the out-of-process baselines, then exits.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bench/sample_pod.hpp"
#include "core/codec/frame.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/yaml.hpp"

namespace {

using nlohmann::json;
constexpr std::string_view k_pod_message = "k8s.io.api.core.v1.Pod";
constexpr int k_frames_per_stream = 64;     // frames in one decoded stream
constexpr std::size_t k_read_chunk = 4096;  // bytes per feed(), like a socket read

// Every input, built once; a failure here is a broken codec, so start-up throws.
struct Samples {
  std::string pod_json = kw::bench::sample_pod_compact();
  json pod = json::parse(pod_json);
  std::string pod_pb_bare = must(kw::codec::json_to_protobuf(pod, k_pod_message));
  std::string pod_pb = must(kw::codec::encode_object_protobuf(pod, kw::codec::builtin_message_for));
  std::string pod_yaml = kw::codec::json_to_yaml(pod);
  std::string event_json = json{{"type", "MODIFIED"}, {"object", pod}}.dump();
  std::string event_pb = kw::codec::encode_watch_event_protobuf("MODIFIED", pod_pb);
  std::string json_stream = repeat(kw::codec::frame_json(event_json));
  std::string pb_stream = repeat(kw::codec::frame_length_prefixed(event_pb));

  template <class T>
  static T must(kw::Result<T> result) {
    if (!result) throw std::runtime_error("codec_bench: sample does not encode: " + result.error().message);
    return std::move(*result);
  }
  static std::string repeat(const std::string& frame) {
    std::string out;
    for (int i = 0; i < k_frames_per_stream; ++i) out += frame;
    return out;
  }
};

const Samples& samples() {
  static const Samples s;
  return s;
}

void count(benchmark::State& state, std::size_t bytes_per_op, std::int64_t items_per_op = 1) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes_per_op));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * items_per_op);
}

void json_parse(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state) benchmark::DoNotOptimize(json::parse(s.pod_json));
  count(state, s.pod_json.size());
}

void json_dump(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state) benchmark::DoNotOptimize(s.pod.dump());
  count(state, s.pod_json.size());
}

void protobuf_encode_bare(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state) benchmark::DoNotOptimize(kw::codec::json_to_protobuf(s.pod, k_pod_message));
  count(state, s.pod_pb_bare.size());
}

void protobuf_encode_object(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state)
    benchmark::DoNotOptimize(kw::codec::encode_object_protobuf(s.pod, kw::codec::builtin_message_for));
  count(state, s.pod_pb.size());
}

void protobuf_decode_object(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state)
    benchmark::DoNotOptimize(kw::codec::decode_object_protobuf(s.pod_pb, kw::codec::builtin_message_for));
  count(state, s.pod_pb.size());
}

void yaml_encode(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state) benchmark::DoNotOptimize(kw::codec::json_to_yaml(s.pod));
  count(state, s.pod_yaml.size());
}

void yaml_decode(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state) benchmark::DoNotOptimize(kw::codec::yaml_to_json(s.pod_yaml));
  count(state, s.pod_yaml.size());
}

void frame_encode_json(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state) benchmark::DoNotOptimize(kw::codec::frame_json(s.event_json));
  count(state, s.event_json.size() + 1);
}

void frame_encode_length_prefixed(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state) benchmark::DoNotOptimize(kw::codec::frame_length_prefixed(s.event_pb));
  count(state, s.event_pb.size() + 4);
}

// Feeds a stream of k_frames_per_stream frames in socket-sized chunks and drains every frame.
void decode_stream(benchmark::State& state, const std::string& stream,
                   std::unique_ptr<kw::codec::FrameDecoder> (*make)(std::size_t)) {
  for (auto _ : state) {
    auto decoder = make(kw::codec::k_default_max_frame);
    int frames = 0;
    for (std::size_t at = 0; at < stream.size(); at += k_read_chunk) {
      if (!decoder->feed(std::string_view(stream).substr(at, k_read_chunk))) state.SkipWithError("feed failed");
      while (auto frame = decoder->next()) ++frames;
    }
    if (!decoder->finish() || frames != k_frames_per_stream) state.SkipWithError("stream did not decode whole");
  }
  count(state, stream.size(), k_frames_per_stream);
}

void frame_decode_json(benchmark::State& state) {
  decode_stream(state, samples().json_stream, kw::codec::make_json_frame_decoder);
}

void frame_decode_length_prefixed(benchmark::State& state) {
  decode_stream(state, samples().pb_stream, kw::codec::make_length_prefixed_frame_decoder);
}

// The full watch-event path of a protobuf client: frame, WatchEvent, envelope, Pod -> JSON.
void protobuf_decode_watch_event(benchmark::State& state) {
  const auto& s = samples();
  for (auto _ : state) {
    auto event = kw::codec::decode_watch_event_protobuf(s.event_pb);
    if (!event) state.SkipWithError("event did not decode");
    else benchmark::DoNotOptimize(kw::codec::decode_object_protobuf(event->object, kw::codec::builtin_message_for));
  }
  count(state, s.event_pb.size());
}

BENCHMARK(json_parse);
BENCHMARK(json_dump);
BENCHMARK(protobuf_encode_bare);
BENCHMARK(protobuf_encode_object);
BENCHMARK(protobuf_decode_object);
BENCHMARK(protobuf_decode_watch_event);
BENCHMARK(yaml_encode);
BENCHMARK(yaml_decode);
BENCHMARK(frame_encode_json);
BENCHMARK(frame_encode_length_prefixed);
BENCHMARK(frame_decode_json);
BENCHMARK(frame_decode_length_prefixed);

bool write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

int write_samples(const std::string& dir) {
  const auto& s = samples();
  if (!write_file(dir + "/pod.json", s.pod_json) || !write_file(dir + "/pod.pb", s.pod_pb_bare)) {
    std::cerr << "codec_bench: cannot write the samples into " << dir << "\n";
    return 1;
  }
  std::cout << "pod.json " << s.pod_json.size() << " bytes, pod.pb " << s.pod_pb_bare.size() << " bytes, yaml "
            << s.pod_yaml.size() << " bytes, watch frame json " << s.event_json.size() + 1 << " / protobuf "
            << s.event_pb.size() + 4 << " bytes\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  constexpr std::string_view k_samples_flag = "--write-samples=";
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with(k_samples_flag)) return write_samples(std::string(arg.substr(k_samples_flag.size())));
  }
  try {
    samples();
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
