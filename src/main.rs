//! The `digline` binary: parse, run, exit with the contract code.

fn main() {
    // The two front ends never import each other: the binary hands the MCP
    // server to the command line, which starts it for `digline mcp`.
    std::process::exit(digline::cli::main(digline::mcp::serve));
}
