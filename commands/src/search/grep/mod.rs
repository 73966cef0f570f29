//! `grep [OPTION]... PATTERNS [FILE]...`, GNU grep 3.8 in the C locale.
//!
//! Patterns (BRE by default, `-E`, `-F`, `-P`) are translated once into one `regex` crate
//! automaton (see [`crate::support::regex_gnu`]) compiled without Unicode, so bytes match bytes as in
//! the C locale; `-F` patterns, and `-G`/`-E` ones that are all plain strings, go to a
//! multi-pattern string automaton instead (see `fixed`), linear whatever their number and
//! length. The read and line loops poll the line's deadline (`Ctx::expired`). Files are read in large chunks and searched as a multi-line buffer: the
//! automaton runs over many lines at once and line boundaries are only looked for around a
//! match (memchr), which is what keeps `grep -r` on a large tree within reach of GNU. A match
//! that crosses a newline (possible with `-P` classes) is re-checked on its own line, since a
//! GNU match never spans lines.
//!
//! Deliberate differences, each for a stated reason:
//! - back-references (`\1`) cannot be expressed by a finite automaton: refused in one line,
//!   status 2, rather than matched wrongly (`-G`, `-E`);
//! - `-P` is Perl syntax: on the `regex` crate's automaton when the pattern has nothing it
//!   cannot do, else on `fancy-regex` (back-references, look-around, atomic groups), which
//!   runs on the bytes of each line (its ASCII bytes mode: `.` is any byte, classes are
//!   ASCII, as PCRE in the C locale); its error messages are not PCRE2's;
//! - `--color=always`/`auto` print no colour: the output is never a terminal the agent sees;
//! - GNU 3.8 reports a matching binary file on stderr (`grep: X: binary file matches`), and so
//!   does this one.

mod fixed;
mod opts;
mod pattern;
mod search;
use fixed::{Fixed, is_plain};
pub use opts::GrepArgs;
#[allow(clippy::wildcard_imports, unused_imports)]
use opts::*;
#[allow(clippy::wildcard_imports, unused_imports)]
use pattern::*;
#[allow(clippy::wildcard_imports, unused_imports)]
use search::*;

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use memchr::{memchr, memchr_iter, memrchr};
use regex::bytes::{Regex, RegexBuilder};

use crate::Stop;
use crate::support::argmatch::argmatch;
use crate::support::args::{help_of, parse_args};
use crate::support::error::try_help;
use crate::support::fnmatch::fnmatch;
use crate::support::regex_gnu::{self, Regex as GnuRegex, Syntax};
use crate::{Ctx, FileKind, FsError, Outcome};

const USAGE: &str = "Usage: grep [OPTION]... PATTERNS [FILE]...\n";
/// How much is read at once; also the longest stretch held besides one line.
const CHUNK: usize = 256 * 1024;
const STDIN_NAME: &str = "(standard input)";

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let args = expand_context_digits(args);
    let mut a = parse_args::<GrepArgs>(&args).map_err(with_usage_line)?;
    let matchers = [a.extended, a.fixed, a.basic, a.perl]
        .iter()
        .filter(|&&b| b)
        .count();
    if matchers > 1 {
        return Err(Stop::Fail("conflicting matchers specified".into()));
    }
    let binary = match a.binary_files.as_deref() {
        None | Some("binary") => Binary::Binary,
        Some("text") => Binary::Text,
        Some("without-match") => Binary::WithoutMatch,
        Some(_) => return Err(Stop::Fail("unknown binary-files type".into())),
    };
    let binary = if a.text {
        Binary::Text
    } else if a.no_binary {
        Binary::WithoutMatch
    } else {
        binary
    };
    let dirs = match a.directories.as_deref() {
        None => "read",
        Some(d) => argmatch(
            "--directories",
            d,
            &[("read", "read"), ("recurse", "recurse"), ("skip", "skip")],
        )
        .map_err(with_usage_line)?,
    };
    let devices_skip = match a.devices.as_deref() {
        None | Some("read") => false,
        Some("skip") => true,
        Some(_) => return Err(Stop::Fail("unknown devices method".into())),
    };
    if let Some(c) = a.color.as_deref()
        && !matches!(
            c,
            "always" | "yes" | "force" | "never" | "no" | "none" | "auto" | "tty" | "if-tty"
        )
    {
        // GNU shows its help for an unknown WHEN (it compares names, no argmatch).
        let mut o = Outcome::ok();
        o.out(help_of::<GrepArgs>());
        return Ok(o);
    }
    let context_num = |v: &Option<OsString>| -> Result<Option<usize>, Stop> {
        match v {
            None => Ok(None),
            Some(v) => parse_num(v)
                .map(|n| Some(usize::try_from(n).unwrap_or(usize::MAX)))
                .ok_or_else(|| {
                    Stop::Fail(format!(
                        "{}: invalid context length argument",
                        String::from_utf8_lossy(v.as_bytes())
                    ))
                }),
        }
    };
    let (before, after, both) = match (
        context_num(&a.before),
        context_num(&a.after),
        context_num(&a.context),
    ) {
        (Ok(b), Ok(af), Ok(c)) => (b, af, c),
        (Err(stop), _, _) | (_, Err(stop), _) | (_, _, Err(stop)) => return Err(stop),
    };
    let max = match &a.max_count {
        None => u64::MAX,
        Some(v) => match parse_num(v) {
            Some(n) => n,
            None => return Err(Stop::Fail("invalid max count".into())),
        },
    };
    let mut o = Outcome::ok();
    let Some(pats) = patterns(&mut a, ctx, &mut o) else {
        if o.steps.is_empty() {
            // No pattern: GNU's usage(EXIT_TROUBLE), the Usage and Try lines alone.
            let mut u = Outcome::status(2);
            u.err(format!("{USAGE}{}", try_help("grep")));
            return Ok(u);
        }
        return Ok(o.with_status(2));
    };
    let Ok((re, pre)) = build_regex(&a, &pats, &mut o) else {
        return Ok(o.with_status(2));
    };
    if max == 0 {
        return Ok(o.with_status(1));
    }
    let mut exclude: Vec<Vec<u8>> = a.exclude.iter().map(|g| g.as_bytes().to_vec()).collect();
    for f in &a.exclude_from {
        match ctx.fs.read(&ctx.resolve(f)) {
            Ok(d) => exclude.extend(
                d.split(|&c| c == b'\n')
                    .filter(|l| !l.is_empty())
                    .map(<[u8]>::to_vec),
            ),
            Err(e) => {
                o.err(format!(
                    "{}: {}: {}\n",
                    ctx.name,
                    String::from_utf8_lossy(f.as_bytes()),
                    e.strerror()
                ));
                return Ok(o.with_status(2));
            }
        }
    }
    let recursive = a.recursive || a.dereference_recursive || dirs == "recurse";
    let mode = if a.quiet {
        Mode::Quiet
    } else if a.files_with_matches {
        Mode::FilesWith
    } else if a.files_without_match {
        Mode::FilesWithout
    } else if a.count {
        Mode::Count
    } else {
        Mode::Lines
    };
    let no_operand = a.operands.is_empty();
    let operands = if no_operand {
        vec![OsString::from(if recursive { "." } else { "-" })]
    } else {
        std::mem::take(&mut a.operands)
    };
    let opts = Opts {
        invert: a.invert,
        mode,
        max,
        before: before.or(both).unwrap_or(0),
        after: after.or(both).unwrap_or(0),
        line_number: a.line_number,
        byte_offset: a.byte_offset,
        only_matching: a.only_matching,
        null: a.null,
        eol: if a.null_data { 0 } else { b'\n' },
        initial_tab: a.initial_tab,
        binary,
        separator: if a.no_group_separator {
            None
        } else {
            Some(
                a.group_separator
                    .as_ref()
                    .map_or_else(|| b"--".to_vec(), |s| s.as_bytes().to_vec()),
            )
        },
        no_messages: a.no_messages,
        recursive,
        deref: a.dereference_recursive,
        skip_dirs: dirs == "skip",
        skip_devices: devices_skip,
        include: a.include.iter().map(|g| g.as_bytes().to_vec()).collect(),
        exclude,
        exclude_dir: a
            .exclude_dir
            .iter()
            .map(|g| g.as_bytes().to_vec())
            .collect(),
        label: a
            .label
            .as_ref()
            .map_or_else(|| STDIN_NAME.as_bytes().to_vec(), |l| l.as_bytes().to_vec()),
    };
    let with_name = if a.with_filename {
        true
    } else if a.no_filename {
        false
    } else if operands.len() > 1 {
        true
    } else {
        // `-r` shows names when it actually walks a directory.
        recursive
            && operands.first().is_some_and(|op| {
                op != "-"
                    && ctx
                        .fs
                        .stat(&ctx.resolve(op), true)
                        .is_ok_and(|m| m.is_dir())
            })
    };
    let mut g = Grep {
        ctx,
        o: opts,
        re,
        num_width: 0,
        pre,
        with_name,
        out: Vec::new(),
        outcome: o,
        error: false,
        any_selected: false,
        any_output: false,
        quit: false,
        done_reading: false,
        buf: Vec::new(),
    };
    for op in &operands {
        if g.quit {
            break;
        }
        if no_operand && recursive {
            // Names without the `./` prefix.
            let root = ctx.resolve(".");
            g.walk(root, OsStr::new(""));
        } else {
            g.operand(op);
        }
    }
    g.flush();
    // `-q` with a match wins over errors; otherwise an error wins over a match.
    let status = if g.quit || (g.any_selected && !g.error) {
        0
    } else if g.error {
        2
    } else {
        1
    };
    Ok(g.outcome.with_status(status))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file("/s/ctx.txt", b"a1\nb\nc\na2\nd\ne\nf\ng\na3\nh\n")
                .file("/s/a.txt", b"foo\nbar\n")
                .file("/s/bin", b"x\0foo\n")
                .file("/s/d/e/f.txt", b"foo\n")
                .symlink("/s/l", "d"),
        )
    }

    fn grep(w: &World, args: &[&str]) -> (String, String, i32) {
        text(&w.run(crate::CommandName::Grep, args))
    }

    #[test]
    fn context_and_separators() {
        // `LC_ALL=C grep -C1 a ctx.txt a.txt`, GNU grep 3.8, same files.
        assert_eq!(
            grep(&world(), &["-C1", "a", "ctx.txt", "a.txt"]).0,
            "ctx.txt:a1\nctx.txt-b\nctx.txt-c\nctx.txt:a2\nctx.txt-d\n--\nctx.txt-g\nctx.txt:a3\nctx.txt-h\n--\na.txt-foo\na.txt:bar\n"
        );
        // `grep -n -m1 -A3 a ctx.txt`: trailing context goes on past the maximum.
        assert_eq!(
            grep(&world(), &["-n", "-m1", "-A3", "a", "ctx.txt"]).0,
            "1:a1\n2-b\n3-c\n4-a2\n"
        );
        // `grep -o -C1 a ctx.txt`: no context lines, but the separators stay.
        assert_eq!(
            grep(&world(), &["-o", "-C1", "a", "ctx.txt"]).0,
            "a\na\n--\na\n"
        );
        // `grep -n -b -H -A1 d ctx.txt`.
        assert_eq!(
            grep(&world(), &["-n", "-b", "-H", "-A1", "d", "ctx.txt"]).0,
            "ctx.txt:5:10:d\nctx.txt-6-12-e\n"
        );
    }

    #[test]
    fn binary_recursive_and_statuses() {
        let w = world();
        // GNU grep 3.8 reports a matching binary file on stderr.
        assert_eq!(
            grep(&w, &["foo", "bin"]),
            (String::new(), "grep: bin: binary file matches\n".into(), 0)
        );
        assert_eq!(
            grep(&w, &["-c", "foo", "bin", "a.txt"]).0,
            "bin:1\na.txt:1\n"
        );
        // `grep -r foo` (no operand): names without `./`; links under -r are skipped.
        let (out, err, st) = grep(&w, &["-r", "foo"]);
        assert_eq!(out, "a.txt:foo\nd/e/f.txt:foo\n");
        assert_eq!(err, "grep: bin: binary file matches\n");
        assert_eq!(st, 0);
        assert_eq!(grep(&w, &["-R", "foo", "l"]).0, "l/e/f.txt:foo\n");
        assert_eq!(
            grep(&w, &["foo", "nope", "d"]),
            (
                String::new(),
                "grep: nope: No such file or directory\ngrep: d: Is a directory\n".into(),
                2
            )
        );
        assert_eq!(grep(&w, &["-q", "foo", "nope", "a.txt"]).2, 0);
        assert_eq!(
            grep(&w, &["-L", "zzz", "a.txt"]),
            ("a.txt\n".into(), String::new(), 1)
        );
        assert_eq!(
            grep(&w, &["-Y", "x"]).1,
            "grep: invalid option -- 'Y'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n"
        );
    }

    #[test]
    fn perl_null_data_and_tab() {
        // All from GNU grep 3.8, LC_ALL=C.
        let w = World::new(
            MemFs::rooted("/s")
                .file("/s/gp", b"abab\nab\nfoo bar\nfoo1\nx(y\n")
                .file("/s/z1", b"a\nb\0c\0ab")
                .file("/s/g1", b"ax\nb\nxx\n"),
        );
        assert_eq!(grep(&w, &["-P", "(ab)\\1", "gp"]).0, "abab\n");
        assert_eq!(grep(&w, &["-Po", "(?<=foo)\\d", "gp"]).0, "1\n");
        assert_eq!(grep(&w, &["-Pw", "(ab)\\1", "gp"]).0, "abab\n");
        assert_eq!(grep(&w, &["-P", "a\\Kb", "-o", "gp"]).0, "b\nb\nb\n");
        assert_eq!(grep(&w, &["-vP", "(.)\\1", "gp"]).0, "abab\nab\nx(y\n");
        assert_eq!(
            grep(&w, &["-P", "-e", "a", "-e", "b", "gp"]),
            (
                String::new(),
                "grep: the -P option only supports a single pattern\n".into(),
                2
            )
        );
        assert_eq!(
            grep(&w, &["-P", "(", "gp"]).1,
            "grep: missing closing parenthesis\n"
        );
        assert_eq!(grep(&w, &["-z", "a", "z1"]).0, "a\nb\0ab\0");
        assert_eq!(grep(&w, &["-zc", "^b", "z1"]).0, "0\n");
        assert_eq!(grep(&w, &["-zn", "c", "z1"]).0, "2:c\0");
        assert_eq!(grep(&w, &["-zP", "a\\nb", "z1"]).0, "a\nb\0");
        // `-T`: numbers as wide as the file's size has digits (8 bytes, and 1 more for `-n`;
        // `p.txt`, 31 bytes: 2).
        assert_eq!(grep(&w, &["-Tn", "x", "g1"]).0, "1:\tax\n3:\txx\n");
        assert_eq!(grep(&w, &["-Tn", "foo1", "gp"]).0, " 4:\tfoo1\n");
        assert_eq!(grep(&w, &["-Tb", "x", "g1"]).0, "0:\tax\n5:\txx\n");
        assert_eq!(grep(&w, &["-T", "x", "g1"]).0, "ax\nxx\n");
    }

    #[test]
    fn lines_across_chunks() {
        // 200,000 numbered lines (about 1.3 MB): several read chunks.
        let mut data = Vec::new();
        for i in 1..=200_000 {
            data.extend_from_slice(format!("l{i}\n").as_bytes());
        }
        let w = World::new(MemFs::rooted("/s").file("/s/big", &data));
        assert_eq!(grep(&w, &["-c", "", "big"]).0, "200000\n");
        assert_eq!(
            grep(&w, &["-n", "-B2", "-A1", "^l150000$", "big"]).0,
            "149998-l149998\n149999-l149999\n150000:l150000\n150001-l150001\n"
        );
        assert_eq!(grep(&w, &["-vc", "0$", "big"]).0, "180000\n");
    }

    #[test]
    fn word_and_line_matching() {
        let w = World::empty().stdin(b"foo bar\nfoobar\nbar_foo\n@x y\n");
        // `printf 'foo bar\nfoobar\nbar_foo\n@x y\n' | LC_ALL=C grep -w ...`, GNU grep 3.8.
        assert_eq!(grep(&w, &["-w", "foo"]).0, "foo bar\n");
        assert_eq!(grep(&w, &["-w", "@x"]).0, "@x y\n");
        assert_eq!(grep(&w, &["-x", "foobar"]).0, "foobar\n");
        assert_eq!(grep(&w, &["-ic", "FOO"]).0, "3\n");
    }

    fn fixed_world() -> World {
        World::new(
            MemFs::rooted("/s")
                .file(
                    "/s/in.txt",
                    b"foobar foo\nxfoo foox foo\naaa\nAb ab AB\nfoo_bar\nthe cat sat\n\nfoo\n",
                )
                .file("/s/pats", b"foo\nfoox\nab\n"),
        )
    }

    #[test]
    fn fixed_strings_on_the_automaton() {
        // Each expectation is `LC_ALL=C grep ARGS in.txt` by GNU grep 3.8, same files.
        let w = fixed_world();
        let cases: &[(&[&str], &str, i32)] = &[
            (
                &["-F", "foo"],
                "foobar foo\nxfoo foox foo\nfoo_bar\nfoo\n",
                0,
            ),
            (&["-F", "-o", "foo"], &"foo\n".repeat(7), 0),
            (&["-F", "-w", "foo"], "foobar foo\nxfoo foox foo\nfoo\n", 0),
            (&["-F", "-ow", "foo"], "foo\nfoo\nfoo\n", 0),
            (
                &["-F", "-bow", "-e", "foo", "-e", "foox"],
                "7:foo\n16:foox\n21:foo\n59:foo\n",
                0,
            ),
            (
                &["-F", "-o", "-e", "a", "-e", "aa"],
                "a\naa\na\na\na\na\na\n",
                0,
            ),
            (&["-F", "-io", "ab"], "Ab\nab\nAB\n", 0),
            (&["-F", "-ic", "ab"], "1\n", 0),
            (&["-F", "-x", "foo"], "foo\n", 0),
            (
                &["-F", "-xv", "foo"],
                "foobar foo\nxfoo foox foo\naaa\nAb ab AB\nfoo_bar\nthe cat sat\n\n",
                0,
            ),
            (&["-F", "-c", "-e", ""], "8\n", 0),
            (&["-F", "-o", "-e", "", "-e", "ab"], "ab\n", 0),
            (&["-F", "-w", "-e", ""], "\n", 0),
            (&["-F", "-x", "-e", ""], "\n", 0),
            (
                &["-F", "-n", "-f", "pats"],
                "1:foobar foo\n2:xfoo foox foo\n4:Ab ab AB\n5:foo_bar\n8:foo\n",
                0,
            ),
            (
                &["-F", "-on", "-f", "pats"],
                "1:foo\n1:foo\n2:foo\n2:foox\n2:foo\n4:ab\n5:foo\n8:foo\n",
                0,
            ),
            (&["-F", "-vc", "-f", "pats"], "3\n", 0),
            (&["-F", "-wx", "foo"], "foo\n", 0),
            (
                &["-F", "-wo", "-e", "foo", "-e", "foo foox"],
                "foo\nfoo\nfoo\n",
                0,
            ),
            (
                &["-G", "-o", "-e", "foo", "-e", "o f"],
                &"foo\n".repeat(7),
                0,
            ),
            (&["-E", "-c", "-e", "cat", "-e", "sat"], "1\n", 0),
            (&["-F", "-w", "-e", "bar"], "", 1),
            (
                &["-F", "-w", "-o", "-e", "oo", "-e", "foo"],
                "foo\nfoo\nfoo\n",
                0,
            ),
            (&["-F", "-w", "-e", "foo x"], "", 1),
            (&["-F", "-ow", "-e", "foobar", "-e", "bar"], "foobar\n", 0),
        ];
        for (args, out, status) in cases {
            let mut all: Vec<&str> = args.to_vec();
            all.push("in.txt");
            let (o, e, st) = grep(&w, &all);
            assert_eq!((o.as_str(), e.as_str(), st), (*out, "", *status), "{all:?}");
        }
    }

    #[test]
    fn many_and_long_patterns_stay_linear() {
        // A 40,000-byte pattern searched in its own file, and 10,000 patterns of each kind:
        // linear on the automaton (each took seconds as one regular expression).
        let long: Vec<u8> = (0..40_000u32)
            .map(|i| b"abcdefghij"[(i * 7 % 10) as usize])
            .collect();
        let mut many = Vec::new();
        for i in 0..10_000 {
            many.extend_from_slice(format!("w{i}x\n").as_bytes());
        }
        let mut many_re = Vec::new();
        for i in 0..10_000 {
            many_re.extend_from_slice(format!("w{i}.\n").as_bytes());
        }
        let mut text = Vec::new();
        for i in 0..20_000 {
            text.extend_from_slice(format!("line w{i}x end\n").as_bytes());
        }
        let w = World::new(
            MemFs::rooted("/s")
                .file("/s/p", &long)
                .file("/s/many", &many)
                .file("/s/many_re", &many_re)
                .file("/s/text", &text),
        );
        let start = std::time::Instant::now();
        assert_eq!(grep(&w, &["-c", "-F", "-f", "p", "p"]).0, "1\n");
        assert_eq!(grep(&w, &["-c", "-f", "p", "p"]).0, "1\n");
        assert_eq!(grep(&w, &["-ci", "-F", "-f", "p", "p"]).0, "1\n");
        assert_eq!(grep(&w, &["-cx", "-F", "-f", "p", "p"]).0, "1\n");
        assert_eq!(grep(&w, &["-cw", "-F", "-f", "p", "p"]).0, "1\n");
        assert_eq!(grep(&w, &["-c", "-F", "-f", "many", "text"]).0, "10000\n");
        assert_eq!(grep(&w, &["-cw", "-F", "-f", "many", "text"]).0, "10000\n");
        assert_eq!(grep(&w, &["-c", "-G", "-f", "many", "text"]).0, "10000\n");
        assert_eq!(
            grep(&w, &["-c", "-G", "-f", "many_re", "text"]).0,
            "20000\n"
        );
        // Generous: seconds of work before the automaton.
        assert!(start.elapsed() < std::time::Duration::from_secs(120));
    }
}
