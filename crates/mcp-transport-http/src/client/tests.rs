use super::*;

#[test]
fn https_works_out_of_the_box() {
    let transport = StreamableHttpClientTransport::builder("https://example.com/mcp")
        .header("x-api-key", "secret")
        .build()
        .expect("an https client builds with the default features");
    assert_eq!(transport.session_id(), None);
    assert!(!transport.is_legacy());
}

#[test]
fn invalid_url_and_header_are_reported() {
    let err = StreamableHttpClientTransport::new("not a url").unwrap_err();
    assert_eq!(err.to_string(), "invalid url `not a url`");
    let err = StreamableHttpClientTransport::builder("http://127.0.0.1:1/mcp")
        .header("bad header", "x")
        .build()
        .unwrap_err();
    assert_eq!(err.to_string(), "invalid header");
}

#[test]
fn backoff_doubles_up_to_the_cap() {
    let r = Reconnect {
        initial_delay: std::time::Duration::from_millis(100),
        max_delay: std::time::Duration::from_millis(500),
        max_attempts: 5,
    };
    let ms = |n| r.backoff(n).as_millis();
    assert_eq!(
        [ms(1), ms(2), ms(3), ms(4), ms(40)],
        [100, 200, 400, 500, 500]
    );
}

#[test]
fn error_messages() {
    let e = Error::Status {
        status: reqwest::StatusCode::BAD_GATEWAY,
        body: "upstream down".into(),
    };
    assert_eq!(e.to_string(), "http status 502 Bad Gateway: upstream down");
    let object = e.to_error_object();
    assert_eq!(object.code, mcp_jsonrpc::ErrorCode::INTERNAL_ERROR);
    assert_eq!(object.data, Some(serde_json::json!({"status": 502})));
    assert_eq!(
        Error::SessionExpired.to_error_object().message,
        "session expired; the request was not completed"
    );
    assert_eq!(
        Error::StreamEnded {
            reason: "http 405".into()
        }
        .to_string(),
        "the sse stream ended before the response arrived (http 405)"
    );
}

#[test]
fn snippet_is_bounded() {
    let long = "é".repeat(600);
    let s = error::snippet(&long);
    assert!(s.len() <= 515 && s.ends_with("..."));
}

fn challenges(values: &[&str]) -> Vec<(String, Vec<(String, String)>)> {
    let values: Vec<String> = values.iter().map(|v| (*v).to_owned()).collect();
    auth::parse_challenges(&values)
        .into_iter()
        .map(|c| (c.scheme, c.params))
        .collect()
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn www_authenticate_is_parsed() {
    assert_eq!(
        challenges(&[
            r#"Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b""#
        ]),
        [(
            "Bearer".to_owned(),
            owned(&[
                (
                    "resource_metadata",
                    "https://x/.well-known/oauth-protected-resource"
                ),
                ("scope", "a b")
            ])
        )]
    );
    // Several challenges in one value, a token68, unquoted values, escapes, odd spacing
    // and case.
    assert_eq!(
        challenges(&[
            r#"Basic dXNlcjpwYXNz==, Bearer Realm = "r\"1", error=insufficient_scope,scope="x""#,
            "Negotiate",
        ]),
        [
            ("Basic".to_owned(), owned(&[("", "dXNlcjpwYXNz==")])),
            (
                "Bearer".to_owned(),
                owned(&[
                    ("realm", "r\"1"),
                    ("error", "insufficient_scope"),
                    ("scope", "x")
                ])
            ),
            ("Negotiate".to_owned(), vec![]),
        ]
    );
    // Garbage does not panic.
    for junk in [
        "",
        ",,,",
        "=",
        "\"",
        "Bearer =",
        "Bearer a=\"unterminated",
        "= = ,\\",
    ] {
        let _ = challenges(&[junk]);
    }
}

#[test]
fn auth_challenge_helpers() {
    let url: url::Url = "https://example.com/mcp".parse().unwrap();
    let c = AuthChallenge::new(
        reqwest::StatusCode::UNAUTHORIZED,
        url.clone(),
        vec![
            r#"Basic realm="x""#.into(),
            r#"bearer error="invalid_token", error_description="expired", resource_metadata="/.well-known/oauth-protected-resource/mcp""#.into(),
        ],
    );
    assert!(c.is_bearer() && !c.is_insufficient_scope());
    assert_eq!(c.error(), Some("invalid_token"));
    assert_eq!(
        c.resource_metadata().unwrap().as_str(),
        "https://example.com/.well-known/oauth-protected-resource/mcp"
    );
    assert_eq!(c.scope(), None);
    assert_eq!(
        c.to_string(),
        "http status 401 Unauthorized, invalid_token: expired"
    );
    let e = Error::Unauthorized {
        status: c.status(),
        challenge: Box::new(c.clone()),
    };
    assert_eq!(
        e.to_string(),
        "not authorized: http status 401 Unauthorized, invalid_token: expired"
    );
    assert_eq!(e.to_error_object().data.unwrap()["status"], 401);
    let none = AuthChallenge::new(reqwest::StatusCode::UNAUTHORIZED, url, vec![]);
    assert!(!none.is_bearer());
    assert_eq!(none.resource_metadata(), None);
    assert_eq!(none.to_string(), "http status 401 Unauthorized");
}
