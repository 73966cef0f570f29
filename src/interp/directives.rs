//! Directives: how a command changes the shell it runs in (`cd`, variables, `exit`, `undo`),
//! applied in one place once the command is done.

use trumansh_commands::Directive;

use super::Interp;
use super::state::ShellState;
use crate::api::AppliedEffect;

impl Interp<'_> {
    /// Applies a directive to the shell itself (`cd`, variables, `exit`, `undo`).
    pub(super) fn apply_directive(
        &self,
        state: &mut ShellState,
        directive: &Directive,
        in_stage: bool,
    ) -> Option<Said> {
        match directive {
            Directive::SetCwd { path } => {
                // As `cd` gives it: normalised, except the path into a removed directory,
                // which bash keeps as typed (`/a/b/..`).
                let old = std::mem::replace(&mut state.cwd, path.clone());
                state
                    .vars
                    .set("OLDPWD", old.to_string_lossy().into_owned(), false);
                state
                    .vars
                    .set("PWD", state.cwd.to_string_lossy().into_owned(), false);
            }
            Directive::SetVar {
                name,
                value,
                export,
            } => {
                if let Some(v) = value
                    && let Err(msg) = super::host::assign_ref(state, name, v.clone())
                {
                    let mut said = Said::default();
                    said.err.push(msg.into_bytes());
                    said.status = 1;
                    return Some(said);
                }
                if *export {
                    state.vars.export(name);
                }
            }
            Directive::UnsetVar { name } if name.ends_with(']') && name.contains('[') => {
                // `unset 'a[i]'`: one element; `a[@]`, `a[*]`: every element of an indexed
                // array (an associative array's are keys like any other).
                let (array, rest) = name.split_once('[').unwrap_or_default();
                let text = rest.strip_suffix(']').unwrap_or_default();
                let var = state.vars.var(array);
                let fail = |msg: String| {
                    let mut said = Said::default();
                    said.err.push(msg.into_bytes());
                    said.status = 1;
                    Some(said)
                };
                if var.is_some_and(|v| v.readonly) {
                    return fail(format!("unset: {array}: cannot unset: readonly variable\n"));
                }
                if matches!(text, "@" | "*") && !super::host::is_assoc(state, array) {
                    match var {
                        Some(v) if v.array.is_some() => {
                            let mut v = v.clone();
                            v.array = Some(trumansh_commands::Array::Indexed(
                                std::collections::BTreeMap::new(),
                            ));
                            state.vars.put(array, Some(v));
                        }
                        Some(_) => {
                            return fail(format!("unset: {array}: not an array variable\n"));
                        }
                        None => {}
                    }
                } else if let Ok(sub) = super::host::subscript(state, array, text) {
                    unset_element(state, array, &sub);
                }
            }
            Directive::UnsetVar { name } => {
                if state.vars.var(name).is_some_and(|v| v.readonly) {
                    let mut said = Said::default();
                    said.err.push(
                        format!("unset: {name}: cannot unset: readonly variable\n").into_bytes(),
                    );
                    said.status = 1;
                    return Some(said);
                }
                if state.vars.var(name).is_some() {
                    state.vars.unset(name);
                } else {
                    state.remove_function(name);
                }
            }
            Directive::Unexport { name } => {
                if state.vars.var(name).is_some() {
                    state.vars.entry(name).exported = false;
                }
            }
            Directive::UnsetFunction { name } => state.remove_function(name),
            Directive::SetArray { name, values } => {
                let items = values.iter().map(|v| (None, v.clone())).collect();
                if let Err(msg) = super::host::assign_array(state, name, items, false, false) {
                    let mut said = Said::default();
                    said.err.push(msg.into_bytes());
                    said.status = 1;
                    return Some(said);
                }
            }
            Directive::MapLines {
                name,
                lines,
                origin,
                ..
            } => {
                if let Err(msg) = map_lines(state, name, lines, *origin, true) {
                    let mut said = Said::default();
                    said.err.push(msg.into_bytes());
                    said.status = 1;
                    return Some(said);
                }
            }
            Directive::Exit { status } => {
                // `exit` alone: `$?`, which is also the command's status.
                let Some(status) = status else {
                    let status = state.last_status & 255;
                    state.exit = Some(status);
                    return Some(Said {
                        status,
                        ..Said::default()
                    });
                };
                state.exit = Some(*status);
            }
            // `undo` changes files, not the shell: a pipeline stage drops it.
            // `undo` reverts whole lines: from inside the line's own loops, functions,
            // subshells or scripts it would revert under the commands still running.
            Directive::Undo { .. } if state.nesting > 0 || state.nested() => {
                let mut said = Said::default();
                said.err.push(
                    b"undo: only runs as a command of its own (not inside a loop, function, subshell or script)\n"
                        .to_vec(),
                );
                said.status = 1;
                return Some(said);
            }
            Directive::Undo { count } if !in_stage => return Some(self.run_undo(state, *count)),
            Directive::Undo { .. } => {}
        }
        None
    }

    /// The `undo` builtin: reverts, and says what it reverted.
    ///
    /// Each reverted line is `undone: LINE (N changes)` on stdout; on stderr, one line per
    /// object left as it is (`undo: f: changed since; left as is`), per inverse that failed,
    /// and per transaction whose journal was refused. Any of those makes the status 1.
    fn run_undo(&self, state: &ShellState, count: usize) -> Said {
        let reverted = self.rt.journal.undo(&self.rt.sandbox, count);
        for r in reverted.iter().filter(|r| r.refused.is_none()) {
            self.rt.journal.applied(AppliedEffect::Undo {
                line: r.line.clone(),
                changes: r.changes,
            });
        }
        let mut said = Said::default();
        if reverted.is_empty() {
            said.err.push(b"undo: nothing to undo\n".to_vec());
            said.status = 1;
            return said;
        }
        for r in &reverted {
            if let Some(reason) = &r.refused {
                said.err.push(
                    format!("undo: a line's journal is invalid ({reason}); left for the owner\n")
                        .into_bytes(),
                );
                said.status = 1;
                continue;
            }
            if r.changes > 0 || r.skipped.is_empty() && r.errors.is_empty() {
                let s = if r.changes == 1 { "" } else { "s" };
                let mut line = b"undone: ".to_vec();
                line.extend_from_slice(one_line(&r.line).as_bytes());
                line.extend_from_slice(format!(" ({} change{s})\n", r.changes).as_bytes());
                said.out.push(line);
            }
            for skipped in &r.skipped {
                let shown = shown_path(&state.cwd, &skipped.path);
                said.err
                    .push(format!("undo: {}\n", skipped.message(&shown)).into_bytes());
                said.status = 1;
            }
            for e in &r.errors {
                said.err
                    .push(format!("undo: could not revert {e}\n").into_bytes());
                said.status = 1;
            }
        }
        said
    }
}

/// Removes one element of an array.
fn unset_element(state: &mut ShellState, name: &str, sub: &super::host::Sub) {
    use super::host::Sub;
    use trumansh_commands::Array;
    let Some(var) = state.vars.var(name).cloned() else {
        return;
    };
    let mut var = var;
    match (&mut var.array, sub) {
        (Some(Array::Indexed(m)), Sub::Index(i)) => {
            let i = if *i < 0 {
                m.keys().next_back().map_or(*i, |l| l + 1 + i)
            } else {
                *i
            };
            m.remove(&i);
        }
        (Some(Array::Assoc(m)), Sub::Key(k)) => {
            m.remove(k);
        }
        (None, Sub::Index(0)) => var.value = None,
        _ => {}
    }
    state.vars.put(name, Some(var));
}

/// A journaled line on one line (its newlines shown as `\n`).
fn one_line(line: &str) -> String {
    line.trim_end_matches('\n').replace('\n', "\\n")
}

/// A path as a message names it: relative to the cwd when it is below it, else absolute.
fn shown_path(cwd: &std::path::Path, path: &std::path::Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => path.to_string_lossy().into_owned(),
    }
}

/// What a directive has to say (`undo`'s report) and the status it gives.
#[derive(Default)]
pub(super) struct Said {
    pub out: Vec<Vec<u8>>,
    pub err: Vec<Vec<u8>>,
    pub status: i32,
}

/// `mapfile`'s assignment: `lines` into the indexed array `name` from `origin` (from 0 into a
/// cleared array when `None`). `first`: this is the first part of the lines (the array is
/// made or cleared then; later parts, after a callback, add to it).
pub(super) fn map_lines(
    state: &mut ShellState,
    name: &str,
    lines: &[String],
    origin: Option<i64>,
    first: bool,
) -> Result<(), String> {
    if super::host::is_assoc(state, name) {
        return Err(format!("{name}: not an indexed array"));
    }
    let items = lines
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let key = origin.map(|o| o.saturating_add(i64::try_from(i).unwrap_or(i64::MAX)));
            (key.map(|k| k.to_string()), v.clone())
        })
        .collect();
    super::host::assign_array(state, name, items, origin.is_some() || !first, false)
}
