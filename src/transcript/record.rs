//! Recording: the sinks that keep what a command wrote ([`Recorded`], [`Tee`]) and the
//! [`Recorder`] that writes a transcript as a session runs (`trumansh --record FILE`).

use std::io::{self, Write};
use std::path::Path;

use crate::io::{Sink, Stream};

use super::{Header, joined, push_event, render_step};

/// A sink that keeps both streams and the order in which their pieces came (consecutive
/// pieces of one stream are joined; empty pieces are dropped).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub events: Vec<(Stream, Vec<u8>)>,
}

impl Recorded {
    /// Everything written to `stream`, in order.
    pub fn bytes(&self, stream: Stream) -> Vec<u8> {
        joined(&self.events, stream)
    }
}

impl Sink for Recorded {
    fn write(&mut self, stream: Stream, bytes: &[u8]) {
        push_event(&mut self.events, stream, bytes);
    }
}

/// A sink that passes everything on to another sink and also records it: line mode and the
/// REPL stream to the terminal and keep the step for the [`Recorder`].
pub struct Tee<'a> {
    out: &'a mut dyn Sink,
    recorded: &'a mut Recorded,
}

impl<'a> Tee<'a> {
    pub fn new(out: &'a mut dyn Sink, recorded: &'a mut Recorded) -> Self {
        Tee { out, recorded }
    }
}

impl Sink for Tee<'_> {
    fn write(&mut self, stream: Stream, bytes: &[u8]) {
        self.out.write(stream, bytes);
        self.recorded.write(stream, bytes);
    }
}

/// Records a session as a transcript, one step at a time.
///
/// The header is written when the recorder is made, each step as soon as it is given (one
/// write, flushed), so a session killed at any point leaves a valid transcript. A write that
/// fails does not stop the session: it is reported once on stderr (`trumansh: FILE: ERROR`)
/// and recording stops.
pub struct Recorder {
    name: String,
    out: Option<Box<dyn Write + Send>>,
}

impl Recorder {
    /// Creates (or truncates) the file at `path` and writes the header.
    pub fn create(path: &Path, header: &Header) -> io::Result<Recorder> {
        let file = std::fs::File::create(path)?;
        Recorder::new(Box::new(file), &path.display().to_string(), header)
    }

    /// Records into any writer; `name` names it in the error message.
    pub fn new(mut out: Box<dyn Write + Send>, name: &str, header: &Header) -> io::Result<Self> {
        out.write_all(&header.render())?;
        out.flush()?;
        Ok(Recorder {
            name: name.to_string(),
            out: Some(out),
        })
    }

    /// Records one step: its input (a complete input, as the session ran it), the stdin it
    /// was given (for front ends whose requests carry one), what it wrote, its status.
    pub fn step(&mut self, input: &[u8], stdin: Option<&[u8]>, result: &Recorded, status: i32) {
        let Some(out) = &mut self.out else {
            return;
        };
        let mut buf = Vec::new();
        render_step(&mut buf, input, stdin, &result.events, status);
        if let Err(e) = out.write_all(&buf).and_then(|()| out.flush()) {
            let _ = writeln!(
                io::stderr(),
                "trumansh: {}: {}",
                self.name,
                crate::io::io_message(&e)
            );
            self.out = None;
        }
    }

    /// Whether steps are still being written (false after a write failed).
    pub fn is_recording(&self) -> bool {
        self.out.is_some()
    }
}
