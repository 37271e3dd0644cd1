//! The `digline` binary: parse, run, exit with the contract code.

/// The static (musl) binary's allocator: see Cargo.toml.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    limit_malloc_arenas();
    tune_mimalloc();
    // The two front ends never import each other: the binary hands the MCP
    // server to the command line, which starts it for `digline mcp`.
    std::process::exit(digline::cli::main(digline::mcp::serve));
}

/// glibc gives every thread that allocates its own arena (up to 8 per
/// core), and the pool's 32 workers each keep freed memory in theirs: a
/// 10,000-case run then peaks a third higher than what it holds. Two
/// arenas keep contention negligible (the workers mostly wait on the
/// network) and the peak close to the live data.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn limit_malloc_arenas() {
    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    /// `M_ARENA_MAX` in glibc's `<malloc.h>`.
    const M_ARENA_MAX: i32 = -8;
    // SAFETY: mallopt only sets an allocator parameter; called before any
    // thread is started.
    unsafe {
        mallopt(M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_malloc_arenas() {}

/// Return freed memory to the system at once and commit arenas only as
/// they are used: a 10,000-case run then peaks near its live data, as
/// with glibc (option numbers from mimalloc v3's `mimalloc.h`).
#[cfg(target_env = "musl")]
fn tune_mimalloc() {
    const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: setting an option is a plain store; no allocation depends on it.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
}

#[cfg(not(target_env = "musl"))]
fn tune_mimalloc() {}
