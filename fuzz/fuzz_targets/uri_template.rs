//! The server's URI template matcher: `template\nuri`. Never panics; a match binds only the
//! template's variables.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some((template, uri)) = text.split_once('\n') else {
        return;
    };
    if let Some(vars) = mcp_server::fuzz_uri_template(template, uri) {
        for name in vars.keys() {
            assert!(template.contains(name.as_str()), "{template} binds {name}");
        }
    }
});
