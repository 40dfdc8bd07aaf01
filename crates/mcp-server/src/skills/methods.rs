//! The extension's methods, through the router's seam: `skills/list`, `skills/get` and, with
//! `directoryRead`, `resources/directory/read`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_types::{
    DIRECTORY_MIME_TYPE, Era, GetSkill, GetSkillRequestParams, GetSkillResult, JsonObject,
    ListSkills, Meta, PaginatedRequestParams, ProtocolVersion, ReadResourceDirectory,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, Request, ResultType,
    SKILLS_EXTENSION, SkillsSettings,
};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::catalog::Catalog;
use super::paths::decoded;
use crate::context::Context;
use crate::envelope::{Enveloped, list_trailer, stamp};
use crate::error::Error;
use crate::extension::{Extension, Reply};
use crate::handler::BoxFuture;
use crate::registry::{decode_cursor, encode_cursor};
use crate::server::{Server, ServerInner, visible};
use crate::service::McpResponse;

impl Enveloped for GetSkillResult {
    fn parts(&mut self) -> (&mut Option<ResultType>, &mut Option<Meta>) {
        (&mut self.result_type, &mut self.meta)
    }
}

impl Enveloped for ReadResourceDirectoryResult {
    fn parts(&mut self) -> (&mut Option<ResultType>, &mut Option<Meta>) {
        (&mut self.result_type, &mut self.meta)
    }
}

/// The Skills extension as the router sees it.
pub(crate) struct SkillsExtension {
    pub(crate) catalog: Arc<Catalog>,
    /// Fixed when the server is built.
    pub(crate) directory_read: bool,
}

impl Extension for SkillsExtension {
    fn id(&self) -> &'static str {
        SKILLS_EXTENSION
    }

    /// Offered from 2025-11-25 on, the first revision with `capabilities.extensions`.
    fn settings(&self, version: &ProtocolVersion) -> Option<JsonObject> {
        if *version < ProtocolVersion::V2025_11_25 {
            return None;
        }
        let mut settings = SkillsSettings::default();
        if self.directory_read {
            settings = settings.with_directory_read(true);
        }
        match serde_json::to_value(settings) {
            Ok(serde_json::Value::Object(settings)) => Some(settings),
            _ => Some(JsonObject::new()),
        }
    }

    fn needs_resources(&self) -> bool {
        true
    }

    fn serves(&self, method: &str) -> bool {
        method == ListSkills::METHOD
            || method == GetSkill::METHOD
            || (self.directory_read && method == ReadResourceDirectory::METHOD)
    }

    fn route(
        &self,
        server: &Arc<ServerInner>,
        method: Cow<'static, str>,
        params: Option<Box<RawValue>>,
        cx: Context,
    ) -> BoxFuture<Reply> {
        let catalog = self.catalog.clone();
        let server = server.clone();
        Box::pin(async move {
            catalog.revalidate_if_due(&Server::from_inner(server.clone()));
            let methods = Methods {
                catalog: &catalog,
                server: &server,
                cx: &cx,
            };
            match &*method {
                ListSkills::METHOD => methods.list(parse(&method, params.as_deref())?),
                GetSkill::METHOD => methods.get(parse(&method, params.as_deref())?),
                _ => methods.directory(parse(&method, params.as_deref())?),
            }
        })
    }
}

/// A method's params; absent params are the defaults (a missing required member is then
/// -32602 like any other).
fn parse<T: DeserializeOwned>(method: &str, params: Option<&RawValue>) -> Result<T, Error> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text)
        .map_err(|e| Error::invalid_params(format!("invalid params for {method}: {e}")))
}

struct Methods<'a> {
    catalog: &'a Catalog,
    server: &'a ServerInner,
    cx: &'a Context,
}

impl Methods<'_> {
    fn modern(&self) -> bool {
        self.cx.protocol_version().era() == Era::Stateless
    }

    /// `skills/list`: a page of entries, with the cache hints on 2026-07-28.
    fn list(&self, p: PaginatedRequestParams) -> Reply {
        let trailer = if self.modern() {
            list_trailer(self.catalog.config().hints, &self.server.server_info)
        } else {
            String::new()
        };
        let page = self
            .catalog
            .entries
            .page(
                "skills",
                p.cursor.as_deref(),
                self.server.paging,
                None,
                false,
                &trailer,
            )
            .map_err(Error::Rpc)?;
        Ok(McpResponse::from_raw(page))
    }

    /// `skills/get`: one entry, or -32602.
    fn get(&self, p: GetSkillRequestParams) -> Reply {
        let entry = self
            .catalog
            .entries
            .get(&p.uri)
            .ok_or_else(|| Error::invalid_params(format!("No skill is served at {}", p.uri)))?;
        let mut result = GetSkillResult::new(entry.0.clone());
        self.respond(&mut result, |result, hints| {
            result.ttl_ms = Some(hints.ttl_ms());
            result.cache_scope = Some(hints.scope);
        })
    }

    /// `resources/directory/read`: a page of a directory's direct children, or -32602.
    fn directory(&self, p: ReadResourceDirectoryRequestParams) -> Reply {
        // A directory URI has a path after its scheme and no trailing slash.
        let dir = p.uri.as_str();
        let well_formed = dir
            .split_once("://")
            .is_some_and(|(_, path)| !path.is_empty() && !path.ends_with('/'));
        let prefix = format!("{dir}/");
        let files = if well_formed {
            self.catalog.files_under(&prefix)
        } else {
            Vec::new()
        };
        if files.is_empty() {
            let why = if self.catalog.file(dir).is_some() {
                format!("{dir} is not a directory resource")
            } else {
                format!("No directory resource is served at {dir}")
            };
            return Err(Box::new(Error::invalid_params(why)));
        }
        // The direct children, by segment: a file's resource, or a subdirectory.
        let filter = self.server.filters.resources.as_ref();
        let mut children: BTreeMap<&str, Option<mcp_types::Resource>> = BTreeMap::new();
        for file in &files {
            let rest = &file.uri[prefix.len()..];
            match rest.split_once('/') {
                Some((subdir, _)) => {
                    children.entry(subdir).or_insert(None);
                }
                None => {
                    let shown = self
                        .server
                        .resources
                        .get(&file.uri)
                        .is_some_and(|r| visible(filter, &r, self.cx));
                    if shown {
                        children.insert(rest, Some(file.definition()));
                    }
                }
            }
        }
        let children: Vec<mcp_types::Resource> = children
            .into_iter()
            .map(|(segment, child)| {
                child.unwrap_or_else(|| {
                    let mut dir =
                        mcp_types::Resource::new(format!("{prefix}{segment}"), decoded(segment));
                    dir.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned());
                    dir
                })
            })
            .collect();
        let start = match p.cursor.as_deref() {
            Some(cursor) => decode_cursor(cursor)
                .filter(|&n| n <= children.len())
                .ok_or_else(|| Error::invalid_params("Invalid cursor"))?,
            None => 0,
        };
        let end = start
            .saturating_add(self.server.paging.count())
            .min(children.len());
        let mut result = ReadResourceDirectoryResult::new(children[start..end].to_vec());
        if end < children.len() {
            result.next_cursor = Some(encode_cursor(end));
        }
        self.respond(&mut result, |_, _| {})
    }

    /// `result` in the revision's envelope, with the cache hints (`hints`) on 2026-07-28.
    fn respond<T: Enveloped + serde::Serialize>(
        &self,
        result: &mut T,
        hints: impl FnOnce(&mut T, crate::cache::CacheHints),
    ) -> Reply {
        if self.modern() {
            hints(result, self.catalog.config().hints);
            stamp(result, &self.server.server_info);
        }
        Ok(McpResponse::new(result)?)
    }
}
