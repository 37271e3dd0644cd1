//! A deterministic mock of an LLM judge, for the `rag` example:
//! `cargo run --example rag-mock-judge -- --port 8734`, then
//! `ANTHROPIC_BASE_URL=http://127.0.0.1:8734` (or
//! `OPENAI_BASE_URL=http://127.0.0.1:8734/v1`) for digline.
//!
//! It answers digline's judging prompts by rule (see `mock_judge_server.rs`):
//! faithfulness counts a sentence as supported when its numbers and most of
//! its words occur in the context; a rubric scores the share of its
//! backticked phrases the output contains. It prints `mock judge listening
//! on 127.0.0.1:PORT` once it accepts connections. No key is needed.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

mod mock_judge_server;

/// Command line.
#[derive(Parser, Debug)]
#[command(
    name = "rag-mock-judge",
    about = "A deterministic mock of the Anthropic/OpenAI APIs that answers digline's judging prompts by rule."
)]
struct Args {
    /// The port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 8734)]
    port: u16,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let judge = match mock_judge_server::start(args.port) {
        Ok(judge) => judge,
        Err(e) => {
            eprintln!("mock judge: cannot listen on 127.0.0.1:{}: {e}", args.port);
            return ExitCode::from(1);
        }
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "mock judge listening on 127.0.0.1:{}", judge.port);
    let _ = out.flush();
    loop {
        std::thread::park();
    }
}
