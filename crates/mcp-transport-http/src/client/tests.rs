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
