//! The stdio floor: a raw line echo that is still a correct JSON-RPC echo (`mcp_bench::floor`),
//! on blocking stdin/stdout with no runtime, flushing when no more input is buffered. It takes
//! the servers' command line (`--stdio [--tools N]`).

use std::io::{BufRead as _, BufReader, BufWriter, Write as _};

use anyhow::{Result, bail};
use mcp_bench::args::{Mode, ServerArgs};
use mcp_bench::floor::Floor;

fn main() -> Result<()> {
    let args = ServerArgs::parse(std::env::args().skip(1))?;
    if args.mode != Mode::Stdio {
        bail!("floor-stdio serves --stdio only");
    }
    if args.otel {
        bail!("--otel is echo-ours only");
    }
    let floor = Floor::new(args.tools);
    let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut output = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = Vec::new();
    let mut answer = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let message = line.trim_ascii();
        if message.is_empty() {
            continue;
        }
        answer.clear();
        if floor.answer(message, &mut answer) {
            answer.push(b'\n');
            output.write_all(&answer)?;
        }
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}
