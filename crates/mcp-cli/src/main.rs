//! `mcp`, the Model Context Protocol command line.
//!
//! Talk to any MCP server, run as a child process over stdio (`-- CMD ARGS...`) or reached
//! over Streamable HTTP (`--url URL`), in whichever protocol era it speaks:
//!
//! ```text
//! mcp tools -- npx -y @modelcontextprotocol/server-everything
//! mcp call add --arg a=1 --arg b=2 --url http://127.0.0.1:3000/mcp
//! mcp read test://static/resource/1 --json -- ./my-server
//! ```
//!
//! and put a stdio server on the network with `mcp proxy`. `mcp --help` lists the commands,
//! `mcp help COMMAND` (or `mcp COMMAND --help`) describes one. The exit status tells what
//! happened ([`exit`]): 0 success, 1 the tool reported an error (`isError: true`), 2 a usage
//! error, 3 the server answered with an error (or broke the protocol), 4 the server could
//! not be reached (or the connection failed).
//!
//! The program is written on the SDK's public client API only: `mcp-client`'s `Client`,
//! `mcp-transport-stdio`'s `ChildProcessTransport`, `mcp-transport-http`'s client transport
//! and `mcp-auth`'s `OAuthClient`.

mod args;
mod auth;
mod cli;
mod connect;
mod exit;
mod interact;
mod progress;
// `mcp proxy` (its own module tree): `ProxyArgs` and `run` are `pub`, which in a binary crate
// reaches no further than the crate.
#[allow(unreachable_pub)]
mod proxy;
mod render;
mod verbs;

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser as _;

use crate::cli::{Cli, Command};
use crate::exit::{Exit, Failure};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `--help` and `--version` print and exit 0; usage errors print and exit 2.
        Err(e) => e.exit(),
    };
    init_tracing(cli.command.verbose());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "mcp: cannot start the runtime: {e}");
            return ExitCode::from(Exit::Connection.code());
        }
    };
    let json = cli.command.json();
    let outcome = runtime.block_on(async {
        tokio::select! {
            outcome = run(cli.command) => outcome,
            _ = tokio::signal::ctrl_c() => Err(Failure::interrupted()),
        }
    });
    let code = match outcome {
        Ok(exit) => exit,
        Err(failure) => {
            failure.report(json);
            failure.exit
        }
    };
    let _ = std::io::stdout().flush();
    // A prompt may still be waiting for a line of the terminal on a blocking thread: leave
    // without waiting for it (the runtime's drop would).
    std::process::exit(i32::from(code.code()))
}

/// `RUST_LOG` filters the SDK's logs (to stderr; off by default, `warn` with `--verbose`).
fn init_tracing(verbose: bool) {
    let default = if verbose { "warn" } else { "off" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

async fn run(command: Command) -> Result<Exit, Failure> {
    match command {
        Command::Tools(args) => verbs::tools(args).await,
        Command::Call(args) => verbs::call(args).await,
        Command::Resources(args) => verbs::resources(args).await,
        Command::Read(args) => verbs::read(args).await,
        Command::Prompts(args) => verbs::prompts(args).await,
        Command::Prompt(args) => verbs::prompt(args).await,
        Command::Complete(args) => verbs::complete(args).await,
        Command::Skills(args) => verbs::skills(args).await,
        Command::Info(args) => verbs::info(args).await,
        Command::Logout(args) => auth::logout(&args).map_err(Failure::usage),
        Command::Completions(args) => verbs::completions(&args),
        Command::Proxy(args) => match proxy::run(args).await {
            Ok(()) => Ok(Exit::Ok),
            Err(e) => Err(Failure::connection(e)),
        },
    }
}
