//! Handing memory the process has freed back to the system.
//!
//! glibc's allocator keeps what a program frees for its next allocations,
//! and returns to the system only the free memory at the top of its heap.
//! A gate over 100,000 cases frees a great deal on the way — the cases'
//! JSON tree, each shard run's bytes — in the middle of the heap, so the
//! process stays as large as its busiest moment while it compares.
//! [`return_freed`] gives every whole free page back (glibc's
//! `malloc_trim`); elsewhere (the static binary's mimalloc already returns
//! freed memory at once) it does nothing.

/// Return the whole free pages the allocator holds to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn return_freed() {
    extern "C" {
        fn malloc_trim(pad: usize) -> i32;
    }
    // SAFETY: malloc_trim only releases memory the allocator holds free; it
    // touches no live allocation and is safe to call from any thread.
    unsafe {
        malloc_trim(0);
    }
}

/// Return the whole free pages the allocator holds to the system.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn return_freed() {}
