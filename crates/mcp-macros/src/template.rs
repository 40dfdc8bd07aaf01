//! RFC 6570 URI templates, checked at compile time: the variables of `#[resource(uri = ...)]`
//! and whether `mcp-server` will accept the template.

/// The variable names of `uri`, in order (empty for a fixed URI), or what is wrong with it.
///
/// The rules follow RFC 6570 as `mcp-server`'s parser applies them: valid percent-encoding,
/// balanced braces, an optional operator (`+ # . / ; ? &`) and comma-separated variables,
/// each `[A-Za-z0-9_.%]` with an optional `*` or `:N` (N from 1 to 9999).
pub(crate) fn variables(uri: &str) -> Result<Vec<String>, String> {
    let bytes = uri.as_bytes();
    for (i, _) in uri.match_indices('%') {
        if !bytes
            .get(i + 1..i + 3)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
        {
            return Err(format!("invalid percent-encoding at byte {i}"));
        }
    }
    let mut vars = Vec::new();
    let mut rest = uri;
    loop {
        let open = rest.find('{');
        let literal = &rest[..open.unwrap_or(rest.len())];
        if let Some(c) = literal
            .chars()
            .find(|c| c.is_whitespace() || c.is_control() || "}<>\"^`|\\".contains(*c))
        {
            return Err(format!("{c:?} is not allowed outside an expression"));
        }
        let Some(open) = open else { break };
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| "an expression `{` is not closed".to_owned())?;
        let mut body = &after[..close];
        if body.contains('{') {
            return Err("expressions cannot nest".to_owned());
        }
        if let Some(op) = body.chars().next() {
            if "+#./;?&".contains(op) {
                body = &body[1..];
            } else if "=,!@|".contains(op) {
                return Err(format!("the operator `{op}` is reserved by RFC 6570"));
            }
        }
        for spec in body.split(',') {
            vars.push(varspec(spec)?);
        }
        rest = &after[close + 1..];
    }
    Ok(vars)
}

/// The name of one variable specification (`name`, `name*`, `name:3`).
fn varspec(spec: &str) -> Result<String, String> {
    let name = if let Some(name) = spec.strip_suffix('*') {
        name
    } else if let Some((name, len)) = spec.split_once(':') {
        let ok = !len.is_empty()
            && len.len() <= 4
            && len.bytes().all(|b| b.is_ascii_digit())
            && !len.starts_with('0');
        if !ok {
            return Err(format!(
                "`{spec}`: a prefix length is a number from 1 to 9999"
            ));
        }
        name
    } else {
        spec
    };
    let valid = !name.is_empty()
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%');
    if valid {
        Ok(name.to_owned())
    } else {
        Err(format!(
            "`{spec}` is not a variable name (letters, digits, `_`, `.` or percent-encoding)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::variables;

    #[test]
    fn variables_in_order() {
        assert_eq!(variables("config://app").unwrap(), Vec::<String>::new());
        assert_eq!(variables("users://{id}").unwrap(), ["id"]);
        assert_eq!(
            variables("files://{+path}{?q,limit:3}{&page*}").unwrap(),
            ["path", "q", "limit", "page"]
        );
    }

    #[test]
    fn bad_templates_say_why() {
        for (t, why) in [
            ("users://{id", "an expression `{` is not closed"),
            ("users://id}", "'}' is not allowed outside an expression"),
            ("users://{}", "`` is not a variable name"),
            ("users://{a b}", "`a b` is not a variable name"),
            ("users://{=a}", "the operator `=` is reserved"),
            ("users://{a:0}", "`a:0`: a prefix length"),
            ("users://%zz", "invalid percent-encoding"),
            ("users:// {a}", "' ' is not allowed"),
            ("users://{a{b}}", "expressions cannot nest"),
        ] {
            let e = variables(t).unwrap_err();
            assert!(e.starts_with(why), "{t}: {e}");
        }
    }
}
