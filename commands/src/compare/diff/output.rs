//! The output formats of GNU diff 3.8 (`normal.c`, `context.c`, `ed.c`, `side.c`, the hunk
//! analysis of `util.c`): each prints an edit script from [`super::analyze`] as hunks, handing
//! them to the executor as they are made ([`Ctx::flush`]).

// The names are the algorithm's own (x, y, d for the diagonal, fmin and fmax, a and b for the
// two files).
#![allow(clippy::many_single_char_names, clippy::similar_names)]

use super::analyze::{Change, Text, White};
use crate::{Ctx, Outcome};

/// Which format, and its settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Normal,
    Unified,
    Context,
    Ed,
    Side,
}

#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub format: Format,
    pub context: usize,
    pub ignore_blank: bool,
    pub white: White,
    pub width: usize,
    pub suppress_common: bool,
}

const OLD: u8 = 1;
const NEW: u8 = 2;

/// `analyze_hunk`: the lines a hunk covers (first > last: none) and whether it deletes (OLD),
/// inserts (NEW), both, or only touches ignorable blank lines (0).
#[allow(clippy::cast_possible_wrap)]
fn analyze(hunk: &[Change], a: &Text, b: &Text, s: &Style) -> (isize, isize, isize, isize, u8) {
    let (Some(first), Some(last)) = (hunk.first(), hunk.last()) else {
        return (0, -1, 0, -1, 0);
    };
    let mut trivial = s.ignore_blank;
    let (mut show_from, mut show_to) = (0, 0);
    for c in hunk {
        show_from += c.deleted;
        show_to += c.inserted;
        if trivial {
            trivial = (c.line0..c.line0 + c.deleted).all(|i| blank(a.line(i), s.white))
                && (c.line1..c.line1 + c.inserted).all(|i| blank(b.line(i), s.white));
        }
    }
    let last0 = (last.line0 + last.deleted) as isize - 1;
    let last1 = (last.line1 + last.inserted) as isize - 1;
    let kind = if trivial {
        0
    } else {
        (if show_from > 0 { OLD } else { 0 }) | (if show_to > 0 { NEW } else { 0 })
    };
    (
        first.line0 as isize,
        last0,
        first.line1 as isize,
        last1,
        kind,
    )
}

/// A line `-B` may ignore: empty, or (with `-b`/`-w`) only white space.
fn blank(line: &[u8], white: White) -> bool {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    if white == White::None {
        body.is_empty()
    } else {
        body.iter()
            .all(|&c| matches!(c, b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r'))
    }
}

/// Writes line `i` of `t` after `flag`, with GNU's note when it lacks its newline.
fn put_line(out: &mut Vec<u8>, t: &Text, i: isize, flag: &[u8]) {
    let Ok(i) = usize::try_from(i) else { return };
    out.extend_from_slice(flag);
    let line = t.line(i);
    if t.incomplete(i) {
        out.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(line));
        out.extend_from_slice(b"\n\\ No newline at end of file\n");
    } else {
        out.extend_from_slice(line);
    }
}

/// A range as normal and ed output show it: `A,B`, or `B` alone when it holds one line or
/// none.
fn range(out: &mut Vec<u8>, a: isize, b: isize, sep: u8) {
    let (ta, tb) = (a + 1, b + 1);
    if tb > ta {
        out.extend_from_slice(format!("{ta}{}{tb}", char::from(sep)).as_bytes());
    } else {
        out.extend_from_slice(tb.to_string().as_bytes());
    }
}

/// The hunk's context lines added, within the files.
#[allow(clippy::cast_possible_wrap)]
fn widen(
    f0: isize,
    l0: isize,
    f1: isize,
    l1: isize,
    ctx: usize,
    a: &Text,
    b: &Text,
) -> (isize, isize, isize, isize) {
    let c = ctx as isize;
    let (v0, v1) = (a.lines() as isize, b.lines() as isize);
    let l0 = if l0 < v0 - c { l0 + c } else { v0 - 1 };
    let l1 = if l1 < v1 - c { l1 + c } else { v1 - 1 };
    ((f0 - c).max(0), l0, (f1 - c).max(0), l1)
}

/// Prints the script; `header` (the `diff -r` line, the file labels) goes before the first
/// hunk. Returns false when the output is no longer read.
pub fn print(
    script: &[Change],
    a: &Text,
    b: &Text,
    s: &Style,
    header: &mut Vec<u8>,
    o: &mut Outcome,
    ctx: &Ctx,
) -> bool {
    match s.format {
        Format::Normal => each_change(script, a, b, s, header, o, ctx, normal_hunk),
        Format::Ed => {
            let rev: Vec<Change> = script.iter().rev().copied().collect();
            each_change(&rev, a, b, s, header, o, ctx, ed_hunk)
        }
        Format::Unified | Format::Context => context_script(script, a, b, s, header, o, ctx),
        Format::Side => side_script(script, a, b, s, header, o, ctx),
    }
}

type HunkFn = fn(&mut Vec<u8>, &[Change], &Text, &Text, &Style) -> bool;

#[allow(clippy::too_many_arguments)]
fn each_change(
    script: &[Change],
    a: &Text,
    b: &Text,
    s: &Style,
    header: &mut Vec<u8>,
    o: &mut Outcome,
    ctx: &Ctx,
    hunk: HunkFn,
) -> bool {
    let mut buf = Vec::new();
    for k in 0..script.len() {
        let one = script.get(k..=k).unwrap_or_default();
        if hunk(&mut buf, one, a, b, s) {
            o.out(std::mem::take(header));
            o.out(std::mem::take(&mut buf));
            if !ctx.flush(o) {
                return false;
            }
        }
        buf.clear();
    }
    true
}

fn normal_hunk(out: &mut Vec<u8>, hunk: &[Change], a: &Text, b: &Text, s: &Style) -> bool {
    let (f0, l0, f1, l1, kind) = analyze(hunk, a, b, s);
    if kind == 0 {
        return false;
    }
    range(out, f0, l0, b',');
    out.push(letter(kind));
    range(out, f1, l1, b',');
    out.push(b'\n');
    if kind & OLD != 0 {
        for i in f0..=l0 {
            put_line(out, a, i, b"< ");
        }
    }
    if kind == OLD | NEW {
        out.extend_from_slice(b"---\n");
    }
    if kind & NEW != 0 {
        for i in f1..=l1 {
            put_line(out, b, i, b"> ");
        }
    }
    true
}

fn letter(kind: u8) -> u8 {
    match kind {
        OLD => b'd',
        NEW => b'a',
        _ => b'c',
    }
}

fn ed_hunk(out: &mut Vec<u8>, hunk: &[Change], a: &Text, b: &Text, s: &Style) -> bool {
    let (f0, l0, f1, l1, kind) = analyze(hunk, a, b, s);
    if kind == 0 {
        return false;
    }
    range(out, f0, l0, b',');
    out.push(letter(kind));
    out.push(b'\n');
    if kind != OLD {
        let mut insert_mode = true;
        for i in f1..=l1 {
            if !insert_mode {
                out.extend_from_slice(b"a\n");
                insert_mode = true;
            }
            let line = usize::try_from(i).map(|i| b.line(i)).unwrap_or_default();
            if line == b".\n" {
                out.extend_from_slice(b"..\n.\ns/.//\n");
                insert_mode = false;
            } else {
                out.extend_from_slice(line);
            }
        }
        if insert_mode {
            out.extend_from_slice(b".\n");
        }
    }
    true
}

/// Unified and context output: changes closer than twice the context (or the context, before
/// an ignorable change) share a hunk (`find_hunk`).
fn context_script(
    script: &[Change],
    a: &Text,
    b: &Text,
    s: &Style,
    header: &mut Vec<u8>,
    o: &mut Outcome,
    ctx: &Ctx,
) -> bool {
    let ignorable: Vec<bool> = script
        .iter()
        .map(|c| s.ignore_blank && analyze(std::slice::from_ref(c), a, b, s).4 == 0)
        .collect();
    let mut buf = Vec::new();
    let mut start = 0;
    while start < script.len() {
        let mut end = start;
        while let (Some(c), Some(next)) = (script.get(end), script.get(end + 1)) {
            let top0 = c.line0 + c.deleted;
            let thresh = if ignorable.get(end + 1).copied().unwrap_or(false) {
                s.context
            } else {
                2 * s.context + 1
            };
            if next.line0 - top0 >= thresh {
                break;
            }
            end += 1;
        }
        let hunk = script.get(start..=end).unwrap_or_default();
        let printed = if s.format == Format::Unified {
            unified_hunk(&mut buf, hunk, a, b, s)
        } else {
            context_hunk(&mut buf, hunk, a, b, s)
        };
        if printed {
            o.out(std::mem::take(header));
            o.out(std::mem::take(&mut buf));
            if !ctx.flush(o) {
                return false;
            }
        }
        buf.clear();
        start = end + 1;
    }
    true
}

fn unified_range(out: &mut Vec<u8>, a: isize, b: isize) {
    let (ta, tb) = (a + 1, b + 1);
    let text = match tb.cmp(&ta) {
        std::cmp::Ordering::Less => format!("{tb},0"),
        std::cmp::Ordering::Equal => tb.to_string(),
        std::cmp::Ordering::Greater => format!("{ta},{}", tb - ta + 1),
    };
    out.extend_from_slice(text.as_bytes());
}

#[allow(clippy::cast_possible_wrap)]
fn unified_hunk(out: &mut Vec<u8>, hunk: &[Change], a: &Text, b: &Text, s: &Style) -> bool {
    let (f0, l0, f1, l1, kind) = analyze(hunk, a, b, s);
    if kind == 0 {
        return false;
    }
    let (f0, l0, f1, l1) = widen(f0, l0, f1, l1, s.context, a, b);
    out.extend_from_slice(b"@@ -");
    unified_range(out, f0, l0);
    out.extend_from_slice(b" +");
    unified_range(out, f1, l1);
    out.extend_from_slice(b" @@\n");
    let (mut i, mut j) = (f0, f1);
    let mut next = hunk.iter().peekable();
    while i <= l0 || j <= l1 {
        match next.peek() {
            Some(c) if i >= c.line0 as isize => {
                for _ in 0..c.deleted {
                    put_line(out, a, i, b"-");
                    i += 1;
                }
                for _ in 0..c.inserted {
                    put_line(out, b, j, b"+");
                    j += 1;
                }
                next.next();
            }
            _ => {
                put_line(out, a, i, b" ");
                i += 1;
                j += 1;
            }
        }
    }
    true
}

fn context_range(out: &mut Vec<u8>, a: isize, b: isize) {
    let (ta, tb) = (a + 1, b + 1);
    if tb <= ta {
        out.extend_from_slice(tb.to_string().as_bytes());
    } else {
        out.extend_from_slice(format!("{ta},{tb}").as_bytes());
    }
}

/// One side of a context hunk, lines `from..=to` of `text`: `side` gives a change's first
/// line, its length on this side and on the other; a line changed on both sides is `! `, on
/// this side only `only`.
#[allow(clippy::cast_possible_wrap)]
fn context_side(
    out: &mut Vec<u8>,
    hunk: &[Change],
    text: &Text,
    from: isize,
    to: isize,
    side: impl Fn(&Change) -> (usize, usize, usize),
    only: &[u8],
) {
    let mut k = 0;
    for i in from..=to {
        while hunk.get(k).is_some_and(|c| {
            let (first, len, _) = side(c);
            ((first + len) as isize) <= i
        }) {
            k += 1;
        }
        let flag: &[u8] = match hunk.get(k).map(&side) {
            Some((first, _, other)) if first as isize <= i => {
                if other > 0 {
                    b"! "
                } else {
                    only
                }
            }
            _ => b"  ",
        };
        put_line(out, text, i, flag);
    }
}

#[allow(clippy::cast_possible_wrap)]
fn context_hunk(out: &mut Vec<u8>, hunk: &[Change], a: &Text, b: &Text, s: &Style) -> bool {
    let (f0, l0, f1, l1, kind) = analyze(hunk, a, b, s);
    if kind == 0 {
        return false;
    }
    let (f0, l0, f1, l1) = widen(f0, l0, f1, l1, s.context, a, b);
    out.extend_from_slice(b"***************\n*** ");
    context_range(out, f0, l0);
    out.extend_from_slice(b" ****\n");
    if kind & OLD != 0 {
        context_side(
            out,
            hunk,
            a,
            f0,
            l0,
            |c| (c.line0, c.deleted, c.inserted),
            b"- ",
        );
    }
    out.extend_from_slice(b"--- ");
    context_range(out, f1, l1);
    out.extend_from_slice(b" ----\n");
    if kind & NEW != 0 {
        context_side(
            out,
            hunk,
            b,
            f1,
            l1,
            |c| (c.line1, c.inserted, c.deleted),
            b"+ ",
        );
    }
    true
}

/// The side-by-side layout (`side.c`): the half width and where the right column starts.
fn side_geometry(width: usize) -> (usize, usize) {
    let t = 8;
    let off = (width + t + 3) / (2 * t) * t;
    let half = off.saturating_sub(3).min(width.saturating_sub(off));
    (half, if half > 0 { off } else { width })
}

/// `tab_from_to`: tabs then spaces from column `from` to `to`.
fn tab_from_to(out: &mut Vec<u8>, mut from: usize, to: usize) -> usize {
    let mut tab = from + 8 - from % 8;
    while tab <= to {
        out.push(b'\t');
        from = tab;
        tab += 8;
    }
    while from < to {
        out.push(b' ');
        from += 1;
    }
    to
}

/// `print_half_line`: the line cut to `bound` columns; returns the column reached.
fn half_line(out: &mut Vec<u8>, line: &[u8], indent: usize, bound: usize) -> usize {
    let (mut in_pos, mut out_pos) = (0usize, 0usize);
    for &c in line {
        match c {
            b'\n' => return out_pos,
            b'\t' => {
                let spaces = 8 - in_pos % 8;
                if in_pos == out_pos {
                    let stop = out_pos + spaces;
                    if stop < bound {
                        out_pos = stop;
                        out.push(c);
                    }
                }
                in_pos += spaces;
            }
            b'\r' => {
                out.push(c);
                tab_from_to(out, 0, indent);
                in_pos = 0;
                out_pos = 0;
            }
            b'\x08' => {
                if in_pos != 0 {
                    in_pos -= 1;
                    if in_pos < bound {
                        if out_pos <= in_pos {
                            while out_pos < in_pos {
                                out.push(b' ');
                                out_pos += 1;
                            }
                        } else {
                            out_pos = in_pos;
                            out.push(c);
                        }
                    }
                }
            }
            0x20..=0x7e => {
                if in_pos < bound {
                    in_pos += 1;
                    out_pos = in_pos;
                    out.push(c);
                } else {
                    in_pos += 1;
                }
            }
            _ => {
                if in_pos < bound {
                    out.push(c);
                }
            }
        }
    }
    out_pos
}

/// `print_1sdiff_line`.
fn side_line(out: &mut Vec<u8>, left: Option<&[u8]>, sep: u8, right: Option<&[u8]>, s: &Style) {
    let (hw, c2o) = side_geometry(s.width);
    let mut col = 0;
    let mut put_newline = false;
    if let Some(l) = left {
        put_newline |= l.last() == Some(&b'\n');
        col = half_line(out, l, 0, hw);
    }
    let mut sep = sep;
    if sep != b' ' {
        col = tab_from_to(out, col, (hw + c2o - 1) / 2) + 1;
        if sep == b'|' && put_newline != right.is_some_and(|r| r.last() == Some(&b'\n')) {
            sep = if put_newline { b'/' } else { b'\\' };
        }
        out.push(sep);
    }
    if let Some(r) = right {
        put_newline |= r.last() == Some(&b'\n');
        if r.first() != Some(&b'\n') && !r.is_empty() {
            col = tab_from_to(out, col, c2o);
            half_line(out, r, col, hw);
        }
    }
    if put_newline {
        out.push(b'\n');
    }
}

/// A line as side-by-side output sees it: without the newline GNU appended.
fn raw(t: &Text, i: usize) -> &[u8] {
    let l = t.line(i);
    if t.incomplete(i) {
        l.strip_suffix(b"\n").unwrap_or(l)
    } else {
        l
    }
}

#[allow(clippy::cast_sign_loss)]
fn side_script(
    script: &[Change],
    a: &Text,
    b: &Text,
    s: &Style,
    header: &mut Vec<u8>,
    o: &mut Outcome,
    ctx: &Ctx,
) -> bool {
    o.out(std::mem::take(header));
    let mut buf = Vec::new();
    let (mut next0, mut next1) = (0usize, 0usize);
    let common = |buf: &mut Vec<u8>, n0: &mut usize, n1: &mut usize, lim0: usize, lim1: usize| {
        if !s.suppress_common {
            while *n0 < lim0 && *n1 < lim1 {
                side_line(buf, Some(raw(a, *n0)), b' ', Some(raw(b, *n1)), s);
                *n0 += 1;
                *n1 += 1;
            }
        }
        *n0 = lim0;
        *n1 = lim1;
    };
    for c in script {
        let (f0, l0, f1, l1, kind) = analyze(std::slice::from_ref(c), a, b, s);
        if kind == 0 {
            continue;
        }
        let (f0, l0, f1, l1) = (
            f0 as usize,
            (l0 + 1) as usize,
            f1 as usize,
            (l1 + 1) as usize,
        );
        common(&mut buf, &mut next0, &mut next1, f0, f1);
        let (mut i, mut j) = (f0, f1);
        if kind == OLD | NEW {
            while i < l0 && j < l1 {
                side_line(&mut buf, Some(raw(a, i)), b'|', Some(raw(b, j)), s);
                i += 1;
                j += 1;
            }
        }
        while j < l1 {
            side_line(&mut buf, None, b'>', Some(raw(b, j)), s);
            j += 1;
        }
        while i < l0 {
            side_line(&mut buf, Some(raw(a, i)), b'<', None, s);
            i += 1;
        }
        next0 = l0;
        next1 = l1;
        o.out(std::mem::take(&mut buf));
        if !ctx.flush(o) {
            return false;
        }
    }
    common(&mut buf, &mut next0, &mut next1, a.lines(), b.lines());
    o.out(buf);
    ctx.flush(o)
}

/// Whether a hunk changes anything `-B` does not ignore.
pub fn has_change(hunk: &[Change], a: &Text, b: &Text, s: &Style) -> bool {
    analyze(hunk, a, b, s).4 != 0
}
