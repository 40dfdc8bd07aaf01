//! The typed side of spec-check: the example-folder-to-type table and the per-revision samples.
//!
//! [`for_revision`] builds every sample from typed `mcp_types` values, shaped the way the given
//! revision has them: a field or content kind the revision lacks is left out, and one it adds is
//! filled in. Only the per-request `_meta` of 2026-07-28 is added to the serialized request (see
//! [`add_request_meta`]), as the protocol layer will do.

use mcp_types::{
    CacheScope, Era, JsonRpcResultResponse, JsonRpcVersion, Notification, ProtocolVersion, Request,
    RequestId, ResultType, TypedInputRequest, TypedNotification, TypedRequest,
};
use serde::Serialize;
use serde_json::Value;

mod base_protocol;
mod blocks;
mod client_features;
mod roundtrip;
mod server_features;
mod stateless;
mod tasks;
mod values;

use base_protocol::{lifecycle, progress_and_cancellation};
use client_features::{elicitation, roots, sampling};
pub(crate) use roundtrip::roundtrip;
use server_features::{completion, logging, prompts, resources, tools};
use stateless::{input_required, subscriptions};
use tasks::tasks;
use values::{add_request_meta, to_json};

/// Serialized samples of every request, result and notification revision `rev` defines, each
/// named by the schema definition it must validate against. A definition may have several.
pub(crate) fn for_revision(rev: &ProtocolVersion) -> Vec<(&'static str, Value)> {
    let mut s = Samples::new(rev);
    lifecycle(&mut s);
    tools(&mut s);
    resources(&mut s);
    prompts(&mut s);
    completion(&mut s);
    logging(&mut s);
    progress_and_cancellation(&mut s);
    roots(&mut s);
    sampling(&mut s);
    elicitation(&mut s);
    tasks(&mut s);
    subscriptions(&mut s);
    input_required(&mut s);
    s.out
}

/// The samples of one revision as they are built, with the revision's building blocks.
#[derive(Debug)]
struct Samples<'a> {
    rev: &'a ProtocolVersion,
    out: Vec<(&'static str, Value)>,
    last_id: i64,
}

impl<'a> Samples<'a> {
    /// No samples yet for revision `rev`.
    fn new(rev: &'a ProtocolVersion) -> Self {
        Samples {
            rev,
            out: Vec::new(),
            last_id: 0,
        }
    }

    // ---- revision features that `ProtocolVersion` has no method for --------------------------

    /// Whether the revision is `first` or later.
    fn since(&self, first: ProtocolVersion) -> bool {
        *self.rev >= first
    }

    /// Whether the revision has `initialize` and sessions (up to 2025-11-25).
    fn stateful(&self) -> bool {
        self.rev.era() == Era::Stateful
    }

    /// 2025-03-26 and later: audio content, tool annotations, progress messages, the
    /// completions capability.
    fn since_2025_03_26(&self) -> bool {
        self.since(ProtocolVersion::V2025_03_26)
    }

    /// 2025-06-18 and later: `title`s, `_meta` on content and definitions, resource links,
    /// completion context, `lastModified`.
    fn since_2025_06_18(&self) -> bool {
        self.since(ProtocolVersion::V2025_06_18)
    }

    /// 2025-11-25 and later: icons, richer `Implementation`s, sampling with tools, titled and
    /// multi-select enums and `default`s in form schemas.
    fn since_2025_11_25(&self) -> bool {
        self.since(ProtocolVersion::V2025_11_25)
    }

    /// `resultType: "complete"` where the revision has it.
    fn complete(&self) -> Option<ResultType> {
        self.rev.has_result_type().then_some(ResultType::Complete)
    }

    /// A cache lifetime, on revisions with cacheable results (2026-07-28).
    fn ttl_ms(&self, ms: u64) -> Option<u64> {
        (!self.stateful()).then_some(ms)
    }

    /// A cache scope, on revisions with cacheable results (2026-07-28).
    fn cache_scope(&self, scope: CacheScope) -> Option<CacheScope> {
        (!self.stateful()).then_some(scope)
    }

    // ---- pushing messages ----------------------------------------------------------------------

    /// Pushes `message` as a sample of definition `name`.
    fn push(&mut self, name: &'static str, message: &impl Serialize) {
        self.out.push((name, to_json(message)));
    }

    /// A fresh request id, alternately a string and a number.
    fn next_id(&mut self) -> RequestId {
        self.last_id += 1;
        if self.last_id % 2 == 0 {
            RequestId::Number(self.last_id)
        } else {
            RequestId::String(format!("req-{}", self.last_id))
        }
    }

    /// Pushes a whole client-to-server request for `M` and returns its id.
    fn request<M: Request>(&mut self, name: &'static str, params: M::Params) -> RequestId {
        let id = self.next_id();
        self.request_with_id::<M>(name, id.clone(), params);
        id
    }

    /// Pushes a whole client-to-server request for `M` with id `id`. On 2026-07-28 its params
    /// carry the per-request `_meta`.
    fn request_with_id<M: Request>(
        &mut self,
        name: &'static str,
        id: RequestId,
        params: M::Params,
    ) {
        let mut message = to_json(&TypedRequest::<M> { id, params });
        if !self.stateful() {
            add_request_meta(&mut message, self.request_meta());
        }
        self.out.push((name, message));
    }

    /// Pushes a whole server-to-client request for `M` (roots, sampling, elicitation, tasks): a
    /// JSON-RPC request up to 2025-11-25, an input request without `jsonrpc` and `id` on
    /// 2026-07-28.
    fn input_request<M: Request>(&mut self, name: &'static str, params: M::Params) {
        let request = if self.stateful() {
            TypedInputRequest::<M>::with_id(self.next_id(), params)
        } else {
            TypedInputRequest::<M>::new(params)
        };
        self.push(name, &request);
    }

    /// Pushes a whole notification for `N`.
    fn notification<N: Notification>(&mut self, name: &'static str, params: N::Params) {
        self.push(name, &TypedNotification::<N> { params });
    }

    /// Pushes `result` under `name` and, on 2026-07-28 (the only revision with `*ResultResponse`
    /// definitions), the whole response to request `id` under `response`.
    fn answer<R: Serialize>(
        &mut self,
        id: RequestId,
        name: &'static str,
        response: &'static str,
        result: R,
    ) {
        self.push(name, &result);
        if !self.stateful() {
            let whole = JsonRpcResultResponse {
                jsonrpc: JsonRpcVersion,
                id,
                result,
            };
            self.push(response, &whole);
        }
    }
}

#[cfg(test)]
mod tests {
    use mcp_types::{
        CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY,
    };
    use serde_json::json;

    use super::*;

    #[test]
    fn every_revision_has_samples_that_round_trip() {
        for rev in ProtocolVersion::ALL {
            let samples = for_revision(rev);
            assert!(samples.len() > 40, "{rev}: only {} samples", samples.len());
            for (name, sample) in &samples {
                assert!(sample.is_object(), "{rev} {name}: {sample}");
            }
        }
    }

    #[test]
    fn requests_carry_the_envelope_only_on_2026() {
        let meta_of = |rev: &ProtocolVersion| {
            for_revision(rev)
                .into_iter()
                .find(|(name, _)| *name == "CallToolRequest")
                .and_then(|(_, v)| v.pointer("/params/_meta").cloned())
        };
        let old = meta_of(&ProtocolVersion::V2025_06_18).unwrap_or_default();
        assert_eq!(old, json!({"progressToken": "call-progress-1"}));
        let new = meta_of(&ProtocolVersion::V2026_07_28).unwrap_or_default();
        assert_eq!(new[PROTOCOL_VERSION_META_KEY], json!("2026-07-28"));
        assert_eq!(new["progressToken"], json!("call-progress-1"));
        assert!(new[CLIENT_CAPABILITIES_META_KEY].is_object());
        assert!(new[CLIENT_INFO_META_KEY].is_object());
    }

    #[test]
    fn results_are_complete_only_on_2026() {
        let result_type = |rev: &ProtocolVersion| {
            for_revision(rev)
                .into_iter()
                .find(|(name, _)| *name == "EmptyResult")
                .and_then(|(_, v)| v.get("resultType").cloned())
        };
        assert_eq!(result_type(&ProtocolVersion::V2025_11_25), None);
        assert_eq!(
            result_type(&ProtocolVersion::V2026_07_28),
            Some(json!("complete"))
        );
    }
}
