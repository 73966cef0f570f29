//! Line mode (stdin that is not a terminal, `-c`, a script file): reads one line at a time and
//! runs each complete command as soon as its last line has arrived, flushing its output
//! before reading on — so an agent can converse with trumansh over a pipe. An unfinished
//! command (open quote, here-document, trailing `|`) waits for more lines, as bash does.

use std::io::{BufRead, Write};

use crate::io::{Sink, Stream};
use crate::session::Session;
use crate::transcript::{Recorded, Recorder, Tee};

use super::chunks::Chunks;

/// Writes to the process's stdout/stderr as output is produced.
pub struct StdSink;

impl Sink for StdSink {
    fn write(&mut self, stream: Stream, bytes: &[u8]) {
        // A closed pipe on our side must not end the session with a panic.
        let _ = match stream {
            Stream::Stdout => std::io::stdout().write_all(bytes),
            Stream::Stderr => std::io::stderr().write_all(bytes),
        };
    }
}

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
    mut recorder: Option<&mut Recorder>,
) -> i32 {
    let mut sink = StdSink;
    let mut chunks = Chunks::new(input);
    loop {
        let (extglob, aliases) = session.parse_settings();
        chunks.set_syntax(extglob, aliases);
        let Some(chunk) = chunks.next() else {
            break;
        };
        run_recorded(
            session,
            &chunk.text,
            chunk.first_line,
            &mut sink,
            recorder.as_deref_mut(),
        );
        if let Some(status) = session.exit_status() {
            return status;
        }
        if session.syntax_error() && on_syntax_error == OnSyntaxError::Abort {
            return 2;
        }
    }
    session.finish(&mut sink);
    session.last_status()
}
