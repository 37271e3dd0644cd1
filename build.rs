//! Link options for the static binary the image ships
//! (`x86_64-unknown-linux-musl`, release profile): nothing else changes.
//!
//! - `-z pack-relative-relocs`: the static-pie binary's relative
//!   relocations packed as `.relr.dyn` (musl's start-up code applies them)
//!   instead of 24 bytes each in `.rela.dyn`: ≈0.6 MB less, still
//!   position-independent (ASLR).
//! - `link/static-musl.ld`: no unwind tables (≈1.3 MB) — the release
//!   profile aborts on panic (`panic = "abort"`) and the hook exits 70
//!   without a backtrace. A release-profile *test* build for musl
//!   (`cargo test --release --target x86_64-unknown-linux-musl`) unwinds
//!   and would abort instead of unwinding through the binary's own frames;
//!   the test harness's own binaries are not affected (`-bins` only).
//!
//! Measured in docs/performance.md, "Binary size and dependencies".

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link/static-musl.ld");
    let var = |name: &str| env::var(name).unwrap_or_default();
    let shipped = var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "musl"
        && var("PROFILE") == "release";
    if !shipped {
        return;
    }
    let script = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join("link/static-musl.ld");
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    // `-T` and the path as two arguments: a path with a comma stays whole.
    println!("cargo:rustc-link-arg-bins=-T");
    println!("cargo:rustc-link-arg-bins={}", script.display());
}
