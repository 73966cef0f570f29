//! `column [options] [<file>...]`, util-linux 2.38: lists in columns. Without `-t` the
//! entries (non-blank lines) fill columns (or rows, `-x`) of tab-aligned cells within the
//! output width (`-c N`, else `$COLUMNS`, else 80: stdout is never a terminal here); one
//! entry a line when the widest does not fit. `-t` makes a table of the lines split at runs
//! of blanks, or at each of the `-s` characters, joined by `-o` (two spaces); `-L` keeps
//! empty lines. Bytes above 127 are shown as `\xNN`, as util-linux does in the C locale.
//! The input is read whole, as util-linux does, and held up to the session's hold cap: past
//! it `column: memory exhausted` (status 1). The output streams.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::operands_or_stdin;
use crate::text::lines::{EXHAUSTED, RecordError, Records, Sink, split_eol};
use crate::{Ctx, Outcome, quote};

/// Columnate lists.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "column [options] [<file>...]")]
pub struct ColumnArgs {
    /// create a table
    #[arg(short = 't', long = "table")]
    table: bool,
    /// don't ignore empty lines
    #[arg(short = 'L', long = "keep-empty-lines")]
    keep_empty: bool,
    /// width of output in number of characters
    #[arg(short = 'c', long = "output-width", value_name = "width")]
    width: Option<OsString>,
    /// columns separator for table output (default is two spaces)
    #[arg(short = 'o', long = "output-separator", value_name = "string")]
    output_separator: Option<OsString>,
    /// possible table delimiters
    #[arg(short = 's', long = "separator", value_name = "string")]
    separator: Option<OsString>,
    /// fill rows before columns
    #[arg(short = 'x', long = "fillrows")]
    fillrows: bool,
    files: Vec<OsString>,
}

const TAB: usize = 8;

/// The entry as util-linux shows it: invalid characters (any byte above 127 in the C
/// locale) as `\xNN`.
fn safe(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if c >= 0x80 {
            out.extend_from_slice(format!("\\x{c:02x}").as_bytes());
        } else {
            out.push(c);
        }
    }
    out
}

/// The columns an entry takes: control characters none (`wcwidth` is -1 for them), an
/// escaped byte its four characters.
fn cols(e: &[u8]) -> usize {
    e.iter().filter(|&&c| (0x20..0x7f).contains(&c)).count()
}

fn tabs_to(out: &mut Vec<u8>, chcnt: &mut usize, endcol: usize) {
    loop {
        let next = (*chcnt + TAB) & !(TAB - 1);
        if next > endcol {
            break;
        }
        out.push(b'\t');
        *chcnt = next;
    }
}

/// Where the output goes: a sink handed to the outcome in chunks; `poll` is false when
/// nobody reads any more.
struct Out<'a, 'c> {
    sink: Sink,
    o: &'a mut Outcome,
    ctx: &'a Ctx<'c>,
}

impl Out<'_, '_> {
    fn poll(&mut self) -> bool {
        self.sink.poll(self.o, self.ctx)
    }
}

fn fill_columns(ents: &[Vec<u8>], maxlength: usize, width: usize, w: &mut Out) {
    let numcols = (width / maxlength).max(1);
    let numrows = ents.len().div_ceil(numcols);
    for row in 0..numrows {
        if !w.poll() {
            return;
        }
        let out = &mut w.sink.buf;
        let (mut endcol, mut chcnt, mut base) = (maxlength, 0, row);
        for _ in 0..numcols {
            let Some(e) = ents.get(base) else { break };
            out.extend_from_slice(e);
            chcnt += cols(e);
            base += numrows;
            if base >= ents.len() {
                break;
            }
            tabs_to(out, &mut chcnt, endcol);
            endcol += maxlength;
        }
        out.push(b'\n');
    }
}

fn fill_rows(ents: &[Vec<u8>], maxlength: usize, width: usize, w: &mut Out) {
    let numcols = width / maxlength;
    let (mut chcnt, mut col, mut endcol) = (0, 0, maxlength);
    for (k, e) in ents.iter().enumerate() {
        if !w.poll() {
            return;
        }
        let out = &mut w.sink.buf;
        out.extend_from_slice(e);
        chcnt += cols(e);
        if k + 1 == ents.len() {
            break;
        }
        col += 1;
        if col == numcols {
            (chcnt, col, endcol) = (0, 0, maxlength);
            out.push(b'\n');
        } else {
            tabs_to(out, &mut chcnt, endcol);
            endcol += maxlength;
        }
    }
    if chcnt > 0 {
        w.sink.buf.push(b'\n');
    }
}

/// A table row: runs of blanks split it when no `-s` is given, else each separator does.
fn cells(line: &[u8], seps: Option<&[u8]>) -> Vec<Vec<u8>> {
    match seps {
        None => line
            .split(|&c| c == b' ' || c == b'\t')
            .filter(|c| !c.is_empty())
            .map(safe)
            .collect(),
        Some(s) => line.split(|c| s.contains(c)).map(safe).collect(),
    }
}

fn table(rows: &[Vec<Vec<u8>>], sep: &[u8], w: &mut Out) {
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; ncols];
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(cols(c));
        }
    }
    for row in rows {
        if !w.poll() {
            return;
        }
        let out = &mut w.sink.buf;
        for (i, width) in widths.iter().enumerate() {
            let cell = row.get(i).map_or(&[][..], Vec::as_slice);
            out.extend_from_slice(cell);
            if i + 1 < ncols {
                out.resize(out.len() + width.saturating_sub(cols(cell)), b' ');
                out.extend_from_slice(sep);
            }
        }
        out.push(b'\n');
    }
}

fn output_width(a: &ColumnArgs, ctx: &Ctx) -> Result<usize, Stop> {
    if let Some(w) = &a.width {
        return std::str::from_utf8(w.as_bytes())
            .ok()
            .and_then(|t| t.parse::<usize>().ok())
            .ok_or_else(|| Stop::Fail(format!("invalid columns argument: {}", quote(w))));
    }
    let env = ctx
        .vars
        .var("COLUMNS")
        .filter(|v| v.exported)
        .and_then(|v| v.value.as_deref())
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&v| v > 0);
    Ok(env.unwrap_or(80))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<ColumnArgs>(args)?;
    if a.table && a.fillrows {
        return Err(Stop::Fail(
            "mutually exclusive arguments: --table --fillrows".into(),
        ));
    }
    let width = output_width(&a, ctx)?;
    let mut o = Outcome::ok();
    let mut status = 0;
    let blank = |l: &[u8]| l.iter().all(|&c| c == b' ' || c == b'\t');
    let seps = a.separator.as_ref().map(|s| s.as_bytes());
    // The entries (or the table's rows) as they will be shown, and the bytes they hold.
    let mut ents: Vec<Vec<u8>> = Vec::new();
    let mut rows: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut held = 0usize;
    let cap = usize::try_from(ctx.hold_bytes()).unwrap_or(usize::MAX);
    let entry = std::mem::size_of::<Vec<u8>>();
    let mut buf = Vec::new();
    let files = if a.files.is_empty() {
        operands_or_stdin(a.files)
    } else {
        a.files
    };
    for name in &files {
        let mut input = match Records::open(ctx, name, b'\n') {
            Ok(r) => r,
            Err(e) => {
                o.err(format!(
                    "column: {}: {}\n",
                    name.to_string_lossy(),
                    e.strerror()
                ));
                status = 1;
                continue;
            }
        };
        loop {
            buf.clear();
            match input.append_capped(&mut buf, cap.saturating_sub(held)) {
                Ok(true) => {}
                Ok(false) => break,
                Err(RecordError::TooLong) => return Ok(exhausted(o)),
                Err(RecordError::Io(e)) => {
                    o.err(format!("column: read failed: {}\n", e.strerror()));
                    return Ok(o.with_status(1));
                }
            }
            let line = split_eol(&buf, b'\n').0;
            if blank(line) && !(a.table && a.keep_empty) {
                continue;
            }
            if a.table {
                let row = cells(line, seps);
                held += entry + row.iter().map(|c| entry + c.len()).sum::<usize>();
                rows.push(row);
            } else {
                let e = safe(line);
                held += entry + e.len();
                ents.push(e);
            }
            if held > cap {
                return Ok(exhausted(o));
            }
        }
    }
    let mut w = Out {
        sink: Sink::new(),
        o: &mut o,
        ctx,
    };
    if a.table {
        let sep = a
            .output_separator
            .as_ref()
            .map_or(&b"  "[..], |s| s.as_bytes());
        table(&rows, sep, &mut w);
    } else {
        let longest = ents.iter().map(|e| cols(e)).max().unwrap_or(0);
        if ents.is_empty() {
        } else if longest >= width {
            for e in &ents {
                if !w.poll() {
                    break;
                }
                w.sink.buf.extend_from_slice(e);
                w.sink.buf.push(b'\n');
            }
        } else {
            let maxlength = (longest + TAB) & !(TAB - 1);
            if a.fillrows {
                fill_rows(&ents, maxlength, width, &mut w);
            } else {
                fill_columns(&ents, maxlength, width, &mut w);
            }
        }
    }
    w.sink.drain(w.o);
    Ok(o.with_status(status))
}

/// More input than the hold cap: util-linux holds it all, this stops with one message.
fn exhausted(mut o: Outcome) -> Outcome {
    o.err(format!("column: {EXHAUSTED}\n"));
    o.with_status(1)
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn column(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Column, args))
    }

    fn seq(n: u32) -> Vec<u8> {
        (1..=n)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect()
    }

    #[test]
    fn columns_as_util_linux() {
        // Expected outputs from util-linux 2.38.1 column, LC_ALL=C, stdout not a terminal.
        let w = World::new(
            texts()
                .file("/s/n30", &seq(30))
                .file("/s/n10", &seq(10))
                .file("/s/t", b"a b c\nlong1 x\ny zz www\n")
                .file("/s/c", b"a:b:c\nlong1:x\n")
                .file("/s/e", b"a::b\n:x\n")
                .file("/s/m", b"x y\n\n  \nab\tc\nz  \n\xc3\xa9\n"),
        );
        let rows3 = "1\t4\t7\t10\t13\t16\t19\t22\t25\t28\n2\t5\t8\t11\t14\t17\t20\t23\t26\t29\n3\t6\t9\t12\t15\t18\t21\t24\t27\t30\n";
        assert_eq!(column(&w, &["n30"]).0, rows3);
        assert_eq!(
            column(&w, &["-x", "n30"]).0,
            "1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n11\t12\t13\t14\t15\t16\t17\t18\t19\t20\n21\t22\t23\t24\t25\t26\t27\t28\t29\t30\n"
        );
        assert_eq!(
            column(&w, &["-c", "20", "n10"]).0,
            "1\t6\n2\t7\n3\t8\n4\t9\n5\t10\n"
        );
        let w20 = World::new(texts().file("/s/n10", &seq(10))).var("COLUMNS", "20", true);
        assert_eq!(column(&w20, &["n10"]).0, "1\t6\n2\t7\n3\t8\n4\t9\n5\t10\n");
        assert_eq!(
            column(&w, &["-t", "t"]).0,
            "a      b   c\nlong1  x   \ny      zz  www\n"
        );
        assert_eq!(
            column(&w, &["-t", "-s:", "-o", " | ", "c"]).0,
            "a     | b | c\nlong1 | x | \n"
        );
        assert_eq!(column(&w, &["-t", "-s:", "e"]).0, "a     b\n   x  \n");
        assert_eq!(column(&w, &["m"]).0, "x y\t\tab\tc\t\tz  \t\t\\xc3\\xa9\n");
        // Control characters take no column (a table cell, a fill entry).
        let wc = World::new(texts().file("/s/ctl", b"a\x08b c\nxyz d\n"));
        assert_eq!(column(&wc, &["-t", "ctl"]).0, "a\x08b   c\nxyz  d\n");
        assert_eq!(
            column(&w, &["-c", "x", "t"]),
            (
                String::new(),
                "column: invalid columns argument: 'x'\n".into(),
                1
            )
        );
        assert_eq!(
            column(&w, &["t", "nope"]),
            (
                "a b c\t\tlong1 x\t\ty zz www\n".into(),
                "column: nope: No such file or directory\n".into(),
                1
            )
        );
        assert_eq!(
            column(&w, &["d", "t"]),
            (
                String::new(),
                "column: read failed: Is a directory\n".into(),
                1
            )
        );
    }
}
