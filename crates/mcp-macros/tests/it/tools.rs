//! `#[tool]` on functions and `#[tools]` on an impl block: schemas, descriptions and calls.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use mcp_client::Client;
use mcp_server::types::{CallToolRequestParams, ErrorCode};
use mcp_server::{Context, Error, FromContext, HandlerError, Server, State, tool, tools};
use serde_json::{Value, json};

use crate::support::{connect, json};

/// The running total, shared by every call of `add`.
#[derive(Clone, Default)]
struct Total(Arc<AtomicI64>);

/// Adds two numbers to the running total.
///
/// Returns the new total.
#[tool]
async fn add(
    /// The first number.
    a: i64,
    State(total): State<Total>,
    /// The second number (0 if absent).
    b: Option<i64>,
) -> i64 {
    let sum = a + b.unwrap_or(0);
    total.0.fetch_add(sum, Ordering::Relaxed) + sum
}

/// Not this description.
#[tool(name = "greet", description = "Greets someone", title = "Greeter")]
async fn hello(
    /// Who to greet.
    name: String,
    cx: Context,
    #[serde(default)] shout: bool,
) -> String {
    let text = format!(
        "hello {name} ({})",
        cx.client_info().map_or("?", |c| &c.name)
    );
    if shout { text.to_uppercase() } else { text }
}

#[tool]
async fn ping() -> &'static str {
    "pong"
}

/// The caller, from the request's extensions.
#[derive(Clone)]
struct User(String);

impl FromContext for User {
    fn from_context(cx: &Context) -> Result<Self, Error> {
        let user = cx.extensions().get::<User>().cloned();
        user.ok_or_else(|| Error::rpc(-32001, "sign in first"))
    }
}

/// Who is calling.
#[tool]
async fn whoami(#[from_context] user: Option<User>, _server: Server) -> String {
    user.map_or_else(|| "nobody".to_owned(), |u| u.0)
}

/// Divides `a` by `b`.
#[tool]
async fn divide(a: i64, b: i64) -> Result<String, HandlerError> {
    if b == 0 {
        return Err(HandlerError::msg("division by zero"));
    }
    Ok((a / b).to_string())
}

/// A counter whose tools are its methods.
struct Counter {
    count: AtomicI64,
    step: i64,
}

#[tools]
impl Counter {
    /// Adds the step to the counter.
    #[tool]
    async fn bump(
        &self,
        /// How many steps.
        times: u32,
    ) -> i64 {
        self.count
            .fetch_add(self.step * i64::from(times), Ordering::Relaxed)
            + self.step * i64::from(times)
    }

    /// The counter's value.
    #[tool(name = "counter_value")]
    pub(crate) async fn value(self: Arc<Self>) -> i64 {
        self.count.load(Ordering::Relaxed)
    }

    /// Says which request this is.
    #[tool]
    async fn request(cx: Context) -> String {
        format!("request {}", cx.request_id())
    }

    /// Compiled out, with its companion and its place in `tools()`.
    #[cfg(any())]
    #[tool]
    async fn gone(&self) -> i64 {
        0
    }

    /// Not a tool: left alone.
    fn helper(&self) -> i64 {
        self.step
    }
}

async fn client() -> anyhow::Result<Client> {
    let counter = Arc::new(Counter {
        count: AtomicI64::new(0),
        step: 10,
    });
    assert_eq!(counter.helper(), 10);
    let mut builder = Server::builder()
        .state(Total::default())
        .tool(add_tool())
        .tool(hello_tool())
        .tool(ping_tool())
        .tool(whoami_tool())
        .tool(divide_tool());
    for tool in counter.tools() {
        builder = builder.tool(tool);
    }
    connect(builder).await
}

async fn call(client: &Client, name: &str, args: Value) -> Result<Value, mcp_client::Error> {
    let mut call = CallToolRequestParams::new(name);
    call.arguments = serde_json::from_value(args).expect("an object");
    client.call_tool(call).await.map(|r| json(&r))
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("<no text>")
}

#[tokio::test]
async fn listed_schemas_and_descriptions_come_from_the_signature() -> anyhow::Result<()> {
    let client = client().await?;
    let listed = json(&client.list_tools(None).await?);
    let tools: Vec<&Value> = listed["tools"].as_array().into_iter().flatten().collect();
    let find = |name: &str| {
        tools
            .iter()
            .copied()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no tool {name} in {listed}"))
    };
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "add",
            "greet",
            "ping",
            "whoami",
            "divide",
            "bump",
            "counter_value",
            "request"
        ]
    );

    let add = find("add");
    assert_eq!(
        add["description"],
        "Adds two numbers to the running total.\n\nReturns the new total."
    );
    let schema = &add["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["title"], "add");
    assert_eq!(schema["required"], json!(["a"]));
    assert_eq!(
        schema["properties"]["a"]["description"],
        "The first number."
    );
    assert_eq!(schema["properties"]["a"]["type"], "integer");
    assert_eq!(
        schema["properties"]["b"]["description"],
        "The second number (0 if absent)."
    );
    assert_eq!(schema["properties"].as_object().map(|p| p.len()), Some(2));

    let greet = find("greet");
    assert_eq!(greet["description"], "Greets someone");
    assert_eq!(greet["title"], "Greeter");
    assert_eq!(greet["inputSchema"]["required"], json!(["name"]));
    assert_eq!(greet["inputSchema"]["title"], "greet");
    assert_eq!(
        greet["inputSchema"]["properties"]["shout"]["type"],
        "boolean"
    );

    let ping = find("ping");
    assert_eq!(ping.get("description"), None);
    assert_eq!(
        ping["inputSchema"],
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(find("whoami")["inputSchema"]["properties"], json!({}));

    let bump = find("bump");
    assert_eq!(bump["description"], "Adds the step to the counter.");
    assert_eq!(
        bump["inputSchema"]["properties"]["times"]["description"],
        "How many steps."
    );
    assert_eq!(find("counter_value")["description"], "The counter's value.");
    Ok(())
}

#[tokio::test]
async fn calls_reach_the_functions_with_their_extractors() -> anyhow::Result<()> {
    let client = client().await?;
    assert_eq!(
        text(&call(&client, "add", json!({"a": 2, "b": 3})).await?),
        "5"
    );
    assert_eq!(text(&call(&client, "add", json!({"a": 1})).await?), "6");
    let greeted = call(&client, "greet", json!({"name": "Ada", "shout": true})).await?;
    assert_eq!(text(&greeted), "HELLO ADA (MCP-CLIENT)");
    assert_eq!(text(&call(&client, "ping", json!({})).await?), "pong");
    assert_eq!(text(&call(&client, "whoami", json!({})).await?), "nobody");
    assert_eq!(
        text(&call(&client, "divide", json!({"a": 7, "b": 2})).await?),
        "3"
    );
    let failed = call(&client, "divide", json!({"a": 7, "b": 0})).await?;
    assert_eq!(
        (text(&failed), &failed["isError"]),
        ("division by zero", &json!(true))
    );

    assert_eq!(
        text(&call(&client, "bump", json!({"times": 2})).await?),
        "20"
    );
    assert_eq!(
        text(&call(&client, "bump", json!({"times": 1})).await?),
        "30"
    );
    assert_eq!(
        text(&call(&client, "counter_value", json!({})).await?),
        "30"
    );
    assert!(text(&call(&client, "request", json!({})).await?).starts_with("request "));
    Ok(())
}

#[tokio::test]
async fn bad_arguments_are_invalid_params() -> anyhow::Result<()> {
    let client = client().await?;
    for (tool, args) in [
        ("add", json!({"a": "two"})),
        ("add", json!({"b": 1})),
        ("bump", json!({"times": -1})),
        ("greet", json!({"name": 5})),
    ] {
        match call(&client, tool, args.clone()).await {
            Err(mcp_client::Error::Rpc(e)) => {
                assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{tool} {args}: {e:?}");
                assert!(e.message.contains(tool), "{tool} {args}: {e:?}");
            }
            other => panic!("{tool} {args}: {other:?}"),
        }
    }
    Ok(())
}

#[test]
fn the_functions_stay_callable() {
    let total = Total::default();
    let run = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    assert_eq!(run.block_on(add(1, State(total.clone()), Some(2))), 3);
    assert_eq!(run.block_on(divide(9, 3)).ok(), Some("3".to_owned()));
}

/// A point; its tool takes another `Self`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

#[tools]
impl Point {
    /// The Manhattan distance to another point.
    #[tool]
    async fn distance(
        &self,
        /// The other point.
        other: Self,
    ) -> i64 {
        (self.x - other.x).abs() + (self.y - other.y).abs()
    }
}

#[tokio::test]
async fn self_in_an_argument_type_names_the_impl_type() -> anyhow::Result<()> {
    let origin = Arc::new(Point { x: 0, y: 0 });
    let tools = origin.tools();
    let schema = json(&tools[0].definition().input_schema);
    assert_eq!(
        schema["properties"]["other"]["description"],
        "The other point."
    );
    let client = connect(Server::builder().tool(tools[0].clone())).await?;
    let args = json!({"other": {"x": 3, "y": -4}});
    assert_eq!(text(&call(&client, "distance", args).await?), "7");
    Ok(())
}
