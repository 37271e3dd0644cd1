//! A loopback stand-in for an LLM application, for the quickstart and the
//! tests: `cargo run --example quickstart-stub -- --answers answers.json --port 8731`.
//!
//! It answers `POST` on any path from an answers table (the format of
//! `tests/goldens/*/answers.json`), keyed by the request body's `"id"`:
//!
//! ```json
//! {
//!   "*": "the default answer",
//!   "ok": "an answer",
//!   "flaky": {"answers": ["first call", "second call"]},
//!   "down": {"answer": "x", "status": 500},
//!   "garbled": {"raw": "<html>gateway</html>"},
//!   "pricey": {"answer": "x", "cost_usd": 0.03, "sleep_ms": 200, "model": "stub-2"}
//! }
//! ```
//!
//! An entry is a string (the answer) or an object: `answer` (any JSON
//! value), `answers` (handed out in turn to successive calls for that id;
//! the counters restart when the file changes or on `POST /reset`; one of
//! them may be `{"status": 503}`: that call answers that status),
//! `status` (default 200), `raw` (sent instead of JSON), `cost_usd`
//! (default 0.001, USD), `sleep_ms` (wait before answering, ms; also
//! reported as `elapsed_ms`, else 5) and `model` (default `stub-1`). An id
//! not in the table gets `"*"`. The answer is
//! `{"data": {"answer": A}, "usage": {"cost_usd": C, "elapsed_ms": E},
//! "config": {"provider": "stub", "model": M, "temperature": 0.0}}`, the
//! same bytes as the golden stub for text answers.
//!
//! A seeded entry, `{"rate": 0.35, "seed": 17}`, answers `"yes"` or `"no"`
//! instead (the benchmarks' compact form: `bench/noisy/noisy.py`): the n-th
//! call for that id (counted as for `answers`) answers `"yes"` when a hash
//! of (seed, id, n) falls below the rate, else `"no"`, so each call is an
//! independent draw at that rate and the same table repeats the same draws.
//! The hash is FNV-1a (64-bit) over the seed's eight little-endian bytes,
//! the id's UTF-8 bytes and n's eight little-endian bytes, mixed by
//! SplitMix64's finalizer, its top 53 bits read as a fraction of 2^53. The
//! other keys (`status`, `cost_usd`, `sleep_ms`, `model`) apply as usual.
//!
//! The file is read again on every request, so it can be edited while the
//! stub runs; it is parsed again only when its bytes change. `HEAD` and `GET` answer 200 with no body (the preflight).
//! Each request runs on its own thread. The stub prints `stub listening on
//! 127.0.0.1:PORT` once it accepts connections (`--port 0` picks a free
//! port) and stops on SIGINT/SIGTERM.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

mod stub_server;

/// Command line.
#[derive(Parser, Debug)]
#[command(
    name = "quickstart-stub",
    about = "A loopback stand-in for an LLM application: answers POSTs from an answers table (JSON), keyed by the request's \"id\"."
)]
struct Args {
    /// The answers table (JSON), read again on every request.
    #[arg(long, value_name = "FILE")]
    answers: PathBuf,
    /// The port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 8731)]
    port: u16,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let stub = match stub_server::start(args.answers, args.port) {
        Ok(stub) => stub,
        Err(e) => {
            eprintln!("stub: cannot listen on 127.0.0.1:{}: {e}", args.port);
            return ExitCode::from(1);
        }
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "stub listening on 127.0.0.1:{}", stub.port);
    let _ = out.flush();
    loop {
        std::thread::park();
    }
}
