//! A pipeline of several commands: each stage runs in a thread of its own (a subshell in
//! bash) on a clone of the shell state, joined to the next by a bounded pipe; the calling
//! thread writes what reaches the terminal streams.
//!
//! Each stage is expanded inside its own thread, on its own state. To keep the order bash
//! users see (and that transcripts pin), the stages prepare one after the other — words,
//! assignments, redirections (files created or truncated), "command not found" — and none
//! runs its command before all are prepared. A fatal expansion error (`${X:?}`) ends its own
//! stage only, as bash's subshell exits; the other stages run (the deadline or a limit still
//! stops the rest of the line).
//!
//! Both waits are on channels whose sender is dropped to release the waiter, so a stage that
//! ends early for any reason (even a panic unwinding its thread) still releases the others:
//! a stage's turn passes when it drops its `turn_out`; the start is given when the last stage
//! drops the `go` senders, which it holds.

use std::sync::atomic::Ordering;
use std::sync::mpsc;

use super::redirect::{Fds, Input};
use super::state::ShellState;
use super::{Cx, Interp, Io};
use crate::exec::{ChannelSink, Out, PIPE_CHUNKS, PipeReader, StreamSink};
use crate::io::Stream;
use crate::shell::ast::{Command, Pipeline};

/// Whether a simple command's expansion runs commands (`$(...)`, `<(...)`), which may read
/// what an earlier stage writes.
fn substitutes(cmd: &Command) -> bool {
    use crate::shell::ast::{AssignValue, RedirKind, Word, WordPart};
    fn part(p: &WordPart) -> bool {
        match p {
            WordPart::CommandSubst(_) | WordPart::ProcessSubst { .. } => true,
            WordPart::DoubleQuoted(inner) => inner.iter().any(part),
            WordPart::Arith(w) => word(w),
            WordPart::Param(pe) => {
                pe.index.as_ref().is_some_and(word) || pe.op.as_ref().is_some_and(|(_, w)| word(w))
            }
            WordPart::Literal(_) | WordPart::Quoted(_) => false,
        }
    }
    fn word(w: &Word) -> bool {
        w.parts.iter().any(part)
    }
    let Command::Simple(c) = cmd else {
        return false;
    };
    c.words.iter().any(word)
        || c.assignments.iter().any(|a| match &a.value {
            AssignValue::Scalar(w) => word(w),
            AssignValue::Array(ws) => ws.iter().any(word),
        })
        || c.redirects.iter().any(|r| match &r.kind {
            RedirKind::Out(w)
            | RedirKind::Clobber(w)
            | RedirKind::Append(w)
            | RedirKind::In(w)
            | RedirKind::OutErr(w)
            | RedirKind::AppendOutErr(w)
            | RedirKind::ReadWrite(w)
            | RedirKind::HereString(w) => word(w),
            RedirKind::HereDoc { body, .. } => word(body),
            RedirKind::DupOut(_) | RedirKind::DupIn(_) | RedirKind::Close => false,
        })
}

/// The state a stage runs on.
enum Stage {
    Copy(Box<ShellState>),
    /// The shell's own (`lastpipe`), or already handed to its thread.
    Shell,
}

/// The stack of a pipeline stage's thread: deep enough for the nesting the limits allow.
pub(super) const STAGE_STACK: usize = 64 << 20;

/// How many pipeline stages one line may have running at once (`f() { f | f; }; f` would
/// otherwise start threads without end).
pub(super) const MAX_STAGES: usize = 256;

impl Interp<'_> {
    /// Runs the stages of a pipeline; gives each stage's status (`PIPESTATUS`).
    pub(super) fn run_stages(
        &self,
        state: &mut ShellState,
        pipeline: &Pipeline,
        line: usize,
        io: &Io,
        out: &dyn StreamSink,
    ) -> Vec<i32> {
        let n = pipeline.commands.len();
        let alive = self.line.stages.fetch_add(n, Ordering::SeqCst) + n;
        if alive > MAX_STAGES {
            self.line.stages.fetch_sub(n, Ordering::SeqCst);
            self.limit(
                state,
                out,
                line,
                "pipeline_len",
                MAX_STAGES as u64,
                "pipeline stages running at once",
            );
            return vec![2; n];
        }
        let statuses = self.run_stage_threads(state, pipeline, io, out);
        self.line.stages.fetch_sub(n, Ordering::SeqCst);
        statuses
    }

    fn run_stage_threads(
        &self,
        state: &mut ShellState,
        pipeline: &Pipeline,
        io: &Io,
        out: &dyn StreamSink,
    ) -> Vec<i32> {
        let n = pipeline.commands.len();
        let (main_tx, main_rx) = mpsc::channel::<(Stream, Vec<u8>)>();
        // Pipes between stages, and the turns in which the stages prepare.
        let mut pipes_in: Vec<Option<mpsc::Receiver<Vec<u8>>>> = vec![None];
        let mut pipes_out: Vec<Option<mpsc::SyncSender<Vec<u8>>>> = Vec::new();
        let mut turns_in: Vec<Option<mpsc::Receiver<()>>> = vec![None];
        let mut turns_out: Vec<Option<mpsc::Sender<()>>> = Vec::new();
        for _ in 1..n {
            let (tx, rx) = mpsc::sync_channel(PIPE_CHUNKS);
            pipes_out.push(Some(tx));
            pipes_in.push(Some(rx));
            let (tx, rx) = mpsc::channel();
            turns_out.push(Some(tx));
            turns_in.push(Some(rx));
        }
        pipes_out.push(None);
        turns_out.push(None);
        // One start signal per stage but the last, all held (and released) by the last.
        let (go_out, go_in): (Vec<mpsc::Sender<()>>, Vec<mpsc::Receiver<()>>) =
            (1..n).map(|_| mpsc::channel()).unzip();
        let go_in = go_in.into_iter().map(Some).chain(std::iter::once(None));
        let mut go_out = Some(go_out);
        let eager = pipeline.commands.iter().skip(1).any(substitutes);
        let mut statuses = Vec::new();
        // Each stage runs on a copy of the shell's state; with `shopt -s lastpipe` the last one
        // runs on the shell's own, as bash's last stage then does.
        let lastpipe = state.opts.lastpipe;
        let mut per_stage: Vec<Stage> = (0..n)
            .map(|i| {
                if lastpipe && i + 1 == n {
                    Stage::Shell
                } else {
                    Stage::Copy(Box::new(state.subshell()))
                }
            })
            .collect();
        let mut shell_state = Some(state);
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            let stages = pipeline
                .commands
                .iter()
                .zip(pipes_in.into_iter().zip(pipes_out))
                .zip(turns_in.into_iter().zip(turns_out));
            for (i, (((cmd, (pipe_in, pipe_out)), (turn_in, turn_out)), go)) in
                stages.zip(go_in).enumerate()
            {
                let main_tx = main_tx.clone();
                let mut own = match per_stage
                    .get_mut(i)
                    .map(|s| std::mem::replace(s, Stage::Shell))
                {
                    Some(Stage::Copy(b)) => Some(*b),
                    _ => None,
                };
                let borrowed = if own.is_none() {
                    shell_state.take()
                } else {
                    None
                };
                let release = if i + 1 == n { go_out.take() } else { None };
                let this = Interp {
                    stage: true,
                    ..*self
                };
                let stage_io = Io {
                    stdin: match pipe_in {
                        Some(rx) => Input::reader(Box::new(PipeReader::new(
                            rx,
                            std::sync::Arc::clone(&self.rt.guard),
                        ))),
                        None => io.stdin.clone(),
                    },
                    out: match pipe_out {
                        Some(tx) => Out::Pipe(tx),
                        None => io.out.clone(),
                    },
                    err: io.err.clone(),
                    extra: io.extra.clone(),
                };
                let child_deadline = crate::limits::child_deadline();
                let spawned = std::thread::Builder::new()
                    .stack_size(STAGE_STACK)
                    .spawn_scoped(scope, move || {
                        super::mark_stack(STAGE_STACK);
                        // A stage of a command run by `timeout` keeps its deadline.
                        let _deadline = child_deadline.map(crate::limits::ChildDeadline::enter);
                        let streams = ChannelSink(main_tx);
                        let sub = own.as_mut().or(borrowed)?;
                        // The previous stage has prepared (or given up).
                        if let Some(turn) = turn_in {
                            let _ = turn.recv();
                        }
                        let ready = match cmd {
                            Command::Simple(simple) if this.tick(sub, simple.line, &streams) => {
                                let fds = Fds::new(stage_io);
                                Some(Ok(this.prepare(sub, simple, fds, &streams)))
                            }
                            Command::Simple(_) => None,
                            other => Some(Err((other, stage_io))),
                        };
                        drop(turn_out);
                        // All stages are prepared once the last one is: it starts the others
                        // (unless a later stage's expansion may read what an earlier one
                        // writes, `a | b "$(cat)"`: then each starts once it is prepared).
                        drop(release);
                        if let Some(go) = go.filter(|_| !eager) {
                            let _ = go.recv();
                        }
                        match ready {
                            Some(Ok(p)) => {
                                this.run_prepared(sub, p, Cx::default(), &streams);
                            }
                            Some(Err((cmd, stage_io))) => {
                                this.run_command(sub, cmd, &stage_io, Cx::default(), &streams);
                            }
                            None => return None,
                        }
                        Some(sub.exit.unwrap_or(sub.last_status))
                    });
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(_) => statuses.push(Some(2)),
                }
            }
            drop(main_tx);
            for (stream, bytes) in main_rx {
                out.write(stream, &bytes);
            }
            for h in handles {
                statuses.push(h.join().unwrap_or(Some(2)));
            }
        });
        // Stages that never ran (the line was aborted) count as failed.
        statuses.into_iter().map(|s| s.unwrap_or(1)).collect()
    }
}
