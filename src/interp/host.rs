//! Expansion's view of the interpreter: parameters (special ones included), assignments,
//! command substitution (run on a copy of the state, its output captured) and arithmetic.

use std::sync::Arc;

use trumansh_commands::Array;

use super::state::{SHELL_PID, ShellState};
use super::{Cx, Interp, Io};
use crate::exec::{Capture, Out, StreamSink};
use crate::expand::arith::{self, ArithEnv, Subscript};
use crate::expand::{self, ExpandCtx, ExpandError};
use crate::shell::ast::Script;

/// The expansion host of one command.
pub(super) struct Host<'i, 's> {
    pub interp: &'i Interp<'i>,
    pub state: &'s mut ShellState,
    pub io: &'s Io,
    pub streams: &'s dyn StreamSink,
    pub line: usize,
}

impl Interp<'_> {
    /// Runs `f` with an expansion context on `state`.
    pub(super) fn with_expand<T>(
        &self,
        state: &mut ShellState,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
        f: impl FnOnce(&mut ExpandCtx) -> T,
    ) -> T {
        let limits = &self.rt.config.policy.limits;
        let cwd = state.cwd.clone();
        let noglob = state.opts.noglob;
        let (extglob, globskipdots) = (state.opts.extglob, state.opts.globskipdots);
        let (nullglob, failglob, dotglob, globstar) = (
            state.opts.nullglob,
            state.opts.failglob,
            state.opts.dotglob,
            state.opts.globstar,
        );
        let mut host = Host {
            interp: self,
            state,
            io,
            streams,
            line,
        };
        let mut ctx = ExpandCtx {
            host: &mut host,
            cwd: &cwd,
            fs: &self.rt.sandbox,
            max_brace: limits.brace_fields,
            max_glob: limits.glob_matches,
            max_words: limits.expansion_words,
            max_bytes: limits.expansion_bytes,
            noglob,
            nullglob,
            failglob,
            dotglob,
            globstar,
            extglob,
            globskipdots,
        };
        let result = f(&mut ctx);
        self.flush_warnings(state, line, streams);
        result
    }

    /// Prints what arithmetic warned about while it went on.
    pub(super) fn flush_warnings(
        &self,
        state: &mut ShellState,
        line: usize,
        streams: &dyn StreamSink,
    ) {
        if state.warnings.is_empty() {
            return;
        }
        for w in std::mem::take(&mut state.warnings) {
            self.session_error(state, streams, line, w.as_bytes());
        }
    }

    /// `$(...)`: [`Interp::captured`], NUL bytes dropped with bash's warning.
    pub(super) fn command_subst(
        &self,
        state: &mut ShellState,
        script: &Script,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<Vec<u8>, ExpandError> {
        let mut bytes = self.captured(state, script, io, line, streams)?;
        if bytes.contains(&0) {
            bytes.retain(|&b| b != 0);
            self.shell_error(
                state,
                &io.err,
                streams,
                line,
                b"warning: command substitution: ignored null byte in input\n",
            );
        }
        Ok(bytes)
    }

    /// Runs a list on a copy of the state (`$(...)`, `<(...)`), its stdout captured; `$?`
    /// becomes its status.
    pub(super) fn captured(
        &self,
        state: &mut ShellState,
        script: &Script,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<Vec<u8>, ExpandError> {
        let limits = &self.rt.config.policy.limits;
        if state.subst_depth >= limits.subst_depth {
            self.limit(
                state,
                streams,
                line,
                "subst_depth",
                limits.subst_depth as u64,
                "nested command substitutions",
            );
            return Err(ExpandError::fatal(String::new()));
        }
        let capture = Arc::new(Capture::new(limits.var_bytes));
        let mut sub = state.subshell();
        sub.subst_depth += 1;
        if !sub.opts.inherit_errexit {
            sub.opts.errexit = false;
        }
        let sub_io = Io {
            stdin: io.stdin.clone(),
            out: Out::Capture(Arc::clone(&capture)),
            err: io.err.clone(),
            extra: io.extra.clone(),
        };
        let this = Interp {
            stage: false,
            ..*self
        };
        if let Some(redirect) = file_read(script) {
            // `$(< file)`: the file's contents, without running anything.
            let mut fds = super::redirect::Fds::new(sub_io.clone());
            let opened = this.open_redirections(
                &mut sub,
                std::slice::from_ref(redirect),
                &mut fds,
                line,
                streams,
            );
            match opened {
                Ok(()) => {
                    let stdin = fds.io.stdin.stdin();
                    let mut buf = vec![0u8; 64 * 1024];
                    let mut r = &stdin;
                    while let Ok(n) = std::io::Read::read(&mut r, &mut buf) {
                        if n == 0 || !capture.push(buf.get(..n).unwrap_or_default()) {
                            break;
                        }
                    }
                    sub.set_status(0);
                }
                Err(status) => sub.set_status(status),
            }
        } else {
            this.run_list(&mut sub, script, &sub_io, Cx::default(), streams);
        }
        this.exit_trap(&mut sub, &sub_io, streams);
        let status = sub.exit.unwrap_or(sub.last_status);
        state.set_status(status);
        state.random.set(sub.random.get());
        if capture.overflow.load(std::sync::atomic::Ordering::Relaxed) {
            self.limit(
                state,
                streams,
                line,
                "var_bytes",
                limits.var_bytes as u64,
                "bytes of command substitution output",
            );
            return Err(ExpandError::fatal(String::new()));
        }
        Ok(capture.take())
    }
}

/// The one `< file` of a `$(< file)`: a script of one simple command with no words, no
/// assignments and that redirection alone (bash reads the file instead of running it).
fn file_read(script: &Script) -> Option<&crate::shell::ast::Redirect> {
    use crate::shell::ast::{Command, RedirKind};
    let [item] = script.items.as_slice() else {
        return None;
    };
    if !item.rest.is_empty() || item.background || item.first.negated {
        return None;
    }
    let [Command::Simple(cmd)] = item.first.commands.as_slice() else {
        return None;
    };
    let [redirect] = cmd.redirects.as_slice() else {
        return None;
    };
    (cmd.words.is_empty()
        && cmd.assignments.is_empty()
        && redirect.fd.is_none_or(|fd| fd == 0)
        && matches!(redirect.kind, RedirKind::In(_)))
    .then_some(redirect)
}

/// One level of the call stack: a function call, a `source`d file, or a script's own level.
pub(super) struct Level {
    /// `FUNCNAME`: the function, `source` or `main`.
    pub name: String,
    /// `BASH_SOURCE`: the file the function was defined in, the file `source`d, the script.
    pub file: String,
    /// `BASH_LINENO`: the line it was called from (0 for the script's own level).
    pub line: usize,
}

/// The call stack as bash keeps it, innermost first: the function calls and `source`d files
/// in progress in the order they were entered, then `main` for a script's own level (not a
/// `-c` string's or standard input's). `FUNCNAME`, `BASH_SOURCE` and `BASH_LINENO` are its
/// columns; `caller` walks it.
pub(super) fn call_stack(state: &ShellState) -> Vec<Level> {
    let main = state.source_files.len() > state.source_lines.len();
    let mut out = Vec::with_capacity(state.frames.len() + state.source_files.len());
    let (mut i, mut j) = (0, 0);
    loop {
        // Outermost first: a file `source`d before a function was called (its index below
        // the files open then) is further out than that call.
        let source = state
            .source_files
            .get(j)
            .filter(|_| state.frames.get(i).is_none_or(|f| j < f.sources));
        if let Some(file) = source {
            out.push(if main && j == 0 {
                Level {
                    name: "main".into(),
                    file: file.to_string(),
                    line: 0,
                }
            } else {
                Level {
                    name: "source".into(),
                    file: file.to_string(),
                    line: state
                        .source_lines
                        .get(j - usize::from(main))
                        .copied()
                        .unwrap_or(0),
                }
            });
            j += 1;
        } else if let Some(f) = state.frames.get(i) {
            out.push(Level {
                name: f.name.clone(),
                file: state
                    .function_files
                    .get(&f.name)
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                line: f.line,
            });
            i += 1;
        } else {
            break;
        }
    }
    out.reverse();
    out
}

/// One column of [`call_stack`]: `FUNCNAME` (empty outside a function, as bash shows it),
/// `BASH_SOURCE` or `BASH_LINENO`.
fn stack_column(state: &ShellState, name: &str) -> Vec<String> {
    if name == "FUNCNAME" && state.frames.is_empty() {
        return Vec::new();
    }
    call_stack(state)
        .into_iter()
        .map(|l| match name {
            "FUNCNAME" => l.name,
            "BASH_SOURCE" => l.file,
            _ => l.line.to_string(),
        })
        .collect()
}

/// Evaluates arithmetic text on `state`'s variables.
/// An error in `$((...))` abandons the command line, as in a non-interactive bash.
pub(super) fn arith(state: &mut ShellState, text: &str) -> Result<i64, ExpandError> {
    let mut env = Vars {
        state,
        command: None,
    };
    arith::eval(text, &mut env).map_err(|e| ExpandError::fatal(e.message))
}

/// Arithmetic for a command (`let`, `(( ))`, `for ((`): an expression error is named after
/// the command and only fails it; an error inside a subscript abandons the line (bash).
pub(super) fn arith_command(
    state: &mut ShellState,
    text: &str,
    command: &str,
) -> Result<i64, ExpandError> {
    let mut env = Vars {
        state,
        command: Some(command),
    };
    arith::eval(text, &mut env).map_err(|e| {
        let message = match e.kind {
            arith::ArithErrorKind::Expression => format!("{command}: {}", e.message),
            _ => e.message,
        };
        if e.kind == arith::ArithErrorKind::Fatal {
            ExpandError::fatal(message)
        } else {
            ExpandError::plain(message)
        }
    })
}

/// Arithmetic's view of the variables.
struct Vars<'s> {
    state: &'s mut ShellState,
    /// The command evaluating (`let`, `((`), named in expression messages.
    command: Option<&'s str>,
}

impl ArithEnv for Vars<'_> {
    fn warn(&mut self, warning: &arith::ArithError) {
        let message = match (warning.kind, self.command) {
            (arith::ArithErrorKind::Expression, Some(c)) => format!("{c}: {}", warning.message),
            _ => warning.message.clone(),
        };
        // Bounded: a loop of bad subscripts keeps the last messages only.
        if self.state.warnings.len() < 64 {
            self.state.warnings.push(message);
        }
    }
    fn get(&mut self, name: &str, sub: Subscript<'_>) -> Option<String> {
        match sub {
            Subscript::None => param(self.state, name),
            Subscript::Index(i) => element(self.state, name, &Sub::Index(i)),
            Subscript::Key(k) => element(self.state, name, &Sub::Key(k.to_string())),
        }
    }
    fn set(&mut self, name: &str, sub: Subscript<'_>, value: i64) -> Result<(), String> {
        match sub {
            Subscript::None => assign(self.state, name, value.to_string()),
            Subscript::Index(i) => {
                assign_element(self.state, name, Sub::Index(i), value.to_string(), false)
            }
            Subscript::Key(k) => assign_element(
                self.state,
                name,
                Sub::Key(k.to_string()),
                value.to_string(),
                false,
            ),
        }
    }
    fn is_assoc(&self, name: &str) -> bool {
        is_assoc(self.state, name)
    }
}

/// An array subscript, evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Sub {
    Index(i64),
    Key(String),
}

/// Whether `name` is an associative array.
pub(super) fn is_assoc(state: &ShellState, name: &str) -> bool {
    matches!(
        state.vars.var(name).and_then(|v| v.array.as_ref()),
        Some(Array::Assoc(_))
    )
}

/// A variable's value must fit `var_bytes`; past it the assignment fails.
fn check_size(state: &ShellState, value: &str) -> Result<(), String> {
    if value.len() > state.max_var_bytes {
        return Err(format!(
            "value too large: {} bytes (the limit for one variable is {}; limits.var_bytes)",
            value.len(),
            state.max_var_bytes
        ));
    }
    Ok(())
}

/// What a variable's attributes make of a value assigned to it (`declare -i`, `-l`, `-u`);
/// `append`: the old value to add to (`+=`).
pub(super) fn shaped(
    state: &mut ShellState,
    name: &str,
    value: String,
    append: Option<&str>,
) -> Result<String, String> {
    let Some(var) = state.vars.var(name) else {
        return Ok(append.map_or(value.clone(), |old| format!("{old}{value}")));
    };
    let (integer, case) = (var.integer, var.case);
    let mut v = if integer {
        let text = match append {
            Some(old) => format!("{}+({value})", if old.is_empty() { "0" } else { old }),
            None => value,
        };
        arith(state, &text).map_err(|e| e.message)?.to_string()
    } else {
        append.map_or(value.clone(), |old| format!("{old}{value}"))
    };
    match case {
        Some(true) => v.make_ascii_uppercase(),
        Some(false) => v.make_ascii_lowercase(),
        None => {}
    }
    Ok(v)
}

/// Assigns a variable as an assignment statement does.
/// The variable a name stands for: itself, or what its `declare -n` reference names (in a
/// chain, up to bash's limit of 8 levels).
pub(super) fn target(state: &ShellState, name: &str) -> String {
    let mut n = name.to_string();
    for _ in 0..8 {
        match state.vars.var(&n) {
            Some(v) if v.nameref => match &v.value {
                Some(t) if !t.is_empty() => n.clone_from(t),
                _ => break,
            },
            _ => break,
        }
    }
    n
}

pub(super) fn assign(state: &mut ShellState, name: &str, value: String) -> Result<(), String> {
    let name = &target(state, name);
    if state.vars.var(name).is_some_and(|v| v.readonly) {
        return Err(format!("{name}: readonly variable"));
    }
    let value = shaped(state, name, value, None)?;
    check_size(state, &value)?;
    let export = state.opts.allexport;
    state.vars.set(name, value, export);
    Ok(())
}

/// Assigns `name` or an element `name[sub]` (`read`, `printf -v`), as an assignment
/// statement does.
pub(super) fn assign_ref(state: &mut ShellState, name: &str, value: String) -> Result<(), String> {
    let Some((array, rest)) = name.split_once('[') else {
        return assign(state, name, value);
    };
    let text = rest.strip_suffix(']').unwrap_or(rest);
    let array = target(state, array);
    let sub = subscript(state, &array, text).map_err(|e| e.message)?;
    assign_element(state, &array, sub, value, false)
}

/// The elements of an array in order (a scalar: itself; unset: none).
pub(super) fn elements(state: &ShellState, name: &str) -> Vec<String> {
    let name = &target(state, name);
    match state.vars.var(name) {
        None => Vec::new(),
        Some(v) => match &v.array {
            Some(Array::Indexed(m)) => m.values().cloned().collect(),
            Some(Array::Assoc(m)) => m.values().cloned().collect(),
            None => v.value.clone().into_iter().collect(),
        },
    }
}

/// The subscripts of an array in order (`${!a[@]}`).
pub(super) fn keys(state: &ShellState, name: &str) -> Vec<String> {
    let name = &target(state, name);
    match state.vars.var(name) {
        None => Vec::new(),
        Some(v) => match &v.array {
            Some(Array::Indexed(m)) => m.keys().map(i64::to_string).collect(),
            Some(Array::Assoc(m)) => m.keys().cloned().collect(),
            None => v.value.iter().map(|_| "0".to_string()).collect(),
        },
    }
}

/// One element; a negative index counts from the end.
pub(super) fn element(state: &ShellState, name: &str, sub: &Sub) -> Option<String> {
    let name = &target(state, name);
    let v = state.vars.var(name)?;
    match (&v.array, sub) {
        (Some(Array::Indexed(m)), Sub::Index(i)) => {
            let i = if *i < 0 {
                m.keys().next_back().map_or(*i, |last| last + 1 + i)
            } else {
                *i
            };
            m.get(&i).cloned()
        }
        (Some(Array::Assoc(m)), Sub::Key(k)) => m.get(k).cloned(),
        (Some(Array::Assoc(m)), Sub::Index(i)) => m.get(&i.to_string()).cloned(),
        (None, Sub::Index(0 | -1)) => v.value.clone(),
        (Some(Array::Indexed(_)), Sub::Key(_)) | (None, _) => None,
    }
}

/// `a[sub]=value` (`+=`: appended to the element).
pub(super) fn assign_element(
    state: &mut ShellState,
    name: &str,
    sub: Sub,
    value: String,
    append: bool,
) -> Result<(), String> {
    let name = &target(state, name);
    if state.vars.var(name).is_some_and(|v| v.readonly) {
        return Err(format!("{name}: readonly variable"));
    }
    check_size(state, &value)?;
    let max = state.max_array_elements;
    let max_bytes = state.max_array_bytes;
    let bound = state.array_bytes.entry(name.clone()).or_insert(0);
    *bound = bound.saturating_add(value.len());
    // Past the cap, the bound is made exact (below): rarely, so stores stay O(1).
    let recount = *bound > max_bytes;
    let var = state.vars.entry(name);
    if var.array.is_none() {
        let mut m = std::collections::BTreeMap::new();
        if let Some(v) = var.value.take() {
            m.insert(0, v);
        }
        var.array = Some(Array::Indexed(m));
    }
    match (&mut var.array, sub) {
        (Some(Array::Indexed(m)), Sub::Index(i)) => {
            let i = if i < 0 {
                match m.keys().next_back() {
                    Some(last) if last + 1 + i >= 0 => last + 1 + i,
                    _ => return Err(format!("{name}[{i}]: bad array subscript")),
                }
            } else {
                i
            };
            if recount {
                let exact = array_size(m, &i, value.len(), append, name, max_bytes)?;
                state.array_bytes.insert(name.clone(), exact);
            }
            store(m, i, value, append, name, max, state.max_var_bytes)?;
        }
        (Some(Array::Assoc(m)), sub) => {
            let k = match sub {
                Sub::Key(k) => k,
                Sub::Index(i) => i.to_string(),
            };
            if recount {
                let exact = array_size(m, &k, value.len(), append, name, max_bytes)?;
                state.array_bytes.insert(name.clone(), exact);
            }
            store(m, k, value, append, name, max, state.max_var_bytes)?;
        }
        (_, Sub::Key(_)) => return Err(format!("{name}: bad array subscript")),
        (None, Sub::Index(_)) => {}
    }
    Ok(())
}

/// The bytes an array's values hold once `len` more are stored at `key` (appended, or in
/// place of the old value), within `limits.array_bytes`.
fn array_size<K: Ord>(
    m: &std::collections::BTreeMap<K, String>,
    key: &K,
    len: usize,
    append: bool,
    name: &str,
    max: usize,
) -> Result<usize, String> {
    let all = m
        .values()
        .map(String::len)
        .fold(0usize, usize::saturating_add);
    let old = if append {
        0
    } else {
        m.get(key).map_or(0, String::len)
    };
    let size = all.saturating_sub(old).saturating_add(len);
    if size > max {
        return Err(format!(
            "{name}: array too large: {size} bytes (the limit for one array is {max}; limits.array_bytes)"
        ));
    }
    Ok(size)
}

/// Sets (or appends to) one element, within `limits.array_elements` and, appended to,
/// `limits.var_bytes`.
fn store<K: Ord>(
    m: &mut std::collections::BTreeMap<K, String>,
    key: K,
    value: String,
    append: bool,
    name: &str,
    max: usize,
    max_var: usize,
) -> Result<(), String> {
    if !m.contains_key(&key) && m.len() >= max {
        return Err(format!(
            "{name}: too many array elements (the limit is {max}; limits.array_elements)"
        ));
    }
    let slot = m.entry(key).or_default();
    let size = slot.len().saturating_add(value.len());
    if append && size > max_var {
        return Err(format!(
            "value too large: {size} bytes (the limit for one variable is {max_var}; limits.var_bytes)"
        ));
    }
    if append {
        slot.push_str(&value);
    } else {
        *slot = value;
    }
    Ok(())
}

/// `a=(...)` / `a+=(...)`: the items, each with its own subscript or the next index.
pub(super) fn assign_array(
    state: &mut ShellState,
    name: &str,
    items: Vec<(Option<String>, String)>,
    append: bool,
    assoc: bool,
) -> Result<(), String> {
    let name = &target(state, name);
    if state.vars.var(name).is_some_and(|v| v.readonly) {
        return Err(format!("{name}: readonly variable"));
    }
    let assoc = assoc || is_assoc(state, name);
    let var = state.vars.entry(name);
    let keep = append && var.array.is_some();
    if !keep {
        let mut fresh = if assoc {
            Array::Assoc(std::collections::BTreeMap::new())
        } else {
            Array::Indexed(std::collections::BTreeMap::new())
        };
        if append && let (Some(v), Array::Indexed(m)) = (var.value.take(), &mut fresh) {
            m.insert(0, v);
        }
        var.value = None;
        var.array = Some(fresh);
    }
    let mut next = match &var.array {
        Some(Array::Indexed(m)) => m.keys().next_back().map_or(0, |k| k + 1),
        _ => 0,
    };
    for (sub, value) in items {
        let s = match (&sub, assoc) {
            (Some(k), true) => Sub::Key(k.clone()),
            (None, true) => {
                return Err(format!(
                    "{name}: {value}: must use subscript when assigning associative array"
                ));
            }
            (Some(k), false) => {
                // An indexed array's subscript is arithmetic (`[1 + 1]=v`, `[i]=v`).
                let i = match k.trim().parse::<i64>() {
                    Ok(i) => i,
                    Err(_) if k.trim().is_empty() => {
                        return Err(format!("[{k}]={value}: bad array subscript"));
                    }
                    Err(_) => arith(state, k).map_err(|e| e.message)?,
                };
                next = i + 1;
                Sub::Index(i)
            }
            (None, false) => {
                let i = next;
                next += 1;
                Sub::Index(i)
            }
        };
        assign_element(state, name, s, value, false)?;
    }
    Ok(())
}

/// A parameter's value (`None`: unset).
pub(super) fn param(state: &ShellState, name: &str) -> Option<String> {
    let b = name.as_bytes();
    match b {
        b"?" => Some(state.last_status.to_string()),
        b"#" => Some(state.positional.len().to_string()),
        b"$" => Some(SHELL_PID.to_string()),
        b"!" => state.last_bg.map(|p| p.to_string()),
        b"-" => Some(state.flags()),
        b"0" => Some(state.arg0.clone()),
        b"@" | b"*" => None,
        [b'1'..=b'9', ..] if b.iter().all(u8::is_ascii_digit) => {
            let n: usize = name.parse().ok()?;
            state.positional.get(n - 1).cloned()
        }
        b"LINENO" => Some(state.lineno.to_string()),
        b"RANDOM" => Some(state.next_random().to_string()),
        b"SECONDS" => Some(state.started.elapsed().as_secs().to_string()),
        b"FUNCNAME" | b"BASH_SOURCE" | b"BASH_LINENO" => {
            stack_column(state, name).into_iter().next()
        }
        b"PIPESTATUS" => state.pipestatus.first().map(i32::to_string),
        b"BASH_SUBSHELL" => Some(state.subshell.to_string()),
        b"BASHPID" => Some(SHELL_PID.to_string()),
        b"SHELLOPTS" => Some(super::options::shellopts(state)),
        _ => {
            let v = state.vars.var(name)?;
            if v.nameref {
                let t = target(state, name);
                return if t == name {
                    v.value.clone()
                } else {
                    state.vars.get(&t).map(str::to_string)
                };
            }
            v.scalar().map(str::to_string)
        }
    }
}

/// `$SHELLOPTS`.
impl expand::Host for Host<'_, '_> {
    fn expired(&self) -> bool {
        self.interp.rt.guard().expired()
    }
    fn param(&self, name: &str) -> Option<String> {
        param(self.state, name)
    }
    fn positional(&self) -> Vec<String> {
        self.state.positional.as_ref().clone()
    }
    fn assign(&mut self, name: &str, value: String) -> Result<(), String> {
        assign(self.state, name, value)
    }
    fn command_subst(&mut self, script: &Script) -> Result<Vec<u8>, ExpandError> {
        self.interp
            .command_subst(self.state, script, self.io, self.line, self.streams)
    }
    fn arith(&mut self, text: &str) -> Result<i64, ExpandError> {
        arith(self.state, text)
    }
    fn process_subst(&mut self, script: &Script, out: bool) -> Result<String, ExpandError> {
        // bash's fd numbers count down from 63.
        let used = self.state.proc_fds.len() + self.state.proc_out.len();
        let fd = 63 - u32::try_from(used).unwrap_or(0).min(53);
        if out {
            // The command writes to `/dev/fd/N` into a buffer; the list runs on it once the
            // command is done (nothing runs concurrently).
            let cap = self.interp.rt.config.policy.limits.var_bytes;
            let pid = self.state.new_job();
            self.state.proc_out.push(super::state::ProcOut {
                pid,
                fd,
                capture: Arc::new(crate::exec::Capture::new(cap)),
                script: Arc::new(script.clone()),
                io: self.io.clone(),
            });
            return Ok(format!("/dev/fd/{fd}"));
        }
        // The list runs to completion first (nothing runs concurrently); the command reads
        // its output at `/dev/fd/N`.
        let status = self.state.last_status;
        let bytes = self
            .interp
            .captured(self.state, script, self.io, self.line, self.streams)?;
        let pid = self.state.new_job();
        self.state.job_done(pid, self.state.last_status);
        self.state.set_status(status);
        self.state.proc_fds.push((fd, Arc::new(bytes)));
        Ok(format!("/dev/fd/{fd}"))
    }
    fn nounset(&self) -> bool {
        self.state.opts.nounset
    }
    fn elements(&mut self, name: &str) -> Vec<String> {
        match name {
            "@" | "*" => self.state.positional.as_ref().clone(),
            "PIPESTATUS" => self.state.pipestatus.iter().map(i32::to_string).collect(),
            "FUNCNAME" | "BASH_SOURCE" | "BASH_LINENO" => stack_column(self.state, name),
            _ => elements(self.state, name),
        }
    }
    fn keys(&mut self, name: &str) -> Vec<String> {
        match name {
            "PIPESTATUS" => (0..self.state.pipestatus.len())
                .map(|i| i.to_string())
                .collect(),
            _ => keys(self.state, name),
        }
    }
    fn element(&mut self, name: &str, sub: &str) -> Result<Option<String>, ExpandError> {
        let sub = subscript(self.state, name, sub)?;
        Ok(match (name, &sub) {
            ("PIPESTATUS" | "FUNCNAME" | "BASH_SOURCE" | "BASH_LINENO", Sub::Index(i)) => {
                // The shell's own arrays: a negative index counts from the end.
                let all = self.elements(name);
                let at = if *i < 0 {
                    i64::try_from(all.len()).ok().map(|n| n + i)
                } else {
                    Some(*i)
                };
                at.and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| all.into_iter().nth(i))
            }
            _ => element(self.state, name, &sub),
        })
    }
    fn names_with_prefix(&self, prefix: &str) -> Vec<String> {
        // The set variables and the dynamic ones `param` answers for, as bash lists them.
        let dynamic = "BASHPID BASH_SUBSHELL LINENO PIPESTATUS RANDOM SECONDS SHELLOPTS".split(' ');
        let set = self
            .state
            .vars
            .iter()
            .filter(|(_, v)| v.value.is_some() || v.array.is_some());
        let mut names: Vec<String> = (set.map(|(n, _)| n).chain(dynamic))
            .filter(|n| n.starts_with(prefix))
            .map(str::to_string)
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }
    fn attributes(&self, name: &str) -> String {
        let Some(v) = self.state.vars.var(name) else {
            return String::new();
        };
        let mut a = String::new();
        match &v.array {
            Some(trumansh_commands::Array::Indexed(_)) => a.push('a'),
            Some(trumansh_commands::Array::Assoc(_)) => a.push('A'),
            None => {}
        }
        if v.readonly {
            a.push('r');
        }
        if v.exported {
            a.push('x');
        }
        a
    }
}

/// Evaluates a subscript: a key for an associative array, else arithmetic.
pub(super) fn subscript(
    state: &mut ShellState,
    name: &str,
    text: &str,
) -> Result<Sub, ExpandError> {
    if is_assoc(state, name) {
        return Ok(Sub::Key(text.to_string()));
    }
    Ok(Sub::Index(arith(state, text)?))
}
