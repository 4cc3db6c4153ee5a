#pragma once
// One conformance suite for every storage Backend (etcd3 and sqlite run the same cases).
//
// A test file registers the suite for its backend with
//   KW_BACKEND_CONFORMANCE("sqlite", make_fixture)
// where make_fixture() returns a BackendUnderTest holding a fresh, empty backend.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "server/storage/backend.hpp"

namespace kw::storage::testing {

struct BackendUnderTest {
  std::shared_ptr<void> resources;  // temp dir, etcd process...; released after the backend
  std::unique_ptr<Backend> backend;
};

using BackendFactory = std::function<BackendUnderTest()>;

// Collects what a watch delivers and lets a test wait for it (bounded).
class WatchRecorder {
 public:
  WatchCallbacks callbacks();
  // Waits until at least n events arrived; returns false on timeout.
  bool wait_events(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  bool wait_error(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  bool wait_progress(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  std::vector<Event> events() const;
  std::optional<Error> error() const;
  std::vector<Revision> progress() const;
  std::size_t event_count() const;

 private:
  mutable std::mutex m_mutex;  // guards everything below
  std::condition_variable m_changed;
  std::vector<Event> m_events;
  std::optional<Error> m_error;
  std::vector<Revision> m_progress;
};

// The cases; each takes a fresh backend.
void check_basic_crud(Backend& backend);
void check_cas_conflicts(Backend& backend);
void check_create_race(Backend& backend);
void check_concurrent_writes_have_no_holes(Backend& backend);
void check_list_at_revision(Backend& backend);
void check_pagination(Backend& backend);
void check_watch_from_revision(Backend& backend);
void check_watch_after_compaction(Backend& backend);
void check_ttl_expiry(Backend& backend);
void check_large_values(Backend& backend);
void check_unicode_and_empty(Backend& backend);
void check_bad_revision(Backend& backend);
void check_guarded_delete(Backend& backend);
void check_watch_cancel_and_progress(Backend& backend);
// conformance_writers.cpp
void check_mixed_concurrent_writes(Backend& backend);

}  // namespace kw::storage::testing

#define KW_BACKEND_CONFORMANCE_CASE(name, factory, check)    \
  TEST_CASE(name ": " #check) {                              \
    auto under_test = factory();                             \
    REQUIRE(under_test.backend != nullptr);                  \
    ::kw::storage::testing::check(*under_test.backend);      \
  }

#define KW_BACKEND_CONFORMANCE(name, factory)                                      \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_basic_crud)                     \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_cas_conflicts)                  \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_create_race)                    \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_concurrent_writes_have_no_holes) \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_list_at_revision)               \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_pagination)                     \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_watch_from_revision)            \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_watch_after_compaction)         \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_ttl_expiry)                     \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_large_values)                   \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_unicode_and_empty)              \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_bad_revision)                   \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_guarded_delete)                 \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_watch_cancel_and_progress)      \
  KW_BACKEND_CONFORMANCE_CASE(name, factory, check_mixed_concurrent_writes)
