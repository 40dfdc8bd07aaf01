use super::*;
use crate::result::test_util::{decode_err, round_trip};

const REQUESTS: &str = r#"{
  "github_login": {"method": "elicitation/create", "params": {"mode": "form",
      "message": "Please provide your GitHub username",
      "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}},
  "capital_of_france": {"method": "sampling/createMessage", "params": {
      "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
      "maxTokens": 100}}
}"#;

#[test]
fn input_requests_example() {
    let reqs: InputRequests = round_trip(REQUESTS);
    assert!(matches!(
        reqs["github_login"],
        InputRequest::Elicit(ElicitRequestParams::Form(_))
    ));
    assert!(matches!(
        reqs["capital_of_france"],
        InputRequest::CreateMessage(_)
    ));
    assert_eq!(reqs["capital_of_france"].method(), "sampling/createMessage");
}

#[test]
fn input_request_kinds() {
    let r: InputRequest = round_trip(r#"{"method":"roots/list"}"#);
    assert_eq!(r, InputRequest::ListRoots(EmptyParams::default()));
    assert_eq!(r.method(), "roots/list");
    round_trip::<InputRequest>(r#"{"method":"roots/list","params":{"_meta":{"a":1}}}"#);
    let r: InputRequest = round_trip(r#"{"method":"future/thing","params":{"x":1}}"#);
    assert_eq!(r.method(), "future/thing");
    round_trip::<InputRequest>(r#"{"method":"future/other"}"#);
    let err =
        decode_err::<InputRequest>(r#"{"method":"elicitation/create","params":{"mode":"url"}}"#);
    assert!(
        err.contains("invalid params for elicitation/create"),
        "{err}"
    );
}

#[test]
fn input_responses_example() {
    let res: InputResponses = round_trip(
        r#"{"github_login":{"action":"accept","content":{"name":"octocat"}},
            "capital_of_france":{"role":"assistant","content":{"type":"text","text":"The capital of France is Paris."},
                                 "model":"claude-3-sonnet-20240307","stopReason":"endTurn"}}"#,
    );
    assert!(matches!(res["github_login"], InputResponse::Elicit(_)));
    assert!(matches!(
        res["capital_of_france"],
        InputResponse::CreateMessage(_)
    ));
    let roots: InputResponse = round_trip(r#"{"roots":[{"uri":"file:///a"}]}"#);
    assert!(matches!(roots, InputResponse::ListRoots(_)));
    assert_eq!(
        InputResponse::from(ElicitResult::decline()),
        InputResponse::Elicit(ElicitResult::decline())
    );
    decode_err::<InputResponse>(r#"{"action":"nope"}"#);
    decode_err::<InputResponse>(r#"[1]"#);
}

#[test]
fn input_required_result_examples() {
    let r: InputRequiredResult = round_trip(&format!(
        r#"{{"resultType":"input_required","inputRequests":{REQUESTS},"requestState":"eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"}}"#
    ));
    assert_eq!(r.input_requests.as_ref().map(BTreeMap::len), Some(2));
    let r: InputRequiredResult = round_trip(
        r#"{"resultType":"input_required","requestState":"eyJwcm9ncmVzcyI6IjUwJSIsInN0YXRlIjoicHJvY2Vzc2luZyJ9"}"#,
    );
    assert_eq!(
        r,
        InputRequiredResult::default()
            .with_request_state("eyJwcm9ncmVzcyI6IjUwJSIsInN0YXRlIjoicHJvY2Vzc2luZyJ9")
    );
    let built = InputRequiredResult::new(InputRequests::new());
    assert_eq!(
        serde_json::to_value(&built).expect("encodes"),
        serde_json::json!({"resultType":"input_required","inputRequests":{}})
    );
    round_trip::<InputRequiredResult>(r#"{"resultType":"input_required","_meta":{"k":1},"x":[1]}"#);
}

#[test]
fn input_response_request_params() {
    let p: InputResponseRequestParams = round_trip(
        r#"{"inputResponses":{"k":{"action":"cancel"}},"requestState":"s",
            "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"tool"}"#,
    );
    assert!(p.extra.contains_key("name"));
}

#[test]
fn maybe_input_required() {
    use crate::{EmptyResult, ListRootsResult};
    let m: MaybeInputRequired<ListRootsResult> = round_trip(r#"{"roots":[]}"#);
    assert_eq!(m.clone().complete(), Some(ListRootsResult::default()));
    let m: MaybeInputRequired<EmptyResult> =
        round_trip(r#"{"resultType":"complete","_meta":{"a":1}}"#);
    assert!(matches!(m, MaybeInputRequired::Complete(_)));
    let m: MaybeInputRequired<ListRootsResult> =
        round_trip(r#"{"resultType":"input_required","requestState":"abc"}"#);
    assert!(
        matches!(&m, MaybeInputRequired::InputRequired(r) if r.request_state.as_deref() == Some("abc"))
    );
    assert_eq!(m.complete(), None);
    // A complete result of the wrong shape is an error, not an InputRequired.
    decode_err::<MaybeInputRequired<ListRootsResult>>(r#"{"resultType":"complete"}"#);
}

#[test]
fn typed_input_request_forms() {
    let r: crate::ListRootsRequest = round_trip(r#"{"method":"roots/list"}"#);
    assert!(r.jsonrpc.is_none() && r.id.is_none());
    let built = crate::ListRootsRequest::with_id(5, EmptyParams::default());
    assert_eq!(
        serde_json::to_value(&built).expect("encodes"),
        serde_json::json!({"jsonrpc":"2.0","id":5,"method":"roots/list"})
    );
    let built =
        crate::ElicitRequest::new(crate::ElicitRequestURLParams::new("m", "https://u").into());
    assert_eq!(
        serde_json::to_value(&built).expect("encodes"),
        serde_json::json!({"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://u"}})
    );
    assert!(format!("{built:?}").contains("elicitation/create"));
    decode_err::<crate::ListRootsRequest>(r#"{"jsonrpc":"1.0","method":"roots/list"}"#);
}
