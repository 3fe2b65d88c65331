//! The json target under AFL++: the same code under test as `fuzz/fuzz_targets/json.rs`. A panic
//! aborts (AFL sees the crash); minimize afterwards with this binary's reduce mode
//! (`hellfuzz reduce --harness`) or `hellfuzz triage`.

#[path = "../../../fuzz_targets/common/subjects.rs"]
mod subjects;

hellfuzz::fuzz_target!(grammar = "json", |data: &[u8]| {
    subjects::json(data);
});
