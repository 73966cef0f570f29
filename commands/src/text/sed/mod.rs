//! `sed [OPTION]... {script-only-if-no-other-script} [input-file]...`, GNU sed 4.9.
//!
//! The script is compiled by [`parse`] (GNU's grammar and diagnostics); the executor here
//! reads its input line by line (one line of lookahead, for `$`) and streams its output
//! through [`Ctx::flush`], which it polls in every loop that can run long (`:a;ba`), so it
//! stops when nobody reads any more or the line's deadline passes. `-i` writes each file
//! with one [`Op::WriteFile`] (and `-i.bak` a [`Op::Copy`] of the original first); `w FILE`
//! truncates its file at the start and writes all its bytes in one effect at the end. `e`
//! and `s///e` are refused (no command runs from inside sed here).

#![allow(clippy::many_single_char_names)]

mod parse;

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use parse::{Addr, Addr2, Cmd, Flags, Kind, Origin, Program, Repl};

use crate::support::input::names_stdin;
use crate::{Ctx, Effect, FsError, Op, Outcome, Stop, normalize_lexical};

const USAGE: &str = "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
";

const LONGS: [(&str, u8, bool); 19] = [
    ("quiet", b'n', false),
    ("silent", b'n', false),
    ("debug", b'D', false),
    ("expression", b'e', true),
    ("file", b'f', true),
    ("follow-symlinks", b'F', false),
    ("in-place", b'i', false),
    ("line-length", b'l', true),
    ("null-data", b'z', false),
    ("zero-terminated", b'z', false),
    ("posix", b'p', false),
    ("regexp-extended", b'E', false),
    ("separate", b's', false),
    ("sandbox", b'S', false),
    ("unbuffered", b'u', false),
    ("help", b'h', false),
    ("version", b'v', false),
    ("binary", b'b', false),
    ("line-buffered", b'u', false),
];

fn usage_err(msg: &str) -> Stop {
    let mut o = Outcome::status(1);
    o.err(format!("sed: {msg}\n{USAGE}"));
    Stop::Done(o)
}

fn fail(msg: &str, status: i32) -> Stop {
    let mut o = Outcome::status(status);
    o.err(format!("sed: {msg}\n"));
    Stop::Done(o)
}

/// The command line, parsed as GNU's `getopt_long` would (options may follow operands).
struct Opts {
    quiet: bool,
    chunks: Vec<(Vec<u8>, Origin)>,
    in_place: Option<Vec<u8>>,
    line_len: usize,
    posix: bool,
    extended: bool,
    separate: bool,
    zero: bool,
    debug: bool,
    unbuffered: bool,
    operands: Vec<OsString>,
}

fn read_script_file(ctx: &Ctx, name: &[u8]) -> Result<Vec<u8>, Stop> {
    let os = OsString::from_vec(name.to_vec());
    let r = if name == b"-" {
        ctx.stdin.read_all().map_err(|e| FsError::from_io(&e))
    } else {
        ctx.fs.read(&ctx.resolve(&os))
    };
    r.map_err(|e| {
        fail(
            &format!(
                "couldn't open file {}: {}",
                String::from_utf8_lossy(name),
                e.strerror()
            ),
            4,
        )
    })
    .map(|mut v| {
        if v.last() == Some(&b'\n') {
            v.pop();
        }
        v
    })
}

#[allow(clippy::too_many_lines)]
fn parse_opts(args: &[OsString], ctx: &Ctx) -> Result<Opts, Stop> {
    let mut o = Opts {
        quiet: false,
        chunks: Vec::new(),
        in_place: None,
        line_len: 70,
        posix: false,
        extended: false,
        separate: false,
        zero: false,
        debug: false,
        unbuffered: false,
        operands: Vec::new(),
    };
    let mut exprs = 0;
    let mut i = 0;
    let mut apply = |o: &mut Opts, c: u8, val: Option<Vec<u8>>| -> Result<(), Stop> {
        match c {
            b'n' => o.quiet = true,
            b'e' => {
                exprs += 1;
                o.chunks
                    .push((val.unwrap_or_default(), Origin::Expr(exprs)));
            }
            b'f' => {
                let name = val.unwrap_or_default();
                let text = read_script_file(ctx, &name)?;
                o.chunks.push((
                    text,
                    Origin::File(String::from_utf8_lossy(&name).into_owned()),
                ));
            }
            b'i' => {
                o.separate = true;
                o.in_place = Some(val.unwrap_or_default());
            }
            b'l' => {
                let v = val.unwrap_or_default();
                o.line_len = std::str::from_utf8(&v)
                    .ok()
                    .and_then(|s| s.parse::<usize>().ok())
                    .ok_or_else(|| {
                        fail(
                            &format!("invalid line length: '{}'", String::from_utf8_lossy(&v)),
                            1,
                        )
                    })?;
            }
            b'p' => o.posix = true,
            b'E' | b'r' => o.extended = true,
            b's' => o.separate = true,
            b'z' => o.zero = true,
            b'D' => o.debug = true,
            b'u' => o.unbuffered = true,
            b'h' => {
                let mut out = Outcome::ok();
                out.out(USAGE);
                return Err(Stop::Done(out));
            }
            b'v' => {
                let mut out = Outcome::ok();
                out.out(
                    "sed (GNU sed) 4.9\nCopyright (C) 2022 Free Software Foundation, Inc.\nLicense GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\nThis is free software: you are free to change and redistribute it.\nThere is NO WARRANTY, to the extent permitted by law.\n",
                );
                return Err(Stop::Done(out));
            }
            _ => {}
        }
        Ok(())
    };
    while let Some(a) = args.get(i) {
        i += 1;
        let b = a.as_bytes();
        if b == b"--" {
            o.operands
                .extend(args.get(i..).unwrap_or_default().iter().cloned());
            break;
        }
        if let Some(long) = b.strip_prefix(b"--") {
            let (name, val) = match long.iter().position(|&c| c == b'=') {
                Some(k) => (
                    long.get(..k).unwrap_or_default(),
                    Some(long.get(k + 1..).unwrap_or_default().to_vec()),
                ),
                None => (long, None),
            };
            let name_s = String::from_utf8_lossy(name);
            let exact = LONGS.iter().find(|(n, _, _)| *n == name_s);
            let cands: Vec<_> = LONGS
                .iter()
                .filter(|(n, _, _)| n.starts_with(&*name_s))
                .collect();
            let found = match exact {
                Some(e) => e,
                None => match cands.as_slice() {
                    [one] => one,
                    [] => {
                        return Err(usage_err(&format!(
                            "unrecognized option '{}'",
                            String::from_utf8_lossy(b)
                        )));
                    }
                    many => {
                        if many
                            .iter()
                            .all(|(_, c, _)| *c == many.first().map_or(0, |f| f.1))
                        {
                            many.first().copied().unwrap_or(&LONGS[0])
                        } else {
                            return Err(usage_err(&format!(
                                "option '{}' is ambiguous",
                                String::from_utf8_lossy(b)
                            )));
                        }
                    }
                },
            };
            let (n, c, needs) = *found;
            let val = if needs && val.is_none() {
                let Some(v) = args.get(i) else {
                    return Err(usage_err(&format!("option '--{n}' requires an argument")));
                };
                i += 1;
                Some(v.as_bytes().to_vec())
            } else if !needs && c != b'i' && val.is_some() {
                return Err(usage_err(&format!(
                    "option '--{n}' doesn't allow an argument"
                )));
            } else {
                val
            };
            apply(&mut o, c, val)?;
            continue;
        }
        if b.len() > 1 && b.first() == Some(&b'-') {
            let mut k = 1;
            while let Some(&c) = b.get(k) {
                k += 1;
                match c {
                    b'n' | b'r' | b'E' | b's' | b'z' | b'u' => apply(&mut o, c, None)?,
                    b'i' => {
                        apply(&mut o, c, Some(b.get(k..).unwrap_or_default().to_vec()))?;
                        break;
                    }
                    b'e' | b'f' | b'l' => {
                        let rest = b.get(k..).unwrap_or_default();
                        let v = if rest.is_empty() {
                            let Some(v) = args.get(i) else {
                                return Err(usage_err(&format!(
                                    "option requires an argument -- '{}'",
                                    char::from(c)
                                )));
                            };
                            i += 1;
                            v.as_bytes().to_vec()
                        } else {
                            rest.to_vec()
                        };
                        apply(&mut o, c, Some(v))?;
                        break;
                    }
                    _ => {
                        return Err(usage_err(&format!("invalid option -- '{}'", char::from(c))));
                    }
                }
            }
            continue;
        }
        o.operands.push(a.clone());
    }
    if o.chunks.is_empty() {
        if o.operands.is_empty() {
            let mut out = Outcome::status(1);
            out.err(USAGE);
            return Err(Stop::Done(out));
        }
        let s = o.operands.remove(0);
        o.chunks.push((s.into_vec(), Origin::Expr(1)));
    }
    Ok(o)
}

/// Something queued for the end of the cycle (`a`, `r`, `R`).
enum Append {
    Text(Vec<u8>),
    File(Vec<u8>),
}

#[derive(Clone, Copy, Default)]
struct Range {
    active: bool,
    /// The last line of a range whose end is a line number.
    end: u64,
}

/// Where output goes: stdout, or the file being edited in place.
struct Sink {
    buf: Vec<u8>,
    missing_newline: bool,
}

struct Sed<'c, 'a> {
    ctx: &'c Ctx<'a>,
    prog: Program,
    /// The program's commands and regexes, shared so that a command is used by reference
    /// while the executor changes its own state.
    cmds: std::rc::Rc<Vec<Cmd>>,
    regexes: std::rc::Rc<Vec<crate::support::regex_gnu::Regex>>,
    quiet: bool,
    separate: bool,
    zero: bool,
    posix: bool,
    line_len: usize,
    in_place: Option<Vec<u8>>,
    o: Outcome,
    stdout_missing_newline: bool,
    /// The in-place output of the current file.
    file_out: Option<Sink>,
    ps: Vec<u8>,
    hold: Vec<u8>,
    chomped: bool,
    hold_chomped: bool,
    line_no: u64,
    append: Vec<Append>,
    tflag: bool,
    last_re: Option<usize>,
    ranges: Vec<Range>,
    wbufs: Vec<Sink>,
    rlines: HashMap<Vec<u8>, (Vec<u8>, usize)>,
    status: i32,
    // Input.
    files: Vec<OsString>,
    next_file: usize,
    reader: Option<Box<dyn BufRead + 'c>>,
    cur_name: Vec<u8>,
    peeked: Option<(Vec<u8>, bool)>,
    /// Output closed or deadline: stop.
    stopped: bool,
    /// A read error: GNU stops at once with status 4.
    fatal: bool,
    unbuffered: bool,
}

enum Flow {
    /// End of script: autoprint, next cycle.
    End,
    /// `d`: next cycle without autoprint.
    Delete,
    /// `D` with a newline: restart without reading.
    Restart,
    Quit(i32),
    /// `q`: autoprint then quit.
    QuitPrint(i32),
}

impl Sed<'_, '_> {
    fn delim(&self) -> u8 {
        if self.zero { 0 } else { b'\n' }
    }

    fn write_out(&mut self, bytes: &[u8]) {
        let d = self.delim();
        if let Some(f) = &mut self.file_out {
            if f.missing_newline {
                f.buf.push(d);
                f.missing_newline = false;
            }
            f.buf.extend_from_slice(bytes);
        } else {
            if self.stdout_missing_newline {
                let d = [self.delim()];
                self.o.out(d);
                self.stdout_missing_newline = false;
            }
            self.o.out(bytes);
        }
    }

    /// Writes a line (pattern space) with its delimiter unless the input lacked one.
    fn write_line(&mut self, line: &[u8], chomped: bool) {
        self.write_out(line);
        if chomped {
            let d = [self.delim()];
            self.write_out(&d);
        } else if let Some(f) = &mut self.file_out {
            f.missing_newline = true;
        } else {
            self.stdout_missing_newline = true;
        }
    }

    fn flush(&mut self) -> bool {
        // Output goes on as GNU's stdio buffer would fill (4 KiB), or every line with -u, so
        // that `... | sed ... | head` sees lines while sed still reads.
        if self.unbuffered || self.o.buffered_len() >= 4096 {
            self.ctx.apply_now(&mut self.o);
        }
        if !self.ctx.flush(&mut self.o) {
            self.stopped = true;
        }
        !self.stopped
    }

    /// Opens the next input file; false when none is left.
    fn open_next(&mut self) -> bool {
        while let Some(f) = self.files.get(self.next_file).cloned() {
            self.next_file += 1;
            self.cur_name = f.as_bytes().to_vec();
            if f == "-" || names_stdin(self.ctx, &f) {
                self.reader = Some(Box::new(BufReader::with_capacity(1 << 16, self.ctx.stdin)));
                return true;
            }
            let path = self.ctx.resolve(&f);
            if self.in_place.is_some() {
                match self.ctx.fs.stat(&path, true) {
                    Ok(m) if !m.is_file() => {
                        self.o.err(format!(
                            "sed: couldn't edit {}: not a regular file\n",
                            f.to_string_lossy()
                        ));
                        self.status = 4;
                        continue;
                    }
                    _ => {}
                }
            }
            match self.ctx.fs.open(&path) {
                Ok(r) => {
                    self.reader = Some(Box::new(BufReader::with_capacity(1 << 16, r)));
                    return true;
                }
                Err(e) => {
                    self.o.err(format!(
                        "sed: can't read {}: {}\n",
                        f.to_string_lossy(),
                        e.strerror()
                    ));
                    self.status = 2;
                }
            }
        }
        false
    }

    /// Reads one line from the current reader (not crossing files).
    fn read_raw(&mut self) -> Option<(Vec<u8>, bool)> {
        let d = self.delim();
        let r = self.reader.as_mut()?;
        let mut line = Vec::new();
        match r.read_until(d, &mut line) {
            Ok(0) => {
                self.reader = None;
                None
            }
            Ok(_) => {
                let chomped = line.last() == Some(&d);
                if chomped {
                    line.pop();
                }
                Some((line, chomped))
            }
            Err(e) => {
                let e = FsError::from_io(&e);
                self.o.err(format!(
                    "sed: read error on {}: {}\n",
                    String::from_utf8_lossy(&self.cur_name),
                    e.strerror()
                ));
                self.status = 4;
                self.fatal = true;
                self.reader = None;
                None
            }
        }
    }

    /// The next line, crossing into the next file unless files are separate.
    fn next_line(&mut self) -> Option<(Vec<u8>, bool)> {
        if let Some(p) = self.peeked.take() {
            return Some(p);
        }
        loop {
            if let Some(l) = self.read_raw() {
                return Some(l);
            }
            if self.fatal || self.separate || !self.open_next() {
                return None;
            }
        }
    }

    fn is_last(&mut self) -> bool {
        if self.peeked.is_none() {
            self.peeked = self.next_line();
        }
        self.peeked.is_none()
    }

    fn regex(&mut self, idx: Option<usize>) -> Result<usize, Stop> {
        match idx.or(self.last_re) {
            Some(k) => {
                self.last_re = Some(k);
                Ok(k)
            }
            None => Err(fail(
                "-e expression #1, char 0: no previous regular expression",
                1,
            )),
        }
    }

    fn re_match(&mut self, idx: Option<usize>) -> Result<bool, Stop> {
        let k = self.regex(idx)?;
        Ok(self.regexes.get(k).is_some_and(|re| re.is_match(&self.ps)))
    }

    fn match_a1(&mut self, a: &Addr) -> Result<bool, Stop> {
        Ok(match a {
            Addr::Line(n) => self.line_no == *n,
            Addr::Last => self.is_last(),
            Addr::Re(r) => self.re_match(*r)?,
            Addr::Step(first, step) => {
                if *step == 0 {
                    self.line_no == *first
                } else {
                    self.line_no >= *first && (self.line_no - first).is_multiple_of(*step)
                }
            }
        })
    }

    fn matches(&mut self, k: usize) -> Result<bool, Stop> {
        let Some(cmd) = self.cmds.get(k) else {
            return Ok(false);
        };
        let (a1, a2, bang) = (cmd.a1.clone(), cmd.a2.clone(), cmd.bang);
        let Some(a1) = a1 else {
            return Ok(!bang);
        };
        let hit = match a2 {
            None => self.match_a1(&a1)?,
            Some(a2) => self.match_range(k, &a1, &a2)?,
        };
        Ok(hit != bang)
    }

    fn match_range(&mut self, k: usize, a1: &Addr, a2: &Addr2) -> Result<bool, Stop> {
        let l = self.line_no;
        let st = self.ranges.get(k).copied().unwrap_or_default();
        if st.active {
            let hit = match a2 {
                Addr2::Line(_) | Addr2::Plus(_) | Addr2::Mod(_) => {
                    if st.end <= l {
                        self.set_range(k, false, 0);
                    }
                    if l > st.end {
                        // Passed the end (lines skipped): a new range may start here.
                        return self.start_range(k, a1, a2);
                    }
                    true
                }
                Addr2::Last => {
                    if self.is_last() {
                        self.set_range(k, false, 0);
                    }
                    true
                }
                Addr2::Re(r) => {
                    if self.re_match(*r)? {
                        self.set_range(k, false, 0);
                    }
                    true
                }
            };
            return Ok(hit);
        }
        self.start_range(k, a1, a2)
    }

    fn set_range(&mut self, k: usize, active: bool, end: u64) {
        if let Some(r) = self.ranges.get_mut(k) {
            r.active = active;
            r.end = end;
        }
    }

    fn start_range(&mut self, k: usize, a1: &Addr, a2: &Addr2) -> Result<bool, Stop> {
        let l = self.line_no;
        let zero = matches!(a1, Addr::Line(0));
        if !zero && !self.match_a1(a1)? {
            return Ok(false);
        }
        if zero {
            // `0,/re/`: the end may be on the first line; it never starts again.
            if self.ranges.get(k).is_some_and(|r| r.end == u64::MAX) {
                return Ok(false);
            }
            if let Addr2::Re(r) = a2
                && self.re_match(*r)?
            {
                self.set_range(k, false, u64::MAX);
            } else {
                self.set_range(k, true, 0);
            }
            return Ok(true);
        }
        match a2 {
            Addr2::Line(n) => {
                if *n > l {
                    self.set_range(k, true, *n);
                }
            }
            Addr2::Plus(n) => {
                if *n > 0 {
                    self.set_range(k, true, l + n);
                }
            }
            Addr2::Mod(n) => {
                if *n > 0 {
                    self.set_range(k, true, (l / n + 1) * n);
                }
            }
            Addr2::Last => {
                if !self.is_last() {
                    self.set_range(k, true, 0);
                }
            }
            Addr2::Re(_) => self.set_range(k, true, 0),
        }
        Ok(true)
    }

    fn dump_append(&mut self) {
        let items = std::mem::take(&mut self.append);
        for a in items {
            match a {
                Append::Text(t) => self.write_out(&t),
                Append::File(name) => {
                    let os = OsString::from_vec(name.clone());
                    let data = if name == b"/dev/stdin" || name == b"-" {
                        self.ctx.stdin.read_all().ok()
                    } else {
                        self.ctx.fs.read(&self.ctx.resolve(&os)).ok()
                    };
                    // GNU copies the file as it is, a missing last newline too.
                    if let Some(d) = data {
                        self.write_out(&d);
                    }
                }
            }
        }
    }

    fn end_cycle_output(&mut self) {
        if !self.quiet {
            let ps = std::mem::take(&mut self.ps);
            self.write_line(&ps, self.chomped);
            self.ps = ps;
        }
        self.dump_append();
    }

    /// Reads the next line into the pattern space (`n`, `N`, a new cycle); false at the end.
    fn read_pattern(&mut self, append: bool) -> bool {
        let nl = self.delim();
        let Some((line, chomped)) = self.next_line() else {
            return false;
        };
        self.line_no += 1;
        if append {
            self.ps.push(nl);
            self.ps.extend_from_slice(&line);
        } else {
            self.ps = line;
        }
        self.chomped = chomped;
        self.tflag = false;
        true
    }

    fn write_file(&mut self, k: usize, bytes: &[u8], chomped: bool) {
        let name = self.prog.wfiles.get(k).cloned().unwrap_or_default();
        let path = normalize_lexical(&self.ctx.resolve(OsString::from_vec(name.clone())));
        if path == Path::new("/dev/stdout") {
            // GNU writes to its stdout stream: with -i that is still the terminal.
            let saved = self.file_out.take();
            self.write_line(bytes, chomped);
            self.file_out = saved;
            return;
        }
        if path == Path::new("/dev/stderr") {
            self.o.err(bytes);
            if chomped {
                self.o.err([self.delim()]);
            }
            return;
        }
        let d = self.delim();
        if let Some(w) = self.wbufs.get_mut(k) {
            if w.missing_newline {
                w.buf.push(d);
            }
            w.buf.extend_from_slice(bytes);
            if chomped {
                w.buf.push(d);
            }
            w.missing_newline = !chomped;
        }
    }

    fn list(&mut self, width: usize) {
        let mut out = Vec::new();
        let mut cur = 0usize;
        for &c in &self.ps {
            let rep: Vec<u8> = match c {
                b'\\' => b"\\\\".to_vec(),
                7 => b"\\a".to_vec(),
                8 => b"\\b".to_vec(),
                12 => b"\\f".to_vec(),
                b'\n' => b"\\n".to_vec(),
                b'\r' => b"\\r".to_vec(),
                b'\t' => b"\\t".to_vec(),
                11 => b"\\v".to_vec(),
                32..=126 => vec![c],
                _ => format!("\\{c:03o}").into_bytes(),
            };
            if width > 1 && cur + rep.len() > width - 1 {
                out.extend_from_slice(b"\\\n");
                cur = 0;
            } else if width == 1 {
                out.extend_from_slice(b"\\\n");
            }
            cur += rep.len();
            out.extend_from_slice(&rep);
        }
        out.push(b'$');
        out.push(self.delim());
        self.write_out(&out);
    }

    fn substitute(&mut self, k: usize) -> Result<(), Stop> {
        let cmds = std::rc::Rc::clone(&self.cmds);
        let regexes = std::rc::Rc::clone(&self.regexes);
        let Some(Cmd {
            kind: Kind::Subst(s),
            ..
        }) = cmds.get(k)
        else {
            return Ok(());
        };
        let ri = self.regex(s.re)?;
        let Some(re) = regexes.get(ri) else {
            return Ok(());
        };
        let ps = &self.ps;
        let mut out = Vec::with_capacity(ps.len());
        let mut pos = 0;
        let mut copied = 0;
        let mut count = 0u64;
        let mut done = false;
        let mut prev_end: Option<usize> = None;
        while pos <= ps.len() {
            let Some(spans) = (if s.repl.iter().any(|r| matches!(r, Repl::Group(g) if *g > 0)) {
                re.captures_at(ps, pos)
            } else {
                re.find_at(ps, pos).map(|m| vec![Some(m)])
            }) else {
                break;
            };
            let Some(Some((ms, me))) = spans.first().copied() else {
                break;
            };
            if ms == me && prev_end == Some(ms) {
                // No empty match right after a match.
                pos = ms + 1;
                continue;
            }
            count += 1;
            if count >= s.nth {
                out.extend_from_slice(ps.get(copied..ms).unwrap_or_default());
                build_replacement(&s.repl, ps, &spans, &mut out);
                copied = me;
                done = true;
                if !s.global {
                    break;
                }
            }
            prev_end = Some(me);
            pos = if me == ms { me + 1 } else { me };
        }
        if !done {
            return Ok(());
        }
        out.extend_from_slice(ps.get(copied..).unwrap_or_default());
        self.ps = out;
        self.tflag = true;
        if s.print {
            let ps = std::mem::take(&mut self.ps);
            self.write_line(&ps, self.chomped);
            self.ps = ps;
        }
        if let Some(w) = s.wfile {
            let ps = self.ps.clone();
            self.write_file(w, &ps, self.chomped);
        }
        Ok(())
    }

    /// Runs the script on the pattern space.
    #[allow(clippy::too_many_lines)]
    fn run_script(&mut self) -> Result<Flow, Stop> {
        // With -z, N, G, H join and D, P, W split at the NUL, as GNU's buffer delimiter.
        let nl = self.delim();
        let mut pc = 0;
        let cmds = std::rc::Rc::clone(&self.cmds);
        let n = cmds.len();
        let mut steps = 0u32;
        while pc < n {
            steps += 1;
            if steps.is_multiple_of(4096) && !self.flush() {
                return Ok(Flow::Quit(self.status));
            }
            // The pattern and hold spaces may hold what the session lets a command hold
            // (`s/.*/&&/` in a loop doubles it each step): past it, GNU's failed realloc.
            if (self.ps.len() + self.hold.len()) as u64 > self.ctx.hold_bytes() {
                return Err(Stop::FailWith("couldn't re-allocate memory".into(), 4)
                    .after(std::mem::take(&mut self.o)));
            }
            if !self.matches(pc)? {
                pc = match cmds.get(pc).map(|c| &c.kind) {
                    Some(Kind::Block(after)) => *after,
                    _ => pc + 1,
                };
                continue;
            }
            let kind = match cmds.get(pc) {
                Some(c) => &c.kind,
                None => break,
            };
            pc += 1;
            match kind {
                Kind::Block(_) | Kind::EndBlock | Kind::Label => {}
                Kind::Text(c, t) => match *c {
                    b'a' => self.append.push(Append::Text(t.clone())),
                    b'i' => {
                        // GNU ends `i` text with the buffer delimiter (NUL with -z).
                        let body = t.strip_suffix(b"\n").unwrap_or(t);
                        self.write_out(body);
                        self.write_out(&[nl]);
                    }
                    _ => {
                        let k = pc - 1;
                        let in_range = self.ranges.get(k).is_some_and(|r| r.active)
                            && cmds.get(k).is_some_and(|c| !c.bang);
                        if !in_range {
                            let body = t.strip_suffix(b"\n").unwrap_or(t);
                            self.write_out(body);
                            if !t.is_empty() {
                                self.write_out(&[nl]);
                            }
                        }
                        return Ok(Flow::Delete);
                    }
                },
                Kind::Branch(c, _, target) => {
                    let target = *target;
                    let jump = match *c {
                        b'b' => true,
                        b't' => std::mem::replace(&mut self.tflag, false),
                        b'T' => !std::mem::replace(&mut self.tflag, false),
                        _ => false,
                    };
                    if jump {
                        if target == usize::MAX {
                            return Ok(Flow::End);
                        }
                        pc = target;
                    }
                }
                Kind::Quit(print, code) => {
                    return Ok(if *print {
                        Flow::QuitPrint(*code)
                    } else {
                        Flow::Quit(*code)
                    });
                }
                Kind::List(w) => {
                    let w = (*w).unwrap_or(self.line_len);
                    self.list(w);
                }
                Kind::Simple(c) => match *c {
                    b'=' => {
                        let s = format!("{}", self.line_no);
                        self.write_out(s.as_bytes());
                        self.write_out(&[nl]);
                    }
                    b'd' => return Ok(Flow::Delete),
                    b'D' => match self.ps.iter().position(|&b| b == nl) {
                        None => return Ok(Flow::Delete),
                        Some(k) => {
                            self.ps.drain(..=k);
                            return Ok(Flow::Restart);
                        }
                    },
                    b'F' => {
                        let name = if self.cur_name == b"-"
                            || self.reader.is_none() && self.cur_name.is_empty()
                        {
                            b"-".to_vec()
                        } else {
                            self.cur_name.clone()
                        };
                        self.write_out(&name);
                        self.write_out(&[nl]);
                    }
                    // GNU's missing-newline flag travels with the text between the spaces.
                    b'g' => {
                        self.ps.clone_from(&self.hold);
                        self.chomped = self.hold_chomped;
                    }
                    b'G' => {
                        self.ps.push(nl);
                        self.ps.extend_from_slice(&self.hold);
                        self.chomped = self.hold_chomped;
                    }
                    b'h' => {
                        self.hold.clone_from(&self.ps);
                        self.hold_chomped = self.chomped;
                    }
                    b'H' => {
                        self.hold.push(nl);
                        self.hold.extend_from_slice(&self.ps);
                        self.hold_chomped = self.chomped;
                    }
                    b'x' => {
                        std::mem::swap(&mut self.ps, &mut self.hold);
                        std::mem::swap(&mut self.chomped, &mut self.hold_chomped);
                    }
                    b'z' => self.ps.clear(),
                    b'p' => {
                        let ps = std::mem::take(&mut self.ps);
                        self.write_line(&ps, self.chomped);
                        self.ps = ps;
                    }
                    b'P' => {
                        let end = self
                            .ps
                            .iter()
                            .position(|&b| b == nl)
                            .unwrap_or(self.ps.len());
                        let first = self.ps.get(..end).unwrap_or_default().to_vec();
                        self.write_line(&first, true);
                    }
                    b'n' => {
                        if self.is_last() {
                            if self.posix && !self.quiet {
                                return Ok(Flow::End);
                            }
                            return Ok(Flow::QuitPrint(-1));
                        }
                        if !self.quiet {
                            let ps = std::mem::take(&mut self.ps);
                            self.write_line(&ps, self.chomped);
                        }
                        self.dump_append();
                        self.read_pattern(false);
                        if !self.flush() {
                            return Ok(Flow::Quit(self.status));
                        }
                    }
                    b'N' => {
                        if self.is_last() {
                            if self.posix {
                                return Ok(Flow::Delete);
                            }
                            return Ok(Flow::QuitPrint(-1));
                        }
                        self.dump_append();
                        self.read_pattern(true);
                        if !self.flush() {
                            return Ok(Flow::Quit(self.status));
                        }
                    }
                    _ => {}
                },
                Kind::ReadFile(name) => self.append.push(Append::File(name.clone())),
                Kind::ReadLine(name) => {
                    let ctx = self.ctx;
                    let entry = self.rlines.entry(name.clone()).or_insert_with(|| {
                        let os = OsString::from_vec(name.clone());
                        let data = if name == b"/dev/stdin" || name == b"-" {
                            ctx.stdin.read_all().unwrap_or_default()
                        } else {
                            ctx.fs.read(&ctx.resolve(&os)).unwrap_or_default()
                        };
                        (data, 0)
                    });
                    let (data, off) = entry;
                    if *off < data.len() {
                        let rest = data.get(*off..).unwrap_or_default();
                        let end = rest
                            .iter()
                            .position(|&b| b == b'\n')
                            .map_or(rest.len(), |k| k + 1);
                        let line = rest.get(..end).unwrap_or_default().to_vec();
                        *off += end;
                        self.append.push(Append::Text(line));
                    }
                }
                Kind::Write(k, first) => {
                    let (k, first) = (*k, *first);
                    let bytes = if first {
                        let end = self
                            .ps
                            .iter()
                            .position(|&b| b == nl)
                            .unwrap_or(self.ps.len());
                        self.ps.get(..end).unwrap_or_default().to_vec()
                    } else {
                        self.ps.clone()
                    };
                    let chomped = first || self.chomped;
                    self.write_file(k, &bytes, chomped);
                }
                Kind::Subst(_) => self.substitute(pc - 1)?,
                Kind::Translit(map) => {
                    for b in &mut self.ps {
                        *b = map.get(usize::from(*b)).copied().unwrap_or(*b);
                    }
                }
            }
        }
        Ok(Flow::End)
    }

    /// Processes lines until the input (or the current file, when separate) ends. `Some`:
    /// a quit with this status.
    fn process(&mut self) -> Result<Option<i32>, Stop> {
        let mut restart = false;
        loop {
            if !self.flush() {
                return Ok(Some(self.status));
            }
            if !restart && !self.read_pattern(false) {
                return Ok(self.fatal.then_some(4));
            }
            restart = false;
            match self.run_script()? {
                Flow::End => self.end_cycle_output(),
                Flow::Delete => self.dump_append(),
                Flow::Restart => {
                    self.dump_append();
                    restart = true;
                    if !self.is_last() || !self.ps.is_empty() {
                        // GNU: D restarts the cycle without reading when text remains.
                    }
                }
                Flow::Quit(c) => {
                    return Ok(Some(if c < 0 { self.status } else { c }));
                }
                Flow::QuitPrint(c) => {
                    self.end_cycle_output();
                    return Ok(Some(if c < 0 { self.status } else { c }));
                }
            }
        }
    }
}

fn build_replacement(
    repl: &[Repl],
    ps: &[u8],
    spans: &[Option<(usize, usize)>],
    out: &mut Vec<u8>,
) {
    // Case state: `\U`/`\L` until `\E`; `\u`/`\l` for the next byte.
    let mut mode = 0u8;
    let mut once = 0u8;
    let push = |bytes: &[u8], out: &mut Vec<u8>, mode: u8, once: &mut u8| {
        for &b in bytes {
            let b = match *once {
                b'u' => {
                    *once = 0;
                    b.to_ascii_uppercase()
                }
                b'l' => {
                    *once = 0;
                    b.to_ascii_lowercase()
                }
                _ => match mode {
                    b'U' => b.to_ascii_uppercase(),
                    b'L' => b.to_ascii_lowercase(),
                    _ => b,
                },
            };
            out.push(b);
        }
    };
    for r in repl {
        match r {
            Repl::Lit(l) => push(l, out, mode, &mut once),
            Repl::Group(g) => {
                if let Some(Some((s, e))) = spans.get(*g) {
                    push(ps.get(*s..*e).unwrap_or_default(), out, mode, &mut once);
                }
            }
            Repl::Case(c) => match c {
                b'u' | b'l' => once = *c,
                b'E' => {
                    mode = 0;
                    once = 0;
                }
                _ => {
                    mode = *c;
                    once = 0;
                }
            },
        }
    }
}

#[allow(clippy::too_many_lines)]
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let opts = parse_opts(args, ctx)?;
    let flags = Flags {
        extended: opts.extended,
        posix: opts.posix,
    };
    let mut prog = Program::default();
    let mut last = Origin::Expr(1);
    for (text, origin) in &opts.chunks {
        prog.compile(text, origin, &flags)
            .map_err(|(m, s)| fail(&m, s))?;
        last = origin.clone();
    }
    prog.finish(&last).map_err(|(m, s)| fail(&m, s))?;
    let _ = opts.debug;
    let mut files = opts.operands.clone();
    if opts.in_place.is_some() && files.is_empty() {
        return Err(fail("no input files", 4));
    }
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    // `w` files are opened (truncated) before any input is read.
    let mut o = Outcome::ok();
    for name in &prog.wfiles {
        let os = OsString::from_vec(name.clone());
        let path = normalize_lexical(&ctx.resolve(&os));
        if path == Path::new("/dev/stdout") || path == Path::new("/dev/stderr") {
            continue;
        }
        let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let bad = match ctx.fs.stat(&parent, true) {
            Ok(m) if m.is_dir() => match ctx.fs.stat(&path, true) {
                Ok(m) if m.is_dir() => Some("Is a directory"),
                _ => None,
            },
            Ok(_) => Some("Not a directory"),
            Err(e) => Some(e.strerror()),
        };
        if let Some(why) = bad {
            return Err(fail(
                &format!(
                    "couldn't open file {}: {why}",
                    String::from_utf8_lossy(name)
                ),
                4,
            ));
        }
        o.effect(Effect {
            op: Op::WriteFile {
                path: ctx.resolve(&os),
                data: Vec::new(),
                append: false,
            },
            on_err: Some(format!(
                "sed: couldn't open file {}",
                String::from_utf8_lossy(name)
            )),
            on_ok: None,
            fail_status: 4,
        });
    }
    let nw = prog.wfiles.len();
    let ncmds = prog.cmds.len();
    let mut sed = Sed {
        ctx,
        quiet: opts.quiet || prog.quiet,
        cmds: std::rc::Rc::new(std::mem::take(&mut prog.cmds)),
        regexes: std::rc::Rc::new(std::mem::take(&mut prog.regexes)),
        prog,
        separate: opts.separate,
        zero: opts.zero,
        posix: opts.posix,
        line_len: opts.line_len,
        in_place: opts.in_place.clone(),
        o,
        stdout_missing_newline: false,
        file_out: None,
        ps: Vec::new(),
        hold: Vec::new(),
        chomped: true,
        hold_chomped: true,
        line_no: 0,
        append: Vec::new(),
        tflag: false,
        last_re: None,
        ranges: vec![Range::default(); ncmds],
        wbufs: (0..nw)
            .map(|_| Sink {
                buf: Vec::new(),
                missing_newline: false,
            })
            .collect(),
        rlines: HashMap::new(),
        status: 0,
        files,
        next_file: 0,
        reader: None,
        cur_name: Vec::new(),
        peeked: None,
        stopped: false,
        fatal: false,
        unbuffered: opts.unbuffered,
    };
    let mut quit = None;
    if let Some(suffix) = opts.in_place {
        while sed.next_file < sed.files.len() && quit.is_none() {
            if !sed.open_next() {
                break;
            }
            let name = sed.cur_name.clone();
            if name == b"-" {
                // GNU: `sed -i` on stdin is refused.
                sed.o.err("sed: couldn't edit -: not a regular file\n");
                sed.status = 4;
                sed.reader = None;
                continue;
            }
            sed.file_out = Some(Sink {
                buf: Vec::new(),
                missing_newline: false,
            });
            sed.line_no = 0;
            quit = sed.process()?;
            let data = sed.file_out.take().map(|s| s.buf).unwrap_or_default();
            sed.reader = None;
            sed.peeked = None;
            let path = ctx.resolve(OsString::from_vec(name.clone()));
            if !suffix.is_empty() {
                let base = path
                    .file_name()
                    .map(|b| b.as_bytes().to_vec())
                    .unwrap_or_default();
                let backup: Vec<u8> = if suffix.contains(&b'*') {
                    let mut v = Vec::new();
                    for &c in &suffix {
                        if c == b'*' {
                            v.extend_from_slice(&base);
                        } else {
                            v.push(c);
                        }
                    }
                    v
                } else {
                    let mut v = base.clone();
                    v.extend_from_slice(&suffix);
                    v
                };
                let bpath: PathBuf = if backup.contains(&b'/') {
                    ctx.resolve(OsString::from_vec(backup))
                } else {
                    path.with_file_name(OsString::from_vec(backup))
                };
                sed.o.effect(Effect {
                    op: Op::Copy {
                        from: path.clone(),
                        to: bpath,
                        links_as_links: false,
                        preserve: true,
                    },
                    on_err: Some(format!(
                        "sed: cannot rename {}",
                        String::from_utf8_lossy(&name)
                    )),
                    on_ok: None,
                    fail_status: 4,
                });
            }
            sed.o.effect(Effect {
                op: Op::WriteFile {
                    path,
                    data,
                    append: false,
                },
                on_err: Some(format!(
                    "sed: couldn't open temporary file {}",
                    String::from_utf8_lossy(&name)
                )),
                on_ok: None,
                fail_status: 4,
            });
        }
    } else if sed.separate {
        while quit.is_none() && sed.open_next() {
            sed.line_no = 0;
            quit = sed.process()?;
            if sed.stopped {
                break;
            }
        }
    } else {
        sed.open_next();
        quit = sed.process()?;
    }
    // `w` files: all their bytes in one effect each.
    for (k, w) in sed.wbufs.iter().enumerate() {
        if w.buf.is_empty() {
            continue;
        }
        let Some(name) = sed.prog.wfiles.get(k) else {
            continue;
        };
        let os = OsString::from_vec(name.clone());
        sed.o.effect(Effect {
            op: Op::WriteFile {
                path: ctx.resolve(&os),
                data: w.buf.clone(),
                append: true,
            },
            on_err: Some(format!(
                "sed: couldn't write to {}",
                String::from_utf8_lossy(name)
            )),
            on_ok: None,
            fail_status: 4,
        });
    }
    let mut o = sed.o;
    o.status = quit.unwrap_or(sed.status);
    if quit.is_some() && sed.status != 0 && quit == Some(0) {
        o.status = sed.status;
    }
    Ok(o)
}

/// The fuzzing hook (`fuzz/fuzz_targets/sed_parse.rs`): compiles `script` as one `-e`
/// chunk (ERE with `extended`) and runs every regex it holds over `hay` (finds and groups at
/// each offset). `Ok`: how many commands; `Err`: GNU's message. Never panics.
pub fn fuzz_compile(script: &[u8], extended: bool, hay: &[u8]) -> Result<usize, String> {
    let flags = Flags {
        extended,
        posix: false,
    };
    let mut prog = Program::default();
    let origin = Origin::Expr(1);
    prog.compile(script, &origin, &flags).map_err(|e| e.0)?;
    prog.finish(&origin).map_err(|e| e.0)?;
    for re in &prog.regexes {
        let mut pos = 0;
        while pos <= hay.len() {
            let Some(spans) = re.captures_at(hay, pos) else {
                break;
            };
            let Some(Some((s, e))) = spans.first().copied() else {
                break;
            };
            let _ = re.find_at(hay, pos);
            pos = if e > s { e } else { e + 1 };
        }
    }
    Ok(prog.cmds.len())
}

#[cfg(test)]
mod tests;
