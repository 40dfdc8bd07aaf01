//! Newline framing: a bounded, cancel-safe line reader over any [`AsyncRead`].

use std::io;
use std::ops::Range;

use tokio::io::{AsyncRead, AsyncReadExt};

/// The smallest read the reader asks for.
const CHUNK: usize = 8 * 1024;
/// How much of an oversized line is kept (to find its id, or to show it).
pub(crate) const HEAD: usize = 1024;
/// An idle buffer larger than this is shrunk back, so one big message does not pin memory.
const SHRINK_ABOVE: usize = 64 * 1024;

/// What [`LineReader::next`] found.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A non-empty line (without its `\n` or `\r\n`): a range into the reader's buffer, valid
    /// until the next call to [`LineReader::next`] (read it with [`LineReader::bytes`]).
    Line(Range<usize>),
    /// A line longer than the limit, skipped without being buffered.
    Oversized {
        /// Its length in bytes (without the line ending).
        size: usize,
        /// Its first [`HEAD`] bytes.
        head: Vec<u8>,
    },
}

struct Skip {
    size: usize,
    head: Vec<u8>,
    /// Whether the last byte skipped was a `\r`.
    last_cr: bool,
}

/// Splits a byte stream into lines of at most `max` bytes, never buffering more than
/// `max + 2 * CHUNK` bytes.
///
/// Cancel-safe: all state lives in the struct, and the only await is a cancel-safe read.
pub(crate) struct LineReader<R> {
    reader: R,
    buf: Vec<u8>,
    /// The first byte of `buf` not yet handed out.
    start: usize,
    /// `buf[start..scanned]` holds no `\n`.
    scanned: usize,
    max: usize,
    skipping: Option<Skip>,
    eof: bool,
}

impl<R> std::fmt::Debug for LineReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineReader")
            .field("buffered", &(self.buf.len() - self.start))
            .field("max", &self.max)
            .field("eof", &self.eof)
            .finish_non_exhaustive()
    }
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(reader: R, max: usize) -> Self {
        LineReader {
            reader,
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            max: max.max(1),
            skipping: None,
            eof: false,
        }
    }

    /// Changes the longest line accepted.
    pub(crate) fn set_max(&mut self, max: usize) {
        self.max = max.max(1);
        // The pending part of a line is measured against the new bound at the next look.
        self.scanned = self.start;
    }

    /// The bytes of a [`Frame::Line`] just returned.
    pub(crate) fn bytes(&self, range: Range<usize>) -> &[u8] {
        &self.buf[range]
    }

    /// The next line, or `None` at the end of the stream. A last line without a newline is
    /// still returned. Empty (or all-whitespace) lines are skipped.
    ///
    /// Cancel-safe: a partial line stays buffered.
    pub(crate) async fn next(&mut self) -> io::Result<Option<Frame>> {
        loop {
            // Only bytes read since the last look (or the end of the stream) can end a line:
            // the engine asks again several times per message with nothing new read.
            if (self.scanned < self.buf.len() || self.eof)
                && let Some(frame) = self.take_buffered()
            {
                return Ok(Some(frame));
            }
            if self.eof {
                return Ok(None);
            }
            self.fill().await?;
        }
    }

    fn take_buffered(&mut self) -> Option<Frame> {
        loop {
            let newline = find_newline(&self.buf[self.scanned..]);
            let (line_start, end) = match newline {
                Some(i) => {
                    let end = self.scanned + i;
                    let line_start = self.start;
                    self.start = end + 1;
                    self.scanned = self.start;
                    (line_start, end)
                }
                None => {
                    self.scanned = self.buf.len();
                    let pending = self.buf.len() - self.start;
                    let last_cr = self.buf.last() == Some(&b'\r');
                    if let Some(skip) = &mut self.skipping {
                        if pending > 0 {
                            skip.size += pending;
                            skip.last_cr = last_cr;
                        }
                        self.start = self.buf.len();
                    } else if pending > self.max + 1 {
                        // `+ 1`: room for the `\r` of a `\r\n` not read yet.
                        let head = self.buf[self.start..][..HEAD.min(pending)].to_vec();
                        self.skipping = Some(Skip {
                            size: pending,
                            head,
                            last_cr,
                        });
                        self.start = self.buf.len();
                    }
                    if !self.eof {
                        return None;
                    }
                    // The end of the stream ends the last line.
                    if let Some(skip) = self.skipping.take() {
                        return Some(Frame::Oversized {
                            size: skip.size,
                            head: skip.head,
                        });
                    }
                    if self.start == self.buf.len() {
                        return None;
                    }
                    let line_start = self.start;
                    self.start = self.buf.len();
                    (line_start, self.buf.len())
                }
            };
            if let Some(skip) = self.skipping.take() {
                let ends_cr = if end > line_start {
                    self.buf[end - 1] == b'\r'
                } else {
                    skip.last_cr
                };
                let size = skip.size + (end - line_start) - usize::from(ends_cr);
                return Some(Frame::Oversized {
                    size,
                    head: skip.head,
                });
            }
            let mut line_end = end;
            if line_end > line_start && self.buf[line_end - 1] == b'\r' {
                line_end -= 1;
            }
            let line = &self.buf[line_start..line_end];
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if line.len() > self.max {
                return Some(Frame::Oversized {
                    size: line.len(),
                    head: line[..HEAD.min(line.len())].to_vec(),
                });
            }
            return Some(Frame::Line(line_start..line_end));
        }
    }

    /// Reads once more into the buffer (cancel-safe: `read_buf` reads nothing if dropped).
    async fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.buf.capacity() > SHRINK_ABOVE && self.buf.len() < SHRINK_ABOVE / 2 {
            self.buf.shrink_to(SHRINK_ABOVE / 2);
        }
        let spare = self.buf.capacity() - self.buf.len();
        if spare < CHUNK {
            // Grow geometrically but never past the bound. Without skipping, at most
            // `max + 1` bytes are pending here, so there is always room for a chunk.
            let cap = self.buf.capacity();
            let target = (self.buf.len() + CHUNK)
                .max(cap.saturating_mul(2))
                .min(self.max.saturating_add(2 * CHUNK));
            self.buf
                .reserve_exact(target.saturating_sub(self.buf.len()));
        }
        let n = self.reader.read_buf(&mut self.buf).await?;
        if n == 0 {
            self.eof = true;
        }
        Ok(())
    }

    /// The buffer's allocated size, for tests of the memory bound.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

/// The position of the first `\n` in `haystack`.
///
/// memchr, because the line scan is on every message's path (the crate is already in the
/// tree, via futures). On x86_64 its SSE2 searcher: SSE2 is part of that architecture's
/// baseline, so it needs no detection, while `memchr::memchr` detects AVX2 with CPUID on its
/// first call, and CPUID traps to the hypervisor in a VM: about 40 µs of a stdio server's
/// start (`cargo xtask bench`, spawn to initialize), more than SSE2 costs over AVX2 on any
/// line a peer sends.
fn find_newline(haystack: &[u8]) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let Some(finder) = memchr::arch::x86_64::sse2::memchr::One::new(b'\n') {
        return finder.find(haystack);
    }
    memchr::memchr(b'\n', haystack)
}

#[cfg(test)]
mod tests;
