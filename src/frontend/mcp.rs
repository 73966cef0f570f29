//! The MCP server (`trumansh mcp`): the shell as tools for a Model Context Protocol host, over
//! stdio, on the official Rust SDK (`rmcp`).
//!
//! One process serves one connection and keeps one shell [`Session`] for it: the cwd and the
//! variables persist from call to call. The session lives on a thread of its own; tool calls
//! reach it through a channel and run one at a time, in the order they arrive. The tools:
//!
//! - `bash {command}`: runs one complete input as `bash -c` would (line 1, `bash: line 1: ...`
//!   diagnostics), under the policy's deadline and output caps. Its description is the text
//!   `trumansh --describe` prints for the same policy and mount point. The result's text is
//!   [`render_text`]'s layout; its structured content is the `--json` protocol's response
//!   object without the id ([`super::json::outcome_json`]); `isError` is set when the exit
//!   code is not 0. After `exit`, the next call starts a fresh session (in the mount point,
//!   with fresh variables; the journal, so `undo`, carries over).
//! - `undo {count?}` (when the policy allows undo): `undo N` in the same session.
//! - `trash_list {}` (when `rm` is not denied): what the trash holds, as `trumansh trash list`.
//!
//! A call the server cannot route (an unknown tool) gets a JSON-RPC error; a call with bad
//! arguments, or a `command` longer than the policy's `request_bytes`, gets a tool error
//! (`isError`, a one-line explanation the model can act on). Neither stops the server. The end
//! of stdin ends it: a command still running finishes first (its line commits), then the
//! process exits 0. docs/MCP.md describes it all for users.

use std::borrow::Cow;
use std::sync::{Arc, mpsc};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer, ServerInitializeError, ServiceExt};
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use std::path::PathBuf;

use super::backpressure::Gate;
use super::json::{kind, outcome_json};
use crate::api::{Outcome, Request};
use crate::cli::owner::{self, TrashEntry};
use crate::io::Stream;
use crate::io::{human_bytes, io_message};
use crate::session::{Config, Session};
use crate::transcript::{Header, LineNumbers, Recorded, Recorder, request_input};

/// The `--json` protocol's schema: the `bash` and `undo` tools' output schema is its response
/// object, less the id.
const PROTOCOL_SCHEMA: &str = include_str!("../../docs/protocol.schema.json");

/// Room for the JSON-RPC envelope and escapes around a command of `request_bytes`: one
/// message may be `2 * request_bytes + 1 MiB` long. A longer line is dropped by the transport.
const ENVELOPE_BYTES: usize = 1 << 20;

/// Why the server could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServeError {
    /// The sandbox could not be opened (status 2, as in line mode).
    Setup(String),
    /// The runtime, the thread or the handshake failed (status 1).
    Server(String),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Setup(m) | ServeError::Server(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ServeError {}

/// What a tool call asks of the session's thread. Each carries the channel for its answer.
enum Job {
    /// Run one complete input (`bash`, `undo`); `seq` names it for a cancellation.
    Run {
        input: Vec<u8>,
        seq: u64,
        reply: oneshot::Sender<Result<Outcome, String>>,
    },
    /// List the trash (`trash_list`).
    TrashList {
        reply: oneshot::Sender<Result<Vec<TrashEntry>, String>>,
    },
}

/// The input the session's thread is running, for a client's cancellation to stop it.
#[derive(Default)]
struct Running {
    /// The `seq` of the running `Run` job (0: none).
    seq: std::sync::atomic::AtomicU64,
    /// The running session's cancel flag.
    flag: std::sync::Mutex<Option<std::sync::Arc<std::sync::atomic::AtomicBool>>>,
}

impl Running {
    /// Stops the job `seq` if it is the one running.
    fn cancel(&self, seq: u64) {
        use std::sync::atomic::Ordering;
        if let Ok(flag) = self.flag.lock()
            && self.seq.load(Ordering::SeqCst) == seq
            && let Some(f) = flag.as_ref()
        {
            f.store(true, Ordering::SeqCst);
        }
    }
}

/// The session's thread: the current session, and what it takes to start the next one.
struct Shell {
    config: Config,
    session: Option<Session>,
    running: std::sync::Arc<Running>,
    on_start: fn(&Session),
    /// `--record`: each `bash` and `undo` call as a step (`lines=each`).
    recorder: Option<Recorder>,
}

impl Shell {
    /// The session, started anew when the last one ran `exit`.
    fn session(&mut self) -> Result<&mut Session, String> {
        if let Some(s) = self.session.take_if(|s| s.exit_status().is_some()) {
            drop(s); // its lock goes before the next session takes one
        }
        if let Some(ref mut s) = self.session {
            return Ok(s);
        }
        let s = Session::new(self.config.clone()).map_err(|e| e.to_string())?;
        (self.on_start)(&s);
        Ok(self.session.insert(s))
    }

    /// Runs one input (as `bash -c`), recording it when `--record` asks.
    fn run(&mut self, input: &[u8]) -> Result<Outcome, String> {
        let session = self.session()?;
        let mut recorded = Recorded::default();
        let report = session.execute(&Request::new(input), &mut recorded);
        if let Some(r) = self.recorder.as_mut() {
            r.step(&request_input(input), None, &recorded, report.status);
        }
        Ok(Outcome {
            stdout: recorded.bytes(Stream::Stdout),
            stderr: recorded.bytes(Stream::Stderr),
            report,
        })
    }

    /// Runs jobs until every sender is gone. A job whose caller stopped waiting (the client
    /// cancelled it or went away) is skipped.
    fn serve(mut self, jobs: &mpsc::Receiver<Job>) {
        while let Ok(job) = jobs.recv() {
            match job {
                Job::Run { input, seq, reply } => {
                    if !reply.is_closed() {
                        if let Ok(s) = self.session() {
                            let flag = s.cancel_flag();
                            if let Ok(mut f) = self.running.flag.lock() {
                                *f = Some(flag);
                                self.running
                                    .seq
                                    .store(seq, std::sync::atomic::Ordering::SeqCst);
                            }
                        }
                        let out = self.run(&input);
                        if let Ok(_f) = self.running.flag.lock() {
                            self.running
                                .seq
                                .store(0, std::sync::atomic::Ordering::SeqCst);
                        }
                        let _ = reply.send(out);
                    }
                }
                Job::TrashList { reply } => {
                    if !reply.is_closed() {
                        let entries = self
                            .session()
                            .and_then(|s| owner::trash_entries(s.sandbox()).map_err(|e| e.message));
                        let _ = reply.send(entries);
                    }
                }
            }
        }
    }
}

/// The server: the tools, and the way to the session's thread.
struct Server {
    jobs: mpsc::Sender<Job>,
    /// What the session's thread runs, and the numbering of `Run` jobs.
    running: std::sync::Arc<Running>,
    next_seq: std::sync::atomic::AtomicU64,
    tools: Vec<Tool>,
    instructions: String,
    request_bytes: usize,
    /// Closes the input while calls or responses wait ([`super::backpressure`]).
    gate: Gate,
}

impl Server {
    /// Sends a job to the session's thread and waits for its answer, or for the client to
    /// cancel the call (the job is then skipped if it has not started; a command that runs
    /// finishes, bounded by the deadline, and its answer is dropped). The job is sent before
    /// the first await, so calls reach the session in the order they arrived.
    async fn ask<T>(
        &self,
        job: Job,
        seq: Option<u64>,
        answer: oneshot::Receiver<Result<T, String>>,
        context: &RequestContext<RoleServer>,
        result: impl FnOnce(T) -> CallToolResult,
    ) -> Result<CallToolResult, ErrorData> {
        let _call = self.gate.call();
        self.jobs
            .send(job)
            .map_err(|_| ErrorData::internal_error("the shell's thread is gone", None))?;
        match context.ct.run_until_cancelled(answer).await {
            Some(Ok(Ok(value))) => Ok(result(value)),
            // The session could not start (after `exit`): the model should hear why.
            Some(Ok(Err(message))) => Ok(tool_error(message)),
            Some(Err(_)) => Err(ErrorData::internal_error(
                "the shell's thread stopped before answering",
                None,
            )),
            None => {
                // The client cancelled: a running input stops as at its deadline.
                if let Some(seq) = seq {
                    self.running.cancel(seq);
                }
                Err(ErrorData::internal_error("the call was cancelled", None))
            }
        }
    }

    /// Runs one input in the session: the result of `bash` and `undo`.
    async fn run_input(
        &self,
        input: Vec<u8>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (reply, answer) = oneshot::channel();
        let seq = self
            .next_seq
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        let job = Job::Run { input, seq, reply };
        self.ask(job, Some(seq), answer, context, |out| shell_result(&out))
            .await
    }

    /// The result of `trash_list`.
    async fn list_trash(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (reply, answer) = oneshot::channel();
        let job = Job::TrashList { reply };
        self.ask(job, None, answer, context, |entries| trash_result(&entries))
            .await
    }
}

/// The input `bash` runs: its `command`, at most `request_bytes` long.
fn bash_input(args: &JsonObject, request_bytes: usize) -> Result<Vec<u8>, String> {
    only_known(args, &["command"], "the bash tool takes only \"command\"")?;
    let command = match args.get("command") {
        Some(Value::String(s)) => s,
        Some(v) => {
            return Err(format!(
                "argument \"command\" must be a string, not {}",
                kind(v)
            ));
        }
        None => {
            return Err(
                "missing required argument \"command\" (a string: the command line to run)".into(),
            );
        }
    };
    if command.len() > request_bytes {
        return Err(format!(
            "the command is {} bytes; the limit is {} (request_bytes); nothing was run",
            command.len(),
            human_bytes(request_bytes as u64)
        ));
    }
    Ok(command.clone().into_bytes())
}

/// The input `undo` runs: `undo N`, `count` (default 1).
fn undo_input(args: &JsonObject) -> Result<Vec<u8>, String> {
    only_known(args, &["count"], "the undo tool takes only \"count\"")?;
    let count = match args.get("count") {
        None | Some(Value::Null) => 1,
        Some(v) => match v.as_u64() {
            Some(n) if n > 0 => n,
            _ => {
                return Err(format!(
                    "argument \"count\" must be a positive integer, not {v}"
                ));
            }
        },
    };
    Ok(format!("undo {count}").into_bytes())
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("trumansh", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        if !self.tools.iter().any(|t| t.name == name) {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name.as_ref()).collect();
            return Err(ErrorData::invalid_params(
                format!("unknown tool {name:?} (tools: {})", known.join(", ")),
                None,
            ));
        }
        let empty = JsonObject::new();
        let args = request.arguments.as_ref().unwrap_or(&empty);
        let result = match name {
            "bash" => match bash_input(args, self.request_bytes) {
                Ok(input) => self.run_input(input, &context).await?,
                Err(message) => tool_error(message),
            },
            "undo" => match undo_input(args) {
                Ok(input) => self.run_input(input, &context).await?,
                Err(message) => tool_error(message),
            },
            _ => match only_known(args, &[], "the trash_list tool takes no arguments") {
                Ok(()) => self.list_trash(&context).await?,
                Err(message) => tool_error(message),
            },
        };
        Ok(result.into())
    }
}

/// A tool error: the text, `isError: true`.
fn tool_error(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// Refuses arguments the tool does not take.
fn only_known(args: &JsonObject, known: &[&str], what: &str) -> Result<(), String> {
    match args.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown argument {k:?}: {what}")),
        None => Ok(()),
    }
}

/// The text a model reads for a command's result: stdout as it is, then stderr, each ending
/// with a newline (one is added when the output did not end with one and more follows), then
/// `[exit code: N]` when the status is not 0, then `[the shell exited; the next call starts a
/// new shell]` after `exit`. Bytes that are not UTF-8 show as U+FFFD (the structured content
/// has them exactly). A command with no output and status 0 gives an empty text.
pub fn render_text(stdout: &[u8], stderr: &[u8], status: i32, exited: bool) -> String {
    let mut text = String::with_capacity(stdout.len() + stderr.len() + 64);
    for part in [stdout, stderr] {
        if !part.is_empty() {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&String::from_utf8_lossy(part));
        }
    }
    let mut note = |line: &str| {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(line);
        text.push('\n');
    };
    if status != 0 {
        note(&format!("[exit code: {status}]"));
    }
    if exited {
        note("[the shell exited; the next call starts a new shell]");
    }
    text
}

/// The result of `bash` and `undo`: the text layout, the protocol's object, `isError` when
/// the status is not 0.
fn shell_result(out: &Outcome) -> CallToolResult {
    let text = render_text(&out.stdout, &out.stderr, out.status, out.exit.is_some());
    let mut result = CallToolResult::structured(Value::Object(outcome_json(
        &out.stdout,
        &out.stderr,
        &out.report,
    )));
    result.content = vec![ContentBlock::text(text)];
    result.is_error = Some(out.status != 0);
    result
}

/// The result of `trash_list`: the owner's table as text, `{"entries": [...]}` (the objects
/// of `trumansh trash list --json`) as structured content.
fn trash_result(entries: &[TrashEntry]) -> CallToolResult {
    let rows: Vec<Value> = entries.iter().map(owner::trash_entry_json).collect();
    let mut result = CallToolResult::structured(json!({ "entries": rows }));
    let text = if entries.is_empty() {
        "the trash is empty\n".to_string()
    } else {
        owner::format_trash_list(entries, false)
    };
    result.content = vec![ContentBlock::text(text)];
    result
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The output schema of `bash` and `undo`: the protocol's `response` without `id`, with the
/// definitions it refers to. `None` if the schema file does not have that shape (a unit test
/// makes sure it does).
pub fn outcome_schema() -> Option<JsonObject> {
    let doc: Value = serde_json::from_str(PROTOCOL_SCHEMA).ok()?;
    let defs = doc.get("$defs")?.as_object()?;
    let mut response = defs.get("response")?.as_object()?.clone();
    let props = response.get_mut("properties")?.as_object_mut()?;
    props.remove("id");
    // After `exit` the server goes on: the next call gets a new shell.
    props.get_mut("exited")?.as_object_mut()?.insert(
        "description".into(),
        "The line ran exit: the shell ended; the next call starts a new one.".into(),
    );
    response
        .get_mut("required")?
        .as_array_mut()?
        .retain(|r| r != "id");
    response.insert(
        "description".into(),
        "What the command line did: the --json protocol's response object, without its id.".into(),
    );
    let mut used = JsonObject::new();
    for name in ["base64", "path", "effect"] {
        used.insert(name.into(), defs.get(name)?.clone());
    }
    let mut schema = JsonObject::new();
    schema.insert("$schema".into(), doc.get("$schema")?.clone());
    schema.extend(response);
    schema.insert("$defs".into(), Value::Object(used));
    Some(schema)
}

/// The output schema of `trash_list`.
fn trash_schema() -> Value {
    json!({
        "type": "object",
        "required": ["entries"],
        "properties": {
            "entries": {
                "type": "array",
                "description": "The trash's entries, oldest first (as `trumansh trash list --json`).",
                "items": {
                    "type": "object",
                    "required": ["id", "time", "unix_time", "size", "kind", "path", "rel"],
                    "properties": {
                        "id": { "type": "string" },
                        "time": { "type": "string", "description": "When it was removed (RFC 3339, UTC)." },
                        "unix_time": { "type": "integer", "minimum": 0 },
                        "size": { "type": "integer", "minimum": 0, "description": "Bytes held." },
                        "kind": { "enum": ["file", "dir", "link", "other", "missing"] },
                        "path": { "type": "string", "description": "The path it had, as the agent saw it (empty when unknown)." },
                        "rel": { "type": "string", "description": "The path it had, relative to the sandbox's root (empty when unknown)." },
                        "undo": { "type": "string", "description": "Present when an undo put it there: which undo. It holds what that undo replaced or removed, at their paths relative to the root." }
                    },
                    "additionalProperties": false
                }
            }
        },
        "additionalProperties": false
    })
}

/// The tools a policy offers: `bash` (described by `describe`), `undo` when the policy allows
/// it, `trash_list` unless `rm` is denied.
pub fn tools(config: &Config, describe: &str) -> Vec<Tool> {
    let policy = &config.policy;
    let outcome = outcome_schema().map(Arc::new);
    let with_output = |tool: Tool, schema: Option<&Arc<JsonObject>>| match schema {
        Some(s) => tool.with_raw_output_schema(Arc::clone(s)),
        None => tool,
    };
    let bash = Tool::new(
        "bash",
        Cow::Owned(describe.to_string()),
        object(json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "description": "The command line to run, as typed into bash; one complete input (it may hold several lines, e.g. a here-document)."
                }
            },
            "required": ["command"],
            "additionalProperties": false
        })),
    )
    .with_title("Bash (emulated, sandboxed)")
    .with_annotations(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(!policy.undo)
            .idempotent(false)
            .open_world(false),
    );
    let mut tools = vec![with_output(bash, outcome.as_ref())];
    if policy.undo {
        let undo = Tool::new(
            "undo",
            format!(
                "Reverts the last command line (or the last `count` lines, up to {}) that \
                 changed files, as `undo N` in the bash tool: files written, created, moved or \
                 removed come back as they were. Undo itself cannot be undone.",
                policy.limits.undo_history
            ),
            object(json!({
                "type": "object",
                "properties": {
                    "count": {
                        "type": "integer",
                        "minimum": 1,
                        "default": 1,
                        "description": "How many state-changing command lines to revert."
                    }
                },
                "additionalProperties": false
            })),
        )
        .with_title("Undo")
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(true)
                .idempotent(false)
                .open_world(false),
        );
        tools.push(with_output(undo, outcome.as_ref()));
    }
    if !policy.deny_commands.iter().any(|c| c == "rm") {
        let trash = Tool::new(
            "trash_list",
            "Lists what rm (and an overwriting mv or cp) moved to the trash, oldest first: id, \
             time (UTC), size in bytes, kind and the original path. Nothing is ever deleted \
             for good by the shell; the owner can restore these entries.",
            object(json!({
                "type": "object",
                "properties": {},
                "additionalProperties": false
            })),
        )
        .with_title("Trash list")
        .with_raw_output_schema(object(trash_schema()))
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        );
        tools.push(trash);
    }
    tools
}

/// Serves MCP on stdin/stdout until the end of stdin. `describe` is the `--describe` text
/// (the `bash` tool's description and the server's instructions); `on_start` sees each new
/// session (the first, and each after `exit`), e.g. to report crash recovery on stderr;
/// `record` is `--record`'s transcript file.
pub fn serve_stdio(
    config: Config,
    describe: String,
    on_start: fn(&Session),
    record: Option<PathBuf>,
) -> Result<(), ServeError> {
    let request_bytes = config.policy.limits.request_bytes;
    let tools = tools(&config, &describe);
    let (jobs, job_rx) = mpsc::channel::<Job>();
    let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
    let running = std::sync::Arc::new(Running::default());
    let shell_running = std::sync::Arc::clone(&running);
    // The session's lines run on this thread, with the interpreter's stack.
    let thread = crate::interp::spawn_own_thread("trumansh-session", move || {
        let mut shell = Shell {
            config,
            session: None,
            running: shell_running,
            on_start,
            recorder: None,
        };
        let mut started = shell.session().map(|_| ());
        if let (Ok(()), Some(path), Some(session)) = (&started, &record, &shell.session) {
            let header = Header::for_session(session, LineNumbers::Each);
            match Recorder::create(path, &header) {
                Ok(r) => shell.recorder = Some(r),
                Err(e) => started = Err(format!("{}: {}", path.display(), io_message(&e))),
            }
        }
        let ok = started.is_ok();
        let _ = ready_tx.send(started);
        if ok {
            shell.serve(&job_rx);
        }
    })
    .map_err(|e| ServeError::Server(format!("cannot start the session's thread: {e}")))?;
    match ready_rx.recv() {
        Ok(Ok(())) => {}
        Ok(Err(message)) => {
            let _ = thread.join();
            return Err(ServeError::Setup(message));
        }
        Err(_) => {
            let _ = thread.join();
            return Err(ServeError::Server("the session's thread stopped".into()));
        }
    }
    let gate = Gate::default();
    let server = Server {
        gate: gate.clone(),
        jobs,
        running,
        next_seq: std::sync::atomic::AtomicU64::new(0),
        tools,
        instructions: describe,
        request_bytes,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ServeError::Server(format!("cannot start the runtime: {e}")))?;
    let ended = rt.block_on(async move {
        let (stdin, stdout) = rmcp::transport::stdio_pipes();
        // A client that stops reading stops the server reading (bounded, not queued).
        let (stdin, stdout) = (gate.input(stdin), gate.output(stdout));
        let transport = AsyncRwTransport::new_server(stdin, stdout).with_max_line_length(
            request_bytes
                .saturating_mul(2)
                .saturating_add(ENVELOPE_BYTES),
        );
        match server.serve(transport).await {
            Ok(running) => running
                .waiting()
                .await
                .map(|_| ())
                .map_err(|e| ServeError::Server(e.to_string())),
            // The client went away before the handshake ended: nothing to serve.
            Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(ServeError::Server(e.to_string())),
        }
    });
    // Handlers still waiting are dropped with the runtime; the session's thread ends when the
    // last sender is gone, after the command it is running.
    rt.shutdown_background();
    let _ = thread.join();
    ended
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn text_layout() {
        assert_eq!(render_text(b"", b"", 0, false), "");
        assert_eq!(render_text(b"hi\n", b"", 0, false), "hi\n");
        assert_eq!(render_text(b"no newline", b"", 0, false), "no newline");
        assert_eq!(
            render_text(b"out", b"err\n", 1, false),
            "out\nerr\n[exit code: 1]\n"
        );
        assert_eq!(
            render_text(b"", b"bash: line 1: x: command not found\n", 127, false),
            "bash: line 1: x: command not found\n[exit code: 127]\n"
        );
        assert_eq!(
            render_text(b"a\n", b"b", 2, false),
            "a\nb\n[exit code: 2]\n"
        );
        assert_eq!(
            render_text(b"", b"", 0, true),
            "[the shell exited; the next call starts a new shell]\n"
        );
        assert_eq!(
            render_text(b"bye\n", b"", 3, true),
            "bye\n[exit code: 3]\n[the shell exited; the next call starts a new shell]\n"
        );
        assert_eq!(render_text(b"\xffok\n", b"", 0, false), "\u{fffd}ok\n");
    }

    #[test]
    fn the_output_schema_is_the_protocols_response_without_id() {
        let schema = outcome_schema().expect("docs/protocol.schema.json has a response");
        let props = schema["properties"].as_object().unwrap();
        assert!(!props.contains_key("id"));
        for field in [
            "stdout",
            "stderr",
            "exit_code",
            "cwd",
            "truncated",
            "timed_out",
            "duration_ms",
            "effects",
            "effects_omitted",
            "rolled_back",
            "exited",
        ] {
            assert!(props.contains_key(field), "{field}");
        }
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(!required.contains(&"id"));
        assert_eq!(schema["type"], "object");
        // Every reference resolves inside the schema itself.
        let text = serde_json::to_string(&schema).unwrap();
        for name in ["base64", "path", "effect"] {
            assert!(schema["$defs"].get(name).is_some(), "{name}");
        }
        assert!(!text.contains("#/$defs/id"));
        assert!(!text.contains("#/$defs/response"));
    }

    #[test]
    fn structured_content_validates_against_the_output_schema() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "x\n").unwrap();
        let mut config = Config::new(dir.path());
        config.sandbox.mount_point = Some("/home/user".into());
        let mut session = Session::new(config).unwrap();
        let schema = Value::Object(outcome_schema().unwrap());
        let validator = jsonschema::validator_for(&schema).unwrap();
        for line in [
            "echo hi > a; mkdir d; mv a d/b; cp d/b c; chmod 600 c; touch t; rm f",
            "undo",
            "printf '\\377' > bin; cat bin",
            "cat nope",
            "exit 3",
        ] {
            let out = session.run(line);
            let result = shell_result(&out);
            let content = result.structured_content.unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&content)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{line}: {errors:?}\n{content}");
        }
    }

    #[test]
    fn tools_follow_the_policy() {
        let mut config = Config::new("/nonexistent");
        let names = |c: &Config| -> Vec<String> {
            tools(c, "d").iter().map(|t| t.name.to_string()).collect()
        };
        assert_eq!(names(&config), ["bash", "undo", "trash_list"]);
        config.policy.undo = false;
        config.policy.deny_commands = vec!["rm".into()];
        assert_eq!(names(&config), ["bash"]);
        let bash = &tools(&config, "the text")[0];
        assert_eq!(bash.description.as_deref(), Some("the text"));
        assert_eq!(bash.input_schema["required"], json!(["command"]));
    }
}
