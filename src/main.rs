//! The `hellfuzz` command line: `main` parses the arguments and runs the subcommand; each
//! subcommand's arguments and glue are in `cli/<subcommand>.rs`, the work is in the library.

#[macro_use]
mod cli;

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "hellfuzz",
    version,
    about = "Grammar-based seeds, crash minimization and triage for cargo-fuzz and afl.rs"
)]
struct Cli {
    #[command(subcommand)]
    command: cli::Subcommand,
}

fn main() -> ExitCode {
    match Cli::parse().command.run() {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
