//! The stateless (2026-07-28) tool call: the same [`Tool`](crate::Tool) handlers, with the
//! [`Context`]'s input channel answering from `inputResponses` and the router turning
//! [`Error::InputRequired`] into an `InputRequiredResult`.
//!
//! Not reachable from the wire yet: the stateless entry point (per-request `_meta`
//! validation, `server/discover`, `subscriptions/listen`) is the next step; see
//! `notes/server-eras.md`. Until then this is exercised by the unit tests below.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use mcp_jsonrpc::{CancellationToken, Extensions, Id, Peer};
use mcp_types::{
    CallToolRequestParams, CallToolResult, ErrorCode, ErrorObject, InputRequiredResult,
    MaybeInputRequired, ResultType,
};

use crate::Server;
use crate::context::{Context, ContextParts, LevelSource};
use crate::error::{error_object, is_input_required};
use crate::input::{Input, StatelessInput};
use crate::service::ToolCall;
use crate::session_state::ClientState;

/// Runs a `tools/call` of the stateless protocol. The handler runs from the start on every
/// round; the answers it already got travel in `requestState`.
pub(crate) async fn call_tool(
    server: &Server,
    client: Arc<ClientState>,
    peer: Peer,
    (request_id, extensions): (Id, Arc<Extensions>),
    mut params: CallToolRequestParams,
) -> Result<MaybeInputRequired<CallToolResult>, ErrorObject> {
    let Some(tool) = server.inner().tools.get(&params.name) else {
        return Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("Unknown tool: {}", params.name),
        ));
    };
    let input = StatelessInput::from_request(
        params.request_state.as_deref(),
        params.input_responses.take(),
    )
    .map_err(|e| error_object(&e, &client.version))?;
    let version = client.version.clone();
    let cx = Context::new(ContextParts {
        client,
        peer,
        request_id,
        extensions,
        state: server.inner().state.clone(),
        session: None,
        level: LevelSource::Fixed(None),
        cancellation: CancellationToken::new(),
        progress_token: None,
        input: Input::Stateless(Mutex::new(input)),
    });
    cx.set_meta(params.meta.take());
    let call = ToolCall::new(params.name, params.arguments, cx.clone());
    match tool.call(call).await {
        Ok(mut result) => {
            result.result_type = Some(ResultType::Complete);
            Ok(MaybeInputRequired::Complete(result))
        }
        Err(e) if is_input_required(&*e) => {
            let Input::Stateless(state) = cx.input() else {
                unreachable!("built stateless above")
            };
            let state = state.lock().expect("input lock");
            let mut result = InputRequiredResult::new(state.requested.clone());
            result.request_state = state
                .request_state()
                .map_err(|e| error_object(&e, &version))?;
            Ok(MaybeInputRequired::InputRequired(result))
        }
        Err(e) => Err(error_object(&*e, &version)),
    }
}

#[cfg(test)]
mod tests {
    use mcp_jsonrpc::{Config, Connection, memory};
    use mcp_types::{
        ClientCapabilities, CreateMessageRequestParams, CreateMessageResult,
        ElicitRequestFormParams, ElicitRequestedSchema, ElicitResult, ElicitValue, InputRequest,
        InputResponse, ProtocolVersion, SamplingContent, SamplingMessage,
    };

    use super::*;
    use crate::{HandlerError, Tool};

    fn server() -> Server {
        Server::builder()
            .tool(Tool::new("ask", |cx: Context| async move {
                let name = cx
                    .elicit(ElicitRequestFormParams::new(
                        "Name?",
                        ElicitRequestedSchema::default(),
                    ))
                    .await?;
                let poem = cx
                    .sample(CreateMessageRequestParams::new(
                        vec![SamplingMessage::user_text("poem")],
                        10,
                    ))
                    .await?;
                Ok::<_, HandlerError>(format!(
                    "{:?} / {}",
                    name.content.unwrap_or_default().get("name"),
                    poem.content.first_text().unwrap_or("")
                ))
            }))
            .build()
    }

    fn client(caps: serde_json::Value) -> Arc<ClientState> {
        Arc::new(ClientState {
            version: ProtocolVersion::V2026_07_28,
            info: None,
            capabilities: serde_json::from_value::<ClientCapabilities>(caps).unwrap(),
        })
    }

    fn request() -> (mcp_jsonrpc::Id, Arc<mcp_jsonrpc::Extensions>) {
        (1.into(), Arc::default())
    }

    fn peer() -> Peer {
        let (a, _b) = memory::pair(1);
        Connection::new(a, (), Config::default()).1
    }

    #[tokio::test]
    async fn input_required_rounds_until_complete() {
        let server = server();
        let caps = serde_json::json!({"elicitation": {}, "sampling": {}});

        // Round 1: the elicitation is asked for, under a deterministic key.
        let r1 = call_tool(
            &server,
            client(caps.clone()),
            peer(),
            request(),
            CallToolRequestParams::new("ask"),
        )
        .await
        .unwrap();
        let MaybeInputRequired::InputRequired(r1) = r1 else {
            panic!("expected input_required")
        };
        let requests = r1.input_requests.unwrap();
        assert_eq!(requests.keys().collect::<Vec<_>>(), ["elicit-0"]);
        assert!(matches!(requests["elicit-0"], InputRequest::Elicit(_)));
        assert_eq!(
            serde_json::to_value(&r1.result_type).unwrap(),
            serde_json::json!("input_required")
        );
        assert!(r1.request_state.is_none());

        // Round 2: answered; the handler re-runs, gets past it and asks for sampling.
        let mut p2 = CallToolRequestParams::new("ask");
        p2.input_responses = Some(
            [(
                "elicit-0".to_owned(),
                InputResponse::Elicit(ElicitResult::accept(Some(
                    [("name".to_owned(), ElicitValue::from("Ada"))].into(),
                ))),
            )]
            .into(),
        );
        let r2 = call_tool(&server, client(caps.clone()), peer(), request(), p2)
            .await
            .unwrap();
        let MaybeInputRequired::InputRequired(r2) = r2 else {
            panic!("expected input_required")
        };
        assert_eq!(
            r2.input_requests.unwrap().keys().collect::<Vec<_>>(),
            ["sample-1"]
        );
        let state = r2
            .request_state
            .expect("earlier answers travel in requestState");

        // Round 3: only the new answer plus the state; complete.
        let mut p3 = CallToolRequestParams::new("ask");
        p3.request_state = Some(state);
        p3.input_responses = Some(
            [(
                "sample-1".to_owned(),
                InputResponse::from(CreateMessageResult::new(
                    "m",
                    SamplingContent::text("roses"),
                )),
            )]
            .into(),
        );
        let r3 = call_tool(&server, client(caps.clone()), peer(), request(), p3)
            .await
            .unwrap();
        let MaybeInputRequired::Complete(r3) = r3 else {
            panic!("expected complete")
        };
        assert_eq!(
            r3.content[0].as_text(),
            Some(r#"Some(String("Ada")) / roses"#)
        );
        assert_eq!(r3.result_type, Some(ResultType::Complete));

        // A tampered state is refused; an answer of the wrong kind is an error, not a loop.
        let mut bad = CallToolRequestParams::new("ask");
        bad.request_state = Some("!!".to_owned());
        let err = call_tool(&server, client(caps.clone()), peer(), request(), bad)
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
        let mut wrong = CallToolRequestParams::new("ask");
        wrong.input_responses = Some(
            [(
                "elicit-0".to_owned(),
                InputResponse::from(mcp_types::ListRootsResult::new(vec![])),
            )]
            .into(),
        );
        let r = call_tool(&server, client(caps), peer(), request(), wrong)
            .await
            .unwrap();
        let MaybeInputRequired::Complete(r) = r else {
            panic!("a tool error is complete")
        };
        assert!(r.is_error());
    }

    #[tokio::test]
    async fn undeclared_capabilities_are_not_requested() {
        let server = server();
        let r = call_tool(
            &server,
            client(serde_json::json!({"sampling": {}})),
            peer(),
            request(),
            CallToolRequestParams::new("ask"),
        )
        .await
        .unwrap();
        let MaybeInputRequired::Complete(r) = r else {
            panic!("expected a tool error")
        };
        assert!(r.is_error());
        assert_eq!(
            r.content[0].as_text(),
            Some("the client did not declare the elicitation.form capability")
        );
    }
}
