//! `resources`: static resources, a URI template, and subscriptions to resource updates.
//!
//! ```text
//! cargo build -p examples --bin resources && cargo build -p mcp-rs-cli
//! target/debug/mcp resources -- target/debug/resources
//! target/debug/mcp read weather://paris/current -- target/debug/resources
//! ```
//!
//! - `docs://readme` (text) and `docs://logo.png` (bytes, sent base64-encoded): fixed contents.
//! - `weather://{city}/current`: one resource per city, read by a handler that gets the city
//!   from the URI ([`UriParams`]); an unknown city is "resource not found". The `city`
//!   variable completes from the known cities.
//! - The tool `set_temperature` changes a city's weather and calls
//!   `notify_resource_updated`: clients subscribed to that city's URI (`resources/subscribe`,
//!   or `subscriptions/listen` on 2026-07-28) get `notifications/resources/updated`, and
//!   read it again.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mcp_server::{Error, Resource, ResourceTemplate, Server, State, Tool, UriParams};
use mcp_transport_stdio::StdioTransport;
use schemars::JsonSchema;
use serde::Deserialize;

/// Temperatures in °C, by city.
#[derive(Clone)]
struct Weather(Arc<Mutex<BTreeMap<String, i32>>>);

async fn current(params: UriParams, State(weather): State<Weather>) -> Result<String, Error> {
    let city = params.get("city").unwrap_or_default();
    let celsius = weather.0.lock().ok().and_then(|w| w.get(city).copied());
    match celsius {
        Some(celsius) => Ok(format!("{city}: {celsius} °C")),
        // -32002 with the URI (-32602 on 2026-07-28): the client knows what was missing.
        None => Err(Error::resource_not_found(params.uri())),
    }
}

#[derive(Deserialize, JsonSchema)]
struct SetTemperature {
    /// A known city: paris, oslo or lima.
    city: String,
    /// The new temperature, in °C.
    celsius: i32,
}

async fn set_temperature(
    args: SetTemperature,
    State(weather): State<Weather>,
    server: Server,
) -> Result<String, Error> {
    if let Ok(mut all) = weather.0.lock() {
        let Some(slot) = all.get_mut(&args.city) else {
            return Err(Error::invalid_params(format!("unknown city {}", args.city)));
        };
        *slot = args.celsius;
    }
    // Only the sessions subscribed to this URI are told.
    server.notify_resource_updated(&format!("weather://{}/current", args.city));
    Ok(format!("{} is now {} °C", args.city, args.celsius))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let cities = [("paris", 18), ("oslo", 4), ("lima", 22)];
    let weather = cities.map(|(c, t)| (c.to_owned(), t)).into_iter().collect();
    let city_names = cities.map(|(c, _)| c);
    let server = Server::builder()
        .name("resources")
        .version("1.0.0")
        .state(Weather(Arc::new(Mutex::new(weather))))
        .resource(
            Resource::text("docs://readme", "readme", "# Weather\n\nAsk for any city.")
                .mime_type("text/markdown"),
        )
        .resource(
            Resource::blob("docs://logo.png", "logo", *b"\x89PNG\r\n\x1a\n").mime_type("image/png"),
        )
        .resource_template(
            ResourceTemplate::new("weather://{city}/current", "current weather", current)?
                .description("The current temperature of a city")
                .mime_type("text/plain")
                .complete_values("city", city_names),
        )
        .tool(
            Tool::typed("set_temperature", set_temperature)
                .description("Sets the current temperature of a city"),
        )
        .build();
    server.serve(StdioTransport::stdio()?).await?;
    Ok(())
}
