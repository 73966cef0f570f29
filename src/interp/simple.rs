//! A simple command, alone or as a pipeline stage — one code path: expand its words and
//! assignments, open its redirections ([`super::redirect`]), look it up (a function, one of
//! the interpreter's builtins, a handler), then run it.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use trumansh_commands::{CommandName, Directive, FsView, Stdin, Vars};

use super::builtins::Builtin;
use super::redirect::{Fd, Fds};
use super::state::{Frame, ShellState};
use super::{Cx, Flow, Interp, Io, host};
use crate::exec::{Emitter, Out, StreamSink, audit_command, run_command};
use crate::expand;
use crate::shell::ast::{AssignValue, Assignment, FunctionDef, SimpleCommand};

/// What a command name leads to.
pub(super) enum Target {
    /// A script file run by path (`./x.sh`): a child shell (in POSIX mode for a `sh`
    /// shebang).
    Script(OsString, bool),
    Function(Arc<FunctionDef>),
    Builtin(Builtin),
    Handler(CommandName),
    /// A handler run as its program (`/usr/bin/printf`; what `xargs` and `find -exec`
    /// run): a `Both` command answers as GNU's program, not as the builtin.
    Program(CommandName, String),
}

/// A command whose words, assignments and redirections are done, ready to run.
pub(super) enum Prepared {
    Run {
        target: Target,
        /// The words after the name.
        args: Vec<OsString>,
        /// Prefix assignments: for this command only.
        assigns: Vec<(String, String)>,
        fds: Fds,
        line: usize,
    },
    /// Not a command: this message (already prefixed) on stderr, and this status.
    NotFound {
        message: Vec<u8>,
        status: i32,
        err: Out,
    },
    /// Nothing to run (assignments only, or an expansion/redirection that failed).
    Done(i32),
}

impl Interp<'_> {
    /// Expands a command's words and assignments and opens its redirections, in bash's
    /// order; what is left is to run it.
    pub(super) fn prepare(
        &self,
        state: &mut ShellState,
        cmd: &SimpleCommand,
        mut fds: Fds,
        streams: &dyn StreamSink,
    ) -> Prepared {
        let line = cmd.line;
        state.lineno = line;
        state.proc_fds.clear();
        // 1. Words (the assignment-shaped arguments of `local`/`declare`/... unsplit).
        let words = if cmd.decl_args.is_empty() {
            self.with_expand(state, &fds.io, line, streams, |ctx| {
                expand::expand_words(&cmd.words, ctx)
            })
        } else {
            self.expand_decl_words(state, cmd, &fds.io, streams)
        };
        let words = match words {
            Ok(w) => w,
            Err(e) => {
                return Prepared::Done(self.expansion_failed(state, &e, (line, &fds.io), streams));
            }
        };
        // 2. Assignments (values: no splitting, no globbing). Alone, each is made before the
        // next is expanded (`a=1 b=$a`); before a command, they are for it only.
        let mut values = Vec::new();
        let alone = words.is_empty();
        for a in &cmd.assignments {
            if alone {
                match self.assign(state, a, &fds.io, line, streams) {
                    Ok(shown) => values.push((a.name.clone(), shown)),
                    Err(status) => return Prepared::Done(status),
                }
                continue;
            }
            match self.assignment_value(state, a, &fds.io, line, streams) {
                Ok(v) => values.push((a.name.clone(), v)),
                Err(status) => return Prepared::Done(status),
            }
        }
        if state.opts.xtrace {
            self.trace(state, &values, &words, &fds.io, line, streams);
        }
        let name = words.first();
        let target = name.and_then(|n| self.lookup(state, n));
        // The command that will run is logged now, before any change it causes (its
        // redirections' first).
        if let Some(Target::Handler(c) | Target::Program(c, _)) = &target {
            audit_command(
                self.rt.audit(),
                *c,
                words.get(1..).unwrap_or_default(),
                &state.cwd,
            );
        }
        // 3. Redirections, in order, before the command runs (as bash: `> f` truncates even if
        // the command then fails or is not found).
        if let Err(status) = self.open_redirections(state, &cmd.redirects, &mut fds, line, streams)
        {
            return Prepared::Done(status);
        }
        let Some(name) = name else {
            // Assignments alone were made above (a pipeline stage's own copy of them). `$?` is
            // the last command substitution's status, else 0.
            let subst = cmd
                .assignments
                .iter()
                .any(|a| matches!(&a.value, AssignValue::Scalar(w) if has_subst(w)));
            return Prepared::Done(if subst { state.last_status } else { 0 });
        };
        if !self.rt.denied.is_empty()
            && let Ok(c) = name.to_str().unwrap_or("").parse::<CommandName>()
            && self.rt.denied.contains(&c)
        {
            self.rt.audit().denied(c.as_str());
        }
        let target = match target {
            Some(t) => Some(t),
            None if name.as_bytes().contains(&b'/') => match self.path_target(state, name) {
                Ok(t) => Some(t),
                Err((msg, status)) => {
                    let mut m = self.prefix(state, line);
                    m.extend_from_slice(&msg);
                    return Prepared::NotFound {
                        message: m,
                        status,
                        err: fds.io.err.clone(),
                    };
                }
            },
            None => None,
        };
        let Some(target) = target else {
            let msg = self.not_found_message(state, name);
            let status = if msg.ends_with(b": Is a directory\n") {
                126
            } else {
                127
            };
            return Prepared::NotFound {
                message: {
                    let mut m = self.prefix(state, line);
                    m.extend_from_slice(&msg);
                    m
                },
                status,
                err: fds.io.err.clone(),
            };
        };
        // A prefix assignment (`X=v cmd`) is a variable too: within `var_bytes`.
        if let Some((_, v)) = values.iter().find(|(_, v)| v.len() > state.max_var_bytes) {
            let mut m = self.prefix(state, line);
            m.extend_from_slice(
                format!(
                    "value too large: {} bytes (the limit for one variable is {}; limits.var_bytes)\n",
                    v.len(),
                    state.max_var_bytes
                )
                .as_bytes(),
            );
            return Prepared::NotFound {
                message: m,
                status: 1,
                err: fds.io.err.clone(),
            };
        }
        Prepared::Run {
            target,
            args: words.get(1..).unwrap_or_default().to_vec(),
            assigns: values,
            fds,
            line,
        }
    }

    /// The words of a declaration builtin: its assignment-shaped arguments expanded as
    /// assignments (`local a=$x` keeps `$x` whole).
    fn expand_decl_words(
        &self,
        state: &mut ShellState,
        cmd: &SimpleCommand,
        io: &Io,
        streams: &dyn StreamSink,
    ) -> Result<Vec<OsString>, expand::ExpandError> {
        let mut out = Vec::new();
        for (i, word) in cmd.words.iter().enumerate() {
            if let Some((_, a)) = cmd.decl_args.iter().find(|(k, _)| *k == i) {
                if matches!(a.value, AssignValue::Array(_)) {
                    // `declare a=(...)`: the builtin assigns the items it is handed.
                    match self.array_items(state, a, io, cmd.line, streams) {
                        Ok(items) => state.decl_arrays.push((a.name.clone(), items, a.append)),
                        Err(_) => return Err(expand::ExpandError::plain(String::new())),
                    }
                    out.push(OsString::from(a.name.clone()));
                    continue;
                }
                match self.assignment_value(state, a, io, cmd.line, streams) {
                    Ok(v) => {
                        let op = if a.append { "+=" } else { "=" };
                        out.push(OsString::from(format!("{}{op}{v}", a.name)));
                    }
                    Err(_) => return Err(expand::ExpandError::plain(String::new())),
                }
                continue;
            }
            let fields = self.with_expand(state, io, cmd.line, streams, |ctx| {
                expand::expand_words(std::slice::from_ref(word), ctx)
            })?;
            out.extend(fields);
        }
        Ok(out)
    }

    /// The value an assignment gives (`+=` appended to the old one).
    fn assignment_value(
        &self,
        state: &mut ShellState,
        a: &Assignment,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<String, i32> {
        let AssignValue::Scalar(word) = &a.value else {
            // `a=(...) cmd`: bash gives the command the text; here, the elements joined.
            let items = self.array_items(state, a, io, line, streams)?;
            return Ok(items
                .into_iter()
                .map(|(_, v)| v)
                .collect::<Vec<_>>()
                .join(" "));
        };
        let v = self.with_expand(state, io, line, streams, |ctx| {
            expand::expand_word_nosplit(word, ctx)
        });
        match v {
            Ok(v) => {
                let v = String::from_utf8_lossy(&v).into_owned();
                if a.append {
                    let old = host::param(state, &a.name).unwrap_or_default();
                    let integer = state.vars.var(&a.name).is_some_and(|x| x.integer);
                    if integer {
                        // `declare -i n; n+=2` adds.
                        return host::shaped(state, &a.name, v, Some(&old)).map_err(|m| {
                            self.shell_error(state, &io.err, streams, line, m.as_bytes());
                            1
                        });
                    }
                    Ok(old + &v)
                } else {
                    Ok(v)
                }
            }
            Err(e) => Err(self.expansion_failed(state, &e, (line, io), streams)),
        }
    }

    /// Makes an assignment (`x=v`, `x+=v`, `a[i]=v`, `a=(...)`, `a+=(...)`); gives the value
    /// as `set -x` shows it. On failure, bash's message, and the status.
    pub(super) fn assign(
        &self,
        state: &mut ShellState,
        a: &Assignment,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<String, i32> {
        let result = match (&a.index, &a.value) {
            (None, AssignValue::Scalar(_)) => {
                let v = self.assignment_value(state, a, io, line, streams)?;
                host::assign(state, &a.name, v.clone()).map(|()| v)
            }
            (Some(index), AssignValue::Scalar(word)) => {
                let sub = self.expand_nosplit(state, index, io, line, streams)?;
                let sub = String::from_utf8_lossy(&sub).into_owned();
                let sub = host::subscript(state, &a.name, &sub)
                    .map_err(|e| self.expansion_failed(state, &e, (line, io), streams))?;
                let v = self.expand_nosplit(state, word, io, line, streams)?;
                let v = String::from_utf8_lossy(&v).into_owned();
                host::assign_element(state, &a.name, sub, v.clone(), a.append).map(|()| v)
            }
            (_, AssignValue::Array(_)) => {
                let items = self.array_items(state, a, io, line, streams)?;
                let shown = format!(
                    "({})",
                    items
                        .iter()
                        .map(|(_, v)| v.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                host::assign_array(state, &a.name, items, a.append, false).map(|()| shown)
            }
        };
        result.map_err(|msg| {
            // Assigning a readonly variable ends the command line, as in a non-interactive
            // bash; the other failures only fail the assignment.
            let e = if msg.ends_with(": readonly variable") {
                expand::ExpandError::fatal(msg)
            } else {
                expand::ExpandError::plain(msg)
            };
            self.expansion_failed(state, &e, (line, io), streams)
        })
    }

    /// The items of `(...)`: `[key]=value` words with their key, the others split and
    /// globbed.
    pub(super) fn array_items(
        &self,
        state: &mut ShellState,
        a: &Assignment,
        io: &Io,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<Vec<(Option<String>, String)>, i32> {
        let AssignValue::Array(words) = &a.value else {
            return Ok(Vec::new());
        };
        let mut items = Vec::new();
        for w in words {
            if let Some((key, value)) = split_keyed(w) {
                let k = self.expand_nosplit(state, &key, io, line, streams)?;
                let v = self.expand_nosplit(state, &value, io, line, streams)?;
                items.push((
                    Some(String::from_utf8_lossy(&k).into_owned()),
                    String::from_utf8_lossy(&v).into_owned(),
                ));
                continue;
            }
            let fields = self.with_expand(state, io, line, streams, |ctx| {
                expand::expand_words(std::slice::from_ref(w), ctx)
            });
            match fields {
                Ok(f) => items.extend(
                    f.into_iter()
                        .map(|f| (None, f.to_string_lossy().into_owned())),
                ),
                Err(e) => return Err(self.expansion_failed(state, &e, (line, io), streams)),
            }
        }
        Ok(items)
    }

    /// What a name runs: a function, a builtin of the interpreter, a handler.
    pub(super) fn lookup(&self, state: &ShellState, name: &OsString) -> Option<Target> {
        let text = name.to_str()?;
        if let Some(def) = state.functions.get(text) {
            return Some(Target::Function(Arc::clone(def)));
        }
        if let Some(b) = Builtin::lookup(text) {
            return Some(Target::Builtin(b));
        }
        text.parse::<CommandName>()
            .ok()
            .filter(|c| !self.rt.denied.contains(c))
            .map(Target::Handler)
    }

    /// Runs a prepared command, then the `>(list)`s it wrote to.
    pub(super) fn run_prepared(
        &self,
        state: &mut ShellState,
        prepared: Prepared,
        cx: Cx,
        streams: &dyn StreamSink,
    ) -> Flow {
        let flow = self.run_prepared_command(state, prepared, cx, streams);
        if !state.proc_out.is_empty() {
            self.run_proc_outs(state, false, streams);
        }
        flow
    }

    /// Runs the `>(list)`s waiting for their input, each in a subshell reading what was
    /// written to it, with the fds the shell had when it was expanded; `$?` is kept. One
    /// still open elsewhere (`exec > >(list)`) waits unless `all`: then it runs on what it
    /// has so far and stays for what comes later.
    pub(super) fn run_proc_outs(
        &self,
        state: &mut ShellState,
        all: bool,
        streams: &dyn StreamSink,
    ) {
        let status = state.last_status;
        for p in std::mem::take(&mut state.proc_out) {
            let open = Arc::strong_count(&p.capture) > 1;
            if open && !all {
                state.proc_out.push(p);
                continue;
            }
            let mut sub = state.subshell();
            let io = Io {
                stdin: super::redirect::Input::bytes(p.capture.take()),
                ..p.io.clone()
            };
            let this = Interp {
                stage: false,
                ..*self
            };
            this.run_list(&mut sub, &p.script, &io, Cx::default(), streams);
            this.exit_trap(&mut sub, &io, streams);
            state.job_done(p.pid, sub.exit.unwrap_or(sub.last_status));
            if open {
                state.proc_out.push(p);
            }
        }
        state.set_status(status);
    }

    fn run_prepared_command(
        &self,
        state: &mut ShellState,
        prepared: Prepared,
        cx: Cx,
        streams: &dyn StreamSink,
    ) -> Flow {
        match prepared {
            Prepared::Done(status) => {
                state.set_status(status);
                Flow::Normal
            }
            Prepared::NotFound {
                message,
                status,
                err,
            } => {
                self.write_out(&err, &message, streams);
                state.set_status(status);
                Flow::Normal
            }
            Prepared::Run {
                target,
                args,
                assigns,
                fds,
                line,
            } => match target {
                Target::Handler(CommandName::Export) if exports_functions(&args) => {
                    let saved = push_assigns(state, &assigns);
                    let flow = self.run_builtin(
                        state,
                        super::builtins::Builtin::ExportFunctions,
                        &args,
                        &fds.io,
                        cx,
                        line,
                        streams,
                    );
                    pop_assigns(state, saved);
                    flow
                }
                Target::Handler(CommandName::Type) if names_function(state, &args) => {
                    let status = self.run_type(state, &args, &assigns, &fds, line, streams);
                    state.set_status(status);
                    Flow::Normal
                }
                Target::Handler(c) => {
                    let status =
                        self.run_handler(state, c, &args, &assigns, &fds, line, None, streams);
                    state.set_status(status);
                    if status == 2
                        && state.opts.posix
                        && matches!(c, CommandName::Export | CommandName::Unset)
                    {
                        // POSIX mode: a special builtin's usage error ends the shell.
                        self.fatal(state, 2);
                    }
                    Flow::Normal
                }
                Target::Program(c, argv0) => {
                    let status = self.run_handler(
                        state,
                        c,
                        &args,
                        &assigns,
                        &fds,
                        line,
                        Some(&argv0),
                        streams,
                    );
                    state.set_status(status);
                    Flow::Normal
                }
                Target::Function(def) => {
                    let saved = push_assigns(state, &assigns);
                    let args = args
                        .iter()
                        .map(|a| a.to_string_lossy().into_owned())
                        .collect();
                    let flow = self.call_function(state, &def, args, &fds.io, cx, line, streams);
                    pop_assigns(state, saved);
                    flow
                }
                Target::Script(path, posix) => {
                    let mut words = vec![path.to_string_lossy().into_owned()];
                    words.extend(args.iter().map(|a| a.to_string_lossy().into_owned()));
                    let saved = push_assigns(state, &assigns);
                    let flow = self.child_shell(state, &words, posix, &fds.io, line, streams);
                    pop_assigns(state, saved);
                    flow
                }
                Target::Builtin(b) => {
                    let saved = push_assigns(state, &assigns);
                    let flow = self.run_builtin(state, b, &args, &fds.io, cx, line, streams);
                    let special = state.opts.posix && b.is_special();
                    if !special {
                        pop_assigns(state, saved);
                    }
                    if special && state.last_status == 2 && state.exit.is_none() {
                        // POSIX mode: a special builtin's usage error ends the shell.
                        self.fatal(state, 2);
                    }
                    flow
                }
            },
        }
    }

    /// `type` naming a function: the shell answers for functions (`f is a function` and
    /// its text, as `declare -f` prints it), the handler for every other name, in order.
    fn run_type(
        &self,
        state: &mut ShellState,
        args: &[OsString],
        assigns: &[(String, String)],
        fds: &Fds,
        line: usize,
        streams: &dyn StreamSink,
    ) -> i32 {
        let (opts, names) = type_options(args);
        let flag = |c: u8| opts.iter().any(|o| o.as_bytes().contains(&c));
        let mut status = 0;
        for name in names {
            let text = name.to_str().unwrap_or_default();
            if let Some(v) = super::builtins::alias_of(state, text).filter(|_| !flag(b'P')) {
                let said = if flag(b't') {
                    "alias\n".to_string()
                } else if flag(b'p') {
                    String::new()
                } else {
                    format!("{text} is aliased to `{v}'\n")
                };
                self.write_out(&fds.io.out, said.as_bytes(), streams);
                // `type -a`: what the name is besides, if anything.
                let more = state.functions.contains_key(text)
                    || super::builtins::is_keyword(text)
                    || super::builtins::Builtin::lookup(text).is_some()
                    || text
                        .parse::<CommandName>()
                        .is_ok_and(|c| !self.rt.denied.contains(&c));
                if !(flag(b'a') && more) {
                    continue;
                }
            }
            let def = state
                .functions
                .get(text)
                .filter(|_| !flag(b'f'))
                .map(Arc::clone);
            let Some(def) = def.filter(|_| !super::builtins::is_keyword(text)) else {
                let mut one = opts.clone();
                one.push(name.clone());
                let s = self.run_handler(
                    state,
                    CommandName::Type,
                    &one,
                    assigns,
                    fds,
                    line,
                    None,
                    streams,
                );
                if s != 0 {
                    status = s;
                }
                continue;
            };
            let said = if flag(b't') {
                b"function\n".to_vec()
            } else if flag(b'p') {
                Vec::new()
            } else {
                let mut t = format!("{text} is a function\n").into_bytes();
                t.extend_from_slice(&crate::shell::print::function_text(&def));
                t.push(b'\n');
                t
            };
            self.write_out(&fds.io.out, &said, streams);
            // `type -a`: the builtin or programs of the same name too.
            let more = super::builtins::Builtin::lookup(text).is_some()
                || text
                    .parse::<CommandName>()
                    .is_ok_and(|c| !self.rt.denied.contains(&c));
            if flag(b'a') && more {
                let mut one = opts.clone();
                one.push(name.clone());
                self.run_handler(
                    state,
                    CommandName::Type,
                    &one,
                    assigns,
                    fds,
                    line,
                    None,
                    streams,
                );
            }
        }
        status
    }

    /// Runs a handler: its steps go through an [`Emitter`] as they come; then its
    /// directives are applied to `state`.
    #[allow(clippy::too_many_arguments)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_handler(
        &self,
        state: &mut ShellState,
        command: CommandName,
        args: &[OsString],
        assigns: &[(String, String)],
        fds: &Fds,
        line: usize,
        program: Option<&str>,
        streams: &dyn StreamSink,
    ) -> i32 {
        let rt = self.rt;
        let prefix = self.prefix(state, line);
        let (status, directives, out, err) = {
            let mut emitter = Emitter::new(
                &rt.sandbox,
                &rt.journal,
                prefix.clone(),
                fds.io.out.clone(),
                fds.io.err.clone(),
                streams,
            );
            emitter.proc_out = state
                .proc_out
                .iter()
                .map(|p| (super::redirect::proc_path(p.fd), Arc::clone(&p.capture)))
                .collect();
            let stdin = fds.io.stdin.stdin();
            let overlay = ProcFds {
                base: &rt.sandbox,
                fds: &state.proc_fds,
            };
            // `read -u N`, `mapfile -u N`: the input fds above 2, as their handlers see them.
            let inputs: Vec<(u32, Stdin)> = if matches!(
                command,
                CommandName::Read | CommandName::Mapfile | CommandName::Readarray
            ) {
                fds.io
                    .extra
                    .iter()
                    .filter_map(|(n, fd)| match fd {
                        Fd::In(i) => Some((*n, i.stdin())),
                        Fd::Out(_) => None,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let shellopts = if matches!(command, CommandName::Test | CommandName::Bracket) {
                super::options::shellopts(state)
            } else {
                String::new()
            };
            let runner = super::runner::LineRunner {
                interp: Interp {
                    stage: false,
                    ..*self
                },
                state,
                io: &fds.io,
                line,
                streams,
            };
            let mut env = self.env(state);
            env.inputs = &inputs;
            env.shellopts = &shellopts;
            env.runner = Some(&runner);
            env.program = program;
            if !state.proc_fds.is_empty() {
                env.fs = &overlay;
            }
            // Prefix assignments are visible to this command only.
            let copy: Option<Vars> = (!assigns.is_empty()).then(|| {
                let mut v = state.vars.clone();
                for (name, value) in assigns {
                    v.set(name, value.clone(), true);
                }
                v
            });
            let vars = copy.as_ref().unwrap_or(&state.vars);
            let status = run_command(&env, command, args, vars, &stdin, &emitter);
            fds.io.stdin.give_back(&stdin);
            for (n, read) in &inputs {
                if let Some(input) = fds.io.input(*n) {
                    input.give_back(read);
                }
            }
            let directives = emitter.directives.take();
            (status, directives, emitter.out.clone(), emitter.err.clone())
        };
        // Changes to the shell itself, now that the command is done with it.
        let mut messages = Vec::new();
        let mut status = status;
        for directive in directives {
            if let Directive::MapLines {
                name,
                lines,
                origin,
                callback: Some(callback),
            } = &directive
            {
                if let Err(msg) = self
                    .map_with_callback(state, name, lines, *origin, callback, fds, line, streams)
                {
                    status = 1;
                    messages.push((true, msg.into_bytes()));
                }
                continue;
            }
            if let Some(said) = self.apply_directive(state, &directive, self.stage) {
                status = said.status;
                messages.extend(said.out.into_iter().map(|m| (false, m)));
                messages.extend(said.err.into_iter().map(|m| (true, m)));
            }
        }
        if !messages.is_empty() {
            let emitter = Emitter::new(&rt.sandbox, &rt.journal, prefix, out, err, streams);
            for (is_err, m) in messages {
                if is_err {
                    emitter.shell_err(&m);
                } else {
                    emitter.write(&emitter.out.clone(), &m);
                }
            }
        }
        status
    }

    /// `mapfile -C TEXT -c QUANTUM`: assigns the lines, running `TEXT INDEX 'LINE'` before
    /// every QUANTUM-th line is assigned (it sees the lines before it in the array).
    #[allow(clippy::too_many_arguments)]
    fn map_with_callback(
        &self,
        state: &mut ShellState,
        name: &str,
        lines: &[String],
        origin: Option<i64>,
        (text, quantum): &(String, u64),
        fds: &Fds,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Result<(), String> {
        let at = |i: usize| i64::try_from(i).unwrap_or(i64::MAX);
        let part_origin = |start: usize| origin.map(|o| o.saturating_add(at(start)));
        let mut start = 0;
        for (i, l) in lines.iter().enumerate() {
            if !(i as u64 + 1).is_multiple_of(*quantum) {
                continue;
            }
            let part = lines.get(start..i).unwrap_or_default();
            super::directives::map_lines(state, name, part, part_origin(start), start == 0)?;
            start = i;
            let index = origin.unwrap_or(0).saturating_add(at(i));
            let mut cmd = format!("{text} {index} '");
            cmd.push_str(&l.replace('\'', "'\\''"));
            cmd.push('\'');
            let flow = self.run_text(
                state,
                cmd.as_bytes(),
                "eval",
                line,
                &fds.io,
                Cx::default(),
                streams,
                super::builtins::Mode::Eval,
            );
            if state.exit.is_some() || !matches!(flow, Flow::Normal) || self.stopped(state) {
                return Ok(());
            }
        }
        let rest = lines.get(start..).unwrap_or_default();
        super::directives::map_lines(state, name, rest, part_origin(start), start == 0)
    }

    /// Calls a function: a new frame (positional parameters, `local`s, `FUNCNAME`), its
    /// redirections, its body; `return` ends it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call_function(
        &self,
        state: &mut ShellState,
        def: &Arc<FunctionDef>,
        args: Vec<String>,
        io: &Io,
        cx: Cx,
        line: usize,
        streams: &dyn StreamSink,
    ) -> Flow {
        let max = self.rt.config.policy.limits.call_depth;
        if state.frames.len() >= max {
            let msg = format!(
                "{}: maximum function nesting level exceeded ({max})\n",
                def.name
            );
            self.shell_error(state, &io.err, streams, line, msg.as_bytes());
            self.limit(
                state,
                streams,
                line,
                "call_depth",
                max as u64,
                "nested function calls",
            );
            return Flow::Normal;
        }
        let frame = Frame {
            name: def.name.clone(),
            saved: Vec::new(),
            positional: std::mem::replace(&mut state.positional, Arc::new(args)),
            loop_depth: std::mem::replace(&mut state.loop_depth, 0),
            line,
            sources: state.source_files.len(),
        };
        state.frames.push(frame);
        state.nesting += 1;
        let mut fds = Fds::new(io.clone());
        let flow = match self.open_redirections(state, &def.redirects, &mut fds, line, streams) {
            Ok(()) => self.run_compound(state, &def.body, &fds.io, cx, streams),
            Err(status) => {
                state.set_status(status);
                Flow::Normal
            }
        };
        drop(fds);
        state.nesting -= 1;
        if let Some(frame) = state.frames.pop() {
            for (name, old) in frame.saved.into_iter().rev() {
                state.vars.put(&name, old);
            }
            state.positional = frame.positional;
            state.loop_depth = frame.loop_depth;
        }
        match flow {
            Flow::Return | Flow::Normal => Flow::Normal,
            // `break`/`continue` never leave a function (its loops are its own).
            other => {
                let _ = other;
                Flow::Normal
            }
        }
    }

    /// `set -x`: the command as it runs, after expansion.
    fn trace(
        &self,
        state: &ShellState,
        assigns: &[(String, String)],
        words: &[OsString],
        io: &Io,
        _line: usize,
        streams: &dyn StreamSink,
    ) {
        let mut parts: Vec<Vec<u8>> = Vec::new();
        for (n, v) in assigns {
            let mut p = n.as_bytes().to_vec();
            p.push(b'=');
            p.extend_from_slice(&trace_quote(v.as_bytes()));
            parts.push(p);
        }
        for w in words {
            parts.push(trace_quote(w.as_bytes()));
        }
        if parts.is_empty() {
            return;
        }
        self.xtrace(state, &parts.join(&b' '), io, streams);
    }

    /// `set -x`: one line of trace (`PS4`'s first character once more per subshell level).
    pub(super) fn xtrace(
        &self,
        state: &ShellState,
        what: &[u8],
        io: &Io,
        streams: &dyn StreamSink,
    ) {
        let ps4 = state.vars.get("PS4").unwrap_or("+ ");
        let mut text = Vec::new();
        let (first, rest) = ps4.split_at(ps4.len().min(1));
        for _ in 0..=state.subshell {
            text.extend_from_slice(first.as_bytes());
        }
        text.extend_from_slice(rest.as_bytes());
        text.extend_from_slice(what);
        text.push(b'\n');
        self.write_out(&io.err, &text, streams);
    }

    /// A path to a file run as a command: an executable script for bash or sh (a `#!` line
    /// naming them, or none) runs in a child shell; anything else gets bash's message.
    /// What a name with a slash runs: a script, or one of the programs the shell emulates
    /// by its path (`/usr/bin/printf`, `/bin/echo`) when the sandbox has no such file.
    pub(super) fn path_target(
        &self,
        state: &ShellState,
        name: &OsString,
    ) -> Result<Target, (Vec<u8>, i32)> {
        let text = name.to_str().unwrap_or_default();
        let program = text
            .strip_prefix("/usr/bin/")
            .or_else(|| text.strip_prefix("/bin/"))
            .and_then(|n| n.parse::<CommandName>().ok())
            .filter(|c| c.program_path().is_some() && !self.rt.denied.contains(c));
        if let Some(c) = program
            && self.rt.sandbox.stat(&state.resolve(name), true).is_err()
        {
            return Ok(Target::Program(c, text.to_string()));
        }
        self.script_target(state, name)
    }

    fn script_target(&self, state: &ShellState, name: &OsString) -> Result<Target, (Vec<u8>, i32)> {
        let path = state.resolve(name);
        let shown = String::from_utf8_lossy(name.as_bytes()).into_owned();
        let meta = match self.rt.sandbox.stat(&path, true) {
            Ok(m) => m,
            Err(e) => return Err((format!("{shown}: {}\n", e.strerror()).into_bytes(), 127)),
        };
        if meta.is_dir() {
            return Err((format!("{shown}: Is a directory\n").into_bytes(), 126));
        }
        if meta.perm & 0o111 == 0 {
            return Err((format!("{shown}: Permission denied\n").into_bytes(), 126));
        }
        let head = self.rt.sandbox.read(&path).unwrap_or_default();
        let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
        let mut posix = false;
        if let Some(interp) = first.strip_prefix(b"#!") {
            let text = String::from_utf8_lossy(interp).trim().to_string();
            let mut parts = text.split_whitespace();
            let prog = parts.next().unwrap_or_default().to_string();
            let arg = parts.next().map(str::to_string);
            let shell =
                |p: &str| matches!(p, "/bin/bash" | "/usr/bin/bash" | "/bin/sh" | "/usr/bin/sh");
            let ok = shell(&prog)
                || (prog == "/usr/bin/env" && matches!(arg.as_deref(), Some("bash" | "sh")));
            posix =
                prog.ends_with("/sh") || (prog == "/usr/bin/env" && arg.as_deref() == Some("sh"));
            if !ok {
                let missing = if prog == "/usr/bin/env" {
                    "/usr/bin/env"
                } else {
                    prog.as_str()
                };
                let _ = missing;
                return Err((
                    format!("{shown}: {prog}: bad interpreter: No such file or directory\n")
                        .into_bytes(),
                    126,
                ));
            }
        } else if head.contains(&0) {
            return Err((
                format!("{shown}: cannot execute binary file: Exec format error\n").into_bytes(),
                126,
            ));
        }
        Ok(Target::Script(name.clone(), posix))
    }

    /// bash's answer for a name that is not a known command.
    fn not_found_message(&self, state: &ShellState, name: &OsString) -> Vec<u8> {
        let mut msg = name.as_bytes().to_vec();
        if name.as_bytes().contains(&b'/') {
            let path = state.resolve(name);
            match self.rt.sandbox.stat(&path, true) {
                Ok(m) if m.is_dir() => msg.extend_from_slice(b": Is a directory\n"),
                // An existing file that is not a script cannot be run: nothing is ever
                // spawned.
                Ok(_) => {
                    msg.extend_from_slice(b": cannot execute binary file: Exec format error\n");
                }
                Err(e) => {
                    msg.extend_from_slice(b": ");
                    msg.extend_from_slice(e.strerror().as_bytes());
                    msg.push(b'\n');
                }
            }
        } else {
            msg.extend_from_slice(b": command not found\n");
        }
        msg
    }
}

/// The sandbox seen by a command with process substitutions: their outputs at `/dev/fd/N`
/// (pipes, as in bash), everything else the sandbox's.
struct ProcFds<'a> {
    base: &'a crate::sandbox::Sandbox,
    fds: &'a [(u32, Arc<Vec<u8>>)],
}

impl ProcFds<'_> {
    fn find(&self, path: &std::path::Path) -> Option<&Arc<Vec<u8>>> {
        let n: u32 = path.strip_prefix("/dev/fd").ok()?.to_str()?.parse().ok()?;
        self.fds.iter().find(|(k, _)| *k == n).map(|(_, b)| b)
    }
}

impl FsView for ProcFds<'_> {
    fn stat(
        &self,
        path: &std::path::Path,
        follow: bool,
    ) -> Result<trumansh_commands::Meta, trumansh_commands::FsError> {
        match self.find(path) {
            Some(b) => {
                let now = std::time::SystemTime::now();
                Ok(trumansh_commands::Meta {
                    kind: trumansh_commands::FileKind::Fifo,
                    len: 0,
                    perm: 0o600,
                    nlink: 1,
                    ino: u64::try_from(b.len()).unwrap_or(0),
                    dev: 0,
                    blocks: 0,
                    atime: now,
                    mtime: now,
                    ctime: now,
                })
            }
            None => self.base.stat(path, follow),
        }
    }
    fn read_dir(
        &self,
        path: &std::path::Path,
    ) -> Result<Vec<trumansh_commands::DirEntry>, trumansh_commands::FsError> {
        self.base.read_dir(path)
    }
    fn open(
        &self,
        path: &std::path::Path,
    ) -> Result<Box<dyn trumansh_commands::ReadSeek + '_>, trumansh_commands::FsError> {
        match self.find(path) {
            Some(b) => Ok(Box::new(std::io::Cursor::new(b.as_slice()))),
            None => self.base.open(path),
        }
    }
    fn read_link(
        &self,
        path: &std::path::Path,
    ) -> Result<std::path::PathBuf, trumansh_commands::FsError> {
        self.base.read_link(path)
    }
    fn canonicalize(
        &self,
        path: &std::path::Path,
    ) -> Result<std::path::PathBuf, trumansh_commands::FsError> {
        match self.find(path) {
            Some(_) => Ok(path.to_path_buf()),
            None => self.base.canonicalize(path),
        }
    }
}

/// Prefix assignments for a function or builtin: set (exported) while it runs.
/// `type`'s options and its names.
fn type_options(args: &[OsString]) -> (Vec<OsString>, &[OsString]) {
    let mut opts = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let b = a.as_bytes();
        if b == b"--" {
            i += 1;
            break;
        }
        if b.len() < 2 || b.first() != Some(&b'-') {
            break;
        }
        opts.push(a.clone());
        i += 1;
    }
    (opts, args.get(i..).unwrap_or_default())
}

/// Whether `type` (without `-f` or `-P`) is asked about a function.
/// `export -f ...`: its options (before the first name) include `f`.
fn exports_functions(args: &[OsString]) -> bool {
    args.iter()
        .map(|a| a.as_bytes())
        .take_while(|a| a.starts_with(b"-") && a.len() > 1 && *a != b"--")
        .any(|a| a.contains(&b'f'))
}

fn names_function(state: &ShellState, args: &[OsString]) -> bool {
    let (opts, names) = type_options(args);
    let has = |c: u8| {
        opts.iter()
            .any(|o| o.as_bytes().iter().skip(1).any(|&x| x == c))
    };
    if has(b'P') {
        return false;
    }
    names.iter().any(|n| {
        n.to_str().is_some_and(|t| {
            (!has(b'f') && state.functions.contains_key(t))
                || super::builtins::alias_of(state, t).is_some()
        })
    })
}

fn push_assigns(
    state: &mut ShellState,
    assigns: &[(String, String)],
) -> Vec<(String, Option<trumansh_commands::Var>)> {
    let mut saved = Vec::new();
    for (name, value) in assigns {
        saved.push((name.clone(), state.vars.var(name).cloned()));
        state.vars.set(name, value.clone(), true);
    }
    saved
}

/// Puts back what prefix assignments replaced.
fn pop_assigns(state: &mut ShellState, saved: Vec<(String, Option<trumansh_commands::Var>)>) {
    for (name, old) in saved.into_iter().rev() {
        state.vars.put(&name, old);
    }
}

/// `[key]=value` in a compound assignment: the key and the value.
fn split_keyed(
    word: &crate::shell::ast::Word,
) -> Option<(crate::shell::ast::Word, crate::shell::ast::Word)> {
    use crate::shell::ast::{Word, WordPart};
    let Some(WordPart::Literal(first)) = word.parts.first() else {
        return None;
    };
    if first.first() != Some(&b'[') {
        return None;
    }
    let mut key = Vec::new();
    for (k, part) in word.parts.iter().enumerate() {
        match part {
            WordPart::Literal(bytes) => {
                let from = usize::from(k == 0);
                let seg = bytes.get(from..).unwrap_or_default();
                if let Some(i) = seg.windows(2).position(|w| w == b"]=") {
                    if i > 0 {
                        key.push(WordPart::Literal(seg.get(..i).unwrap_or_default().to_vec()));
                    }
                    let mut value = Vec::new();
                    let rest = seg.get(i + 2..).unwrap_or_default();
                    if !rest.is_empty() {
                        value.push(WordPart::Literal(rest.to_vec()));
                    }
                    value.extend(word.parts.iter().skip(k + 1).cloned());
                    return Some((Word::new(key), Word::new(value)));
                }
                if !seg.is_empty() {
                    key.push(WordPart::Literal(seg.to_vec()));
                }
            }
            other => key.push(other.clone()),
        }
    }
    None
}

/// Whether a word holds a command substitution.
fn has_subst(word: &crate::shell::ast::Word) -> bool {
    use crate::shell::ast::WordPart;
    fn any(parts: &[WordPart]) -> bool {
        parts.iter().any(|p| match p {
            WordPart::CommandSubst(_) => true,
            WordPart::DoubleQuoted(inner) => any(inner),
            _ => false,
        })
    }
    any(&word.parts)
}

/// A word as `set -x` shows it: quoted when bash would quote it.
pub(super) fn trace_quote(w: &[u8]) -> Vec<u8> {
    let plain = !w.is_empty()
        && w.iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"_./-+,:@%^=".contains(&b) || b >= 0x80);
    if plain {
        return w.to_vec();
    }
    if w.iter()
        .any(|&b| (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7f)
    {
        let mut out = b"$'".to_vec();
        for &b in w {
            match b {
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\t' => out.extend_from_slice(b"\\t"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\'' => out.extend_from_slice(b"\\'"),
                b'\\' => out.extend_from_slice(b"\\\\"),
                0x1b => out.extend_from_slice(b"\\E"),
                b if b < 0x20 || b == 0x7f => {
                    out.extend_from_slice(format!("\\{b:03o}").as_bytes());
                }
                b => out.push(b),
            }
        }
        out.push(b'\'');
        return out;
    }
    let mut out = Vec::with_capacity(w.len() + 2);
    crate::shell::print::single_quote(w, &mut out);
    out
}
