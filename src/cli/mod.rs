//! The subcommands' glue: each reads its arguments' files, calls the library, and prints.
//!
//! `common` (grammar and input loading), `grammar` (check, parse), `seeds` (mine, gen, dict),
//! `reduce` (reduce), `repair` (repair), `triage` (triage).

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

pub mod common;
pub mod grammar;
pub mod reduce;
pub mod repair;
pub mod seeds;
pub mod triage;
