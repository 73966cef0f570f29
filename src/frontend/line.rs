//! Line mode (stdin that is not a terminal, `-c`, a script file): reads one line at a time and
//! runs each complete command as soon as its last line has arrived, flushing its output
//! before reading on — so an agent can converse with trumansh over a pipe. An unfinished
//! command (open quote, here-document, trailing `|`) waits for more lines, as bash does.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::io::{Sink, Stream};
use crate::session::Session;
use crate::transcript::{Recorded, Recorder, Tee};

use super::chunks::Chunks;

/// Writes to the process's stdout/stderr as output is produced.
#[derive(Default)]
pub struct StdSink {
    /// Set when stdout is gone (`EPIPE`): the running line is cancelled through it.
    cancel: Option<Arc<AtomicBool>>,
    /// Stdout is gone: nothing more is written (bash would have died of `SIGPIPE`).
    broken: bool,
}

impl StdSink {
    /// A sink that cancels the running line through `cancel` once stdout is gone.
    pub fn cancelling(cancel: Arc<AtomicBool>) -> StdSink {
        StdSink {
            cancel: Some(cancel),
            broken: false,
        }
    }

    /// Whether stdout is gone (what is buffered is flushed first to know).
    pub fn broken(&mut self) -> bool {
        if !self.broken && std::io::stdout().flush().is_err() {
            self.broken = true;
        }
        self.broken
    }
}

impl Sink for StdSink {
    fn write(&mut self, stream: Stream, bytes: &[u8]) {
        if self.broken {
            return;
        }
        // A closed pipe on our side must not end the session with a panic.
        let result = match stream {
            Stream::Stdout => std::io::stdout().write_all(bytes),
            Stream::Stderr => std::io::stderr().write_all(bytes),
        };
        if stream == Stream::Stdout
            && result.is_err_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
        {
            self.broken = true;
            if let Some(cancel) = &self.cancel {
                cancel.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// How much line mode reads at once (a pipe gives what it holds, a file up to this).
const READ_BLOCK: usize = 1 << 20;

/// The status of a shell killed by `SIGPIPE` (128 + 13), as its parent sees it.
pub const SIGPIPE_STATUS: i32 = 141;

pub(super) fn flush() {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
}

/// What to do when a syntax error is met in line mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnSyntaxError {
    /// Stop, as bash does for a script (`-c`, a file).
    Abort,
    /// Report it and read on: an agent's session survives a bad line (a deliberate
    /// difference from `bash < input`, which stops).
    Continue,
}

/// Runs one complete input, writing its output to `sink` and, when recording, also to the
/// transcript. Returns `$?`.
pub(super) fn run_recorded(
    session: &mut Session,
    input: &[u8],
    first_line: usize,
    sink: &mut dyn Sink,
    recorder: Option<&mut Recorder>,
) -> i32 {
    let Some(recorder) = recorder else {
        let status = session.run_input(input, first_line, sink);
        flush();
        return status;
    };
    let mut output = Recorded::default();
    let status = session.run_input(input, first_line, &mut Tee::new(sink, &mut output));
    flush();
    recorder.step(input, None, &output, status);
    status
}

/// Runs line mode over a reader until EOF or `exit`, recording the session if asked. Returns
/// the exit status.
pub fn run_lines(
    session: &mut Session,
    input: impl BufRead,
    on_syntax_error: OnSyntaxError,
    recorder: Option<&mut Recorder>,
) -> i32 {
    let mut sink = StdSink::cancelling(session.cancel_flag());
    // Long lines are dropped as they are read (a bounded reader): the session reports them.
    let max = session.config().policy.limits.line_bytes;
    // The audit log is written in batches, and whenever input is to be read (which may wait).
    let audit = session.batch_log();
    let input = SyncBeforeRead {
        inner: input,
        audit: Arc::clone(&audit),
    };
    // Read in large blocks: what has arrived is parsed again only when the block is used up
    // (or has doubled), so a long command costs a few parses, not one per line.
    let input = std::io::BufReader::with_capacity(READ_BLOCK, input);
    let mut chunks = Chunks::new(input).with_limit(max);
    let status = run_chunks(session, &mut chunks, &mut sink, on_syntax_error, recorder);
    audit.batch(false);
    status
}

/// Input that writes the audit log's batch before each read (which may wait).
struct SyncBeforeRead<R> {
    inner: R,
    audit: Arc<crate::audit::Audit>,
}

impl<R: std::io::Read> std::io::Read for SyncBeforeRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.audit.sync();
        self.inner.read(buf)
    }
}

/// [`run_lines`]' loop: each input the chunks give, run.
fn run_chunks<R: BufRead>(
    session: &mut Session,
    chunks: &mut Chunks<R>,
    sink: &mut StdSink,
    on_syntax_error: OnSyntaxError,
    mut recorder: Option<&mut Recorder>,
) -> i32 {
    loop {
        let (extglob, aliases) = session.parse_settings();
        chunks.set_syntax(extglob, aliases);
        let Some(chunk) = chunks.next() else {
            break;
        };
        if let Some(len) = chunk.too_long {
            session.input_too_long(len, chunk.first_line, sink);
            flush();
        } else {
            run_recorded(
                session,
                &chunk.text,
                chunk.first_line,
                sink,
                recorder.as_deref_mut(),
            );
        }
        if sink.broken() {
            // Nobody reads the output any more: stop reading input, as bash dies of SIGPIPE.
            return SIGPIPE_STATUS;
        }
        if let Some(status) = session.exit_status() {
            return status;
        }
        if session.syntax_error() && on_syntax_error == OnSyntaxError::Abort {
            return 2;
        }
    }
    session.finish(sink);
    session.last_status()
}
