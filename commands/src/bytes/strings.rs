//! `strings [option(s)] [file(s)]` (binutils 2.40): the runs of at least 4 (`-n N`, `-N`)
//! printable characters (ASCII and tab; `-e S` adds bytes above 127, `-w` all whitespace)
//! in each file, scanned whole (`-a`, the default), each with its offset (`-t d|o|x`,
//! `-o`) or file name (`-f`). Streams.

use std::ffi::{OsStr, OsString};
use std::io::Read;

use crate::support::input::open_input;
use crate::{Ctx, FsError, Outcome, Stop};

#[allow(clippy::struct_excessive_bools)]
struct Opts {
    min: usize,
    radix: Option<u8>,
    names: bool,
    eight_bit: bool,
    whitespace: bool,
    sep: Option<Vec<u8>>,
    files: Vec<OsString>,
}

fn usage() -> Stop {
    let mut o = Outcome::status(1);
    o.err("Usage: strings [option(s)] [file(s)]\n");
    Stop::Done(o)
}

fn fail(msg: &str) -> Stop {
    let mut o = Outcome::status(1);
    o.err(format!("strings: {msg}\n"));
    Stop::Done(o)
}

fn parse_min(v: &str) -> Result<usize, Stop> {
    let n: i64 = v
        .parse()
        .map_err(|_| fail(&format!("invalid integer argument {v}")))?;
    if n < 1 {
        return Err(fail(&format!("invalid minimum string length {n}")));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

#[allow(clippy::too_many_lines)]
fn parse(args: &[OsString]) -> Result<Opts, Stop> {
    let mut o = Opts {
        min: 4,
        radix: None,
        names: false,
        eight_bit: false,
        whitespace: false,
        sep: None,
        files: Vec::new(),
    };
    let strs: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut i = 0;
    let mut only_operands = false;
    while let Some(arg) = strs.get(i) {
        i += 1;
        if only_operands || arg == "-" || !arg.starts_with('-') {
            o.files.push(args.get(i - 1).cloned().unwrap_or_default());
            continue;
        }
        if arg == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let mut take = || -> Result<String, Stop> {
                if let Some(v) = &val {
                    return Ok(v.clone());
                }
                let v = strs.get(i).cloned().ok_or_else(usage)?;
                i += 1;
                Ok(v)
            };
            match name {
                "all" | "data" => {}
                "print-file-name" => o.names = true,
                "include-all-whitespace" => o.whitespace = true,
                "bytes" => o.min = parse_min(&take()?)?,
                "radix" => {
                    o.radix = Some(match take()?.as_str() {
                        "o" => b'o',
                        "d" => b'd',
                        "x" => b'x',
                        _ => return Err(usage()),
                    });
                }
                "encoding" => match take()?.as_str() {
                    "s" => o.eight_bit = false,
                    "S" => o.eight_bit = true,
                    _ => return Err(usage()),
                },
                "output-separator" => o.sep = Some(take()?.into_bytes()),
                _ => return Err(usage()),
            }
            continue;
        }
        let letters = arg.get(1..).unwrap_or("");
        // A number option: -N is -n N.
        if letters.chars().all(|c| c.is_ascii_digit()) {
            o.min = parse_min(letters)?;
            continue;
        }
        for (pos, c) in letters.char_indices() {
            let rest = letters.get(pos + 1..).unwrap_or("");
            let mut value = || -> Result<String, Stop> {
                if !rest.is_empty() {
                    return Ok(rest.to_string());
                }
                let v = strs.get(i).cloned().ok_or_else(usage)?;
                i += 1;
                Ok(v)
            };
            match c {
                'a' | 'd' => {}
                'f' => o.names = true,
                'w' => o.whitespace = true,
                'o' => o.radix = Some(b'o'),
                'n' => {
                    o.min = parse_min(&value()?)?;
                    break;
                }
                't' => {
                    o.radix = Some(match value()?.as_str() {
                        "o" => b'o',
                        "d" => b'd',
                        "x" => b'x',
                        _ => return Err(usage()),
                    });
                    break;
                }
                'e' => {
                    match value()?.as_str() {
                        "s" => o.eight_bit = false,
                        "S" => o.eight_bit = true,
                        _ => return Err(usage()),
                    }
                    break;
                }
                's' => {
                    o.sep = Some(value()?.into_bytes());
                    break;
                }
                _ => return Err(usage()),
            }
        }
    }
    Ok(o)
}

fn printable(b: u8, opts: &Opts) -> bool {
    (0x20..0x7f).contains(&b)
        || b == b'\t'
        || (opts.eight_bit && b >= 0x80)
        || (opts.whitespace && matches!(b, b'\n' | b'\r' | 0x0b | 0x0c))
}

/// Scans one input; `Ok(false)` when nobody reads the output.
fn scan(
    r: &mut dyn Read,
    label: &[u8],
    opts: &Opts,
    ctx: &Ctx,
    o: &mut Outcome,
) -> Result<bool, FsError> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut run: Vec<u8> = Vec::new();
    let mut run_start = 0u64;
    let mut pos = 0u64;
    let mut out = Vec::new();
    let emit = |run: &[u8], start: u64, out: &mut Vec<u8>| {
        if opts.names {
            out.extend_from_slice(label);
            out.extend_from_slice(b": ");
        }
        match opts.radix {
            Some(b'o') => out.extend_from_slice(format!("{start:7o} ").as_bytes()),
            Some(b'd') => out.extend_from_slice(format!("{start:7} ").as_bytes()),
            Some(_) => out.extend_from_slice(format!("{start:7x} ").as_bytes()),
            None => {}
        }
        out.extend_from_slice(run);
        match &opts.sep {
            Some(s) => out.extend_from_slice(s),
            None => out.push(b'\n'),
        }
    };
    loop {
        if ctx.expired() {
            return Ok(false);
        }
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FsError::from_io(&e)),
        };
        for &b in buf.get(..n).unwrap_or_default() {
            if printable(b, opts) {
                if run.is_empty() {
                    run_start = pos;
                }
                run.push(b);
            } else {
                if run.len() >= opts.min {
                    emit(&run, run_start, &mut out);
                }
                run.clear();
            }
            pos += 1;
        }
        o.out(std::mem::take(&mut out));
        if !ctx.flush(o) {
            return Ok(false);
        }
    }
    if run.len() >= opts.min {
        emit(&run, run_start, &mut out);
    }
    o.out(out);
    Ok(true)
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let opts = parse(args)?;
    let mut o = Outcome::ok();
    let mut status = 0;
    let files = if opts.files.is_empty() {
        vec![OsString::from("-")]
    } else {
        opts.files.clone()
    };
    for f in &files {
        let label: &[u8] = if opts.files.is_empty() {
            b"{standard input}"
        } else {
            f.as_encoded_bytes()
        };
        if f != OsStr::new("-") && ctx.fs.stat(&ctx.resolve(f), true).is_ok_and(|m| m.is_dir()) {
            o.err(format!(
                "strings: Warning: '{}' is a directory\n",
                f.to_string_lossy()
            ));
            status = 1;
            continue;
        }
        let result = open_input(ctx, f).and_then(|mut r| scan(&mut *r, label, &opts, ctx, &mut o));
        match result {
            Ok(true) => {}
            Ok(false) => break,
            Err(FsError::NotFound) => {
                o.err(format!(
                    "strings: '{}': No such file\n",
                    f.to_string_lossy()
                ));
                status = 1;
            }
            Err(e) => {
                o.err(format!(
                    "strings: {}: {}\n",
                    f.to_string_lossy(),
                    e.strerror()
                ));
                status = 1;
            }
        }
    }
    Ok(o.with_status(status))
}

#[cfg(test)]
mod tests {
    use crate::CommandName::Strings;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    const S1: &[u8] = b"ab\0abcd\tx\x01hello world\x80\xe9more text\nline2 ok\n";

    fn strings(args: &[&str]) -> (String, String, i32) {
        let w = World::new(MemFs::rooted("/s").file("/s/s1", S1).dir("/s/d")).stdin(b"abcdefg");
        text(&w.run(Strings, args))
    }

    #[test]
    fn finds_runs_as_binutils() {
        // Expected outputs from binutils 2.40's strings.
        assert_eq!(
            strings(&["s1"]).0,
            "abcd\tx\nhello world\nmore text\nline2 ok\n"
        );
        assert_eq!(
            strings(&["-n", "2", "s1"]).0,
            "ab\nabcd\tx\nhello world\nmore text\nline2 ok\n"
        );
        assert_eq!(
            strings(&["-to", "-f", "s1"]).0,
            "s1:       3 abcd\tx\ns1:      12 hello world\ns1:      27 more text\ns1:      41 line2 ok\n"
        );
        assert_eq!(strings(&["-3"]).0, "abcdefg\n");
    }

    #[test]
    fn errors() {
        assert_eq!(
            strings(&["nope", "d"]),
            (
                String::new(),
                "strings: 'nope': No such file\nstrings: Warning: 'd' is a directory\n".into(),
                1
            )
        );
        assert_eq!(
            strings(&["-n", "0", "s1"]).1,
            "strings: invalid minimum string length 0\n"
        );
    }
}
