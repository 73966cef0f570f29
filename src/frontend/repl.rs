//! The interactive REPL: a line editor (rustyline) with the Debian prompt, tab completion of
//! command names and sandbox paths, and a history kept in the state directory.

use std::cell::RefCell;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::{DefaultHistory, History};
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use trumansh_commands::{FileKind, FsView};

use crate::session::Session;
use crate::shell::{self, ParseError};
use crate::transcript::Recorder;

use super::line::{StdSink, run_recorded};

/// The prompt: `user@host:~/dir$ `, as Debian's default `PS1`.
pub fn prompt(session: &Session) -> String {
    let id = &session.config().identity;
    let cwd = session.cwd();
    let home = session
        .vars()
        .get("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let shown = if !home.as_os_str().is_empty() && cwd.starts_with(&home) {
        match cwd.strip_prefix(&home) {
            Ok(rest) if rest.as_os_str().is_empty() => "~".to_string(),
            Ok(rest) => format!("~/{}", rest.to_string_lossy()),
            Err(_) => cwd.to_string_lossy().into_owned(),
        }
    } else {
        cwd.to_string_lossy().into_owned()
    };
    format!("{}@{}:{}$ ", id.user, id.hostname, shown)
}

/// Tab completion: command names in command position, sandbox paths elsewhere.
struct ShellHelper {
    session: Rc<RefCell<Session>>,
}

impl Helper for ShellHelper {}
impl Hinter for ShellHelper {
    type Hint = String;
}
impl Highlighter for ShellHelper {}
impl Validator for ShellHelper {}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = line.get(..pos).unwrap_or(line);
        let start = before
            .rfind(|c: char| c.is_whitespace() || matches!(c, ';' | '|' | '&' | '<' | '>'))
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        let head = before[..start].trim_end();
        let command_position =
            head.is_empty() || head.ends_with(['|', ';', '&']) || head.ends_with("&&");
        if command_position && !word.contains('/') {
            let names = self
                .session
                .borrow()
                .command_completions(word)
                .into_iter()
                .map(|n| Pair {
                    display: n.clone(),
                    replacement: format!("{n} "),
                })
                .collect();
            return Ok((start, names));
        }
        Ok((start, self.complete_path(word)))
    }
}

impl ShellHelper {
    fn complete_path(&self, word: &str) -> Vec<Pair> {
        let session = self.session.borrow();
        let (dir_part, prefix) = match word.rfind('/') {
            Some(i) => (&word[..=i], &word[i + 1..]),
            None => ("", word),
        };
        let home = session.vars().get("HOME").unwrap_or("/").to_string();
        let expanded_dir = if let Some(rest) = dir_part.strip_prefix("~/") {
            format!("{home}/{rest}")
        } else {
            dir_part.to_string()
        };
        let dir = if expanded_dir.is_empty() {
            session.cwd().to_path_buf()
        } else if Path::new(&expanded_dir).is_absolute() {
            PathBuf::from(&expanded_dir)
        } else {
            session.cwd().join(&expanded_dir)
        };
        let Ok(entries) = session.sandbox().read_dir(&dir) else {
            return Vec::new();
        };
        let mut out: Vec<Pair> = entries
            .into_iter()
            .filter(|e| {
                let name = e.name.as_bytes();
                name.starts_with(prefix.as_bytes())
                    && (prefix.starts_with('.') || !name.starts_with(b"."))
            })
            .map(|e| {
                let name = e.name.to_string_lossy().into_owned();
                let is_dir = e.kind == FileKind::Dir
                    || (e.kind == FileKind::Symlink
                        && session
                            .sandbox()
                            .stat(&dir.join(&e.name), true)
                            .is_ok_and(|m| m.is_dir()));
                let suffix = if is_dir { "/" } else { " " };
                Pair {
                    display: format!("{name}{}", if is_dir { "/" } else { "" }),
                    replacement: format!("{dir_part}{name}{suffix}"),
                }
            })
            .collect();
        out.sort_by(|a, b| a.display.cmp(&b.display));
        out
    }
}

const HISTORY_FILE: &str = "history";
const HISTORY_MAX: usize = 1000;

/// Loads the REPL history from the state directory.
fn load_history(session: &Session, history: &mut DefaultHistory) {
    if let Ok(text) = session.sandbox().state_dir().read_to_string(HISTORY_FILE) {
        let lines: Vec<&str> = text.lines().collect();
        let skip = lines.len().saturating_sub(HISTORY_MAX);
        for l in &lines[skip..] {
            let _ = history.add(&unescape_history(l));
        }
    }
}

/// Appends one entry to the history file in the state directory.
fn append_history(session: &Session, entry: &str) {
    let mut opts = cap_std::fs::OpenOptions::new();
    opts.create(true).append(true);
    if let Ok(mut f) = session.sandbox().state_dir().open_with(HISTORY_FILE, &opts) {
        let _ = writeln!(f, "{}", escape_history(entry));
    }
}

/// One history entry per line: a multi-line command keeps its newlines as `\n` (and a
/// backslash is doubled), so that recalling it runs the same text.
fn escape_history(entry: &str) -> String {
    entry.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape_history(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The interactive REPL, recording the session if asked. Returns the exit status.
pub fn run_repl(session: Session, mut recorder: Option<Recorder>) -> i32 {
    let session = Rc::new(RefCell::new(session));
    let mut editor: Editor<ShellHelper, DefaultHistory> = match Editor::new() {
        Ok(e) => e,
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "trumansh: cannot start the line editor: {e}"
            );
            return 1;
        }
    };
    editor.set_helper(Some(ShellHelper {
        session: Rc::clone(&session),
    }));
    load_history(&session.borrow(), editor.history_mut());
    // Ctrl-C while a line runs stops it (as at its deadline) and the REPL goes on; at the
    // prompt the line editor reads it as a key.
    let _ =
        signal_hook::flag::register(signal_hook::consts::SIGINT, session.borrow().cancel_flag());
    let mut sink = StdSink::default();
    let mut line_no = 1usize;
    loop {
        let mut buf = String::new();
        let mut p = prompt(&session.borrow());
        let complete = loop {
            match editor.readline(&p) {
                Ok(line) => {
                    buf.push_str(&line);
                    buf.push('\n');
                    let (extglob, aliases) = session.borrow().parse_settings();
                    let opts = shell::ParseOpts {
                        extglob,
                        aliases: aliases.as_deref(),
                    };
                    if matches!(
                        shell::parse_with_opts(buf.as_bytes(), line_no, opts),
                        Err(ParseError::Incomplete { .. })
                    ) {
                        p = "> ".to_string();
                        continue;
                    }
                    break Some(buf.clone());
                }
                Err(ReadlineError::Interrupted) => {
                    // Ctrl-C: the line is dropped, `$?` is 130 as in bash.
                    break None;
                }
                Err(ReadlineError::Eof) => {
                    if buf.is_empty() {
                        let _ = writeln!(std::io::stderr(), "exit");
                        return session.borrow().last_status();
                    }
                    break Some(buf.clone());
                }
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "trumansh: {e}");
                    return 1;
                }
            }
        };
        let Some(input) = complete else {
            continue;
        };
        let entry = input.trim_end_matches('\n').to_string();
        if !entry.trim().is_empty() {
            let _ = editor.add_history_entry(entry.as_str());
            append_history(&session.borrow(), &entry);
        }
        let mut s = session.borrow_mut();
        run_recorded(
            &mut s,
            input.as_bytes(),
            line_no,
            &mut sink,
            recorder.as_mut(),
        );
        line_no += input.matches('\n').count();
        if let Some(status) = s.exit_status() {
            let _ = writeln!(std::io::stderr(), "exit");
            return status;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_entries_round_trip() {
        for entry in [
            "echo \"multi\nline\"",
            "echo a\\nb",
            "cat <<EOF\nx\\\nEOF",
            "plain",
        ] {
            let line = escape_history(entry);
            assert!(!line.contains('\n'));
            assert_eq!(unescape_history(&line), entry);
        }
    }
}
