//! Link options for the static binary the image ships
//! (`x86_64-unknown-linux-musl`, release profile): nothing else changes.
//!
//! - `-z pack-relative-relocs`: the static-pie binary's relative
//!   relocations packed as `.relr.dyn` (musl's start-up code applies them)
//!   instead of 24 bytes each in `.rela.dyn`: ≈0.6 MB less, still
//!   position-independent (ASLR).
//!   Not when the linker is zig's (`cargo zigbuild`), which refuses it.
//! - `link/static-musl.ld`: no unwind tables (≈1.3 MB) — the release
//!   profile aborts on panic (`panic = "abort"`) and the hook exits 70
//!   without a backtrace. A build told to unwind instead
//!   (`CARGO_PROFILE_RELEASE_PANIC=unwind`) keeps its tables, as do test
//!   harnesses (not `bins`).
//!
//! Measured in docs/performance.md, "Binary size and dependencies".

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link/static-musl.ld");
    let var = |name: &str| env::var(name).unwrap_or_default();
    for name in [
        "RUSTC_LINKER",
        "CARGO_PROFILE_RELEASE_PANIC",
        "CARGO_ZIGBUILD_TARGET",
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_LINKER",
    ] {
        println!("cargo:rerun-if-env-changed={name}");
    }
    let shipped = var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "musl"
        && var("PROFILE") == "release";
    // Only a build that aborts on panic may lose its unwind tables: the
    // release profile says `panic = "abort"`, and a build told to unwind
    // instead would die with "failed to initiate panic" (134), not the
    // hook's 70. (Test harnesses are not `bins`: they keep their tables.)
    if !shipped || var("CARGO_PROFILE_RELEASE_PANIC") == "unwind" {
        return;
    }
    // zig's linker (cargo-zigbuild) does not know `-z pack-relative-relocs`;
    // the GNU ld of the Dockerfile's Debian does.
    let zig = !var("CARGO_ZIGBUILD_TARGET").is_empty()
        || var("RUSTC_LINKER").contains("zig")
        || var("CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_LINKER").contains("zig");
    if !zig {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    let script = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join("link/static-musl.ld");
    // `-T` and the path as two arguments: a path with a comma stays whole.
    println!("cargo:rustc-link-arg-bins=-T");
    println!("cargo:rustc-link-arg-bins={}", script.display());
}
