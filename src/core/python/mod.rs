//! What digline 0.10.0 did through Python itself, done to the byte: the
//! JSON text it writes (`dumps`), the decoder its checks read answers with
//! (`loads`), `repr()`/`str()` of values quoted in sentences (`repr`) and
//! `==` on decoded values (`eq`). Pure; nothing here knows a check, a run
//! or a file.

pub mod dumps;
pub mod eq;
pub mod loads;
pub mod repr;
