//! Replaying: running a transcript's steps again in a session and rendering what they do
//! now, and the diff between two renderings (`crate::cli::replay` puts these together for
//! `trumansh replay` and the transcript tests).

use std::fmt::Write as _;

use crate::api::Request;
use crate::io::Sink;
use crate::session::Session;

use super::{Recorded, Transcript, render_step};

/// step).
fn run_step(
    session: &mut Session,
    input: &[u8],
    first_line: usize,
    stdin: Option<&[u8]>,
    sink: &mut dyn Sink,
) -> i32 {
    let request = Request {
        first_line,
        stdin,
        ..Request::new(input)
    };
    session.execute(&request, sink).status
}

/// Each step of a transcript as a replay ran it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    /// One rendering per step of the transcript.
    pub rendered: Vec<Vec<u8>>,
    /// How many steps were run: the steps after the session exited are not.
    pub ran: usize,
}

/// Replays every step of a transcript in a session and renders each step as it ran now (its
/// input and stdin as in the transcript, its output and status as the session gave them). The
/// steps after the session exited (`exit`) are not run, and are rendered with their input
/// only.
pub fn replay_each(session: &mut Session, transcript: &Transcript) -> Replay {
    let mut replay = Replay::default();
    for step in &transcript.steps {
        let mut recorded = Recorded::default();
        let status = if session.exit_status().is_some() {
            0
        } else {
            replay.ran += 1;
            run_step(
                session,
                &step.input,
                step.first_line,
                step.stdin.as_deref(),
                &mut recorded,
            )
        };
        let mut out = Vec::new();
        render_step(
            &mut out,
            &step.input,
            step.stdin.as_deref(),
            &recorded.events,
            status,
        );
        replay.rendered.push(out);
    }
    replay
}

/// Replays every step of a transcript in a session and renders the steps (without the header)
/// as they ran now.
pub fn replay_steps(session: &mut Session, transcript: &Transcript) -> Vec<u8> {
    replay_each(session, transcript).rendered.concat()
}

/// A unified diff from `expected` (named `--- NAME`) to `actual` (`+++ replay`), or `None`
/// when the bytes are the same. Bytes that are not UTF-8 are shown as `\xNN`.
pub fn diff(expected: &[u8], actual: &[u8], name: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let (old, new) = (for_display(expected), for_display(actual));
    Some(
        similar::TextDiff::from_lines(&old, &new)
            .unified_diff()
            .context_radius(3)
            .header(name, "replay")
            .to_string(),
    )
}

/// The bytes as text: valid UTF-8 as is, each other byte as `\xNN`.
pub(super) fn for_display(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}
