//! Fuzz target: run-document bytes through the strict schema-10 reader.
//!
//! Any input is either a document or a refusal naming the file; a document
//! that is read must also write back out without a panic.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = Path::new(".digline/t/runs/s/fuzz.json");
    match digline::store::document::from_bytes(path, data) {
        Ok(doc) => {
            let _ = digline::store::document::to_bytes(&doc);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
