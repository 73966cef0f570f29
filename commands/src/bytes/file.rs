//! `file [-bhiL] [--mime-type] FILE...` (file 5.44), for the common types only: empty,
//! directory, symbolic links (followed with `-L`), text (ASCII, UTF-8, ISO-8859, its line
//! terminators, very long lines), scripts by their `#!` line (shells, Python, Perl, Ruby,
//! Node.js, awk, `env`), JSON, HTML, XML, PDF, PNG, GIF and JPEG images, gzip, bzip2, xz, zip
//! and tar archives, `SQLite` databases, ELF objects (class, type, machine, linking, interpreter,
//! build id, ABI note, stripped), and `data` for the rest. It reads the first 64 KiB of a file,
//! as libmagic does by default (an ELF's headers and a gzip's trailer are read where they are).

use std::ffi::OsString;
use std::io::{Read, Seek, SeekFrom};

use crate::support::args::parse_args;
use crate::{Ctx, FsError, Outcome, Stop};

/// Determine type of FILEs.
#[derive(clap::Parser, Debug)]
#[command(override_usage = "file [OPTION...] [FILE...]")]
#[allow(clippy::struct_excessive_bools)]
pub struct FileArgs {
    /// do not prepend filenames to output lines
    #[arg(short = 'b', long = "brief")]
    brief: bool,
    /// don't follow symlinks (default)
    #[arg(short = 'h', long = "no-dereference", overrides_with = "follow")]
    no_follow: bool,
    /// output MIME type strings (--mime-type and --mime-encoding)
    #[arg(short = 'i', long = "mime")]
    mime: bool,
    /// output the MIME type
    #[arg(long = "mime-type")]
    mime_type: bool,
    /// follow symlinks
    #[arg(short = 'L', long = "dereference", overrides_with = "no_follow")]
    follow: bool,
    files: Vec<OsString>,
}

/// What a file was found to be: the description, the MIME type and its charset.
struct Kind {
    desc: String,
    mime: &'static str,
    charset: Option<&'static str>,
}

fn kind(desc: impl Into<String>, mime: &'static str, charset: Option<&'static str>) -> Kind {
    Kind {
        desc: desc.into(),
        mime,
        charset,
    }
}

/// libmagic's text bytes: printable ASCII and `\a \b \t \n \v \f \r ESC`.
fn is_ascii_text(b: u8) -> bool {
    matches!(b, 7..=13 | 27 | 0x20..=0x7e)
}

/// A minimal JSON validator (libmagic's `is_json` answers for a whole value).
struct Json<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Json<'_> {
    fn ws(&mut self) {
        while self
            .s
            .get(self.i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn value(&mut self) -> bool {
        self.depth += 1;
        if self.depth > 200 {
            return false;
        }
        self.ws();
        let ok = match self.s.get(self.i) {
            Some(b'{') => self.seq(b'}', true),
            Some(b'[') => self.seq(b']', false),
            Some(b'"') => self.string(),
            Some(b't') => self.lit(b"true"),
            Some(b'f') => self.lit(b"false"),
            Some(b'n') => self.lit(b"null"),
            Some(c) if *c == b'-' || c.is_ascii_digit() => self.number(),
            _ => false,
        };
        self.depth -= 1;
        ok
    }

    fn lit(&mut self, l: &[u8]) -> bool {
        if self.s.get(self.i..self.i + l.len()) == Some(l) {
            self.i += l.len();
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> bool {
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            self.i += 1;
        }
        self.i > start
    }

    fn string(&mut self) -> bool {
        self.i += 1;
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'"' => return true,
                b'\\' => self.i += 1,
                _ => {}
            }
        }
        false
    }

    fn seq(&mut self, close: u8, object: bool) -> bool {
        self.i += 1;
        self.ws();
        if self.s.get(self.i) == Some(&close) {
            self.i += 1;
            return true;
        }
        loop {
            if object {
                self.ws();
                if self.s.get(self.i) != Some(&b'"') || !self.string() {
                    return false;
                }
                self.ws();
                if self.s.get(self.i) != Some(&b':') {
                    return false;
                }
                self.i += 1;
            }
            if !self.value() {
                return false;
            }
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(c) if *c == close => {
                    self.i += 1;
                    return true;
                }
                _ => return false,
            }
        }
    }
}

fn is_json(data: &[u8]) -> bool {
    let mut j = Json {
        s: data,
        i: 0,
        depth: 0,
    };
    if !matches!(
        data.iter().find(|c| !c.is_ascii_whitespace()),
        Some(b'{' | b'[')
    ) {
        return false;
    }
    if !j.value() {
        return false;
    }
    j.ws();
    j.i == data.len()
}

fn be32(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, u32::from_be_bytes)
}

fn le32(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, u32::from_le_bytes)
}

fn le16(d: &[u8], at: usize) -> u16 {
    d.get(at..at + 2)
        .and_then(|b| <[u8; 2]>::try_from(b).ok())
        .map_or(0, u16::from_le_bytes)
}

/// The charset `-i` shows for a type found by its magic: the text's, else `binary`.
fn charset_of(data: &[u8]) -> &'static str {
    text_kind(data).and_then(|k| k.charset).unwrap_or("binary")
}

fn magic(data: &[u8], tail: Option<u32>) -> Option<Kind> {
    if let Some((desc, mime)) = super::filemagic::binary(data, tail) {
        return Some(kind(desc, mime, Some("binary")));
    }
    if let Some(rest) = data.strip_prefix(b"%PDF-") {
        let v = |i: usize| char::from(rest.get(i).copied().unwrap_or(b'?'));
        return Some(kind(
            format!("PDF document, version {}.{}", v(0), v(2)),
            "application/pdf",
            Some(charset_of(data)),
        ));
    }
    if perl_line(data) {
        return Some(kind(
            "Perl script text executable",
            "text/x-perl",
            Some(charset_of(data)),
        ));
    }
    if data.starts_with(b"\x89PNG\r\n\x1a\n") && data.get(12..16) == Some(b"IHDR") {
        let depth = data.get(24).copied().unwrap_or(0);
        let color = match data.get(25) {
            Some(0) => format!("{depth}-bit grayscale"),
            Some(2) => format!("{depth}-bit/color RGB"),
            Some(3) => format!("{depth}-bit colormap"),
            Some(4) => format!("{depth}-bit gray+alpha"),
            Some(6) => format!("{depth}-bit/color RGBA"),
            _ => String::new(),
        };
        let interlace = if data.get(28) == Some(&1) {
            "interlaced"
        } else {
            "non-interlaced"
        };
        return Some(kind(
            format!(
                "PNG image data, {} x {}, {color}, {interlace}",
                be32(data, 16),
                be32(data, 20)
            ),
            "image/png",
            Some("binary"),
        ));
    }
    if data.starts_with(b"GIF87a") || data.starts_with(b"GIF89a") {
        let version = String::from_utf8_lossy(data.get(3..6).unwrap_or_default()).into_owned();
        return Some(kind(
            format!(
                "GIF image data, version {version}, {} x {}",
                le16(data, 6),
                le16(data, 8)
            ),
            "image/gif",
            Some("binary"),
        ));
    }
    None
}

/// `#!` followed by optional blanks then `path` (libmagic's `/w` string match).
fn shebang_is(first_line: &[u8], path: &str) -> bool {
    first_line.strip_prefix(b"#!").is_some_and(|r| {
        let r = r.trim_ascii_start();
        r.starts_with(path.as_bytes())
    })
}

/// `#!` lines libmagic's binary test calls Perl (no text notes follow).
fn perl_line(data: &[u8]) -> bool {
    let first_line = data.split(|&b| b == b'\n').next().unwrap_or_default();
    [
        "/bin/perl",
        "/usr/bin/perl",
        "/usr/local/bin/perl",
        "/usr/bin/env perl",
    ]
    .iter()
    .any(|p| shebang_is(first_line, p))
}

/// How a script's kind joins the text description.
enum Style {
    /// `X script text executable`: `X script, ASCII text executable`.
    Text,
    /// `X executable`: `X executable, ASCII text`.
    Suffix,
}

/// The `#!` interpreter's script kind: its description, MIME type and style.
fn script(data: &[u8]) -> Option<(String, &'static str, Style)> {
    const TABLE: &[(&str, &str, &str)] = &[
        ("/bin/sh", "POSIX shell script", "text/x-shellscript"),
        ("/bin/csh", "C shell script", "text/x-shellscript"),
        ("/bin/ksh", "Korn shell script", "text/x-shellscript"),
        ("/bin/tcsh", "Tenex C shell script", "text/x-shellscript"),
        (
            "/usr/bin/tcsh",
            "Tenex C shell script",
            "text/x-shellscript",
        ),
        (
            "/bin/zsh",
            "Paul Falstad's zsh script",
            "text/x-shellscript",
        ),
        (
            "/usr/bin/zsh",
            "Paul Falstad's zsh script",
            "text/x-shellscript",
        ),
        (
            "/usr/local/bin/zsh",
            "Paul Falstad's zsh script",
            "text/x-shellscript",
        ),
        (
            "/usr/bin/env zsh",
            "Paul Falstad's zsh script",
            "text/x-shellscript",
        ),
        ("/bin/nawk", "new awk script", "text/x-nawk"),
        ("/usr/bin/nawk", "new awk script", "text/x-nawk"),
        ("/bin/gawk", "GNU awk script", "text/x-gawk"),
        ("/usr/bin/gawk", "GNU awk script", "text/x-gawk"),
        ("/usr/local/bin/gawk", "GNU awk script", "text/x-gawk"),
        ("/bin/awk", "awk script", "text/x-awk"),
        ("/usr/bin/awk", "awk script", "text/x-awk"),
        (
            "/bin/bash",
            "Bourne-Again shell script",
            "text/x-shellscript",
        ),
        (
            "/usr/bin/bash",
            "Bourne-Again shell script",
            "text/x-shellscript",
        ),
        (
            "/usr/local/bash",
            "Bourne-Again shell script",
            "text/x-shellscript",
        ),
        (
            "/usr/local/bin/bash",
            "Bourne-Again shell script",
            "text/x-shellscript",
        ),
        (
            "/usr/bin/env bash",
            "Bourne-Again shell script",
            "text/x-shellscript",
        ),
        ("/usr/bin/python", "Python script", "text/x-script.python"),
        (
            "/usr/local/bin/python",
            "Python script",
            "text/x-script.python",
        ),
        (
            "/usr/bin/env python",
            "Python script",
            "text/x-script.python",
        ),
        ("/usr/bin/ruby", "Ruby script", "text/x-ruby"),
        ("/usr/local/bin/ruby", "Ruby script", "text/x-ruby"),
        ("/usr/bin/env ruby", "Ruby script", "text/x-ruby"),
    ];
    let first_line = data.split(|&b| b == b'\n').next().unwrap_or_default();
    let rest = first_line.strip_prefix(b"#!")?;
    if let Some((_, what, mime)) = TABLE.iter().find(|(p, _, _)| shebang_is(first_line, p)) {
        return Some(((*what).to_string(), mime, Style::Text));
    }
    if ["/usr/bin/node", "/usr/bin/nodejs", "/usr/bin/env node"]
        .iter()
        .any(|p| shebang_is(first_line, p))
    {
        return Some((
            "Node.js script".to_string(),
            "application/javascript",
            Style::Suffix,
        ));
    }
    // libmagic's last resort: `a REST script`, REST the interpreter (after `env `) and its
    // arguments, read on past blanks and newlines as its `%s` does.
    let after = rest.len() + 2;
    let tail = data.get(after..).unwrap_or_default();
    let body = rest.trim_ascii_start();
    let (words, env): (&[u8], bool) = match body.strip_prefix(b"/usr/bin/env") {
        Some(r) if r.first().is_some_and(u8::is_ascii_whitespace) || r.is_empty() => (r, true),
        _ => (body, false),
    };
    let mut shown = words.trim_ascii_start().to_vec();
    if shown.is_empty() && env {
        let next = tail.trim_ascii_start();
        shown = next
            .split(|&b| b == b'\n')
            .next()
            .unwrap_or_default()
            .to_vec();
    }
    Some((
        format!("a {} script", String::from_utf8_lossy(&shown)),
        "text/plain",
        Style::Text,
    ))
}

/// HTML or XML by libmagic's text tests.
fn markup(data: &[u8]) -> Option<(String, &'static str)> {
    if let Some(r) = data.strip_prefix(b"<?xml") {
        if let Some(v) = r.strip_prefix(b" version=") {
            let v = v.get(1..4).unwrap_or_default();
            return Some((
                format!("XML {} document", String::from_utf8_lossy(v)),
                "text/xml",
            ));
        }
        return Some(("XML document".to_string(), "text/xml"));
    }
    let head = data.get(..4096).unwrap_or(data).to_ascii_lowercase();
    let found = [
        &b"<!doctype html"[..],
        b"<head",
        b"<title",
        b"<html",
        b"<script",
        b"<style",
        b"<table",
        b"<a href=",
    ]
    .iter()
    .any(|n| head.windows(n.len()).any(|w| w == *n));
    found.then(|| ("HTML document".to_string(), "text/html"))
}

fn text_kind(data: &[u8]) -> Option<Kind> {
    let (encoding, charset) = if data.iter().all(|&b| is_ascii_text(b)) {
        ("ASCII", "us-ascii")
    } else if std::str::from_utf8(data).is_ok()
        && data.iter().all(|&b| b >= 0x80 || is_ascii_text(b))
    {
        ("Unicode text, UTF-8", "utf-8")
    } else if data.iter().all(|&b| b >= 0xa0 || is_ascii_text(b)) {
        ("ISO-8859", "iso-8859-1")
    } else {
        return None;
    };
    // Line terminators and the longest line.
    let utf8 = charset == "utf-8";
    let (mut crlf, mut lf, mut cr) = (false, false, false);
    let mut longest = 0usize;
    let mut cur = 0usize;
    let mut i = 0;
    while let Some(&b) = data.get(i) {
        match b {
            b'\r' if data.get(i + 1) == Some(&b'\n') => {
                crlf = true;
                i += 1;
                longest = longest.max(cur);
                cur = 0;
            }
            b'\r' => {
                cr = true;
                longest = longest.max(cur);
                cur = 0;
            }
            b'\n' => {
                lf = true;
                longest = longest.max(cur);
                cur = 0;
            }
            // UTF-8 lines are measured in characters.
            _ if utf8 && b & 0xc0 == 0x80 => {}
            _ => cur += 1,
        }
        i += 1;
    }
    longest = longest.max(cur);
    let mut notes = Vec::new();
    if longest > 300 {
        notes.push(format!("with very long lines ({longest})"));
    }
    let terms: Vec<&str> = [(crlf, "CRLF"), (cr, "CR"), (lf, "LF")]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
    if terms.is_empty() {
        notes.push("with no line terminators".into());
    } else if terms != ["LF"] {
        notes.push(format!("with {} line terminators", terms.join(", ")));
    }
    let text = format!("{encoding} text");
    let (desc, mime) = if let Some((what, mime, style)) = script(data) {
        match style {
            Style::Text => (format!("{what}, {text} executable"), mime),
            Style::Suffix => (format!("{what} executable, {text}"), mime),
        }
    } else if is_json(data) {
        ("JSON text data".to_string(), "application/json")
    } else if let Some((what, mime)) = markup(data) {
        (format!("{what}, {text}"), mime)
    } else {
        (text, "text/plain")
    };
    let desc = std::iter::once(desc)
        .chain(notes)
        .collect::<Vec<_>>()
        .join(", ");
    Some(kind(desc, mime, Some(charset)))
}

fn classify(ctx: &Ctx, name: &OsString, follow: bool) -> Kind {
    let path = ctx.resolve(name);
    let cannot = |e: &FsError| {
        kind(
            format!(
                "cannot open `{}' ({})",
                name.to_string_lossy(),
                e.strerror()
            ),
            "",
            None,
        )
    };
    let meta = match ctx.fs.stat(&path, follow) {
        Ok(m) => m,
        Err(e) => return cannot(&e),
    };
    if meta.is_symlink() {
        let target = ctx
            .fs
            .read_link(&path)
            .map(|t| t.to_string_lossy().into_owned())
            .unwrap_or_default();
        return if ctx.fs.stat(&path, true).is_ok() {
            kind(
                format!("symbolic link to {target}"),
                "inode/symlink",
                Some("binary"),
            )
        } else {
            kind(
                format!("broken symbolic link to {target}"),
                "inode/symlink",
                None,
            )
        };
    }
    if meta.is_dir() {
        return kind("directory", "inode/directory", Some("binary"));
    }
    let mut data = Vec::new();
    let mut tail = None;
    match ctx.fs.open(&path) {
        Ok(mut r) => {
            if let Err(e) = (&mut r).take(64 * 1024).read_to_end(&mut data) {
                return cannot(&FsError::from_io(&e));
            }
            if data.starts_with(b"\x7fELF") {
                // The headers may lie anywhere: read on, up to a bound.
                let _ = r.take(64 << 20).read_to_end(&mut data);
            } else if data.starts_with(b"\x1f\x8b") {
                // gzip's trailer: the original size modulo 2^32.
                let mut t = [0u8; 4];
                if r.seek(SeekFrom::End(-4)).is_ok() && r.read_exact(&mut t).is_ok() {
                    tail = Some(u32::from_le_bytes(t));
                }
            }
        }
        Err(e) => return cannot(&e),
    }
    if data.is_empty() {
        return kind("empty", "inode/x-empty", Some("binary"));
    }
    if let Some(k) = magic(&data, tail) {
        return k;
    }
    if data.len() == 1 {
        return kind(
            "very short file (no magic)",
            "application/octet-stream",
            Some("binary"),
        );
    }
    text_kind(&data).unwrap_or_else(|| kind("data", "application/octet-stream", Some("binary")))
}

pub fn run(args: &[OsString], ctx: &Ctx) -> Result<Outcome, Stop> {
    let a = parse_args::<FileArgs>(args)?;
    if a.files.is_empty() {
        let mut o = Outcome::status(1);
        o.err("Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]\n");
        return Err(Stop::Done(o));
    }
    let shown: Vec<String> = a
        .files
        .iter()
        .map(|f| {
            if f == "-" {
                "/dev/stdin".to_string()
            } else {
                f.to_string_lossy().into_owned()
            }
        })
        .collect();
    let width = shown.iter().map(String::len).max().unwrap_or(0) + 1;
    let mut o = Outcome::ok();
    for (f, name) in a.files.iter().zip(&shown) {
        let k = if f == "-" {
            let mut data = Vec::new();
            if let Ok(r) = crate::support::input::open_input(ctx, f) {
                let _ = r.take(64 * 1024).read_to_end(&mut data);
            }
            if data.is_empty() {
                kind("empty", "inode/x-empty", Some("binary"))
            } else {
                let tail = data
                    .len()
                    .checked_sub(4)
                    .filter(|_| data.starts_with(b"\x1f\x8b"))
                    .map(|at| le32(&data, at));
                magic(&data, tail)
                    .or_else(|| text_kind(&data))
                    .unwrap_or_else(|| kind("data", "application/octet-stream", Some("binary")))
            }
        } else {
            classify(ctx, f, a.follow)
        };
        let text = if k.mime.is_empty() {
            k.desc
        } else if a.mime_type {
            k.mime.to_string()
        } else if a.mime {
            match k.charset {
                Some(c) => format!("{}; charset={c}", k.mime),
                None => k.mime.to_string(),
            }
        } else {
            k.desc
        };
        if a.brief {
            o.out(format!("{text}\n"));
        } else {
            o.out(format!("{:<width$} {text}\n", format!("{name}:")));
        }
        if !ctx.flush(&mut o) {
            break;
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use crate::CommandName::File;
    use crate::testing::memfs::MemFs;
    use crate::testing::world::{World, text};

    fn world() -> World {
        World::new(
            MemFs::rooted("/s")
                .dir("/s/d")
                .file("/s/a", b"abc\n")
                .file("/s/crlf", b"a\r\nb\r\n")
                .file("/s/utf", "h\u{e9}llo\n".as_bytes())
                .file("/s/sh1", b"#!/bin/sh\necho hi\n")
                .file("/s/j.json", b"{\"a\": [1, true]}\n")
                .file("/s/bin4", b"\x01\x02\x03\x04")
                .file("/s/empty", b"")
                .file(
                    "/s/p.png",
                    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x20\x08\x02\0\0\0",
                ),
        )
    }

    #[test]
    fn types_as_file() {
        // Expected outputs from file 5.44.
        let o = world().run(
            File,
            &[
                "a", "crlf", "utf", "sh1", "j.json", "bin4", "empty", "p.png", "d", "nope",
            ],
        );
        assert_eq!(
            text(&o).0,
            "a:      ASCII text\ncrlf:   ASCII text, with CRLF line terminators\nutf:    Unicode text, UTF-8 text\nsh1:    POSIX shell script, ASCII text executable\nj.json: JSON text data\nbin4:   data\nempty:  empty\np.png:  PNG image data, 16 x 32, 8-bit/color RGB, non-interlaced\nd:      directory\nnope:   cannot open `nope' (No such file or directory)\n"
        );
        let o = world().run(File, &["-i", "a", "utf", "j.json"]);
        assert_eq!(
            text(&o).0,
            "a:      text/plain; charset=us-ascii\nutf:    text/plain; charset=utf-8\nj.json: application/json; charset=us-ascii\n"
        );
        assert_eq!(text(&world().run(File, &["-b", "d"])).0, "directory\n");
    }

    #[test]
    fn formats_as_file() {
        // Expected outputs from file 5.44.
        let w = || {
            World::new(
                MemFs::rooted("/s")
                    .file("/s/pl", b"#!/usr/bin/perl\nprint 1;\n")
                    .file("/s/rb", b"#!/usr/bin/env ruby\np 1\n")
                    .file("/s/js", b"#!/usr/bin/env node\nx\n")
                    .file("/s/env", b"#!/usr/bin/env -S perl -w\nx\n")
                    .file("/s/h", b"<!DOCTYPE html>\n<html></html>\n")
                    .file("/s/x", b"<?xml version=\"1.0\"?>\n<a/>\n")
                    .file("/s/p", b"%PDF-1.4\n")
                    .file("/s/bz", b"BZh91AY&SY")
                    .file(
                        "/s/j",
                        b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00",
                    ),
            )
        };
        let o = w().run(
            File,
            &["-b", "pl", "rb", "js", "env", "h", "x", "p", "bz", "j"],
        );
        assert_eq!(
            text(&o).0,
            "Perl script text executable\nRuby script, ASCII text executable\nNode.js script executable, ASCII text\na -S perl -w script, ASCII text executable\nHTML document, ASCII text\nXML 1.0 document, ASCII text\nPDF document, version 1.4\nbzip2 compressed data, block size = 900k\nJPEG image data, JFIF standard 1.01, aspect ratio, density 1x1, segment length 16\n"
        );
        let o = w().run(
            File,
            &["-b", "--mime-type", "pl", "rb", "js", "h", "x", "p", "j"],
        );
        assert_eq!(
            text(&o).0,
            "text/x-perl\ntext/x-ruby\napplication/javascript\ntext/html\ntext/xml\napplication/pdf\nimage/jpeg\n"
        );
    }
}
