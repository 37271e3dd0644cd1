//! A stand-in for a Spring Boot assistant API, for the `spring-http`
//! example: `cargo run --example spring-stub -- --answers answers.json`.
//!
//! It speaks the contract described in `examples/spring-http/README.md`
//! (`POST /api/v1/assistant/answers`, a bearer token from
//! `ASSISTANT_TOKEN`), answering from a table keyed by `conversationId`;
//! see `stub_server.rs`. It prints `spring-stub listening on
//! 127.0.0.1:PORT` once it accepts connections.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

mod stub_server;

/// Command line.
#[derive(Parser, Debug)]
#[command(
    name = "spring-stub",
    about = "A stand-in for a Spring assistant API: answers POST /api/v1/assistant/answers from a table keyed by conversationId."
)]
struct Args {
    /// The answers table (JSON), read again on every request.
    #[arg(long, value_name = "FILE")]
    answers: PathBuf,
    /// The port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 8732)]
    port: u16,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let token = match std::env::var("ASSISTANT_TOKEN") {
        Ok(token) if !token.is_empty() => token,
        _ => {
            eprintln!("spring-stub: set ASSISTANT_TOKEN, the bearer token to accept");
            return ExitCode::from(1);
        }
    };
    let server = match stub_server::start(args.answers, args.port, token) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("spring-stub: cannot listen on 127.0.0.1:{}: {e}", args.port);
            return ExitCode::from(1);
        }
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "spring-stub listening on 127.0.0.1:{}", server.port);
    let _ = out.flush();
    loop {
        std::thread::park();
    }
}
