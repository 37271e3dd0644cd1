//! The one integration test binary: digline driven as a user drives it.
//!
//! Each module is one concern; `util` holds the helpers (temp dirs, the
//! binary, the loopback stub).

mod layering;
mod quickstart;
mod refusals;
mod slice;
mod util;
