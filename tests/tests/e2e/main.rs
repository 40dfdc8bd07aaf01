//! End-to-end tests: the example servers run as real processes and are driven over stdio,
//! by our own JSON-RPC client and by real peers (the Python SDK client, the MCP Inspector
//! CLI) installed by `cargo xtask setup`.
//!
//! - `stdio`: every tool, resource, prompt and utility of `everything-server`, with the
//!   exact payloads of the conformance fixture, plus framing errors and shutdown.
//! - `interop_python`, `interop_inspector`: the same server under real clients.
//! - `eras`: both protocol eras with real peers: the Python SDK client in auto mode and the
//!   TypeScript SDK v2 client negotiate 2026-07-28 with `everything-server`; one tool serves
//!   both eras alike.
//! - `client_interop`, `http_interop`: our client against the TypeScript SDK v1 server (auto
//!   falls back to `initialize`), the TypeScript SDK v2 2.4.0 and Python SDK 2.3.0 servers
//!   (auto and 2026-07-28 pinned speak 2026-07-28, legacy pinned 2025-11-25), over stdio and
//!   HTTP; `ask_user` is answered by our elicitation handler in every era.
//! - `client_eras`: our client in the 2026-07-28 era against `everything-server` over stdio
//!   and HTTP: input-required rounds, a subscription, the per-request log level,
//!   `Mcp-Param-*` headers, a typed capability refusal.
//! - `server_api`: our client against a server written with `mcp-server`'s handler API
//!   (state, extractors, `anyhow` errors) over the in-memory pair.
//! - `tasks_interop`: tasks with the TypeScript SDK v1: its task client on
//!   `everything-server --tasks`, our client on its task server, its server running
//!   sampling and elicitation as tasks on our client, over HTTP and stdio.
//! - `skills_interop`: the Skills extension with its reference SDK (`@olaservo/ext-skills`):
//!   our client loads and verifies the reference server's skills, the reference client ours,
//!   over stdio and HTTP in both eras; and our client against our server.
//! - `load`: a pipelined burst of 10,000 requests over stdio and 5,000 concurrent calls from
//!   our client, each answered exactly once.
//! - `scale_out`: two `everything-server --redis` instances behind HAProxy (round-robin, no
//!   stickiness): a call resumed after its session's instance is killed (our client and the
//!   Python SDK client), a subscription across instances, a task outliving its instance.
//! - `examples`: each small example of `examples/src/bin/` run and checked: servers driven
//!   by our client in both eras, clients judged by their stdout, the OAuth pair against
//!   `oidc-provider`.
//! - `apps_browser`: MCP Apps in headless Chromium (WebDriver): a web host on the TypeScript
//!   SDK v2 client and the MCP Apps SDK's `AppBridge` renders the `apps-server` view through
//!   a sandbox proxy, in both eras; the view shows the tool's result, calls tools through the
//!   host and shows theirs; a screenshot per era under `<target>/apps-browser/`.
//! - `otel_interop`: OpenTelemetry across SDKs, both eras, stdio and HTTP: the Python SDK
//!   client (OpenTelemetry on) calls the `otel-server` example, whose spans and metrics
//!   reach an OTLP receiver the test runs (`support::otlp`) and must continue the Python
//!   client's trace with the conventions' names and attributes; our client (its `otel`
//!   layer in this process) calls the Python SDK server, whose span must continue ours.
//! - `proxy`: `mcp proxy` serving stdio servers over Streamable HTTP to clients of both eras
//!   (`everything-server` forwarded and bridged, a Python SDK 1.x server bridged for the
//!   Python SDK 2.3 client in auto mode), list changes, bad input, a server process exiting,
//!   and `mcp proxy --url` offering an HTTP server on stdio.
//! - `cli`: `mcp`, the command line, run as a process: every verb against `everything-server`
//!   (stdio and HTTP, both eras) and the Python SDK's server, `--json`, exit statuses,
//!   progress and log messages, elicitation and sampling on a real terminal (tmux) and
//!   refused without one, and an OAuth login through the loopback redirect whose token the
//!   next run uses without a login.
//! - `auth_oauth`: OAuth against a real authorization server (`oidc-provider`), with
//!   `everything-server --http --auth-issuer` and our client's `OAuthClient`.
//!
//! `examples/soak.rs` (not a test: `cargo xtask soak`) puts 1,000 HTTP sessions and stdio
//! servers under mixed load for minutes.

mod apps_browser;
mod auth_oauth;
mod auth_support;
mod cli;
mod client_eras;
mod client_interop;
mod client_shutdown;
mod client_stdio;
mod client_support;
mod eras;
mod examples;
mod fixture;
mod http_interop;
mod http_support;
mod interop_inspector;
mod interop_python;
mod load;
mod otel_interop;
mod proxy;
mod scale_out;
mod server_api;
mod skills_interop;
mod stdio;
mod support;
mod tasks_interop;
