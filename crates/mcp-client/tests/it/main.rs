//! Integration tests of `mcp-client` against a scripted fake server over the memory pair.

#[cfg(feature = "apps")]
mod apps;
mod calls;
mod close;
mod init;
mod modern;
mod not_running;
mod notifications;
mod output_schema;
mod pages;
mod ping;
mod received_tasks;
mod server_requests;
#[cfg(feature = "skills")]
mod skills;
mod support;
mod timeouts;
mod typed;
