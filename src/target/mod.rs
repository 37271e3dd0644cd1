//! `target`: asking the system under test.
//!
//! Owns the HTTP target (and later providers and judges): building the
//! request from a case, calling, reading the answer by dotted paths, and
//! turning every failure into a one-line cause that names the endpoint by
//! host:port only. May import `core`, `wire`, `report`, `store`; never
//! `run`, `host`, `forge` or the front ends. Reads no environment variable:
//! header secrets arrive already expanded from `host`.

pub mod http;
