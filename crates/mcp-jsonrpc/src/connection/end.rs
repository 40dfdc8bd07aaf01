//! How a connection ends: answering what was read after a peer's end of stream that still
//! reads ([`Driver::drain`]), and the shutdown ([`Driver::shutdown`]): pending requests
//! failed, handlers cancelled, what is queued flushed within the flush timeout, the
//! transport closed.

use std::future::poll_fn;
use std::pin::pin;
use std::task::Poll;

use futures::stream::FuturesUnordered;

use super::{Driver, End, Kind, Outgoing, Step};
use crate::error::Result;
use crate::handler::Handler;
use crate::message::Message;
use crate::transport::Transport;

impl<H: Handler> Driver<H> {
    /// After the end of stream of a peer that still reads
    /// ([`Transport::peer_reads_after_end`]): answers the requests already read (running, or waiting
    /// in the backlog) and writes what is queued, reading nothing more, for at most
    /// [`Config::flush_timeout`]. A stdio client that closed the server's stdin still reads
    /// its stdout until the server exits, so nothing it sent goes unanswered. The peer's
    /// answers to our own requests can no longer come: those fail at once.
    pub(super) async fn drain<T: Transport>(&mut self, transport: &mut T) -> End {
        if self.is_idle() {
            return End::PeerClosed;
        }
        self.shared.fail_all("peer closed the connection");
        let timeout = self.limits.flush_timeout;
        let work = async {
            loop {
                if self.is_idle() {
                    return End::PeerClosed;
                }
                let mut nothing = pin!(std::future::pending::<Result<Option<Message>, T::Error>>());
                // Wakes on the last send completing too (a step that does nothing else).
                let step = poll_fn(|cx| match self.poll_step(cx, nothing.as_mut()) {
                    Poll::Pending if self.is_idle() => Poll::Ready(Step::Recv(Ok(None))),
                    step => step,
                });
                match step.await {
                    Step::Send => self.sending = Some(self.start_send(transport)),
                    Step::Recv(_) => {}
                    // The peer is gone for good: nobody will read the rest.
                    Step::SendFailed(_) => return End::PeerClosed,
                    Step::Close => return End::Local,
                }
            }
        };
        if let Ok(end) = tokio::time::timeout(timeout, work).await {
            return end;
        }
        tracing::warn!(
            running = self.running.len(),
            waiting = self.backlog.len(),
            ?timeout,
            "requests still unanswered after the peer's end of stream; cancelling them"
        );
        self.sending = None;
        self.write_queue.clear();
        End::PeerClosed
    }

    pub(super) async fn shutdown<T: Transport>(
        &mut self,
        transport: &mut T,
        end: End,
    ) -> Result<()> {
        let (reason, result) = match end {
            End::Local => ("closed by the local side".to_owned(), Ok(())),
            End::PeerClosed => ("peer closed the connection".to_owned(), Ok(())),
            End::Failed(e) => (format!("transport failed: {}", error_chain(&e)), Err(e)),
        };
        tracing::debug!(%reason, "connection closing");
        if let Some(inline) = &self.inline {
            inline.close();
        }
        self.shared.fail_all(&reason);
        for running in self.running.values() {
            running.token.cancel();
        }
        self.handlers = FuturesUnordered::new();
        self.fresh = None;
        self.running.clear();
        self.backlog.clear();
        self.backlog_ids.clear();
        self.notifications.clear();
        self.current_notification = None;
        self.batches.clear();
        // Notifications already accepted from handles still go out; requests have failed.
        while let Ok(msg) = self.outbound_rx.try_recv() {
            if let Message::Notification(_) = *msg {
                self.write_queue.push_back(Outgoing {
                    msg: *msg,
                    kind: Kind::Peer,
                });
            }
        }
        self.outbound_rx.close();
        if result.is_ok() {
            let sending = self.sending.take();
            let queue = std::mem::take(&mut self.write_queue);
            let queued = queue.len();
            let writer = &mut *transport;
            let flush = async move {
                let mut ok = match sending {
                    Some(sending) => sending.await.is_ok(),
                    None => true,
                };
                for out in queue {
                    if !ok {
                        break;
                    }
                    if let Message::Request(_) = out.msg {
                        continue;
                    }
                    ok = writer.send(out.msg).await.is_ok();
                }
            };
            if tokio::time::timeout(self.limits.flush_timeout, flush)
                .await
                .is_err()
            {
                tracing::warn!(
                    queued,
                    timeout = ?self.limits.flush_timeout,
                    "the peer is not reading; closing without writing the rest"
                );
            }
        }
        self.write_queue.clear();
        if let Err(e) = transport.close().await {
            tracing::debug!(error = %e, "closing the transport failed");
        }
        self.shared.set_finished();
        result
    }
}

/// `error` and its sources, joined with ": ", so a closed request says why the transport failed
/// (e.g. "transport error: server process exited with status 3").
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
