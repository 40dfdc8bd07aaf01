//! `skills-server`: serves a folder of Agent Skills over stdio with the Skills extension
//! (`io.modelcontextprotocol/skills`).
//!
//! Run with:
//!
//! ```text
//! cargo build -p examples --bin skills-server && cargo build -p mcp-rs-cli
//! target/debug/mcp skills -- target/debug/skills-server examples/skills
//! target/debug/mcp skills skill://acme/billing/refunds/SKILL.md \
//!     -- target/debug/skills-server examples/skills
//! ```
//!
//! Every directory holding a `SKILL.md` under the folder is a skill, served at
//! `skill://<its path>/SKILL.md` (`examples/skills/acme/billing/refunds` is
//! `skill://acme/billing/refunds/SKILL.md`). Each skill is checked when the server starts
//! (frontmatter, name rules, limits): a broken one stops it with an error naming the file
//! and the rule. Clients list the skills with `skills/list` (every file with its SHA-256
//! digest), fetch one with `skills/get`, read files with `resources/read` and browse
//! directories with `resources/directory/read`. Edit a file while it runs: within two
//! seconds the next request sees the new digest. Files outside the folder, and symbolic
//! links, are never served.

use anyhow::Context as _;
use mcp_server::Server;
use mcp_server::skills::Skills;
use mcp_transport_stdio::StdioTransport;

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let folder = std::env::args()
        .nth(1)
        .context("usage: skills-server <folder of skills>")?;
    // An error's chain names the file and the rule it breaks (printed to stderr on exit).
    let skills = Skills::from_dir(&folder).with_context(|| format!("serving {folder}"))?;
    let count = skills.entries().len();
    let server = Server::builder()
        .name("skills-server")
        .version("1.0.0")
        .instructions(format!(
            "This server publishes {count} Agent Skills: list them with skills/list."
        ))
        .skills(skills)
        .build();
    server.serve(StdioTransport::stdio()?).await?;
    Ok(())
}
