//! `sort [OPTION]... [FILE]...`, GNU coreutils 9.1 in the C locale: keys (`-k POS1[,POS2]`
//! with `.CHAR` and per-key flags), field separators (`-t`, blank runs by default), the
//! orderings `-n -g -h -M -V -R -d -f -i -b -r`, `-u`, `-s`, `-m`, `-c`/`-C`, `-z` and
//! `-o FILE` (one [`Op::WriteFile`] after everything is read, so `sort -o f f` works).
//!
//! The algorithm is GNU's: each key's text is cut with `begfield`/`limfield`, keys are
//! compared in order, and unless `-s` or `-u` equal keys fall back to a byte comparison of
//! whole lines (reversed by a global `-r`). Options without `-k` form one key over the whole
//! line, and a key without flags inherits the global ones. `-R` orders by a hash salted with
//! the session's clock, so equal keys still group together as in GNU.
//!
//! All input lines are held in memory (each file up to the session's read cap).

mod compare;
mod keys;
#[allow(clippy::wildcard_imports, unused_imports)]
use compare::*;
#[allow(clippy::wildcard_imports, unused_imports)]
use keys::*;

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::parse_args;
use crate::support::input::{names_stdin, open_input, operands_or_stdin};
use crate::support::size::unit_power;
use crate::{Ctx, Effect, FsError, Op, Outcome, quote, quote_if_needed, quote_locale};

/// GNU sort's failure status (`SORT_FAILURE`).
const FAIL: i32 = 2;

/// Write sorted concatenation of all FILE(s) to standard output.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "sort [OPTION]... [FILE]...")]
#[allow(clippy::struct_excessive_bools)] // one bool per GNU flag
pub struct SortArgs {
    /// ignore leading blanks
    #[arg(short = 'b', long = "ignore-leading-blanks")]
    ignore_leading_blanks: bool,
    /// consider only blanks and alphanumeric characters
    #[arg(short = 'd', long = "dictionary-order")]
    dictionary_order: bool,
    /// fold lower case to upper case characters
    #[arg(short = 'f', long = "ignore-case")]
    ignore_case: bool,
    /// compare according to general numerical value
    #[arg(short = 'g', long = "general-numeric-sort")]
    general_numeric: bool,
    /// consider only printable characters
    #[arg(short = 'i', long = "ignore-nonprinting")]
    ignore_nonprinting: bool,
    /// compare (unknown) < 'JAN' < ... < 'DEC'
    #[arg(short = 'M', long = "month-sort")]
    month: bool,
    /// compare human readable numbers (e.g., 2K 1G)
    #[arg(short = 'h', long = "human-numeric-sort")]
    human: bool,
    /// compare according to string numerical value
    #[arg(short = 'n', long = "numeric-sort")]
    numeric: bool,
    /// shuffle, but group identical keys
    #[arg(short = 'R', long = "random-sort")]
    random: bool,
    /// reverse the result of comparisons
    #[arg(short = 'r', long = "reverse")]
    reverse: bool,
    /// sort according to WORD: general-numeric -g, human-numeric -h, month -M, numeric -n,
    /// random -R, version -V
    #[arg(long = "sort", value_name = "WORD", action = clap::ArgAction::Append)]
    sort: Vec<String>,
    /// natural sort of (version) numbers within text
    #[arg(short = 'V', long = "version-sort")]
    version: bool,
    /// check for sorted input; do not sort
    #[arg(short = 'c')]
    check_diagnose: bool,
    /// like -c (WHEN: 'diagnose-first'), or -C ('quiet', 'silent')
    #[arg(
        long = "check",
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "diagnose-first",
        action = clap::ArgAction::Append
    )]
    check: Vec<String>,
    /// like -c, but do not report first bad line
    #[arg(short = 'C')]
    check_quiet: bool,
    /// sort via a key; KEYDEF gives location and type
    #[arg(short = 'k', long = "key", value_name = "KEYDEF", action = clap::ArgAction::Append)]
    keys: Vec<OsString>,
    /// merge already sorted files; do not sort
    #[arg(short = 'm', long = "merge")]
    merge: bool,
    /// write result to FILE instead of standard output
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<OsString>,
    /// stabilize sort by disabling last-resort comparison
    #[arg(short = 's', long = "stable")]
    stable: bool,
    /// use SIZE for main memory buffer (ignored)
    #[arg(short = 'S', long = "buffer-size", value_name = "SIZE")]
    buffer_size: Option<String>,
    /// use SEP instead of non-blank to blank transition
    #[arg(short = 't', long = "field-separator", value_name = "SEP", action = clap::ArgAction::Append)]
    separator: Vec<OsString>,
    /// use DIR for temporaries (ignored)
    #[arg(short = 'T', long = "temporary-directory", value_name = "DIR", action = clap::ArgAction::Append)]
    temp: Vec<OsString>,
    /// change the number of sorts run concurrently to N (ignored)
    #[arg(long = "parallel", value_name = "N")]
    parallel: Option<String>,
    /// with -c, check for strict ordering; without -c, output only the first of an equal run
    #[arg(short = 'u', long = "unique")]
    unique: bool,
    /// line delimiter is NUL, not newline
    #[arg(short = 'z', long = "zero-terminated")]
    zero: bool,
    files: Vec<OsString>,
}

/// Splits input into lines (a last line without its delimiter still counts).
fn split_lines(data: &[u8], eol: u8) -> Vec<&[u8]> {
    if data.is_empty() {
        return Vec::new();
    }
    let body = data.strip_suffix(&[eol]).unwrap_or(data);
    body.split(|&c| c == eol).collect()
}

/// Reads every input, or GNU's message for the first that fails.
fn read_all(ctx: &Ctx, files: &[OsString]) -> Result<Vec<Vec<u8>>, Stop> {
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        if f != "-" && !names_stdin(ctx, f) {
            // A file is held whole: through the session's read cap.
            match ctx.fs.read(&ctx.resolve(f)) {
                Ok(data) => out.push(data),
                Err(e) => {
                    // What `access(R_OK)` refuses is "cannot read", what open(2) refuses
                    // once access allowed it (a socket, a fifo) "open failed", and what
                    // read(2) says "read failed".
                    let what = match e {
                        FsError::TooLarge
                        | FsError::IsADirectory
                        | FsError::Io
                        | FsError::TimedOut => "read failed",
                        FsError::NoDevice | FsError::WouldBlock => "open failed",
                        _ => "cannot read",
                    };
                    return Err(Stop::Fail(format!("{what}: {}: {e}", quote_if_needed(f))));
                }
            }
            continue;
        }
        let mut data = Vec::new();
        let r = open_input(ctx, f)
            .map_err(|e| ("cannot read", e))
            .and_then(|mut r| {
                r.read_to_end(&mut data)
                    .map_err(|e| ("read failed", FsError::from_io(&e)))
            });
        if let Err((what, e)) = r {
            return Err(Stop::Fail(format!("{what}: {}: {e}", quote_if_needed(f))));
        }
        out.push(data);
    }
    Ok(out)
}

/// The global options as one key, and the separator, or the first option error.
fn settings(a: &SortArgs) -> Result<(Key, Option<u8>), Stop> {
    let mut g = Key::default();
    let flags = [
        (a.ignore_leading_blanks, b'b'),
        (a.dictionary_order, b'd'),
        (a.ignore_case, b'f'),
        (a.general_numeric, b'g'),
        (a.human, b'h'),
        (a.ignore_nonprinting, b'i'),
        (a.month, b'M'),
        (a.numeric, b'n'),
        (a.random, b'R'),
        (a.reverse, b'r'),
        (a.version, b'V'),
    ];
    for (on, c) in flags {
        if on {
            set_ordering(&[c], &mut g, Blanks::Both);
        }
    }
    for w in &a.sort {
        let c = argmatch(
            "--sort",
            w,
            &[
                ("general-numeric", b'g'),
                ("human-numeric", b'h'),
                ("month", b'M'),
                ("numeric", b'n'),
                ("random", b'R'),
                ("version", b'V'),
            ],
        )?;
        set_ordering(&[c], &mut g, Blanks::Both);
    }
    let mut tab: Option<u8> = None;
    for t in &a.separator {
        let b = t.as_bytes();
        let new = match b {
            [] => return Err(Stop::Fail("empty tab".into())),
            [c] => *c,
            b"\\0" => 0,
            _ => {
                return Err(Stop::Fail(format!(
                    "multi-character tab {}",
                    quote_locale(t)
                )));
            }
        };
        if tab.is_some_and(|old| old != new) {
            return Err(Stop::Fail("incompatible tabs".into()));
        }
        tab = Some(new);
    }
    Ok((g, tab))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<SortArgs>(args)?;
    let (gkey, tab) = settings(&a)?;
    let mut keys = Vec::new();
    for spec in &a.keys {
        match parse_key(spec.as_bytes()) {
            Ok(k) => keys.push(k),
            Err(msg) => return Err(Stop::Fail(msg)),
        }
    }
    for k in &mut keys {
        if k.is_default() && !k.reverse {
            k.inherit(&gkey);
        }
    }
    if keys.is_empty() && !gkey.is_default() {
        keys.push(gkey.clone());
    }
    if let Some(k) = keys.iter().find(|k| k.incompatible()) {
        return Err(Stop::Fail(format!(
            "options '-{}' are incompatible",
            k.opts()
        )));
    }
    // -c / -C / --check=WHEN
    let mut check: Option<bool> = if a.check_quiet {
        Some(true)
    } else {
        a.check_diagnose.then_some(false)
    };
    for w in &a.check {
        // argmatch lists synonyms on one line.
        let quiet = argmatch(
            "--check",
            w,
            &[("quiet", true), ("silent", true), ("diagnose-first", false)],
        )?;
        check = Some(quiet);
    }
    let files = operands_or_stdin(a.files.clone());
    let cmp = Cmp {
        keys,
        tab,
        reverse: gkey.reverse,
        stable: a.stable,
        unique: a.unique,
        salt: crate::support::datetime::to_epoch(ctx.now).1.into(),
    };
    let eol = if a.zero { 0 } else { b'\n' };
    if let Some(quiet) = check {
        let letter = if quiet { 'C' } else { 'c' };
        if let Some(extra) = files.get(1) {
            return Err(Stop::Fail(format!(
                "extra operand {} not allowed with -{letter}",
                quote(extra)
            )));
        }
        if a.output.is_some() {
            return Err(Stop::Fail(format!("options '-{letter}o' are incompatible")));
        }
        return check_sorted(ctx, &files, &cmp, eol, quiet);
    }
    let inputs = read_all(ctx, &files)?;
    let lists: Vec<Vec<&[u8]>> = inputs.iter().map(|d| split_lines(d, eol)).collect();
    let sorted = if a.merge {
        merge(lists, &cmp)
    } else {
        let mut all: Vec<&[u8]> = lists.into_iter().flatten().collect();
        all.sort_by(|x, y| cmp.compare(x, y));
        all
    };
    let mut data = Vec::new();
    let mut last: Option<&[u8]> = None;
    for line in sorted {
        if a.unique {
            if last.is_some_and(|l| cmp.compare(l, line) == Ordering::Equal) {
                continue;
            }
            last = Some(line);
        }
        data.extend_from_slice(line);
        data.push(eol);
    }
    let mut o = Outcome::ok();
    match &a.output {
        Some(out) => {
            let mut e = Effect::new(
                Op::WriteFile {
                    path: ctx.resolve(out),
                    data,
                    append: false,
                },
                format!("{}: open failed: {}", ctx.name, quote_if_needed(out)),
            );
            e.fail_status = FAIL;
            o.effect(e);
        }
        None => {
            o.out(data);
        }
    }
    Ok(o)
}

/// `-m`: repeatedly takes the smallest head; ties go to the earlier file, as GNU's merge.
fn merge<'a>(lists: Vec<Vec<&'a [u8]>>, cmp: &Cmp) -> Vec<&'a [u8]> {
    let total = lists.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total);
    let mut iters: Vec<std::iter::Peekable<std::vec::IntoIter<&[u8]>>> = lists
        .into_iter()
        .map(|l| l.into_iter().peekable())
        .collect();
    loop {
        let mut best: Option<(usize, &[u8])> = None;
        for (i, it) in iters.iter_mut().enumerate() {
            if let Some(&line) = it.peek()
                && best.is_none_or(|(_, b)| cmp.compare(line, b) == Ordering::Less)
            {
                best = Some((i, line));
            }
        }
        let Some((i, line)) = best else { break };
        if let Some(it) = iters.get_mut(i) {
            it.next();
        }
        out.push(line);
    }
    out
}

/// `-c`/`-C`: the first line out of order (or equal to the previous one with `-u`).
fn check_sorted(
    ctx: &Ctx,
    files: &[OsString],
    cmp: &Cmp,
    eol: u8,
    quiet: bool,
) -> Result<Outcome, Stop> {
    let Some(file) = files.first() else {
        return Ok(Outcome::ok());
    };
    let inputs = read_all(ctx, std::slice::from_ref(file))?;
    let data = inputs.first().map_or(&[][..], Vec::as_slice);
    let lines = split_lines(data, eol);
    for (n, pair) in lines.windows(2).enumerate() {
        let [prev, line] = pair else { continue };
        let d = cmp.compare(prev, line);
        if d == Ordering::Greater || (cmp.unique && d == Ordering::Equal) {
            let mut o = Outcome::status(1);
            if !quiet {
                let mut msg = format!(
                    "{}: {}:{}: disorder: ",
                    ctx.name,
                    file.to_string_lossy(),
                    n + 2
                )
                .into_bytes();
                msg.extend_from_slice(line);
                msg.push(b'\n');
                o.err(msg);
            }
            return Ok(o);
        }
    }
    Ok(Outcome::ok())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::PathBuf;

    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, ops, text};
    use crate::{FsError, Op};

    const UNSORTED: &[u8] = b"b\na\nc\na\nB\n10\n9\n100\n-1\n2.5\n1e3\n\nb\n";

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .file("/s/u", UNSORTED)
                .file("/s/csv", b"name,age\nalice,30\nbob,25\ncarol,35\ndave,25\n")
                .file("/s/sizes", b"1K\n2M\n512\n1G\n3k\n")
                .file("/s/vers", b"v1.10\nv1.2\nv1.9\nv2.0\nv1.2.3\n")
                .file("/s/ws", b"b  2\na 10\n  c 1\n")
                .file("/s/months", b"mar x\nJan y\nfoo\nDEC z\n")
                .file("/s/g", b"1e3\n-inf\nnan\nabc\n0x10\n.5\n")
                .file("/s/s1", b"a\nc\ne\n")
                .file("/s/s2", b"b\nc\nd\n"),
        )
    }

    fn sort(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Sort, args))
    }

    fn out(s: &str) -> (String, String, i32) {
        (s.into(), String::new(), 0)
    }

    #[test]
    fn orderings_as_gnu() {
        // Every expected output copied from GNU sort 9.1 with LC_ALL=C on the same bytes.
        let w = world();
        assert_eq!(
            sort(&w, &["u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\nB\na\na\nb\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-n", "u"]),
            out("-1\n\nB\na\na\nb\nb\nc\n1e3\n2.5\n9\n10\n100\n")
        );
        assert_eq!(
            sort(&w, &["-rn", "u"]),
            out("100\n10\n9\n2.5\n1e3\nc\nb\nb\na\na\nB\n\n-1\n")
        );
        assert_eq!(
            sort(&w, &["-u", "u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\nB\na\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-f", "u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\na\na\nB\nb\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-fu", "u"]),
            out("\n-1\n10\n100\n1e3\n2.5\n9\na\nb\nc\n")
        );
        assert_eq!(
            sort(&w, &["-g", "u"]),
            out("\nB\na\na\nb\nb\nc\n-1\n2.5\n9\n10\n100\n1e3\n")
        );
        assert_eq!(
            sort(&w, &["-g", "g"]),
            out("abc\nnan\n-inf\n.5\n0x10\n1e3\n")
        );
        assert_eq!(sort(&w, &["-h", "sizes"]), out("512\n1K\n3k\n2M\n1G\n"));
        assert_eq!(
            sort(&w, &["-V", "vers"]),
            out("v1.2\nv1.2.3\nv1.9\nv1.10\nv2.0\n")
        );
        assert_eq!(
            sort(&w, &["-M", "months"]),
            out("foo\nJan y\nmar x\nDEC z\n")
        );
        assert_eq!(sort(&w, &["-d", "ws"]), out("  c 1\na 10\nb  2\n"));
        assert_eq!(sort(&w, &["-b", "ws"]), out("a 10\nb  2\n  c 1\n"));
    }

    #[test]
    fn keys_as_gnu() {
        let w = world();
        assert_eq!(
            sort(&w, &["-t", ",", "-k2n", "csv"]),
            out("name,age\nbob,25\ndave,25\nalice,30\ncarol,35\n")
        );
        assert_eq!(
            sort(&w, &["-t", ",", "-k2,2n", "-k1,1r", "csv"]),
            out("name,age\ndave,25\nbob,25\nalice,30\ncarol,35\n")
        );
        assert_eq!(
            sort(&w, &["-t,", "-k2,2nr", "-s", "csv"]),
            out("carol,35\nalice,30\nbob,25\ndave,25\nname,age\n")
        );
        assert_eq!(
            sort(&w, &["-t,", "-k1.2,1.2", "csv"]),
            out("carol,35\ndave,25\nname,age\nalice,30\nbob,25\n")
        );
        assert_eq!(sort(&w, &["-k2n", "ws"]), out("  c 1\nb  2\na 10\n"));
        assert_eq!(sort(&w, &["-k2", "ws"]), out("b  2\n  c 1\na 10\n"));
        assert_eq!(sort(&w, &["-k2b", "ws"]), out("  c 1\na 10\nb  2\n"));
        assert_eq!(
            sort(&w, &["-t,", "-k2,2", "-u", "csv"]),
            out("bob,25\nalice,30\ncarol,35\nname,age\n")
        );
    }

    #[test]
    fn merge_check_zero_output() {
        let w = world().stdin(b"z\0a\0");
        assert_eq!(sort(&w, &["-m", "s1", "s2"]), out("a\nb\nc\nc\nd\ne\n"));
        assert_eq!(sort(&w, &["-mu", "s1", "s2"]), out("a\nb\nc\nd\ne\n"));
        assert_eq!(sort(&w, &["-z"]).0, "a\0z\0");
        assert_eq!(
            sort(&w, &["-c", "u"]),
            (String::new(), "sort: u:2: disorder: a\n".into(), 1)
        );
        assert_eq!(sort(&w, &["-C", "u"]), (String::new(), String::new(), 1));
        assert_eq!(sort(&w, &["-c", "s1"]), out(""));
        let o = w.run(crate::CommandName::Sort, &["-o", "s1", "s2", "s1"]);
        assert_eq!(text(&o), out(""));
        assert_eq!(
            ops(&o),
            [Op::WriteFile {
                path: PathBuf::from("/s/s1"),
                data: b"a\nb\nc\nc\nd\ne\n".to_vec(),
                append: false
            }]
        );
        let e = o.effects().next().unwrap();
        assert_eq!(e.on_err.as_deref(), Some("sort: open failed: s1"));
        assert_eq!(e.fail_status, 2);
    }

    #[test]
    fn errors_as_gnu() {
        let w = world().stdin(b"1\n2\n2\n");
        let cases: &[(&[&str], &str)] = &[
            (
                &["nope", "u"],
                "sort: cannot read: nope: No such file or directory\n",
            ),
            (&["u", "d"], "sort: read failed: d: Is a directory\n"),
            (
                &["-k", "x"],
                "sort: invalid number at field start: invalid count at start of 'x'\n",
            ),
            (
                &["-k", "0"],
                "sort: field number is zero: invalid field specification '0'\n",
            ),
            (
                &["-k", "1.0"],
                "sort: character offset is zero: invalid field specification '1.0'\n",
            ),
            (
                &["-k", "1,x"],
                "sort: invalid number after ',': invalid count at start of 'x'\n",
            ),
            (
                &["-k", "1.1x"],
                "sort: stray character in field spec: invalid field specification '1.1x'\n",
            ),
            (
                &["-k", "1,0"],
                "sort: field number is zero: invalid field specification '1,0'\n",
            ),
            (
                &["-k", ""],
                "sort: invalid number at field start: invalid count at start of ''\n",
            ),
            (&["-t", "ab"], "sort: multi-character tab 'ab'\n"),
            (&["-t", ""], "sort: empty tab\n"),
            (&["-t", "a", "-t", "b"], "sort: incompatible tabs\n"),
            (
                &["-c", "u", "u"],
                "sort: extra operand 'u' not allowed with -c\n",
            ),
            (&["-co", "x", "u"], "sort: options '-co' are incompatible\n"),
            (&["-ng"], "sort: options '-gn' are incompatible\n"),
            (&["-k1n,1g"], "sort: options '-gn' are incompatible\n"),
            (&["-dn"], "sort: options '-dn' are incompatible\n"),
            (&["-Rn"], "sort: options '-nR' are incompatible\n"),
            (&["-Mn"], "sort: options '-Mn' are incompatible\n"),
            (
                &["-x"],
                "sort: invalid option -- 'x'\nTry 'sort --help' for more information.\n",
            ),
        ];
        for (args, err) in cases {
            assert_eq!(
                sort(&w, args),
                (String::new(), (*err).to_string(), 2),
                "{args:?}"
            );
        }
        assert_eq!(
            sort(&w, &["-cu"]),
            (String::new(), "sort: -:3: disorder: 2\n".into(), 1)
        );
        let w = World::new(
            MemFs::rooted("/s")
                .file("/s/big", b"x\n")
                .fail("/s/big", FsError::TooLarge),
        );
        assert_eq!(
            sort(&w, &["big"]).1,
            "sort: read failed: big: File too large\n"
        );
    }
}
