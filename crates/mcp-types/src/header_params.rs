//! Tool parameters mirrored into HTTP headers (2026-07-28, Streamable HTTP): a property of a
//! tool's `inputSchema` annotated `"x-mcp-header": "<Name>"` travels, when a call gives it a
//! value, in the `Mcp-Param-<Name>` header as well as in the body, so that intermediaries can
//! route on it. [`Tool::header_params`] finds and checks the annotations; [`McpParamHeaders`]
//! carries the headers a server received. The header value encoding (plain, or
//! `=?base64?...?=`) belongs to the HTTP transport.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::{JsonObject, Tool};

/// The param of a request that its `Mcp-Name` header mirrors (2026-07-28 Streamable HTTP):
/// `name` for `tools/call` and `prompts/get`, `uri` for `resources/read`, `taskId` for the
/// tasks extension's `tasks/get`, `tasks/update` and `tasks/cancel`; `None` for the other
/// methods, which send no `Mcp-Name`.
///
/// ```
/// assert_eq!(mcp_types::mcp_name_param("resources/read"), Some("uri"));
/// assert_eq!(mcp_types::mcp_name_param("tasks/get"), Some("taskId"));
/// assert_eq!(mcp_types::mcp_name_param("tools/list"), None);
/// ```
pub fn mcp_name_param(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// The schema keyword that mirrors a property into a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// The largest integer a header parameter may carry (±(2^53 − 1)).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// One `x-mcp-header` parameter of a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeaderParam {
    /// The header name's suffix: the value is sent as `Mcp-Param-<header>`.
    pub header: String,
    /// The property names from the root of `inputSchema` down to the parameter.
    pub path: Vec<String>,
    /// The parameter's JSON type.
    pub kind: HeaderParamKind,
}

/// The JSON types a header parameter may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderParamKind {
    /// `"type": "string"`.
    String,
    /// `"type": "integer"`, within ±(2^53 − 1).
    Integer,
    /// `"type": "boolean"`.
    Boolean,
}

/// Why a tool's `x-mcp-header` annotations are invalid (a client drops such a tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidHeaderParam(String);

impl fmt::Display for InvalidHeaderParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidHeaderParam {}

impl Tool {
    /// The tool's `x-mcp-header` parameters, checked against the rules of the 2026-07-28
    /// Streamable HTTP transport: each header name non-empty, an HTTP token, unique among the
    /// tool's (ignoring case); each on a `string`, `integer` or `boolean` property reached from
    /// the root through `properties` alone (not through `items`, `$ref`, `allOf`, `if`, ...).
    /// An annotation anywhere else makes the whole tool invalid.
    ///
    /// ```
    /// use mcp_types::{HeaderParamKind, Tool};
    ///
    /// let schema = serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}
    /// });
    /// let tool = Tool::new("query", serde_json::from_value(schema).unwrap());
    /// let params = tool.header_params().unwrap();
    /// assert_eq!(params[0].header, "Region");
    /// assert_eq!(params[0].path, ["region"]);
    /// assert_eq!(params[0].kind, HeaderParamKind::String);
    /// ```
    pub fn header_params(&self) -> Result<Vec<HeaderParam>, InvalidHeaderParam> {
        let mut found = Vec::new();
        collect(&self.input_schema, &mut Vec::new(), &mut found)?;
        let everywhere = count_annotations(&Value::Object(self.input_schema.clone()));
        if everywhere != found.len() {
            return Err(InvalidHeaderParam(format!(
                "tool {}: an {X_MCP_HEADER} annotation is only allowed on a property reached \
                 through `properties` alone",
                self.name
            )));
        }
        for (i, p) in found.iter().enumerate() {
            if found[..i]
                .iter()
                .any(|q| q.header.eq_ignore_ascii_case(&p.header))
            {
                return Err(InvalidHeaderParam(format!(
                    "tool {}: {X_MCP_HEADER} {:?} is used twice",
                    self.name, p.header
                )));
            }
        }
        Ok(found)
    }
}

fn collect(
    schema: &JsonObject,
    path: &mut Vec<String>,
    found: &mut Vec<HeaderParam>,
) -> Result<(), InvalidHeaderParam> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Ok(());
    };
    for (name, property) in properties {
        let Value::Object(property) = property else {
            continue;
        };
        path.push(name.clone());
        if let Some(header) = property.get(X_MCP_HEADER) {
            found.push(header_param(header, property, path)?);
        }
        collect(property, path, found)?;
        path.pop();
    }
    Ok(())
}

fn header_param(
    header: &Value,
    property: &JsonObject,
    path: &[String],
) -> Result<HeaderParam, InvalidHeaderParam> {
    let at = path.join(".");
    let Some(header) = header.as_str().filter(|h| is_token(h)) else {
        return Err(InvalidHeaderParam(format!(
            "{X_MCP_HEADER} of {at} must be a non-empty HTTP token"
        )));
    };
    let kind = match property.get("type").and_then(Value::as_str) {
        Some("string") => HeaderParamKind::String,
        Some("integer") => HeaderParamKind::Integer,
        Some("boolean") => HeaderParamKind::Boolean,
        _ => {
            return Err(InvalidHeaderParam(format!(
                "{X_MCP_HEADER} of {at} needs a string, integer or boolean property"
            )));
        }
    };
    Ok(HeaderParam {
        header: header.to_owned(),
        path: path.to_vec(),
        kind,
    })
}

/// RFC 9110 `token`: one or more `tchar`.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn count_annotations(v: &Value) -> usize {
    match v {
        Value::Object(o) => {
            usize::from(o.contains_key(X_MCP_HEADER))
                + o.values().map(count_annotations).sum::<usize>()
        }
        Value::Array(a) => a.iter().map(count_annotations).sum(),
        _ => 0,
    }
}

impl HeaderParam {
    /// The parameter's value in a call's arguments; `None` when absent or `null` (then no
    /// header is sent, and none is expected).
    pub fn value<'a>(&self, arguments: &'a JsonObject) -> Option<&'a Value> {
        let (last, parents) = self.path.split_last()?;
        let mut object = arguments;
        for name in parents {
            object = object.get(name)?.as_object()?;
        }
        object.get(last).filter(|v| !v.is_null())
    }

    /// The header text of `value` before any transport encoding: a string as is, an integer in
    /// decimal, a boolean as `true`/`false`; `None` for a value of another type (or an
    /// integer out of range).
    pub fn text(&self, value: &Value) -> Option<String> {
        match (self.kind, value) {
            (HeaderParamKind::String, Value::String(s)) => Some(s.clone()),
            (HeaderParamKind::Integer, Value::Number(n)) => {
                let i = n
                    .as_i64()
                    .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))?;
                (i.abs() <= MAX_SAFE_INTEGER).then(|| i.to_string())
            }
            (HeaderParamKind::Boolean, Value::Bool(b)) => Some(b.to_string()),
            _ => None,
        }
    }

    /// Whether a received (already decoded) header value stands for `value`: strings compare
    /// exactly, integers numerically (`42` and `42.0`), booleans as `true`/`false`.
    pub fn matches(&self, value: &Value, header: &str) -> bool {
        match self.kind {
            HeaderParamKind::Integer => {
                let want = value.as_f64();
                let got = header.trim().parse::<f64>().ok();
                want.is_some() && want == got
            }
            _ => self.text(value).as_deref() == Some(header),
        }
    }
}

/// The `Mcp-Param-*` headers of one `tools/call` (names without the prefix, looked up
/// ignoring case; values as text, before or after the transport's `=?base64?...?=` encoding).
///
/// - A server's Streamable HTTP transport attaches the headers it received (decoded) to the
///   request's extensions; the server checks them against the called tool's
///   [`HeaderParam`]s.
/// - A client attaches the headers to send to its outgoing request's extensions
///   ([`for_call`](Self::for_call) derives them from the tool and the arguments); a Streamable
///   HTTP client transport encodes and sends them, other transports ignore them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpParamHeaders {
    values: BTreeMap<String, String>,
}

impl McpParamHeaders {
    /// Checks these headers against a `tools/call`'s arguments, as a 2026-07-28 server does:
    /// every one of `params` whose argument has a value must come with a header standing for
    /// that value, and no header may stand for an absent value.
    ///
    /// ```
    /// use mcp_types::{HeaderParam, McpParamHeaders};
    /// use serde_json::json;
    ///
    /// let tool: mcp_types::Tool = serde_json::from_value(json!({
    ///     "name": "get", "inputSchema": {"type": "object", "properties": {
    ///         "region": {"type": "string", "x-mcp-header": "Region"}}}
    /// })).unwrap();
    /// let params: Vec<HeaderParam> = tool.header_params().unwrap();
    /// let args = json!({"region": "eu"});
    /// let mut headers = McpParamHeaders::default();
    /// assert!(headers.check(&params, args.as_object()).is_err()); // the header is missing
    /// headers.insert("Region", "eu");
    /// assert!(headers.check(&params, args.as_object()).is_ok());
    /// ```
    ///
    /// # Errors
    ///
    /// [`HeaderMismatch`], saying which header and how.
    pub fn check(
        &self,
        params: &[HeaderParam],
        arguments: Option<&JsonObject>,
    ) -> Result<(), HeaderMismatch> {
        let empty = JsonObject::new();
        let arguments = arguments.unwrap_or(&empty);
        for param in params {
            let name = &param.header;
            let what = match (param.value(arguments), self.get(name)) {
                (Some(value), Some(header)) if param.matches(value, header) => continue,
                (None, None) => continue,
                (Some(_), Some(header)) => {
                    format!("Mcp-Param-{name} value {header:?} does not match the argument")
                }
                (Some(_), None) => {
                    format!("Mcp-Param-{name} is required when the argument has a value")
                }
                (None, Some(_)) => {
                    format!("Mcp-Param-{name} was sent for an argument without a value")
                }
            };
            return Err(HeaderMismatch(what));
        }
        Ok(())
    }

    /// No headers.
    pub fn new() -> Self {
        McpParamHeaders::default()
    }

    /// Records `Mcp-Param-<name>: <value>` (the value decoded).
    pub fn insert(&mut self, name: &str, value: impl Into<String>) {
        self.values.insert(name.to_ascii_lowercase(), value.into());
    }

    /// The value of `Mcp-Param-<name>`, whatever the case of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// Whether there is no header.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The headers, as (name in lower case, value), ordered by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The headers a call of a tool with these `params` carries with `arguments`: one per
    /// parameter that has a value there (an absent or `null` value sends none).
    ///
    /// ```
    /// use mcp_types::{McpParamHeaders, Tool};
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object", "properties": {
    ///     "region": {"type": "string", "x-mcp-header": "Region"},
    ///     "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}});
    /// let tool = Tool::new("deploy", serde_json::from_value(schema).unwrap());
    /// let params = tool.header_params().unwrap();
    /// let args = json!({"region": "us-west1"});
    /// let headers = McpParamHeaders::for_call(&params, args.as_object().unwrap());
    /// assert_eq!(headers.iter().collect::<Vec<_>>(), [("region", "us-west1")]);
    /// ```
    pub fn for_call(params: &[HeaderParam], arguments: &JsonObject) -> Self {
        let mut headers = McpParamHeaders::new();
        for param in params {
            if let Some(text) = param.value(arguments).and_then(|v| param.text(v)) {
                headers.insert(&param.header, text);
            }
        }
        headers
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(schema: Value) -> Tool {
        Tool::new("t", serde_json::from_value(schema).unwrap())
    }

    #[test]
    fn finds_nested_properties_and_checks_the_rules() {
        let t = tool(json!({"type": "object", "properties": {
            "a": {"type": "integer", "x-mcp-header": "A"},
            "o": {"type": "object", "properties": {"b": {"type": "boolean", "x-mcp-header": "B"}}}
        }}));
        let params = t.header_params().unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(params[1].path, ["o", "b"]);
        let args: JsonObject = serde_json::from_value(json!({"a": 42, "o": {"b": true}})).unwrap();
        assert_eq!(params[0].value(&args), Some(&json!(42)));
        assert!(params[0].matches(&json!(42), "42"));
        assert!(params[0].matches(&json!(42.0), "42"));
        assert!(!params[0].matches(&json!(42), "43"));
        assert_eq!(params[1].text(&json!(true)).as_deref(), Some("true"));
        let null: JsonObject = serde_json::from_value(json!({"a": null})).unwrap();
        assert_eq!(params[0].value(&null), None);

        for bad in [
            json!({"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}),
            json!({"type": "object", "properties": {"s": {"type": "string", "x-mcp-header": "bad name"}}}),
            json!({"type": "object", "properties": {"s": {"type": "string", "x-mcp-header": ""}}}),
            json!({"type": "object", "properties": {
                "s": {"type": "string", "x-mcp-header": "X"},
                "t": {"type": "string", "x-mcp-header": "x"}}}),
            json!({"type": "object", "properties": {"l": {"type": "array",
                "items": {"type": "string", "x-mcp-header": "L"}}}}),
            json!({"type": "object", "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}}),
        ] {
            assert!(tool(bad.clone()).header_params().is_err(), "{bad}");
        }
    }

    #[test]
    fn param_headers_ignore_case() {
        let mut h = McpParamHeaders::new();
        h.insert("Region", "eu");
        assert_eq!(h.get("region"), Some("eu"));
        assert_eq!(h.get("REGION"), Some("eu"));
        assert!(!h.is_empty());
    }
}

/// How a call's `Mcp-Param-*` headers fail to stand for its arguments
/// ([`McpParamHeaders::check`]): the text after "Header mismatch: " in the -32020 error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderMismatch(pub String);

impl fmt::Display for HeaderMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HeaderMismatch {}
