//! The `digline` binary: parse, run, exit with the contract code.

fn main() {
    std::process::exit(digline::cli::main());
}
