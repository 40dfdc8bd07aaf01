//! Parsing the `Bearer` or `DPoP` challenge of a `WWW-Authenticate` header (RFC 6750 §3,
//! RFC 9449 §7.1, RFC 9728 §5.1).

/// The parameters of a `Bearer` or `DPoP` challenge that the client acts on.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct BearerChallenge {
    pub(crate) error: Option<String>,
    pub(crate) scope: Option<String>,
    pub(crate) resource_metadata: Option<String>,
    /// Whether the header offered the `DPoP` scheme (RFC 9449 §7.1), alone or beside `Bearer`.
    pub(crate) dpop: bool,
}

/// Finds the first `Bearer` or `DPoP` challenge in a `WWW-Authenticate` value (which may list
/// several challenges) and reads its auth-params. `None` if there is neither. Both schemes
/// carry the same parameters (`error`, `scope`, `resource_metadata`); a DPoP server may send
/// only its own.
pub(crate) fn parse(header: &str) -> Option<BearerChallenge> {
    let mut lexer = Lexer { s: header, pos: 0 };
    let mut found: Option<BearerChallenge> = None;
    let mut in_bearer = false;
    loop {
        lexer.skip(|c| c == ' ' || c == '\t' || c == ',');
        let Some(name) = lexer.token() else { break };
        lexer.skip(|c| c == ' ' || c == '\t');
        if lexer.peek() == Some('=') {
            lexer.pos += 1;
            lexer.skip(|c| c == ' ' || c == '\t');
            let value = if lexer.peek() == Some('"') {
                lexer.quoted()
            } else {
                lexer.token().map(str::to_owned)
            };
            let Some(value) = value else {
                // A token68 (`abc==`) or garbage: skip it.
                lexer.skip(|c| c != ',');
                continue;
            };
            if in_bearer && let Some(challenge) = found.as_mut() {
                let slot = match name.to_ascii_lowercase().as_str() {
                    "error" => &mut challenge.error,
                    "scope" => &mut challenge.scope,
                    "resource_metadata" => &mut challenge.resource_metadata,
                    _ => continue,
                };
                slot.get_or_insert(value);
            }
        } else {
            // A new challenge: `scheme [token68 | params]`.
            in_bearer = false;
            let dpop = name.eq_ignore_ascii_case("dpop");
            if (dpop || name.eq_ignore_ascii_case("bearer")) && found.is_none() {
                found = Some(BearerChallenge::default());
                in_bearer = true;
            }
            if let (true, Some(challenge)) = (dpop, found.as_mut()) {
                challenge.dpop = true;
            }
        }
    }
    found
}

struct Lexer<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    fn skip(&mut self, f: impl Fn(char) -> bool) {
        while let Some(c) = self.peek() {
            if !f(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
    }

    fn token(&mut self) -> Option<&'a str> {
        let start = self.pos;
        self.skip(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c));
        (self.pos > start).then(|| &self.s[start..self.pos])
    }

    fn quoted(&mut self) -> Option<String> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let c = self.peek()?;
            self.pos += c.len_utf8();
            match c {
                '"' => return Some(out),
                '\\' => {
                    let c = self.peek()?;
                    self.pos += c.len_utf8();
                    out.push(c);
                }
                c => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(error: Option<&str>, scope: Option<&str>, rm: Option<&str>) -> Option<BearerChallenge> {
        Some(BearerChallenge {
            error: error.map(Into::into),
            scope: scope.map(Into::into),
            resource_metadata: rm.map(Into::into),
            dpop: false,
        })
    }

    fn dpop(c: Option<BearerChallenge>) -> Option<BearerChallenge> {
        c.map(|c| BearerChallenge { dpop: true, ..c })
    }

    #[test]
    fn parses_bearer_params() {
        assert_eq!(
            parse(r#"Bearer resource_metadata="https://h/.well-known/x", scope="a b""#),
            ch(None, Some("a b"), Some("https://h/.well-known/x"))
        );
        assert_eq!(
            parse(r#"bearer error=insufficient_scope, scope="a \"b\"", error_description="x, y""#),
            ch(Some("insufficient_scope"), Some("a \"b\""), None)
        );
        // DPoP offered beside Bearer: the Bearer parameters, and the offer noted.
        assert_eq!(
            parse(r#"Basic realm="x", Bearer scope="s", DPoP algs="ES256""#),
            dpop(ch(None, Some("s"), None))
        );
        assert_eq!(
            parse(r#"DPoP error="use_dpop_nonce", resource_metadata="https://h/m""#),
            dpop(ch(Some("use_dpop_nonce"), None, Some("https://h/m")))
        );
        assert_eq!(parse("Bearer"), ch(None, None, None));
        assert_eq!(parse(r#"Basic realm="x""#), None);
        assert_eq!(parse(""), None);
        assert_eq!(
            parse(r#"Basic abc==, Bearer scope="s""#),
            ch(None, Some("s"), None)
        );
        assert_eq!(parse(r#"Bearer scope="unterminated"#), ch(None, None, None));
    }
}
