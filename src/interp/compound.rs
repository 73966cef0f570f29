//! Compound commands: `{ }`, `( )`, `if`, `for`, `for (( ))`, `while`/`until`, `case`,
//! `(( ))` and `[[ ]]`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::Ordering;

use super::state::ShellState;
use super::{Cx, Flow, Interp, Io};
use crate::exec::StreamSink;
use crate::expand::{self, ExpandError};
use crate::shell::ast::{CaseEnd, Compound, CondExpr, Script, Word};

/// What a loop does after its body ran.
enum Next {
    Go,
    Stop(Flow),
}

impl Interp<'_> {
    pub(super) fn run_compound(
        &self,
        state: &mut ShellState,
        c: &Compound,
        io: &Io,
        cx: Cx,
        out: &dyn StreamSink,
    ) -> Flow {
        match c {
            Compound::Brace(list) => self.run_list(state, list, io, cx, out),
            Compound::Subshell(list) => {
                let mut sub = state.subshell();
                let this = Interp {
                    stage: false,
                    ..*self
                };
                this.run_list(&mut sub, list, io, cx, out);
                this.exit_trap(&mut sub, io, out);
                let status = sub.exit.unwrap_or(sub.last_status);
                state.random.set(sub.random.get());
                state.set_status(status);
                Flow::Normal
            }
            Compound::If {
                branches,
                otherwise,
            } => {
                for (cond, body) in branches {
                    let flow = self.run_list(state, cond, io, Cx { cond: true }, out);
                    if flow != Flow::Normal || self.stopped(state) {
                        return flow;
                    }
                    if state.last_status == 0 {
                        return self.run_list(state, body, io, cx, out);
                    }
                }
                if let Some(body) = otherwise {
                    self.run_list(state, body, io, cx, out)
                } else {
                    state.set_status(0);
                    Flow::Normal
                }
            }
            Compound::While { until, cond, body } => {
                self.run_while(state, *until, cond, body, io, cx, out)
            }
            Compound::For {
                var,
                words,
                body,
                line,
            } => self.run_for(state, var, words.as_deref(), body, *line, io, cx, out),
            Compound::ArithFor {
                init,
                cond,
                step,
                body,
                line,
            } => self.run_arith_for(state, [init, cond, step], body, *line, io, cx, out),
            Compound::Case { word, arms, line } => {
                state.lineno = *line;
                let value = match self.expand_nosplit(state, word, io, *line, out) {
                    Ok(v) => v,
                    Err(status) => {
                        state.set_status(status);
                        return Flow::Normal;
                    }
                };
                if state.opts.xtrace {
                    let mut t = b"case ".to_vec();
                    t.extend_from_slice(&super::simple::trace_quote(&value));
                    t.extend_from_slice(b" in");
                    self.xtrace(state, &t, io, out);
                }
                let mut i = 0;
                let mut matched_any = false;
                let mut fall = false;
                while let Some(arm) = arms.get(i) {
                    let mut matched = fall;
                    if !matched {
                        for p in &arm.patterns {
                            match self.pattern_matches(state, p, &value, false, io, *line, out) {
                                Ok(true) => {
                                    matched = true;
                                    break;
                                }
                                Ok(false) => {}
                                Err(status) => {
                                    state.set_status(status);
                                    return Flow::Normal;
                                }
                            }
                        }
                    }
                    if matched {
                        matched_any = true;
                        let flow = self.run_list(state, &arm.body, io, cx, out);
                        if arm.body.items.is_empty() {
                            state.set_status(0);
                        }
                        if flow != Flow::Normal || self.stopped(state) {
                            return flow;
                        }
                        match arm.end {
                            CaseEnd::Break => return Flow::Normal,
                            CaseEnd::FallThrough => fall = true,
                            CaseEnd::Continue => fall = false,
                        }
                    }
                    i += 1;
                }
                if !matched_any {
                    state.set_status(0);
                }
                Flow::Normal
            }
            Compound::Arith { expr, line } => {
                state.lineno = *line;
                let status = match self.arith_command(state, expr, io, *line, out) {
                    Ok(v) => i32::from(v == 0),
                    Err(status) => status,
                };
                state.set_status(status);
                Flow::Normal
            }
            Compound::Cond { expr, line } => {
                state.lineno = *line;
                let status = match self.cond(state, expr, io, *line, out) {
                    Ok(true) => 0,
                    Ok(false) => 1,
                    Err(status) => status,
                };
                state.set_status(status);
                Flow::Normal
            }
        }
    }

    /// Counts a loop iteration against the line's limit (and checks the deadline).
    fn iteration(&self, state: &mut ShellState, line: usize, out: &dyn StreamSink) -> bool {
        if self.stopped(state) || !self.in_time(state, line, out) {
            return false;
        }
        let n = self.line.iterations.fetch_add(1, Ordering::Relaxed) + 1;
        let max = self.rt.config.policy.limits.loop_iterations;
        if n > max {
            self.limit(state, out, line, "loop_iterations", max, "loop iterations");
            return false;
        }
        true
    }

    /// A loop is done: its status is its body's last, unless it leaves with a flow.
    fn end_loop(state: &mut ShellState, result: Flow, status: i32) -> Flow {
        state.loop_depth -= 1;
        if result == Flow::Normal {
            state.set_status(status);
        }
        result
    }

    /// What a body's flow means for its loop.
    fn after_body(flow: Flow) -> Next {
        match flow {
            Flow::Normal | Flow::Continue(1 | 0) => Next::Go,
            Flow::Break(n) => Next::Stop(if n > 1 {
                Flow::Break(n - 1)
            } else {
                Flow::Normal
            }),
            Flow::Continue(n) => Next::Stop(Flow::Continue(n - 1)),
            Flow::Return => Next::Stop(Flow::Return),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn run_while(
        &self,
        state: &mut ShellState,
        until: bool,
        cond: &Script,
        body: &Script,
        io: &Io,
        cx: Cx,
        out: &dyn StreamSink,
    ) -> Flow {
        let line = cond.items.first().map_or(state.lineno, |i| i.line);
        let mut status = 0;
        state.loop_depth += 1;
        let result = loop {
            if !self.iteration(state, line, out) {
                break Flow::Normal;
            }
            let flow = self.run_list(state, cond, io, Cx { cond: true }, out);
            if self.stopped(state) {
                break Flow::Normal;
            }
            match Self::after_body(flow) {
                Next::Go => {}
                Next::Stop(f) => break f,
            }
            if (state.last_status == 0) == until {
                break Flow::Normal;
            }
            let flow = self.run_list(state, body, io, cx, out);
            status = state.last_status;
            match Self::after_body(flow) {
                Next::Go => {}
                Next::Stop(f) => break f,
            }
        };
        Self::end_loop(state, result, status)
    }

    #[allow(clippy::too_many_arguments)]
    fn run_for(
        &self,
        state: &mut ShellState,
        var: &str,
        words: Option<&[Word]>,
        body: &Script,
        line: usize,
        io: &Io,
        cx: Cx,
        out: &dyn StreamSink,
    ) -> Flow {
        state.lineno = line;
        let items: Vec<String> = match words {
            None => state.positional.as_ref().clone(),
            Some(words) => {
                let r =
                    self.with_expand(state, io, line, out, |ctx| expand::expand_words(words, ctx));
                match r {
                    Ok(f) => f
                        .into_iter()
                        .map(|f| f.to_string_lossy().into_owned())
                        .collect(),
                    Err(e) => {
                        let status = self.expansion_failed(state, &e, (line, io), out);
                        state.set_status(status);
                        return Flow::Normal;
                    }
                }
            }
        };
        let mut status = 0;
        state.loop_depth += 1;
        let mut result = Flow::Normal;
        // bash shows the words as written.
        let traced_items: Vec<Vec<u8>> = match (state.opts.xtrace, words) {
            (true, Some(words)) => words.iter().map(expand::display_word).collect(),
            (true, None) => vec![b"\"$@\"".to_vec()],
            _ => Vec::new(),
        };
        for item in items {
            if !self.iteration(state, line, out) {
                break;
            }
            if state.opts.xtrace {
                let mut t = format!("for {var} in ").into_bytes();
                t.extend_from_slice(&traced_items.join(&b' '));
                self.xtrace(state, &t, io, out);
            }
            if let Err(msg) = super::host::assign(state, var, item) {
                self.shell_error(state, &io.err, out, line, msg.as_bytes());
                status = 1;
                break;
            }
            let flow = self.run_list(state, body, io, cx, out);
            status = state.last_status;
            match Self::after_body(flow) {
                Next::Go => {}
                Next::Stop(f) => {
                    result = f;
                    break;
                }
            }
        }
        Self::end_loop(state, result, status)
    }

    #[allow(clippy::too_many_arguments)]
    fn run_arith_for(
        &self,
        state: &mut ShellState,
        [init, cond, step]: [&Word; 3],
        body: &Script,
        line: usize,
        io: &Io,
        cx: Cx,
        out: &dyn StreamSink,
    ) -> Flow {
        state.lineno = line;
        if let Err(status) = self.arith_command(state, init, io, line, out) {
            state.set_status(status);
            return Flow::Normal;
        }
        let mut status = 0;
        state.loop_depth += 1;
        let result = loop {
            if !self.iteration(state, line, out) {
                break Flow::Normal;
            }
            let go = if cond.parts.is_empty() {
                true
            } else {
                match self.arith_command(state, cond, io, line, out) {
                    Ok(v) => v != 0,
                    Err(s) => {
                        status = s;
                        break Flow::Normal;
                    }
                }
            };
            if !go {
                break Flow::Normal;
            }
            let flow = self.run_list(state, body, io, cx, out);
            status = state.last_status;
            match Self::after_body(flow) {
                Next::Go => {}
                Next::Stop(f) => break f,
            }
            if self.stopped(state) {
                break Flow::Normal;
            }
            if let Err(s) = self.arith_command(state, step, io, line, out) {
                status = s;
                break Flow::Normal;
            }
        };
        Self::end_loop(state, result, status)
    }

    /// Expands a word without splitting or globbing; on failure, its status.
    pub(super) fn expand_nosplit(
        &self,
        state: &mut ShellState,
        word: &Word,
        io: &Io,
        line: usize,
        out: &dyn StreamSink,
    ) -> Result<Vec<u8>, i32> {
        let r = self.with_expand(state, io, line, out, |ctx| {
            expand::expand_word_nosplit(word, ctx)
        });
        r.map_err(|e| self.expansion_failed(state, &e, (line, io), out))
    }

    /// Whether `value` matches the pattern word: with the extended operators when `extglob`
    /// is on, or always (`always_ext`: `[[ == ]]`, which bash 5.2 matches as extended
    /// patterns whatever the option); ignoring case with `nocasematch`.
    #[allow(clippy::too_many_arguments)]
    fn pattern_matches(
        &self,
        state: &mut ShellState,
        pattern: &Word,
        value: &[u8],
        always_ext: bool,
        io: &Io,
        line: usize,
        out: &dyn StreamSink,
    ) -> Result<bool, i32> {
        let p = self.with_expand(state, io, line, out, |ctx| {
            expand::expand_pattern(pattern, ctx)
        });
        match p {
            Ok(p) => Ok(p.matches(
                value,
                always_ext || state.opts.extglob,
                state.opts.nocasematch,
            )),
            Err(e) => Err(self.expansion_failed(state, &e, (line, io), out)),
        }
    }

    /// `(( ))` and the parts of `for ((`: bash names the command in its messages.
    fn arith_command(
        &self,
        state: &mut ShellState,
        word: &Word,
        io: &Io,
        line: usize,
        out: &dyn StreamSink,
    ) -> Result<i64, i32> {
        let text = self.expand_nosplit(state, word, io, line, out)?;
        let text = String::from_utf8_lossy(&text).into_owned();
        if state.opts.xtrace {
            self.xtrace(state, format!("(( {text} ))").as_bytes(), io, out);
        }
        let value = super::host::arith_command(state, &text, "((");
        self.flush_warnings(state, line, out);
        value.map_err(|e| self.expansion_failed(state, &e, (line, io), out))
    }

    /// An arithmetic error in a command (`(( ))`, `let`, `for ((`): its message; the command
    /// fails with 1 and the shell goes on.
    pub(super) fn arith_failed(
        &self,
        state: &mut ShellState,
        e: &ExpandError,
        (line, io): (usize, &Io),
        out: &dyn StreamSink,
    ) -> i32 {
        self.shell_error(state, &io.err, out, line, e.message.as_bytes());
        1
    }

    /// Evaluates `[[ ]]`.
    fn cond(
        &self,
        state: &mut ShellState,
        expr: &CondExpr,
        io: &Io,
        line: usize,
        out: &dyn StreamSink,
    ) -> Result<bool, i32> {
        match expr {
            CondExpr::Not(inner) => Ok(!self.cond(state, inner, io, line, out)?),
            CondExpr::Group(inner) => self.cond(state, inner, io, line, out),
            CondExpr::And(first, second) => Ok(self.cond(state, first, io, line, out)?
                && self.cond(state, second, io, line, out)?),
            CondExpr::Or(first, second) => Ok(self.cond(state, first, io, line, out)?
                || self.cond(state, second, io, line, out)?),
            CondExpr::Word(w) => Ok(!self.expand_nosplit(state, w, io, line, out)?.is_empty()),
            CondExpr::Unary(op, w) => {
                let v = self.expand_nosplit(state, w, io, line, out)?;
                if state.opts.xtrace {
                    let mut t = format!("[[ {op} ").into_bytes();
                    t.extend_from_slice(&super::simple::trace_quote(&v));
                    t.extend_from_slice(b" ]]");
                    self.xtrace(state, &t, io, out);
                }
                Ok(self.unary_test(state, op, &v))
            }
            CondExpr::Binary(lhs, op, rhs) => {
                let left = self.expand_nosplit(state, lhs, io, line, out)?;
                if state.opts.xtrace {
                    let right = self.expand_nosplit(state, rhs, io, line, out)?;
                    let mut t = b"[[ ".to_vec();
                    t.extend_from_slice(&super::simple::trace_quote(&left));
                    t.extend_from_slice(format!(" {op} ").as_bytes());
                    t.extend_from_slice(&super::simple::trace_quote(&right));
                    t.extend_from_slice(b" ]]");
                    self.xtrace(state, &t, io, out);
                }
                match op.as_str() {
                    "==" | "=" | "!=" => {
                        let m = self.pattern_matches(state, rhs, &left, true, io, line, out)?;
                        Ok(if op == "!=" { !m } else { m })
                    }
                    "=~" => self.regex_match(state, &left, rhs, io, line, out),
                    "<" | ">" => {
                        let right = self.expand_nosplit(state, rhs, io, line, out)?;
                        Ok(if op == "<" {
                            left < right
                        } else {
                            left > right
                        })
                    }
                    "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => {
                        let x = super::host::arith(state, &String::from_utf8_lossy(&left));
                        let x = x.map_err(|e| self.arith_failed(state, &e, (line, io), out))?;
                        let right = self.expand_nosplit(state, rhs, io, line, out)?;
                        let y = super::host::arith(state, &String::from_utf8_lossy(&right));
                        let y = y.map_err(|e| self.arith_failed(state, &e, (line, io), out))?;
                        Ok(match op.as_str() {
                            "-eq" => x == y,
                            "-ne" => x != y,
                            "-lt" => x < y,
                            "-le" => x <= y,
                            "-gt" => x > y,
                            _ => x >= y,
                        })
                    }
                    _ => {
                        let right = self.expand_nosplit(state, rhs, io, line, out)?;
                        Ok(self.file_compare(state, op, &left, &right))
                    }
                }
            }
        }
    }

    /// `[[ x =~ re ]]`: an extended regular expression (quoted parts match literally);
    /// `BASH_REMATCH` holds the match.
    fn regex_match(
        &self,
        state: &mut ShellState,
        text: &[u8],
        re: &Word,
        io: &Io,
        line: usize,
        out: &dyn StreamSink,
    ) -> Result<bool, i32> {
        let p = self.with_expand(state, io, line, out, |ctx| expand::expand_pattern(re, ctx));
        let p = p.map_err(|e| self.expansion_failed(state, &e, (line, io), out))?;
        let source = p.regex_source();
        let translated =
            trumansh_commands::translate_regex(&source, trumansh_commands::RegexSyntax::Extended);
        let re = translated.ok().and_then(|t| {
            regex::bytes::RegexBuilder::new(&t.pattern)
                .case_insensitive(state.opts.nocasematch)
                .unicode(false)
                .build()
                .ok()
        });
        let Some(re) = re else {
            // bash: a bad regular expression is status 2.
            return Err(2);
        };
        // `BASH_REMATCH`: an array of the match and each group (one that took no part is
        // empty); emptied when nothing matches.
        let caps = re.captures(text);
        let items = caps.as_ref().map_or_else(Vec::new, |caps| {
            caps.iter()
                .map(|m| {
                    let m = m.map(|m| m.as_bytes()).unwrap_or_default();
                    (None, String::from_utf8_lossy(m).into_owned())
                })
                .collect()
        });
        let _ = super::host::assign_array(state, "BASH_REMATCH", items, false, false);
        Ok(caps.is_some())
    }

    /// `-f x`, `-z s`, `-v name`, ... of `[[ ]]`: the operators `test` has.
    fn unary_test(&self, state: &mut ShellState, op: &str, v: &[u8]) -> bool {
        match op {
            "-v" => is_set(state, &String::from_utf8_lossy(v)),
            "-o" => super::builtins::option_on(state, &String::from_utf8_lossy(v)),
            _ => crate::exec::with_ctx(&self.env(state), &state.vars, |ctx| {
                trumansh_commands::unary_file_test(op, OsStr::from_bytes(v), ctx).unwrap_or(false)
            }),
        }
    }

    /// `-nt`, `-ot`, `-ef`.
    fn file_compare(&self, state: &ShellState, op: &str, a: &[u8], b: &[u8]) -> bool {
        crate::exec::with_ctx(&self.env(state), &state.vars, |ctx| {
            matches!(
                trumansh_commands::binary_test(op, OsStr::from_bytes(a), OsStr::from_bytes(b), ctx),
                Some(Ok(true))
            )
        })
    }
}

/// `[[ -v NAME ]]`: whether the variable is set; `NAME[SUB]`, whether that element is (`@`
/// and `*`: whether an indexed array has any; never for an associative one, as bash).
fn is_set(state: &mut ShellState, name: &str) -> bool {
    use super::host;
    let element = name
        .strip_suffix(']')
        .and_then(|s| s.split_once('['))
        .filter(|(n, _)| super::builtins::is_name(n));
    let Some((array, sub)) = element else {
        return host::param(state, name).is_some();
    };
    if matches!(sub, "@" | "*") {
        return !host::is_assoc(state, array) && !host::elements(state, array).is_empty();
    }
    host::subscript(state, array, sub).is_ok_and(|s| host::element(state, array, &s).is_some())
}
