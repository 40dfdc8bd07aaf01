//! The command line: clap's derive of every command, its options and their help.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use mcp_client::EraChoice;
use mcp_client::types::ProtocolVersion;

use crate::proxy;

/// The exit statuses, shown by `--help` (see [`crate::exit::Exit`]).
pub(crate) const EXIT_STATUS: &str = "\
Exit status:
  0    success
  1    the tool ran and reported an error (`isError: true`)
  2    usage error: bad command line, bad --arg or --args
  3    the server answered with a JSON-RPC error, or broke the protocol
  4    the server could not be started or reached, the connection failed, a request
       timed out, or authorization failed
  130  interrupted (Ctrl-C)";

/// The server, shown by `--help` of the commands that talk to one.
const SERVER_HELP: &str = "\
The server is a program to run, after `--` (it speaks MCP on its stdin and stdout), or a
Streamable HTTP endpoint given with --url. The protocol era is negotiated: 2026-07-28 if the
server speaks it, else the handshake revisions (--era to force one).

Examples:
  mcp tools -- npx -y @modelcontextprotocol/server-everything
  mcp tools --url http://127.0.0.1:3000/mcp";

/// `mcp`: talk to a Model Context Protocol server from the command line.
#[derive(Debug, Parser)]
#[command(
    name = "mcp",
    version,
    about = "Talk to a Model Context Protocol server from the command line",
    long_about = "Talk to a Model Context Protocol server from the command line: list and call \
                  its tools, read its resources, get its prompts and skills; or serve a stdio \
                  server over Streamable HTTP with `mcp proxy`.\n\n\
                  The server is a program to run, after `--`, or a URL given with --url:\n  \
                  mcp tools -- ./my-server --flag\n  \
                  mcp call add --arg a=1 --arg b=2 --url http://127.0.0.1:3000/mcp\n\n\
                  Output is for people on a terminal; --json prints JSON on stdout for \
                  scripts. Errors, progress and the server's log messages go to stderr.",
    after_help = EXIT_STATUS,
    propagate_version = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the server's tools, with their arguments
    #[command(after_help = verb_help())]
    Tools(Session),
    /// Call a tool: `mcp call NAME --arg key=value ...`
    #[command(after_help = verb_help())]
    Call(CallArgs),
    /// List the server's resources and resource templates
    #[command(after_help = verb_help())]
    Resources(Session),
    /// Read a resource: `mcp read URI`
    #[command(after_help = verb_help())]
    Read(ReadArgs),
    /// List the server's prompts, with their arguments
    #[command(after_help = verb_help())]
    Prompts(Session),
    /// Get a prompt: `mcp prompt NAME --arg key=value ...`
    #[command(after_help = verb_help())]
    Prompt(PromptArgs),
    /// Complete an argument of a prompt or a resource template
    #[command(after_help = verb_help())]
    Complete(CompleteArgs),
    /// List the server's skills, or print one (Skills extension)
    #[command(after_help = verb_help())]
    Skills(SkillsArgs),
    /// Show the server's name, version, capabilities and the negotiated protocol version
    #[command(after_help = verb_help())]
    Info(Session),
    /// Forget cached OAuth logins: of one server, or of every server
    Logout(LogoutArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
    /// Serve a stdio server over Streamable HTTP, or a remote server on stdio
    Proxy(proxy::ProxyArgs),
}

/// The help after a verb's options: the server, then the exit statuses.
fn verb_help() -> String {
    format!("{SERVER_HELP}\n\n{EXIT_STATUS}")
}

impl Command {
    /// Whether the command prints JSON (`--json`).
    pub(crate) fn json(&self) -> bool {
        self.session().is_some_and(|s| s.output.json)
    }

    /// Whether the command was asked to be verbose (`--verbose`).
    pub(crate) fn verbose(&self) -> bool {
        self.session().is_some_and(|s| s.output.verbose)
    }

    fn session(&self) -> Option<&Session> {
        match self {
            Command::Tools(s) | Command::Resources(s) | Command::Prompts(s) | Command::Info(s) => {
                Some(s)
            }
            Command::Call(a) => Some(&a.session),
            Command::Read(a) => Some(&a.session),
            Command::Prompt(a) => Some(&a.session),
            Command::Complete(a) => Some(&a.session),
            Command::Skills(a) => Some(&a.session),
            Command::Logout(_) | Command::Completions(_) | Command::Proxy(_) => None,
        }
    }
}

/// Everything about reaching a server and showing what it says: every verb has these.
#[derive(Debug, Clone, Args)]
pub(crate) struct Session {
    #[command(flatten)]
    pub(crate) target: Target,
    #[command(flatten)]
    pub(crate) connection: ConnectionArgs,
    #[command(flatten)]
    pub(crate) auth: AuthArgs,
    #[command(flatten)]
    pub(crate) output: OutputArgs,
}

/// Where the server is: exactly one of a URL and a command.
#[derive(Debug, Clone, Args)]
#[group(id = "server", required = true, multiple = false)]
#[command(next_help_heading = "Server")]
pub(crate) struct Target {
    /// The server's Streamable HTTP endpoint (`http://` or `https://`)
    #[arg(long, short = 'u', value_name = "URL")]
    pub(crate) url: Option<String>,

    /// The server to run, after `--`: it speaks MCP on its stdin and stdout
    #[arg(last = true, value_name = "CMD ARGS")]
    pub(crate) command: Vec<String>,
}

/// How to connect.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Connection")]
pub(crate) struct ConnectionArgs {
    /// The protocol era: `auto` (2026-07-28 if the server speaks it, else the handshake
    /// revisions), `legacy` (the handshake revisions only), `2026-07-28` (alias `modern`),
    /// or one handshake revision (`2025-11-25`, `2025-06-18`, `2025-03-26`, `2024-11-05`)
    #[arg(long, value_name = "ERA", default_value = "auto", value_parser = parse_era)]
    pub(crate) era: Era,

    /// Seconds to wait for each answer of the server (progress restarts it); 0 waits forever
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = parse_timeout)]
    pub(crate) timeout: Timeout,

    /// The most pages a list follows; a server still offering more after them is an error
    #[arg(long, value_name = "N", default_value = "100",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_pages: u32,

    /// An HTTP header sent with every request to the URL (repeatable)
    #[arg(long, short = 'H', value_name = "NAME:VALUE", value_parser = parse_header)]
    pub(crate) header: Vec<(String, String)>,

    /// An environment variable of the server program (repeatable)
    #[arg(long, short = 'e', value_name = "KEY=VALUE", value_parser = parse_env)]
    pub(crate) env: Vec<(String, String)>,

    /// The working directory of the server program
    #[arg(long, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,

    /// Ask the server for log messages at LEVEL and above (debug, info, notice, warning,
    /// error, critical, alert, emergency); they are shown on stderr
    #[arg(long, value_name = "LEVEL")]
    pub(crate) log_level: Option<String>,
}

/// OAuth, for a URL that needs it.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Authorization")]
pub(crate) struct AuthArgs {
    /// A client id registered with the authorization server (without one, `mcp` registers
    /// itself dynamically)
    #[arg(long, env = "MCP_CLIENT_ID", value_name = "ID")]
    pub(crate) client_id: Option<String>,

    /// The client's secret: with it, `mcp` uses the client-credentials grant (no browser)
    #[arg(
        long,
        env = "MCP_CLIENT_SECRET",
        value_name = "SECRET",
        hide_env_values = true
    )]
    pub(crate) client_secret: Option<String>,

    /// The scopes to ask for (space-separated; default: those the server names)
    #[arg(long, value_name = "SCOPES")]
    pub(crate) scope: Option<String>,

    /// Fail rather than open a browser to log in when the server wants authorization
    #[arg(long)]
    pub(crate) no_login: bool,
}

/// What to show.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Output")]
pub(crate) struct OutputArgs {
    /// Print JSON on stdout (and errors as JSON on stderr), for scripts
    #[arg(long)]
    pub(crate) json: bool,

    /// Show the server program's stderr and the SDK's warnings
    #[arg(long, short = 'v')]
    pub(crate) verbose: bool,

    /// Show neither progress nor the server's log messages
    #[arg(long, short = 'q', conflicts_with = "verbose")]
    pub(crate) quiet: bool,
}

/// `mcp call`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CallArgs {
    /// The tool's name
    pub(crate) tool: String,

    /// An argument (repeatable). VALUE is converted to the type the tool's input schema
    /// gives the argument; without one, it is taken as JSON if it parses (`3`, `true`,
    /// `[1,2]`, `{"a":1}`, `"quoted"`), else as a string
    #[arg(long = "arg", short = 'a', value_name = "KEY=VALUE", value_parser = parse_pair)]
    pub(crate) args: Vec<(String, String)>,

    /// All arguments as a JSON object (`--args '{"a":1}'`), `@FILE` to read it from a file,
    /// or `-` from stdin; --arg values are added to it
    #[arg(long = "args", value_name = "JSON")]
    pub(crate) json_args: Option<String>,

    #[command(flatten)]
    pub(crate) session: Session,
}

/// `mcp read`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ReadArgs {
    /// The resource's URI
    pub(crate) uri: String,

    #[command(flatten)]
    pub(crate) session: Session,
}

/// `mcp prompt`.
#[derive(Debug, Clone, Args)]
pub(crate) struct PromptArgs {
    /// The prompt's name
    pub(crate) name: String,

    /// An argument (repeatable); prompt arguments are strings
    #[arg(long = "arg", short = 'a', value_name = "KEY=VALUE", value_parser = parse_pair)]
    pub(crate) args: Vec<(String, String)>,

    /// All arguments as a JSON object of strings, `@FILE`, or `-` for stdin; --arg values
    /// are added to it
    #[arg(long = "args", value_name = "JSON")]
    pub(crate) json_args: Option<String>,

    #[command(flatten)]
    pub(crate) session: Session,
}

/// `mcp complete`.
#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("reference").required(true).args(["prompt", "template"])))]
pub(crate) struct CompleteArgs {
    /// Complete an argument of this prompt
    #[arg(long, value_name = "NAME")]
    pub(crate) prompt: Option<String>,

    /// Complete a variable of this resource template (its URI template, as listed)
    #[arg(long, value_name = "URI_TEMPLATE")]
    pub(crate) template: Option<String>,

    /// The argument (or template variable) to complete
    pub(crate) argument: String,

    /// What has been typed of it so far
    #[arg(default_value = "")]
    pub(crate) value: String,

    /// An argument already chosen, for servers whose completions depend on it (repeatable)
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_pair)]
    pub(crate) context: Vec<(String, String)>,

    #[command(flatten)]
    pub(crate) session: Session,
}

/// `mcp skills`.
#[derive(Debug, Clone, Args)]
pub(crate) struct SkillsArgs {
    /// A skill's URI (its `SKILL.md`): print that file, checked against the skill's entry
    pub(crate) uri: Option<String>,

    #[command(flatten)]
    pub(crate) session: Session,
}

/// `mcp logout`.
#[derive(Debug, Clone, Args)]
pub(crate) struct LogoutArgs {
    /// The server whose login to forget; without it, every cached login is forgotten
    pub(crate) url: Option<String>,
}

/// `mcp completions`.
#[derive(Debug, Clone, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// The era asked for with `--era`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Era {
    pub(crate) choice: EraChoice,
    /// A handshake revision to propose instead of the latest.
    pub(crate) version: Option<ProtocolVersion>,
}

fn parse_era(text: &str) -> Result<Era, String> {
    let era = |choice, version| Era { choice, version };
    match text {
        "auto" => Ok(era(EraChoice::Auto, None)),
        "legacy" => Ok(era(EraChoice::Legacy, None)),
        "modern" | "2026-07-28" => Ok(era(EraChoice::Modern, None)),
        other => {
            let handshake = mcp_client::HANDSHAKE_VERSIONS
                .iter()
                .find(|v| v.as_str() == other);
            match handshake {
                Some(version) => Ok(era(EraChoice::Legacy, Some(version.clone()))),
                None => Err(format!(
                    "`{other}` is not an era: use auto, legacy, 2026-07-28, or one of {}",
                    mcp_client::HANDSHAKE_VERSIONS
                        .iter()
                        .map(ProtocolVersion::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
    }
}

/// `--timeout`: `None` waits forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timeout(pub(crate) Option<Duration>);

fn parse_timeout(text: &str) -> Result<Timeout, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(0.0..=1e9).contains(&seconds) {
        return Err(format!("`{text}` is not a number of seconds from 0 to 1e9"));
    }
    Ok(Timeout(
        (seconds > 0.0).then(|| Duration::from_secs_f64(seconds)),
    ))
}

/// `KEY=VALUE` (the value may be empty, or contain `=`).
pub(crate) fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("`{text}` is not KEY=VALUE")),
    }
}

fn parse_env(text: &str) -> Result<(String, String), String> {
    let (key, value) = parse_pair(text)?;
    if key.contains('\0') || value.contains('\0') {
        return Err(format!("`{text}` contains a NUL byte"));
    }
    Ok((key, value))
}

fn parse_header(text: &str) -> Result<(String, String), String> {
    match text.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!("`{text}` is not NAME:VALUE")),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn eras() {
        assert_eq!(parse_era("auto").unwrap().choice, EraChoice::Auto);
        assert_eq!(parse_era("legacy").unwrap().choice, EraChoice::Legacy);
        assert_eq!(parse_era("2026-07-28").unwrap().choice, EraChoice::Modern);
        assert_eq!(parse_era("modern").unwrap().choice, EraChoice::Modern);
        let old = parse_era("2025-06-18").unwrap();
        assert_eq!(old.choice, EraChoice::Legacy);
        assert_eq!(
            old.version.as_ref().map(ProtocolVersion::as_str),
            Some("2025-06-18")
        );
        let e = parse_era("sideways").unwrap_err();
        assert!(e.contains("auto, legacy, 2026-07-28"), "{e}");
    }

    #[test]
    fn timeouts_pairs_and_headers() {
        assert_eq!(parse_timeout("0"), Ok(Timeout(None)));
        assert_eq!(
            parse_timeout("1.5"),
            Ok(Timeout(Some(Duration::from_millis(1500))))
        );
        for bad in ["-1", "NaN", "inf", "x", "1e300"] {
            assert!(parse_timeout(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_pair("a=b=c"), Ok(("a".into(), "b=c".into())));
        assert_eq!(parse_pair("a="), Ok(("a".into(), String::new())));
        assert!(parse_pair("=b").is_err());
        assert!(parse_pair("ab").is_err());
        assert_eq!(
            parse_header("X-Key: v:1"),
            Ok(("X-Key".into(), "v:1".into()))
        );
        assert!(parse_header(": v").is_err());
        assert!(parse_env("A=\0").is_err());
    }

    #[test]
    fn a_server_is_required_and_only_one() {
        let err = Cli::try_parse_from(["mcp", "tools"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let err = Cli::try_parse_from(["mcp", "tools", "--url", "http://x/mcp", "--", "srv"])
            .unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let cli =
            Cli::try_parse_from(["mcp", "tools", "--json", "--", "srv", "--flag", "-x"]).unwrap();
        let Command::Tools(session) = cli.command else {
            panic!("not tools")
        };
        assert_eq!(session.target.command, ["srv", "--flag", "-x"]);
        assert!(session.output.json);
    }

    #[test]
    fn call_takes_args_and_json() {
        let cli = Cli::try_parse_from([
            "mcp",
            "call",
            "add",
            "--arg",
            "a=1",
            "-a",
            "b=x",
            "--args",
            "{}",
            "-u",
            "http://h/m",
        ])
        .unwrap();
        let Command::Call(call) = cli.command else {
            panic!("not call")
        };
        assert_eq!(call.tool, "add");
        assert_eq!(
            call.args,
            [("a".into(), "1".into()), ("b".into(), "x".into())]
        );
        assert_eq!(call.json_args.as_deref(), Some("{}"));
        assert_eq!(call.session.target.url.as_deref(), Some("http://h/m"));
    }

    #[test]
    fn complete_needs_a_prompt_or_a_template() {
        assert!(Cli::try_parse_from(["mcp", "complete", "arg", "--", "srv"]).is_err());
        let cli = Cli::try_parse_from(["mcp", "complete", "--prompt", "p", "arg", "v", "--", "s"])
            .unwrap();
        let Command::Complete(c) = cli.command else {
            panic!("not complete")
        };
        assert_eq!((c.argument.as_str(), c.value.as_str()), ("arg", "v"));
    }
}
