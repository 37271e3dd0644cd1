//! Comparison of a run with its baseline: pairing, outcomes, headline facts.
//!
//! (Skeleton: filled in by the comparison work.)
