//! The usual mistakes with handlers are compile errors that name the cause and the fix
//! (expected output in `tests/ui/*.stderr`; regenerate with `TRYBUILD=overwrite`).

//!
//! The expected output is that of the default features: with `otel`, another crate in the
//! graph has a type named `Server`, so rustc names `mcp_server::Server` in full in the lists
//! of implementors. The test therefore runs in the default-feature test step of
//! `cargo xtask ci` and is not compiled with `otel`.

#[cfg(not(feature = "otel"))]
#[test]
fn handler_mistakes_name_the_cause_and_the_fix() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
