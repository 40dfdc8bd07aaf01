//! Mistakes are compile errors at the offending span, saying what to write instead.

#[test]
fn mistakes_are_compile_errors_that_say_what_to_do() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
