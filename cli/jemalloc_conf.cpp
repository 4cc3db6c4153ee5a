// jemalloc's built-in options. jemalloc reads this (weak, overridable) symbol at the first
// allocation, before main(); MALLOC_CONF in the environment still takes precedence.
//
// thp:always asks the kernel for transparent huge pages (madvise MADV_HUGEPAGE) on the memory
// jemalloc maps. A short-lived `kw get` touches a few hundred KiB of fresh heap while it
// starts; as 4 KiB pages that is about a hundred page faults, which on a virtual machine cost
// more than anything else in start-up (about 1 ms of the 7 ms before the first request). As
// one huge page it is one fault. Where the system's THP mode is already "always" this changes
// nothing; where it is "never" jemalloc leaves memory alone.
extern "C" {
const char* malloc_conf = "thp:always";
}
