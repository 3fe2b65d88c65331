//! The grammars and sample inputs shipped with hellfuzz, embedded at build time by `build.rs`.
//!
//! [`grammar_text`] and [`names`] serve `Grammar::load("json")`; [`samples`] is the default
//! mining corpus of `hellfuzz gen`.

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

/// The text of the built-in grammar `name`, if there is one.
pub fn grammar_text(name: &str) -> Option<&'static str> {
    GRAMMARS.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// The names of the built-in grammars, sorted.
pub fn names() -> impl Iterator<Item = &'static str> {
    GRAMMARS.iter().map(|(n, _)| *n)
}

/// The built-in samples of grammar `name` as (file name, bytes), sorted by file name; empty if none.
pub fn samples(name: &str) -> &'static [(&'static str, &'static [u8])] {
    SAMPLES.iter().find(|(n, _)| *n == name).map_or(&[], |(_, s)| s)
}
