//! `join [OPTION]... FILE1 FILE2`, GNU coreutils 9.1: joins the lines of two files sorted on
//! a join field (`-1 -2 -j`), fields split at runs of blanks or at `-t CHAR`; `-a -v` for
//! unpaired lines, `-e -o FORMAT|auto`, `-i`, `--header`, `-z`, and GNU's order checks
//! (`FILE:N: is not sorted: LINE`, once a line had no pair unless `--check-order`, then
//! `input is not in sorted order`). Both inputs stream; only a group of lines with the same
//! key is held.

use std::cmp::Ordering;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::args::parse_args;
use crate::support::input::operand_error;
use crate::text::lines::{Records, Sink, eol, split_eol};
use crate::{Ctx, Outcome, quote};

/// For each pair of input lines with identical join fields, write a line to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "join [OPTION]... FILE1 FILE2")]
pub struct JoinArgs {
    /// also print unpairable lines from file FILENUM, where FILENUM is 1 or 2
    #[arg(short = 'a', value_name = "FILENUM", action = clap::ArgAction::Append)]
    all: Vec<OsString>,
    /// replace missing input fields with EMPTY
    #[arg(short = 'e', value_name = "EMPTY")]
    empty: Option<OsString>,
    /// ignore differences in case when comparing fields
    #[arg(short = 'i', long = "ignore-case")]
    ignore_case: bool,
    /// equivalent to '-1 FIELD -2 FIELD'
    #[arg(short = 'j', value_name = "FIELD")]
    join_field: Option<OsString>,
    /// obey FORMAT while constructing output line
    #[arg(short = 'o', value_name = "FORMAT", action = clap::ArgAction::Append)]
    format: Vec<OsString>,
    /// use CHAR as input and output field separator
    #[arg(short = 't', value_name = "CHAR", action = clap::ArgAction::Append)]
    tab: Vec<OsString>,
    /// like -a FILENUM, but suppress joined output lines
    #[arg(short = 'v', value_name = "FILENUM", action = clap::ArgAction::Append)]
    only: Vec<OsString>,
    /// join on this FIELD of file 1
    #[arg(short = '1', value_name = "FIELD")]
    field1: Option<OsString>,
    /// join on this FIELD of file 2
    #[arg(short = '2', value_name = "FIELD")]
    field2: Option<OsString>,
    /// check that the input is correctly sorted, even if all input lines are pairable
    #[arg(long = "check-order")]
    check_order: bool,
    /// do not check that the input is correctly sorted
    #[arg(long = "nocheck-order")]
    nocheck_order: bool,
    /// treat the first line in each file as field headers, print them without trying to
    /// pair them
    #[arg(long = "header")]
    header: bool,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    files: Vec<OsString>,
}

/// A line and where its fields are.
#[derive(Default)]
struct Line {
    buf: Vec<u8>,
    fields: Vec<(usize, usize)>,
}

impl Line {
    fn field(&self, n: usize) -> Option<&[u8]> {
        self.fields.get(n).and_then(|&(s, e)| self.buf.get(s..e))
    }
}

/// One output item of `-o`: file 0 is the join field.
#[derive(Clone, Copy)]
struct Item {
    file: u8,
    field: usize,
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Check {
    Default,
    Enabled,
    Disabled,
}

struct Job {
    /// The field separator: `None` for runs of blanks.
    tab: Option<u8>,
    fields: [usize; 2],
    ignore_case: bool,
    empty: Option<Vec<u8>>,
    format: Vec<Item>,
    auto: bool,
    autocount: [usize; 2],
    eol: u8,
    check: Check,
}

fn split_fields(line: &mut Line, tab: Option<u8>) {
    line.fields.clear();
    let b = &line.buf;
    let lim = b.len();
    if lim == 0 {
        return;
    }
    if let Some(t) = tab {
        let mut start = 0;
        for (i, &c) in b.iter().enumerate() {
            if c == t {
                line.fields.push((start, i));
                start = i + 1;
            }
        }
        line.fields.push((start, lim));
    } else {
        {
            let blank = |c: u8| c == b' ' || c == b'\t' || c == b'\n';
            let mut p = 0;
            while p < lim && b.get(p).is_some_and(|&c| blank(c)) {
                p += 1;
            }
            while p < lim {
                let mut sep = p + 1;
                while sep < lim && !b.get(sep).is_some_and(|&c| blank(c)) {
                    sep += 1;
                }
                line.fields.push((p, sep));
                if sep == lim {
                    break;
                }
                p = sep + 1;
                while p < lim && b.get(p).is_some_and(|&c| blank(c)) {
                    p += 1;
                }
            }
        }
    }
}

impl Job {
    fn keycmp(&self, a: &Line, fa: usize, b: &Line, fb: usize) -> Ordering {
        let ka = a.field(fa).unwrap_or_default();
        let kb = b.field(fb).unwrap_or_default();
        if self.ignore_case {
            ka.iter()
                .map(u8::to_ascii_uppercase)
                .cmp(kb.iter().map(u8::to_ascii_uppercase))
        } else {
            ka.cmp(kb)
        }
    }

    fn sep(&self) -> u8 {
        self.tab.unwrap_or(b' ')
    }

    fn prfield(&self, line: &Line, n: usize, out: &mut Vec<u8>) {
        match line.field(n) {
            Some(f) if !f.is_empty() => out.extend_from_slice(f),
            _ => {
                if let Some(e) = &self.empty {
                    out.extend_from_slice(e);
                }
            }
        }
    }

    fn prfields(&self, line: &Line, join: usize, autocount: usize, out: &mut Vec<u8>) {
        let n = if self.auto {
            autocount
        } else {
            line.fields.len()
        };
        for i in (0..n).filter(|&i| i != join) {
            out.push(self.sep());
            self.prfield(line, i, out);
        }
    }

    /// GNU's `prjoin`; `None` is the blank line of an unpaired one.
    fn prjoin(&self, l1: Option<&Line>, l2: Option<&Line>, out: &mut Vec<u8>) {
        let blank = Line::default();
        let (a, b) = (l1.unwrap_or(&blank), l2.unwrap_or(&blank));
        let (jf1, jf2) = (self.fields[0], self.fields[1]);
        let (jl, jf) = if l1.is_none() { (b, jf2) } else { (a, jf1) };
        if self.format.is_empty() {
            self.prfield(jl, jf, out);
            self.prfields(a, jf1, self.autocount[0], out);
            self.prfields(b, jf2, self.autocount[1], out);
        } else {
            for (k, item) in self.format.iter().enumerate() {
                if k > 0 {
                    out.push(self.sep());
                }
                match item.file {
                    0 => self.prfield(jl, jf, out),
                    1 => self.prfield(a, item.field, out),
                    _ => self.prfield(b, item.field, out),
                }
            }
        }
        out.push(self.eol);
    }
}

/// One input, read line by line with GNU's order check.
struct Input<'a> {
    records: Records<'a>,
    name: String,
    which: usize,
    line_no: u64,
    prev: Option<Line>,
    warned: bool,
}

/// Everything the main loop shares.
struct State<'s> {
    job: &'s Job,
    seen_unpairable: bool,
    sink: Sink,
    o: Outcome,
}

impl State<'_> {
    /// GNU's `get_line`: the next line, its fields, and the order check against the
    /// previous one. `Err` is the stop (a read error, a disorder under `--check-order`).
    fn get_line(&mut self, input: &mut Input, buf: &mut Vec<u8>) -> Result<Option<Line>, Stop> {
        match input.records.next_into(buf) {
            Ok(true) => {}
            Ok(false) => {
                input.prev = None;
                return Ok(None);
            }
            Err(e) => {
                return Err(Stop::Fail(format!("read error: {}", e.strerror())));
            }
        }
        input.line_no += 1;
        let mut line = Line {
            buf: split_eol(buf, self.job.eol).0.to_vec(),
            fields: Vec::new(),
        };
        split_fields(&mut line, self.job.tab);
        let check = self.job.check;
        if let Some(prev) = &input.prev
            && check != Check::Disabled
            && (check == Check::Enabled || self.seen_unpairable)
            && !input.warned
        {
            let f = self.job.fields.get(input.which).copied().unwrap_or(0);
            if self.job.keycmp(prev, f, &line, f) == Ordering::Greater {
                let msg = format!(
                    "{}:{}: is not sorted: {}",
                    input.name,
                    input.line_no,
                    String::from_utf8_lossy(&line.buf)
                );
                if check == Check::Enabled {
                    return Err(Stop::Fail(msg));
                }
                self.sink.drain(&mut self.o);
                self.o.err(format!("join: {msg}\n"));
                input.warned = true;
            }
        }
        input.prev = Some(Line {
            buf: line.buf.clone(),
            fields: line.fields.clone(),
        });
        Ok(Some(line))
    }
}

fn field_number(s: &OsString) -> Result<usize, Stop> {
    let b = s.as_bytes();
    let ok = !b.is_empty() && b.iter().all(u8::is_ascii_digit);
    let v = if ok {
        std::str::from_utf8(b)
            .ok()
            .and_then(|t| t.parse::<u64>().ok())
            .map_or(usize::MAX, |v| usize::try_from(v).unwrap_or(usize::MAX))
    } else {
        0
    };
    if v == 0 {
        return Err(Stop::Fail(format!("invalid field number: {}", quote(s))));
    }
    Ok(v - 1)
}

fn file_number(s: &OsString) -> Result<usize, Stop> {
    match s.as_bytes() {
        b"1" => Ok(0),
        b"2" => Ok(1),
        _ => Err(Stop::Fail(format!("invalid field number: {}", quote(s)))),
    }
}

fn field_list(spec: &[u8], out: &mut Vec<Item>) -> Result<(), Stop> {
    for item in spec
        .split(|&c| c == b',' || c == b' ' || c == b'\t')
        .filter(|s| !s.is_empty())
    {
        let q = || quote(std::ffi::OsStr::from_bytes(item));
        match item {
            [b'0'] => out.push(Item { file: 0, field: 0 }),
            [b'0', ..] => return Err(Stop::Fail(format!("invalid field specifier: {}", q()))),
            [f @ (b'1' | b'2'), b'.', rest @ ..] => out.push(Item {
                file: f - b'0',
                field: field_number(&std::ffi::OsStr::from_bytes(rest).to_os_string())?,
            }),
            [b'1' | b'2', ..] => {
                return Err(Stop::Fail(format!("invalid field specifier: {}", q())));
            }
            _ => {
                return Err(Stop::Fail(format!(
                    "invalid file number in field spec: {}",
                    q()
                )));
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_lines)] // GNU's main loop, kept in one piece to follow it
pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<JoinArgs>(args)?;
    let mut unpaired = [false, false];
    for n in &a.all {
        if let Some(u) = unpaired.get_mut(file_number(n)?) {
            *u = true;
        }
    }
    let mut pairables = true;
    for n in &a.only {
        if let Some(u) = unpaired.get_mut(file_number(n)?) {
            *u = true;
        }
        pairables = false;
    }
    let j = a.join_field.as_ref().map(field_number).transpose()?;
    let mut fields = [j, j];
    for (k, f) in [&a.field1, &a.field2].into_iter().enumerate() {
        if let Some(f) = f {
            let v = field_number(f)?;
            if let Some(old) = fields.get(k).copied().flatten()
                && old != v
            {
                return Err(Stop::Fail(format!(
                    "incompatible join fields {}, {}",
                    old + 1,
                    v + 1
                )));
            }
            if let Some(slot) = fields.get_mut(k) {
                *slot = Some(v);
            }
        }
    }
    let mut tab: Option<u8> = None;
    for t in &a.tab {
        let b = t.as_bytes();
        let new = match b {
            [] => b'\n',
            [c] => *c,
            b"\\0" => 0,
            _ => return Err(Stop::Fail(format!("multi-character tab {}", quote(t)))),
        };
        if tab.is_some_and(|old| old != new) {
            return Err(Stop::Fail("incompatible tabs".into()));
        }
        tab = Some(new);
    }
    let mut format = Vec::new();
    let mut auto = false;
    for f in &a.format {
        if f.as_bytes() == b"auto" {
            auto = true;
        } else {
            field_list(f.as_bytes(), &mut format)?;
        }
    }
    match a.files.len() {
        0 => return Err(Stop::Usage("missing operand".into())),
        1 => {
            return Err(Stop::Usage(format!(
                "missing operand after {}",
                quote(a.files.first().map(OsString::as_os_str).unwrap_or_default())
            )));
        }
        2 => {}
        _ => {
            return Err(Stop::Usage(format!(
                "extra operand {}",
                quote(a.files.get(2).map(OsString::as_os_str).unwrap_or_default())
            )));
        }
    }
    if a.files.iter().all(|f| f == "-") {
        return Err(Stop::Fail("both files cannot be standard input".into()));
    }
    let delim = eol(a.zero);
    let mut inputs = Vec::with_capacity(2);
    for (which, name) in a.files.iter().enumerate() {
        let records = Records::open(ctx, name, delim).map_err(|e| {
            let mut o = Outcome::ok();
            o.err(operand_error(ctx.name, name, &e));
            Stop::Done(o.with_status(1))
        })?;
        inputs.push(Input {
            records,
            name: name.to_string_lossy().into_owned(),
            which,
            line_no: 0,
            prev: None,
            warned: false,
        });
    }
    let mut it = inputs.into_iter();
    let (Some(mut in1), Some(mut in2)) = (it.next(), it.next()) else {
        return Err(Stop::Usage("missing operand".into()));
    };
    let mut job = Job {
        tab,
        fields: [fields[0].unwrap_or(0), fields[1].unwrap_or(0)],
        ignore_case: a.ignore_case,
        empty: a.empty.map(|e| e.as_bytes().to_vec()),
        format,
        auto,
        autocount: [0, 0],
        eol: delim,
        check: if a.check_order {
            Check::Enabled
        } else if a.nocheck_order {
            Check::Disabled
        } else {
            Check::Default
        },
    };
    let mut buf = Vec::new();
    // The first lines decide `-o auto`'s field counts, before the job is shared.
    let mut pre = State {
        job: &job,
        seen_unpairable: false,
        sink: Sink::new(),
        o: Outcome::ok(),
    };
    let first1 = pre
        .get_line(&mut in1, &mut buf)
        .map_err(|e| e.after(std::mem::take(&mut pre.o)))?;
    let first2 = pre
        .get_line(&mut in2, &mut buf)
        .map_err(|e| e.after(std::mem::take(&mut pre.o)))?;
    let o = std::mem::take(&mut pre.o);
    if auto {
        job.autocount = [
            first1.as_ref().map_or(0, |l| l.fields.len()),
            first2.as_ref().map_or(0, |l| l.fields.len()),
        ];
    }
    let mut st = State {
        job: &job,
        seen_unpairable: false,
        sink: Sink::new(),
        o,
    };
    match join_loop(
        &mut st, &mut in1, &mut in2, first1, first2, unpaired, pairables, a.header, ctx,
    ) {
        Ok(()) => {}
        Err(stop) => {
            st.sink.drain(&mut st.o);
            return Err(stop.after(st.o));
        }
    }
    st.sink.drain(&mut st.o);
    if in1.warned || in2.warned {
        return Err(Stop::Fail("input is not in sorted order".into()).after(st.o));
    }
    Ok(st.o)
}

/// GNU's `join` loop, from the first line of each input.
#[allow(clippy::too_many_arguments)]
fn join_loop(
    st: &mut State,
    in1: &mut Input,
    in2: &mut Input,
    first1: Option<Line>,
    first2: Option<Line>,
    unpaired: [bool; 2],
    pairables: bool,
    header: bool,
    ctx: &Ctx,
) -> Result<(), Stop> {
    let job = st.job;
    let (jf1, jf2) = (job.fields[0], job.fields[1]);
    let mut buf = Vec::new();
    let (mut cur1, mut cur2) = (first1, first2);
    if header && (cur1.is_some() || cur2.is_some()) {
        job.prjoin(cur1.as_ref(), cur2.as_ref(), &mut st.sink.buf);
        in1.prev = None;
        in2.prev = None;
        if cur1.is_some() {
            cur1 = st.get_line(in1, &mut buf)?;
        }
        if cur2.is_some() {
            cur2 = st.get_line(in2, &mut buf)?;
        }
    }
    let [un1, un2] = unpaired;
    while let (Some(l1), Some(l2)) = (&cur1, &cur2) {
        match job.keycmp(l1, jf1, l2, jf2) {
            Ordering::Less => {
                if un1 {
                    job.prjoin(Some(l1), None, &mut st.sink.buf);
                }
                cur1 = st.get_line(in1, &mut buf)?;
                st.seen_unpairable = true;
            }
            Ordering::Greater => {
                if un2 {
                    job.prjoin(None, Some(l2), &mut st.sink.buf);
                }
                cur2 = st.get_line(in2, &mut buf)?;
                st.seen_unpairable = true;
            }
            Ordering::Equal => {
                let (Some(l1), Some(l2)) = (cur1.take(), cur2.take()) else {
                    break;
                };
                let mut group1 = vec![l1];
                loop {
                    match st.get_line(in1, &mut buf)? {
                        Some(l) if job.keycmp(&l, jf1, &l2, jf2) == Ordering::Equal => {
                            group1.push(l);
                        }
                        next => {
                            cur1 = next;
                            break;
                        }
                    }
                }
                let mut group2 = vec![l2];
                loop {
                    match st.get_line(in2, &mut buf)? {
                        Some(l)
                            if group1.first().is_some_and(|g| {
                                job.keycmp(g, jf1, &l, jf2) == Ordering::Equal
                            }) =>
                        {
                            group2.push(l);
                        }
                        next => {
                            cur2 = next;
                            break;
                        }
                    }
                }
                if pairables {
                    for x in &group1 {
                        for y in &group2 {
                            job.prjoin(Some(x), Some(y), &mut st.sink.buf);
                            if !st.sink.poll(&mut st.o, ctx) {
                                return Ok(());
                            }
                        }
                    }
                }
            }
        }
        if !st.sink.poll(&mut st.o, ctx) {
            return Ok(());
        }
    }
    let check_tail = job.check != Check::Disabled;
    if let Some(l1) = cur1.take()
        && (un1 || check_tail)
    {
        if un1 {
            job.prjoin(Some(&l1), None, &mut st.sink.buf);
        }
        if cur2.is_some() {
            st.seen_unpairable = true;
        }
        while let Some(l) = st.get_line(in1, &mut buf)? {
            if un1 {
                job.prjoin(Some(&l), None, &mut st.sink.buf);
                if !st.sink.poll(&mut st.o, ctx) {
                    return Ok(());
                }
            }
            if in1.warned && !un1 {
                break;
            }
        }
    }
    if let Some(l2) = cur2.take()
        && (un2 || check_tail)
    {
        if un2 {
            job.prjoin(None, Some(&l2), &mut st.sink.buf);
        }
        while let Some(l) = st.get_line(in2, &mut buf)? {
            if un2 {
                job.prjoin(None, Some(&l), &mut st.sink.buf);
                if !st.sink.poll(&mut st.o, ctx) {
                    return Ok(());
                }
            }
            if in2.warned && !un2 {
                break;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testing::world::{World, text, texts};

    fn join(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Join, args))
    }

    fn world() -> World {
        World::new(
            texts()
                .file("/s/j1", b"a 1 x\nb 2\nd 4 y\n")
                .file("/s/j2", b"a A\nc C\nd D E\nd D2\n")
                .file("/s/ju", b"b 1\na 2\n")
                .file("/s/t1", b"x,1\ny,2\n")
                .file("/s/t2", b"x,a,b\nz,c\n")
                .file("/s/eq", b"k=1\n"),
        )
    }

    #[test]
    fn joins_as_gnu() {
        // Expected outputs from GNU coreutils 9.1 join, LC_ALL=C.
        let w = world();
        for (args, want) in [
            (&["j1", "j2"][..], "a 1 x A\nd 4 y D E\nd 4 y D2\n"),
            (&["-a1", "j1", "j2"], "a 1 x A\nb 2\nd 4 y D E\nd 4 y D2\n"),
            (&["-a2", "-v1", "j1", "j2"], "b 2\nc C\n"),
            (
                &["-o", "1.2,2.2,0", "-e", "NA", "-a1", "-a2", "j1", "j2"],
                "1 A a\n2 NA b\nNA C c\n4 D d\n4 D2 d\n",
            ),
            (
                &["-o", "auto", "-e", "-", "-a1", "j1", "j2"],
                "a 1 x A\nb 2 - -\nd 4 y D\nd 4 y D2\n",
            ),
            (&["--header", "j1", "j2"], "a 1 x A\nd 4 y D E\nd 4 y D2\n"),
            (&["-t,", "-a2", "t1", "t2"], "x,1,a,b\nz,c\n"),
            (&["-t", "", "t1", "t1"], "x,1\ny,2\n"),
            (&["-o", "1.1", "-o", "2.2", "t1", "t1"], "x,1 \ny,2 \n"),
            (&["-o", "0,1.5", "-t,", "t1", "t2"], "x,\n"),
            (&["-t=", "-o", "2.2", "eq", "eq"], "1\n"),
            (&["-t", "=", "-o", "2.2", "eq", "eq"], "1\n"),
        ] {
            assert_eq!(join(&w, args), (want.into(), String::new(), 0), "{args:?}");
        }
    }

    #[test]
    fn order_and_errors_as_gnu() {
        let w = world();
        assert_eq!(
            join(&w, &["ju", "j2"]),
            (
                String::new(),
                "join: ju:2: is not sorted: a 2\njoin: input is not in sorted order\n".into(),
                1
            )
        );
        assert_eq!(
            join(&w, &["--check-order", "ju", "j2"]),
            (String::new(), "join: ju:2: is not sorted: a 2\n".into(), 1)
        );
        assert_eq!(
            join(&w, &["-a1", "ju", "j2"]),
            (
                "b 1\na 2\n".into(),
                "join: ju:2: is not sorted: a 2\njoin: input is not in sorted order\n".into(),
                1
            )
        );
        let fail = |m: &str| (String::new(), format!("join: {m}\n"), 1);
        assert_eq!(
            join(&w, &["-a", "3", "j1", "j2"]),
            fail("invalid field number: '3'")
        );
        assert_eq!(
            join(&w, &["-j", "0", "j1", "j2"]),
            fail("invalid field number: '0'")
        );
        assert_eq!(
            join(&w, &["-o", "3.1", "j1", "j2"]),
            fail("invalid file number in field spec: '3.1'")
        );
        assert_eq!(
            join(&w, &["-o", "1", "j1", "j2"]),
            fail("invalid field specifier: '1'")
        );
        assert_eq!(
            join(&w, &["-t", "ab", "j1", "j2"]),
            fail("multi-character tab 'ab'")
        );
        assert_eq!(
            join(&w, &["-t", "a", "-t", "b", "j1", "j2"]),
            fail("incompatible tabs")
        );
        assert_eq!(
            join(&w, &["-j", "1", "-1", "2", "j1", "j2"]),
            fail("incompatible join fields 1, 2")
        );
        assert_eq!(
            join(&w, &["-", "-"]),
            fail("both files cannot be standard input")
        );
        assert_eq!(
            join(&w, &["j1", "nope"]),
            fail("nope: No such file or directory")
        );
        assert_eq!(join(&w, &["j1", "d"]), fail("read error: Is a directory"));
        assert_eq!(
            join(&w, &["j1"]),
            (
                String::new(),
                "join: missing operand after 'j1'\nTry 'join --help' for more information.\n"
                    .into(),
                1
            )
        );
    }
}
