//! The trace context of `params._meta` through the configured OpenTelemetry propagator:
//! `mcp-jsonrpc`'s [`TracePropagator`] implemented on `tracing-opentelemetry`.

use mcp_jsonrpc::trace::{BAGGAGE, TRACEPARENT, TRACESTATE, TraceContext, TracePropagator};
use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, Injector};
use opentelemetry::trace::TraceContextExt as _;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// The [`TracePropagator`] of OpenTelemetry: the SDK's spans become OpenTelemetry spans
/// (through `tracing-opentelemetry`), the context a peer sends in `params._meta` becomes the
/// parent of the span that handles its message, and the context of a span that sends a
/// message goes into its `_meta`. Both directions go through the global text map
/// propagator ([`opentelemetry::global::set_text_map_propagator`]), as the conventions ask;
/// [`init`](crate::init) sets W3C trace context and baggage, and installs this propagator
/// ([`install_propagator`]).
///
/// A received context becomes the parent only of a span not yet started; the span that was
/// current in this process when the message arrived (an HTTP request's, say) is linked, as
/// the conventions ask. A span without an OpenTelemetry span (no OpenTelemetry layer, or
/// filtered out) sends nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct OtelPropagator;

/// A received [`TraceContext`] read as a propagation carrier.
struct Received<'a>(&'a TraceContext);

impl Extractor for Received<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.fields().map(|(k, _)| k).collect()
    }
}

/// The fields a propagator writes, for a [`TraceContext`] to be read from.
#[derive(Default)]
struct Written {
    traceparent: Option<String>,
    tracestate: Option<String>,
    baggage: Option<String>,
}

impl Injector for Written {
    fn set(&mut self, key: &str, value: String) {
        match key {
            TRACEPARENT => self.traceparent = Some(value),
            TRACESTATE => self.tracestate = Some(value),
            BAGGAGE => self.baggage = Some(value),
            // Other propagators' keys: `_meta` carries the W3C ones only.
            _ => {}
        }
    }
}

impl TracePropagator for OtelPropagator {
    fn set_parent(&self, span: &tracing::Span, parent: &TraceContext) {
        // Extracted onto an empty context: `extract` would start from the current one.
        let remote = opentelemetry::global::get_text_map_propagator(|p| {
            p.extract_with_context(&Context::new(), &Received(parent))
        });
        if !remote.span().span_context().is_valid() {
            return;
        }
        // The ambient context, to link: the span current here (not `span` itself, whose
        // context would start it).
        let current = tracing::Span::current();
        let ambient = (current.id() != span.id()).then(|| current.context());
        if span.set_parent(remote).is_err() {
            return;
        }
        if let Some(linked) = ambient
            .map(|cx| cx.span().span_context().clone())
            .filter(|sc| sc.is_valid())
        {
            span.add_link(linked);
        }
    }

    fn context(&self, span: &tracing::Span) -> Option<TraceContext> {
        let cx = span.context();
        if !cx.span().span_context().is_valid() {
            return None;
        }
        let mut written = Written::default();
        opentelemetry::global::get_text_map_propagator(|p| p.inject_context(&cx, &mut written));
        TraceContext::from_fields(|key| match key {
            TRACEPARENT => written.traceparent.as_deref(),
            TRACESTATE => written.tracestate.as_deref(),
            BAGGAGE => written.baggage.as_deref(),
            _ => None,
        })
    }
}

/// Installs [`OtelPropagator`] as the process's trace propagator
/// ([`mcp_jsonrpc::trace::set_propagator`]); `false` if one was installed before (which
/// stays). [`init`](crate::init) calls it.
pub fn install_propagator() -> bool {
    mcp_jsonrpc::trace::set_propagator(OtelPropagator).is_ok()
}

#[cfg(test)]
mod tests;
