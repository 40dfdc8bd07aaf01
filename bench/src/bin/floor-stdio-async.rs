//! The stdio floor on tokio: the same line echo as `floor-stdio` (`mcp_bench::floor`), but on
//! a `current_thread` runtime with stdin and stdout registered with the reactor as pipes, as
//! the SDK reads and writes them. What `floor-stdio` does not pay and any such server does:
//! an `epoll_wait` per wake-up and the runtime's turn. The stdio scenarios measure it beside
//! the floor, and the report sets it against the floor and against ours: a stdio ratio split
//! into what that design costs and what the SDK does on top of it. It takes the servers'
//! command line (`--stdio [--tools N]`).

use std::os::fd::AsFd as _;

use anyhow::{Context as _, Result, bail};
use mcp_bench::args::{Mode, ServerArgs};
use mcp_bench::floor::Floor;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::unix::pipe;

/// Bytes read at a time, as `floor-stdio`'s buffer.
const CHUNK: usize = 1 << 16;

fn main() -> Result<()> {
    let args = ServerArgs::parse(std::env::args().skip(1))?;
    if args.mode != Mode::Stdio {
        bail!("floor-stdio-async serves --stdio only");
    }
    if args.otel {
        bail!("--otel is echo-ours only");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    runtime.block_on(serve(Floor::new(args.tools)))
}

/// Standard input and output as pipes registered with the reactor (both must be pipes, as
/// the load generator's are).
fn pipes() -> Result<(pipe::Receiver, pipe::Sender)> {
    let stdin = std::io::stdin().as_fd().try_clone_to_owned()?;
    let stdout = std::io::stdout().as_fd().try_clone_to_owned()?;
    let input = pipe::Receiver::from_owned_fd(stdin).context("stdin: a pipe")?;
    let output = pipe::Sender::from_owned_fd(stdout).context("stdout: a pipe")?;
    Ok((input, output))
}

/// Reads what is ready, answers every whole line in it, and writes the answers in one write.
async fn serve(floor: Floor) -> Result<()> {
    let (mut input, mut output) = pipes()?;
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK);
    let mut answers = Vec::with_capacity(CHUNK);
    loop {
        if buf.capacity() - buf.len() < CHUNK / 4 {
            buf.reserve(CHUNK);
        }
        if input.read_buf(&mut buf).await? == 0 {
            return Ok(());
        }
        let mut start = 0;
        while let Some(newline) = memchr::memchr(b'\n', &buf[start..]) {
            let message = buf[start..start + newline].trim_ascii();
            start += newline + 1;
            if !message.is_empty() && floor.answer(message, &mut answers) {
                answers.push(b'\n');
            }
        }
        buf.drain(..start);
        if !answers.is_empty() {
            output.write_all(&answers).await?;
            answers.clear();
        }
    }
}
