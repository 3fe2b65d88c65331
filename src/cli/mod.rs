//! The subcommands: one module per subcommand, each with its `Args` struct (parsed and validated
//! by clap) and a `run()` that reads files, calls the library, and prints.
//!
//! Map: [`Subcommand`] (dispatch) · `args` (shared arguments, value parsers) · `common` (grammar
//! and input loading, Ctrl-C, `--cmd` splitting) · one module per subcommand.

/// `println!` for the results on standard output: a closed pipe (`hellfuzz check js | head`)
/// ends the process quietly, as with any Unix tool; any other write error is reported.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            $crate::cli::common::stdout_failed(e);
        }
    }};
}

/// `print!` with [`outln!`]'s handling of a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout().lock(), $($arg)*) {
            $crate::cli::common::stdout_failed(e);
        }
    }};
}

pub mod args;
pub mod check;
pub mod common;
pub mod dict;
pub mod gen;
pub mod import;
pub mod mine;
pub mod parse;
pub mod reduce;
pub mod refine;
pub mod repair;
pub mod triage;

use std::process::ExitCode;

/// The subcommands of `hellfuzz` (each one's help is its `Args` struct's doc comment).
#[derive(clap::Subcommand)]
pub enum Subcommand {
    Check(check::CheckArgs),
    Parse(parse::ParseArgs),
    Mine(mine::MineArgs),
    Gen(gen::GenArgs),
    Reduce(reduce::ReduceArgs),
    Refine(refine::RefineArgs),
    Repair(repair::RepairArgs),
    Triage(triage::TriageArgs),
    Import(import::ImportArgs),
    Dict(dict::DictArgs),
}

impl Subcommand {
    /// Runs the subcommand: its exit status, or a message for `error: …`.
    pub fn run(self) -> Result<ExitCode, String> {
        match self {
            Subcommand::Check(args) => args.run(),
            Subcommand::Parse(args) => args.run(),
            Subcommand::Mine(args) => args.run(),
            Subcommand::Gen(args) => args.run(),
            Subcommand::Reduce(args) => args.run(),
            Subcommand::Refine(args) => args.run(),
            Subcommand::Repair(args) => args.run(),
            Subcommand::Triage(args) => args.run(),
            Subcommand::Import(args) => args.run(),
            Subcommand::Dict(args) => args.run(),
        }
    }
}
