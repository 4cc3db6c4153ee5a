// jemalloc's built-in options. jemalloc reads this (weak, overridable) symbol at the first
// allocation, before main(); MALLOC_CONF in the environment still takes precedence.
//
// thp:always asks the kernel for transparent huge pages (madvise MADV_HUGEPAGE) on the memory
// jemalloc maps. A short-lived `kw get` touches a few hundred KiB of fresh heap while it
// starts; as 4 KiB pages that is about a hundred page faults, which on a virtual machine cost
// more than anything else in start-up (about 1 ms of the 7 ms before the first request). As
// one huge page it is one fault. Where the system's THP mode is already "always" this changes
// nothing; where it is "never" jemalloc leaves memory alone.
//
// narenas:1: one arena for every thread (each keeps its own cache of small blocks), so pages a
// request freed serve the next request on any thread instead of waiting in that thread's arena.
// A burst of large refused requests against `kw serve` left about 120 MiB resident with the
// default 8 arenas and stays under 70 MiB with one; the simulated 1,000-node cluster's CPU and
// latencies did not move (1.20 vs 1.22 cores, write p99 20 vs 19 ms).
extern "C" {
const char* malloc_conf = "thp:always,narenas:1";
}
