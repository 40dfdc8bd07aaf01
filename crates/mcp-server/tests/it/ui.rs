//! The usual mistakes with handlers are compile errors that name the cause and the fix
//! (expected output in `tests/ui/*.stderr`; regenerate with `TRYBUILD=overwrite`).

#[test]
fn handler_mistakes_name_the_cause_and_the_fix() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
