//! Backpressure for the MCP server: requests are not read while responses wait.
//!
//! A client that stops reading its responses would otherwise see the server read on and run
//! every call it sends, each answer queued in memory behind the blocked pipe (960 MB after 400
//! calls). The [`Gate`] closes the server's input while its output is blocked (a write to
//! stdout would wait: the pipe is full) or while [`MAX_IN_FLIGHT`] calls wait for the session;
//! it opens again as soon as a write goes through or a call ends. What can wait is then what
//! the transport had already read (its buffer of a few KiB of requests) and the calls in
//! flight: a bound, not a queue that grows.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Calls that may wait for the session before the server stops reading.
pub const MAX_IN_FLIGHT: usize = 16;

#[derive(Default)]
struct State {
    write_blocked: bool,
    in_flight: usize,
    reader: Option<Waker>,
    /// Messages (lines) read and written: the difference is what waits for an answer,
    /// counted before the calls it starts have begun.
    lines_read: u64,
    lines_written: u64,
    /// The reader let the calls it read start once, and none did.
    yielded: bool,
}

/// Shared by the gated input, the gated output and the calls.
#[derive(Default, Clone)]
pub struct Gate(Arc<Mutex<State>>);

impl Gate {
    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> Option<T> {
        self.0.lock().ok().map(|mut s| f(&mut s))
    }

    /// Wakes the reader if the gate is open again.
    fn wake(s: &mut State) {
        if !s.write_blocked
            && s.in_flight < MAX_IN_FLIGHT
            && let Some(w) = s.reader.take()
        {
            w.wake();
        }
    }

    /// A call waits for the session until the guard is dropped.
    pub fn call(&self) -> Call {
        self.with(|s| s.in_flight += 1);
        Call(self.clone())
    }

    /// The server's input, read only while the gate is open.
    pub fn input<R>(&self, inner: R) -> GatedRead<R> {
        GatedRead {
            inner,
            gate: self.clone(),
        }
    }

    /// The server's output, which closes the gate while it is blocked.
    pub fn output<W>(&self, inner: W) -> GatedWrite<W> {
        GatedWrite {
            inner,
            gate: self.clone(),
        }
    }

    fn note<T>(&self, poll: &Poll<T>) {
        let blocked = poll.is_pending();
        self.with(|s| {
            s.write_blocked = blocked;
            Gate::wake(s);
        });
    }
}

fn newlines(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |n, &b| n + u64::from(b == b'\n'))
}

/// A call in flight (see [`Gate::call`]).
pub struct Call(Gate);

impl Drop for Call {
    fn drop(&mut self) {
        self.0.with(|s| {
            s.in_flight = s.in_flight.saturating_sub(1);
            Gate::wake(s);
        });
    }
}

pub struct GatedRead<R> {
    inner: R,
    gate: Gate,
}

impl<R: AsyncRead + Unpin> AsyncRead for GatedRead<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let closed = self.gate.with(|s| {
            let waiting = s.lines_read.saturating_sub(s.lines_written);
            let mut closed = s.write_blocked || s.in_flight >= MAX_IN_FLIGHT;
            if !closed && waiting >= MAX_IN_FLIGHT as u64 {
                if s.in_flight > 0 {
                    closed = true;
                } else if s.yielded {
                    // The lines read were notifications (no answer) or are answered.
                    s.lines_written = s.lines_read;
                    s.yielded = false;
                } else {
                    // Let the calls just read begin before judging.
                    s.yielded = true;
                    cx.waker().wake_by_ref();
                    return true;
                }
            }
            if closed {
                s.reader = Some(cx.waker().clone());
            }
            closed
        });
        if closed == Some(true) {
            return Poll::Pending;
        }
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        let lines = newlines(buf.filled().get(before..).unwrap_or_default());
        self.gate.with(|s| s.lines_read += lines);
        poll
    }
}

pub struct GatedWrite<W> {
    inner: W,
    gate: Gate,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for GatedWrite<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &poll {
            let lines = newlines(buf.get(..*n).unwrap_or_default());
            self.gate.with(|s| s.lines_written += lines);
        }
        self.gate.note(&poll);
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.gate.note(&poll);
        poll
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
